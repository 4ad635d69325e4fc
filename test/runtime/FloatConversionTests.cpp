// tlc/launcher.h's 16-bit float conversions for C callers, bit for bit against the CUDA
// toolkit's host conversions: every half and bfloat16 to float, and floats around every rounding
// boundary (exact ties, one ulp either side), subnormals, infinities, NaNs and a sweep of the rest.
#include <tlc/launcher.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
uint16_t cudaHalfBits(float value) {
  return static_cast<__half_raw>(__float2half_rn(value)).x;
}
uint16_t cudaBfloat16Bits(float value) {
  return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(value)).x;
}

// Both signs of: each value, its neighbours one and two ulps away.
void addWithNeighbours(std::vector<float>& values, float value) {
  for (float v : {value, -value}) {
    values.push_back(v);
    float below = v, above = v;
    for (int step = 0; step < 2; ++step) {
      below = std::nextafter(below, -std::numeric_limits<float>::infinity());
      above = std::nextafter(above, std::numeric_limits<float>::infinity());
      values.push_back(below);
      values.push_back(above);
    }
  }
}

// Floats where a conversion to 16 bits decides something: every value the 16-bit type holds
// (mirror_to_float of each of its bit patterns) and the exact midpoint between each two
// neighbours, with their neighbours; the specials; every 4099th float bit pattern.
template <typename ToFloat> std::vector<float> edgeCases(ToFloat toFloat) {
  std::vector<float> values;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float value = toFloat(static_cast<uint16_t>(bits));
    if (std::isnan(value))
      continue;
    addWithNeighbours(values, value);
    float next = toFloat(static_cast<uint16_t>(bits + 1));
    if (bits + 1 < 0x10000 && std::isfinite(value) && std::isfinite(next) &&
        std::signbit(value) == std::signbit(next))
      addWithNeighbours(values, static_cast<float>((double(value) + double(next)) / 2));
  }
  for (uint32_t bits : {0x7f800000u, 0x7f800001u, 0x7fc00000u, 0x7fffffffu, 0x7fa00000u,
                        0x00000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu})
    for (uint32_t sign : {0u, 0x80000000u})
      values.push_back(floatOf(bits | sign));
  for (uint64_t bits = 0; bits <= 0xffffffffull; bits += 4099)
    values.push_back(floatOf(static_cast<uint32_t>(bits)));
  return values;
}

// Doubles where a conversion to 16 bits decides something: the exact midpoint between each two
// neighbours of the 16-bit type, and the doubles one ulp either side of it (which a conversion
// rounding to float first would round onto the midpoint, then to even: the wrong way for one of
// them); every value and the specials; a sweep of double bit patterns.
template <typename ToFloat> std::vector<double> doubleEdgeCases(ToFloat toFloat) {
  std::vector<double> values;
  for (uint32_t bits = 0; bits < 0xffff; ++bits) {
    double value = toFloat(static_cast<uint16_t>(bits));
    double next = toFloat(static_cast<uint16_t>(bits + 1));
    if (std::isnan(value))
      continue;
    for (double v : {value, -value})
      values.push_back(v);
    if (!std::isfinite(value) || !std::isfinite(next) || std::signbit(value) != std::signbit(next))
      continue;
    double midpoint = (value + next) / 2;
    for (double v : {midpoint, -midpoint}) {
      values.push_back(v);
      values.push_back(std::nextafter(v, -std::numeric_limits<double>::infinity()));
      values.push_back(std::nextafter(v, std::numeric_limits<double>::infinity()));
    }
  }
  for (double v :
       {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::max(), 1e300, 3.5e38,
        1e-300, std::numeric_limits<double>::denorm_min(), 0.0, std::nan("")})
    for (double sign : {1.0, -1.0})
      values.push_back(v * sign);
  for (uint64_t bits = 0; bits < (1ull << 63); bits += 0x00000d1b71758e21ull) {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    values.push_back(value);
  }
  return values;
}

} // namespace

TEST_CASE("tlc_half_from_float and tlc_half_to_float match CUDA's host conversions bit for bit") {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    tlc_half mirror;
    mirror.bits = static_cast<uint16_t>(bits);
    __half_raw raw;
    raw.x = mirror.bits;
    uint32_t ours = bitsOf(tlc_half_to_float(mirror)), cuda = bitsOf(__half2float(__half(raw)));
    if (ours != cuda)
      FAIL_CHECK("to float, half " << std::hex << bits << ": " << ours << " != CUDA's " << cuda);
  }
  std::vector<float> values =
      edgeCases([](uint16_t bits) { return __half2float(__half(__half_raw{bits})); });
  size_t mismatches = 0;
  for (float value : values) {
    uint16_t ours = tlc_half_from_float(value).bits, cuda = cudaHalfBits(value);
    if (ours != cuda && ++mismatches <= 10)
      FAIL_CHECK("from float " << std::hex << bitsOf(value) << ": " << ours << " != CUDA's "
                               << cuda);
  }
  CHECK(mismatches == 0);
  CHECK(values.size() > 1000000);
  // NaN stays NaN, and the rounding the sweep covers includes subnormals and overflow.
  CHECK(std::isnan(tlc_half_to_float(tlc_half_from_float(std::nanf("")))));
  CHECK(tlc_half_from_float(5.960464477539063e-08f).bits == 0x0001); // 2^-24, the least
  CHECK(tlc_half_from_float(65520.0f).bits == 0x7c00);               // ties up to infinity
  CHECK(tlc_half_from_float(-1.0f).bits == 0xbc00);
}

