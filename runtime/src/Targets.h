// Which entry of a device image a device runs, by the driver's rules, so that messages and
// tlc_NAME_image_target can say it before the driver is asked: SASS for a matching arch first,
// else the best PTX, which the driver JIT-compiles (once per process; CUDA's JIT cache keeps the
// result across processes).
#pragma once

#include "tlc/runtime.h"

#include <cstddef>

namespace tlc::runtime {

// Whether `target` can run on a device of compute capability major.minor:
//   SASS sm_XY   runs on X.y for y >= Y (same major);
//   SASS sm_XYf  likewise (the family of X);     SASS sm_XYa only on X.Y exactly;
//   PTX compute_XY runs (JIT) on every device of X.Y or newer;
//   PTX compute_XYf on the family X, minor >= Y; PTX compute_XYa only on X.Y exactly.
bool runsOn(const ImageTarget& target, int major, int minor);

// The index of the target the driver would give a device of major.minor: the runnable SASS
// with the highest arch, else the runnable PTX with the highest arch; -1 if none runs there.
int chooseTarget(const ImageTarget* targets, int count, int major, int minor);

// "sm_80 (SASS), compute_80 (PTX)": what an image holds, for messages.
void describeTargets(const ImageTarget* targets, int count, char* out, size_t size);

} // namespace tlc::runtime
