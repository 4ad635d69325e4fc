// The macros and the force-included header that make Clang's parse see what nvcc sees.
#include "frontend/ParseCompat.h"

#include "frontend/NvccOptions.h"
#include "support/Files.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace tlc {

std::vector<std::string> nvccPredefines(const std::string& release, bool relocatable,
                                        const std::vector<std::string>& nvccFlags) {
  llvm::StringRef rest(release);
  auto [major, afterMajor] = rest.split('.');
  auto [minor, build] = afterMajor.split('.');
  std::vector<std::string> defines = {
      "-D__NVCC__",
      "-D__CUDACC_VER_MAJOR__=" + major.str(),
      "-D__CUDACC_VER_MINOR__=" + (minor.empty() ? std::string("0") : minor.str()),
      "-D__CUDACC_VER_BUILD__=" + (build.empty() ? std::string("0") : build.str()),
      "-D__CUDA_API_VER_MAJOR__=" + major.str(),
      "-D__CUDA_API_VER_MINOR__=" + (minor.empty() ? std::string("0") : minor.str()),
  };
  if (relocatable)
    defines.push_back("-D__CUDACC_RDC__");
  // The options that define macros, from nvcc's table (-G: __CUDACC_DEBUG__, ...).
  for (std::string& define : nvccOptionDefines(nvccFlags))
    defines.push_back(std::move(define));
  return defines;
}

std::vector<std::string> nvccArchPredefines(const std::string& arch) {
  llvm::StringRef name(arch);
  bool specific = name.ends_with("a");
  bool family = specific || name.ends_with("f");
  unsigned number = 0;
  if (!family || !name.starts_with("sm_") ||
      name.drop_front(3).drop_back().getAsInteger(10, number))
    return {};
  std::string value = std::to_string(number * 10); // sm_90a: 900, as __CUDA_ARCH__
  std::vector<std::string> defines;
  if (specific)
    defines.push_back("-D__CUDA_ARCH_SPECIFIC__=" + value);
  defines.push_back("-D__CUDA_ARCH_FAMILY_SPECIFIC__=" + value);
  return defines;
}

const std::vector<std::string>& intrinsicsClangLacks() {
  static const std::vector<std::string> names = {"__ldca", "__ldlu", "__stcg", "__stcs", "__stwb"};
  return names;
}

const std::vector<const char*>& textureIntrinsicsStandIn() {
  static const std::vector<const char*> defines = {"-D__CLANG_CUDA_TEXTURE_INTRINSICS_H__",
                                                   "-D__nv_tex_surf_handler(...)=((void)0)"};
  return defines;
}

const char* parseCompatHeaderFirstLine() {
  return "// tlc: what nvcc's parse has and Clang's lacks (never given to nvcc).";
}

const char* parseCompatHeaderPath() {
  return "/tlc-parse-compat/tlc_nvcc_compat.h";
}

const char* parseFallbackIncludeDir() {
  return "/tlc-parse-compat/fallback";
}

const std::vector<std::string>& parseFallbackHeaders() {
  static const std::vector<std::string> headers = {"curand_mtgp32_kernel.h"};
  return headers;
}

namespace {

// `__SM_32_INTRINSICS_DECL__ void __stcs(float *ptr, float value) __DEF_IF_HOST` becomes
// `__device__ void __stcs(float *ptr, float value);` for the names Clang lacks.
std::string declarationsFrom(llvm::StringRef header) {
  std::string out;
  const llvm::StringRef marker = "__SM_32_INTRINSICS_DECL__ ";
  while (!header.empty()) {
    auto [line, rest] = header.split('\n');
    header = rest;
    line = line.trim();
    if (!line.consume_front(marker))
      continue;
    size_t open = line.find('(');
    size_t close = line.rfind(')');
    if (open == llvm::StringRef::npos || close == llvm::StringRef::npos || close < open)
      continue;
    llvm::StringRef name = line.take_front(open).rtrim();
    name = name.substr(name.find_last_of(" *&") + 1);
    const auto& lacking = intrinsicsClangLacks();
    if (std::find(lacking.begin(), lacking.end(), name) == lacking.end())
      continue;
    out += "__device__ " + line.take_front(close + 1).str() + ";\n";
  }
  return out;
}

} // namespace

std::string parseCompatHeader(const CudaToolkit& toolkit) {
  static std::mutex mutex;
  static std::map<std::string, std::string> byToolkit;
  std::lock_guard<std::mutex> lock(mutex);
  auto known = byToolkit.find(toolkit.root);
  if (known != byToolkit.end())
    return known->second;
  std::string text =
      std::string(parseCompatHeaderFirstLine()) +
      "\n"
      "#pragma once\n"
      "// nvcc's cuda_runtime.h includes these for every file.\n"
      "#include <assert.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
      "#include <time.h>\n#ifdef __cplusplus\n#include <new>\n#endif\n"
      "// Clang's CUDA wrapper defines these (as 0) for CUDA 8's headers; nvcc 13 defines "
      "neither,\n"
      "// under any option (--use_fast_math, -prec-div included).\n"
      "#undef __USE_FAST_MATH__\n#undef __CUDA_PREC_DIV\n"
      "// Device intrinsics Clang's CUDA headers lack, as the toolkit declares them.\n";
  auto header = readFileBuffer(toolkit.includeDir + "/sm_32_intrinsics.h");
  if (header)
    text += declarationsFrom((*header)->getBuffer());
  else
    llvm::consumeError(header.takeError());
  return byToolkit[toolkit.root] = text;
}

} // namespace tlc