TEST_CASE("tlc_bfloat16_from_float and tlc_bfloat16_to_float match CUDA's host conversions") {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    tlc_bfloat16 value;
    value.bits = static_cast<uint16_t>(bits);
    __nv_bfloat16_raw raw;
    raw.x = value.bits;
    uint32_t ours = bitsOf(tlc_bfloat16_to_float(value)),
             cuda = bitsOf(__bfloat162float(__nv_bfloat16(raw)));
    if (ours != cuda)
      FAIL_CHECK("to float, bf16 " << std::hex << bits << ": " << ours << " != CUDA's " << cuda);
  }
  std::vector<float> values = edgeCases(
      [](uint16_t bits) { return __bfloat162float(__nv_bfloat16(__nv_bfloat16_raw{bits})); });
  size_t mismatches = 0;
  for (float value : values) {
    uint16_t ours = tlc_bfloat16_from_float(value).bits, cuda = cudaBfloat16Bits(value);
    if (ours != cuda && ++mismatches <= 10)
      FAIL_CHECK("from float " << std::hex << bitsOf(value) << ": " << ours << " != CUDA's "
                               << cuda);
  }
  CHECK(mismatches == 0);
  CHECK(std::isnan(tlc_bfloat16_to_float(tlc_bfloat16_from_float(-std::nanf("")))));
  CHECK(tlc_bfloat16_from_float(floatOf(0x3f808000u)).bits == 0x3f80); // a tie, to even
  CHECK(tlc_bfloat16_from_float(floatOf(0x3f818000u)).bits == 0x3f82); // a tie, to even
}

TEST_CASE("in C++, tlc_half and tlc_bfloat16 convert from float and double as cuda_fp16.h does") {
  std::vector<float> floats =
      edgeCases([](uint16_t bits) { return __half2float(__half(__half_raw{bits})); });
  size_t mismatches = 0;
  for (float value : floats) {
    tlc_half ours = value; // float -> tlc_half, the constructor C++ callers meet
    if (ours.bits != cudaHalfBits(value) && ++mismatches <= 10)
      FAIL_CHECK("tlc_half(float " << std::hex << bitsOf(value) << ") is " << ours.bits);
  }
  std::vector<double> doubles =
      doubleEdgeCases([](uint16_t bits) { return __half2float(__half(__half_raw{bits})); });
  for (double value : doubles) {
    tlc_half ours = value;
    uint16_t cuda = static_cast<__half_raw>(__double2half(value)).x;
    if (ours.bits != cuda && ++mismatches <= 10)
      FAIL_CHECK("tlc_half(double " << value << ") is " << std::hex << ours.bits << ", CUDA's "
                                    << cuda);
  }
  std::vector<double> bfloatDoubles = doubleEdgeCases(
      [](uint16_t bits) { return __bfloat162float(__nv_bfloat16(__nv_bfloat16_raw{bits})); });
  for (double value : bfloatDoubles) {
    tlc_bfloat16 ours = value;
    uint16_t cuda = static_cast<__nv_bfloat16_raw>(__double2bfloat16(value)).x;
    if (ours.bits != cuda && ++mismatches <= 10)
      FAIL_CHECK("tlc_bfloat16(double " << value << ") is " << std::hex << ours.bits << ", CUDA's "
                                        << cuda);
  }
  for (float value : floats) {
    tlc_bfloat16 ours = value;
    if (ours.bits != cudaBfloat16Bits(value) && ++mismatches <= 10)
      FAIL_CHECK("tlc_bfloat16(float " << std::hex << bitsOf(value) << ") is " << ours.bits);
  }
  CHECK(mismatches == 0);
  CHECK(doubles.size() > 300000);
  // The CUDA types themselves are their bits.
  tlc_half fromCuda = __float2half(-2.0f);
  CHECK(fromCuda.bits == 0xc000);
  // A double one ulp above a half midpoint rounds up, though as a float it is the midpoint.
  double aboveTie = std::nextafter(1.0 + 1.0 / 2048, 2.0); // between 1 and 1 + 2^-10
  tlc_half rounded = aboveTie;
  CHECK(rounded.bits == 0x3c01);
}
