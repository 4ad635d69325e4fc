// Options shared by the commands that read sources: the compile database's flags.
#include "commands/Commands.h"

namespace tlc {

llvm::Expected<std::map<std::string, InputFlags>> applyCompileCommands(SourceOptions& options) {
  if (options.compileCommands.empty())
    return std::map<std::string, InputFlags>();
  auto flags = flagsFromCompileDatabase(options.compileCommands, options.inputs);
  if (!flags)
    return flags.takeError();
  for (const auto& [input, inputFlags] : *flags)
    options.frontend.inputArgs[input] = inputFlags.clang;
  return flags;
}

} // namespace tlc
