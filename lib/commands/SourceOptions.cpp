// Options shared by the commands that read sources: the compile database's flags.
#include "commands/Commands.h"

#include "support/Terminal.h"

namespace tlc {

llvm::Expected<std::map<std::string, InputFlags>> applyCompileCommands(SourceOptions& options) {
  if (options.compileCommands.empty())
    return std::map<std::string, InputFlags>();
  auto flags = flagsFromCompileDatabase(options.compileCommands, options.inputs);
  if (!flags)
    return flags.takeError();
  for (const auto& [input, inputFlags] : *flags) {
    options.frontend.inputArgs[input] = inputFlags.clang;
    // The parse sees __CUDACC_RDC__ as nvcc will (a build decides it again, from all its flags).
    options.frontend.relocatable |= inputFlags.relocatable;
    if (options.verbose)
      for (const std::string& dropped : inputFlags.dropped)
        printToolMessage(MessageKind::Note, options.compileCommands + ": dropped " + dropped +
                                                " from the command of " + input);
  }
  return flags;
}

} // namespace tlc
