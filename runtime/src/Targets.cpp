// The driver's rules for choosing SASS or PTX from a fat binary, as pure functions.
#include "Targets.h"

#include <cstdio>

namespace tlc::runtime {

bool runsOn(const ImageTarget& target, int major, int minor) {
  int targetMajor = static_cast<int>(target.arch / 10);
  int targetMinor = static_cast<int>(target.arch % 10);
  if (target.variant == 'a')
    return major == targetMajor && minor == targetMinor;
  if (target.variant == 'f' || !target.ptx)
    return major == targetMajor && minor >= targetMinor;
  return major > targetMajor || (major == targetMajor && minor >= targetMinor);
}

int chooseTarget(const ImageTarget* targets, int count, int major, int minor) {
  int best = -1;
  for (int i = 0; i < count; ++i) {
    const ImageTarget& target = targets[i];
    if (!runsOn(target, major, minor))
      continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const ImageTarget& chosen = targets[best];
    // SASS beats PTX; then the higher arch; then arch-specific over portable code.
    if (chosen.ptx != target.ptx) {
      if (!target.ptx)
        best = i;
    } else if (target.arch != chosen.arch) {
      if (target.arch > chosen.arch)
        best = i;
    } else if (target.variant == 'a' && chosen.variant != 'a') {
      best = i;
    }
  }
  return best;
}

void describeTargets(const ImageTarget* targets, int count, char* out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < count && used < size; ++i) {
    int written = std::snprintf(out + used, size - used, "%s%s (%s)", i ? ", " : "",
                                targets[i].name, targets[i].ptx ? "PTX" : "SASS");
    if (written < 0)
      return;
    used += static_cast<size_t>(written);
  }
}

} // namespace tlc::runtime
