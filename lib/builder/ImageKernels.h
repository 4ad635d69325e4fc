// Kernels known from the device image alone. nvcc is the compiler of record: every entry of the
// image gets a launcher, whether or not Clang's parse saw its kernel (code under a macro only
// nvcc defines) and whether or not tlc could tell which entry a kernel Clang saw is (a symbol
// nvcc spells its own way). Such a kernel's launcher is made from what the image and the symbol
// say: its name and parameter types from the demangled symbol, each parameter's size from the
// image's parameter info. A parameter whose demangled type is a plain pointer or a builtin scalar
// of the image's size is typed so; any other is passed as its bytes (ParamKind::Bytes).
//
// Library entries (Module::otherEntries: kernels of system headers, CUB's) are the exception:
// they keep no launcher (ImageCheck.h adopts them first).
#pragma once

#include "builder/DeviceImage.h"
#include "model/Model.h"

#include <string>
#include <vector>

namespace tlc {

// The kernel nvcc emitted as `entry` (its parameters as the image lays them out) from `input`.
// `declaration`, a kernel of the same qualified name the parse saw but could not match to an
// entry, gives its location and its parameters' names: both come from the kernel's definition,
// which every instance of a template shares. Kernel::fromImage is set.
Kernel kernelFromImage(const ImageEntry& entry, const std::string& input,
                       const Kernel* declaration);

// The qualified name of the function `symbol` names, without template arguments and without
// nvcc's marks (`ns::(anonymous namespace)::k`): what Kernel::name says of a kernel Clang saw.
// The symbol itself where it does not demangle (extern "C").
std::string qualifiedNameOf(const std::string& symbol);

// The alignment an untyped parameter's byte struct gets: `align` (0: unknown, as in cubins:
// the largest power of two up to 16 that divides `offset`, counted from the constant bank's
// start), lowered until it divides `size`, since a C struct's size is a multiple of its
// alignment.
uint64_t bytesAlignment(uint64_t size, uint64_t offset, uint64_t align);

} // namespace tlc
