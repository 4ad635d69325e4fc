// Per-input flags from compile_commands.json, split between Clang and nvcc.
#include "frontend/CompileCommands.h"

#include "frontend/NvccOptions.h"
#include "frontend/ParseCompat.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/StringExtras.h"

#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

namespace tlc {

namespace {

std::string resolve(const std::string& path, const std::string& directory) {
  if (llvm::sys::path::is_absolute(path) || directory.empty())
    return path;
  llvm::SmallString<256> joined(directory);
  llvm::sys::path::append(joined, path);
  llvm::sys::path::remove_dots(joined, true);
  return joined.str().str();
}

} // namespace

InputFlags translateNvccCommand(const std::vector<std::string>& command,
                                const std::string& directory, const std::string& input) {
  std::string inputPath = absolutePath(resolve(input, directory));
  std::vector<NvccArgument> arguments;
  if (!command.empty())
    for (NvccArgument& argument :
         readNvccArguments(llvm::ArrayRef<std::string>(command).drop_front()))
      if (argument.known() || llvm::StringRef(argument.spelling).starts_with("-") ||
          absolutePath(resolve(argument.spelling, directory)) != inputPath)
        arguments.push_back(std::move(argument));
  // Only a command line tlc reads from the database is routed, and a database never refuses.
  NvccRouting routing =
      llvm::cantFail(routeNvccArguments(arguments, NvccOrigin::Database, directory));
  InputFlags flags;
  flags.clang = routing.parse;
  flags.nvcc = std::move(routing.parse);
  flags.nvcc.insert(flags.nvcc.end(), routing.nvcc.begin(), routing.nvcc.end());
  if (!routing.standard.empty()) {
    flags.clang.push_back("-std=" + routing.standard);
    flags.nvcc.push_back("-std=" + routing.standard);
  }
  // The macros nvcc defines for the options it keeps (-G: __CUDACC_DEBUG__, ...).
  for (std::string& define : nvccOptionDefines(flags.nvcc))
    flags.clang.push_back(std::move(define));
  flags.gencodes = std::move(routing.gencodes);
  targetsOf(routing.archs, routing.codes, flags.archs, flags.gencodes);
  flags.relocatable = routing.relocatable;
  flags.dropped = std::move(routing.dropped);
  return flags;
}

llvm::Expected<std::map<std::string, InputFlags>>
flagsFromCompileDatabase(const std::string& path, const std::vector<std::string>& inputs) {
  std::string error;
  auto database = clang::tooling::JSONCompilationDatabase::loadFromFile(
      path, error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!database)
    return inputError("cannot read the compilation database '" + path + "': " + error);
  std::map<std::string, InputFlags> flags;
  for (const std::string& input : inputs) {
    std::vector<clang::tooling::CompileCommand> commands =
        database->getCompileCommands(absolutePath(input));
    if (commands.empty())
      return inputError("the compilation database '" + path + "' has no entry for " + input);
    const clang::tooling::CompileCommand& command = commands.front();
    flags[input] = translateNvccCommand(command.CommandLine, command.Directory, command.Filename);
  }
  return flags;
}

llvm::Error writeCompileDatabase(const std::string& path, const std::vector<std::string>& inputs,
                                 const FrontendOptions& options, const CudaToolkit& toolkit) {
  llvm::SmallString<256> directory;
  if (std::error_code ec = llvm::sys::fs::current_path(directory))
    return inputError("cannot write '" + path + "': no working folder: " + ec.message());
  std::string database = absolutePath(path);
  llvm::SmallString<256> compatHeader(database);
  if (llvm::sys::path::extension(compatHeader) == ".json")
    llvm::sys::path::replace_extension(compatHeader, "");
  compatHeader += ".tlc_nvcc_compat.h";
  if (std::error_code ec =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(database)))
    return inputError("cannot create the folder of '" + path + "': " + ec.message());

  nlohmann::json entries = nlohmann::json::array();
  for (const std::string& input : inputs) {
    std::vector<std::string> arguments =
        editorCommandLine(input, options, toolkit, compatHeader.str().str());
    std::string file = absolutePath(input);
    arguments.back() = file; // the input, last: as `file` names it
    entries.push_back({{"directory", directory.str().str()},
                       {"file", file},
                       {"arguments", std::move(arguments)}});
  }
  // The header first: the database never names a file that is not there.
  if (llvm::Error error =
          replaceFileIfChanged(compatHeader.str().str(), parseCompatHeader(toolkit)))
    return error;
  return replaceFileIfChanged(database, entries.dump(2) + "\n");
}

} // namespace tlc
