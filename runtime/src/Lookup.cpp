// Kernels by index and by name, for callers that look kernels up by string: an exact symbol or
// launcher name wins; otherwise the kernels whose symbol or launcher name contains the pattern,
// where a base name beats its _N variants (main_kernel over main_kernel_1). Needs no driver.
#include "Errors.h"
#include "Heap.h"

#include "tlc/runtime.h"

#include <cstdio>
#include <cstring>

namespace tlc::runtime {

namespace {

// Whether `name` is `base` followed by "_" and digits.
bool isNumberedVariant(const char* name, const char* base) {
  size_t length = std::strlen(base);
  if (std::strncmp(name, base, length) != 0 || name[length] != '_' || !name[length + 1])
    return false;
  for (const char* c = name + length + 1; *c; ++c)
    if (*c < '0' || *c > '9')
      return false;
  return true;
}

bool contains(const KernelInfo& info, const char* pattern) {
  return std::strstr(info.symbol, pattern) || std::strstr(info.launcher, pattern);
}

int exactMatch(const Module& module, const char* pattern) {
  for (int kernel = 0; kernel < module.kernelCount; ++kernel)
    if (std::strcmp(module.kernels[kernel].symbol, pattern) == 0 ||
        std::strcmp(module.kernels[kernel].launcher, pattern) == 0)
      return kernel;
  return -1;
}

// Keeps the candidates that are not a numbered variant of another candidate; returns how many.
int dropVariants(const Module& module, int* candidates, int count) {
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    const KernelInfo& info = module.kernels[candidates[i]];
    bool variant = false;
    for (int j = 0; j < count && !variant; ++j) {
      const KernelInfo& other = module.kernels[candidates[j]];
      variant = i != j && (isNumberedVariant(info.launcher, other.launcher) ||
                           isNumberedVariant(info.symbol, other.symbol));
    }
    if (!variant)
      candidates[kept++] = candidates[i];
  }
  return kept;
}

} // namespace

int kernelCount(const Module& module) {
  return module.kernelCount;
}

const char* kernelName(const Module& module, int kernel) {
  return kernel >= 0 && kernel < module.kernelCount ? module.kernels[kernel].symbol : nullptr;
}

tlc_status findKernel(const Module& module, const char* pattern, int* found) {
  if (!pattern || !found)
    return fail(TLC_ERROR_INVALID_VALUE, "tlc_%s_find_kernel: pattern and result must not be NULL",
                module.name);
  int exact = exactMatch(module, pattern);
  if (exact >= 0) {
    *found = exact;
    return TLC_SUCCESS;
  }
  HeapArray<int> candidates(makeArray<int>(static_cast<size_t>(module.kernelCount) + 1));
  if (!candidates)
    return fail(TLC_ERROR_DRIVER, "%s: out of host memory", module.name);
  int count = 0;
  for (int kernel = 0; kernel < module.kernelCount; ++kernel)
    if (contains(module.kernels[kernel], pattern))
      candidates[count++] = kernel;
  int kept = dropVariants(module, candidates.get(), count);
  if (kept == 1) {
    *found = candidates[0];
    return TLC_SUCCESS;
  }
  if (kept == 0)
    return fail(TLC_ERROR_NOT_FOUND, "tlc_%s_find_kernel: no kernel matches '%s'", module.name,
                pattern);
  fail(TLC_ERROR_AMBIGUOUS, "tlc_%s_find_kernel: '%s' matches %d kernels:", module.name, pattern,
       kept);
  for (int i = 0; i < kept; ++i) {
    const KernelInfo& info = module.kernels[candidates[i]];
    appendToError("%s %s_%s (%s)", i ? "," : "", module.name, info.launcher, info.symbol);
  }
  return TLC_ERROR_AMBIGUOUS;
}

} // namespace tlc::runtime
