// mylib::Params: a struct a kernel of cxx.cu takes by value and by pointer, and the C++ tests
// pass as it is (NAME.h's tlc_record), since this header declares it for both sides.
#ifndef TLC_RUNTIME_TESTS_CXX_PARAMS_H
#define TLC_RUNTIME_TESTS_CXX_PARAMS_H

#include <cuda_fp16.h>

namespace mylib {

struct Inner {
  float x;
  int y;
};

struct Params {
  Inner inner;
  __half h;
  short s;
  float scale;
};

} // namespace mylib

#endif
