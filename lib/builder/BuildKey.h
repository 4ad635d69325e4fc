// The first part of a build's cache key (cache/Cache.h) from the build's options: everything that
// decides what `tlc build` writes. Each options record is taken apart field by field with a
// structured binding, which stops compiling when a field is added: a new option is in the key,
// or named with the reason it does not change the outputs, by construction.
#pragma once

#include "builder/BuildOptions.h"
#include "builder/DisplayPaths.h"
#include "builder/ToolPaths.h"
#include "cache/Cache.h"
#include "cache/Relocation.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace tlc {

// The environment variables that change what nvcc, the host compiler or Clang read, each that is
// set and not empty: the include folders the compilers search besides their flags' (CPATH,
// C_INCLUDE_PATH, CPLUS_INCLUDE_PATH, which ccache keys too) and nvcc's own (NVCC_PREPEND_FLAGS,
// NVCC_APPEND_FLAGS, NVCC_CCBIN). Every key below holds them: a header found in another folder,
// unread by the build before, would otherwise leave each entry's dependencies as they were.
void addCompilerEnvironment(CacheKey& key);

// `options` after resolution: the module's name, the compile database's flags and the archs
// are final. Inputs are named as outputs name them (`paths`), not where they are; folders and
// flags naming folders are relocated (`relocation`: relative under --base-dir).
void addBuildOptions(CacheKey& key, const BuildOptions& options, const DisplayPaths& paths,
                     const PathRelocation& relocation);

// What a build's key holds besides its options, found before building.
struct KeyInputs {
  const BuildOptions& options;
  const CudaToolkit& toolkit;
  const std::string& hostCompiler;               // its path; "" with --emit-only
  std::vector<std::string> templates;            // the template files
  const std::string& launcherTypes;              // tlc/launcher.h's text
  const std::vector<SourceIdentity>& identities; // per input: what nvcc is told of it
  const std::vector<std::string>& realPaths;     // given to nvcc as they are (ToolPaths.h)
  std::vector<std::string> pythonInputs;         // with --python: the package's other inputs
  std::string toolMemoDir;                       // where the tools' hashes are remembered
};

// The files of the toolkit and the host compiler that decide what nvcc makes, keyed by content
// (CacheKey::addToolIdentities) in the module's key and in each compile step's: (label, path).
std::vector<std::pair<std::string, std::string>>
toolkitIdentityFiles(const CudaToolkit& toolkit, const std::string& hostCompiler);

// The key of one input's own nvcc compile in a relocatable build (commands/BuildCaching.h), as
// ccache keys a translation unit: tlc's release, the command as the manifest records it (every
// flag, the targets, the input's staged name), what nvcc is told of the input (its #line name
// and the path its internal names hash), its content, and the toolkit's and host compiler's
// files. What it includes are the entries' dependencies, as for the module's key.
struct CompileStepKey {
  const CudaToolkit& toolkit;
  const std::string& hostCompiler;
  std::string command;
  std::string inputDigest;
  const SourceIdentity& identity;
  std::string toolMemoDir;
};
std::string compileStepCacheKey(const CompileStepKey& in);

// The key of the launcher's compile by the host compiler (commands/Build.cpp): tlc's release,
// the command as the manifest records it, the contents of the two files it compiles that the
// build rendered (NAME_launcher.cpp and NAME.h), and the compiler's binary. The headers it read
// besides (tlc's, the toolkit's, the C library's) are the entry's dependencies.
struct LauncherStepKey {
  const std::string& hostCompiler;
  std::string command;
  std::string sourceDigest, headerDigest;
  std::string toolMemoDir;
};
std::string launcherStepCacheKey(const LauncherStepKey& in);

// The key of one input's parse (frontend/Frontend.h, ParseStore): tlc's release and binary,
// which decide what the parse records, the parse's identity (parseIdentity: Clang, the command
// line, the folder, nvcc's view...) and the input's content. The headers it read are the entry's
// dependencies.
std::string parseStepCacheKey(const std::string& identity, const std::string& inputDigest,
                              const std::string& toolMemoDir);

// The whole first part of the key, in one place: tlc and Clang, the toolkit and the host
// compiler by release and content (not where they are: Relocation.h), the options
// (addBuildOptions), each input's content (`inputDigest`, which the manifest shares) and the
// name nvcc is told for it, the templates, the launcher types, the runtime archive and, with
// --python, the package's inputs. The headers the build reads are the entries' (cache/Cache.h).
llvm::Expected<std::string>
buildCacheKey(const KeyInputs& in, const DisplayPaths& paths, const PathRelocation& relocation,
              llvm::function_ref<llvm::Expected<std::string>(const std::string&)> inputDigest);

} // namespace tlc
