// TLC_TMA / TLC_TMA_IM2COL: the annotation grammar and what tlc can check of a descriptor before
// run time. The grammar (docs/tma.md) is a contract: extend it, never change it.
//
//   TLC_TMA("dtype=bf16 box=64x64 swizzle=128B")
//   TLC_TMA("dtype=f32 box=32x8x4 elemstrides=1x1x2 l2=256B oob=nan interleave=none")
//   TLC_TMA_IM2COL("dtype=f16 rank=4 channels=64 pixels=128 lower=-1x-1 upper=1x1")
//
// Space-separated key=value pairs; lists are `x`-separated, innermost dimension first, as in
// the driver's arrays. A value is an integer or a parenthesised integer expression, which may
// use macros, constexpr names and the kernel's template parameters: `box=(BK)x(BM)`.
#pragma once

#include "model/Model.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tlc {

using ValueEvaluator =
    std::function<bool(llvm::StringRef text, int64_t& value, std::string& error)>;

// Fills `spec` (mode and text already set) from its text and checks it against the driver's
// rules for descriptors. Returns every problem found, each a sentence naming the key and rule.
std::vector<std::string> parseTensorMapSpec(TensorMapSpec& spec, const ValueEvaluator& evaluate);

} // namespace tlc
