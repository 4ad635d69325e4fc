// What NAME.h's C++ launchers must refuse at compile time, one case per TLC_CASE (CMakeLists.txt
// compiles each and expects the error named there): a type sized and aligned as the kernel's
// struct whose fields lie elsewhere, or are missing; a pointer to such a type; an int16_t for a
// __half; a pointer to const structs where the kernel writes through its pointer.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cxx.h"
#include "cxx_params.h"

#include <cstdint>

namespace other {
struct Reordered { // mylib::Params's fields, scale and inner swapped: the same size and alignment
  float scale;
  __half h;
  short s;
  mylib::Inner inner;
};
struct Unrelated { // the same size and alignment, none of the fields
  float a, b, c, d;
};
struct InnerSwapped {
  int y;
  float x;
};
struct DeepDifference { // mylib::Params but for its Inner, whose fields are swapped
  InnerSwapped inner;
  __half h;
  short s;
  float scale;
};
} // namespace other

tlc_status refused() {
  mylib::Params out[1];
#if TLC_CASE == 1
  other::Reordered params = {};
  return tlc::cxx::with_params({1, 1}, params, out, out, 1.0f, 1.0f, 1);
#elif TLC_CASE == 2
  other::Unrelated params = {};
  return tlc::cxx::with_params({1, 1}, params, out, out, 1.0f, 1.0f, 1);
#elif TLC_CASE == 3
  other::Reordered many[1] = {};
  return tlc::cxx::with_params({1, 1}, out[0], many, out, 1.0f, 1.0f, 1);
#elif TLC_CASE == 4
  other::DeepDifference params = {};
  return tlc::cxx::with_params({1, 1}, params, out, out, 1.0f, 1.0f, 1);
#elif TLC_CASE == 5
  int16_t bits = 0x3c00;
  return cxx_with_params(nullptr, cxx_mylib_Params(), nullptr, nullptr, bits, 1.0f, 1);
#elif TLC_CASE == 6
  const mylib::Params* readOnly = out;
  return tlc::cxx::with_params({1, 1}, out[0], out, readOnly, 1.0f, 1.0f, 1);
#else
  return tlc::cxx::with_params({1, 1}, out[0], out, out, 1.0f, 1.0f, 1); // compiles
#endif
}
