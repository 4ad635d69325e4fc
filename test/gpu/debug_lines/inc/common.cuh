// test/gpu debug_lines: the header whose line cuda-gdb must show from a -G module built in this
// folder (scripts/gpu-test runs the debugger here: the line table names /proc/self/cwd/inc/...).
#pragma once

static __device__ __noinline__ float twice_plus(float x, float y) {
  float doubled = 2.0f * x; // debug_lines: the header's own line
  return doubled + y;
}
