// tlc's command line: reads the arguments into the library's option records
// (commands/CommandLine.h) and calls the command. Everything else lives in lib/.
#include "commands/CommandLine.h"
#include "commands/Commands.h"
#include "support/Error.h"
#include "support/InstallLayout.h"
#include "support/StartUp.h"
#include "support/Terminal.h"
#include "toolchain/Toolchain.h"

#include <string>
#include <vector>

namespace {

// Reports the command's errors, and a failure to write its output (a full disk, a closed pipe).
int finish(llvm::Error error) {
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    std::string why = llvm::outs().error().message();
    llvm::outs().clear_error();
    error = llvm::joinErrors(std::move(error), tlc::inputError("cannot write the output: " + why));
  }
  return static_cast<int>(tlc::reportErrors(std::move(error)));
}

// What the installation and the machine add to the commands that read sources.
void completeSources(tlc::SourceOptions& options, const tlc::InstallLayout& layout) {
  options.frontend.color = tlc::stderrWantsColor();
  options.frontend.verbose = options.verbose;
  options.frontend.tlcIncludeDir = layout.includeDir();
  options.frontend.hostIncludeDir = tlc::hostCompilerIncludeDir();
}

} // namespace

int main(int argc, char** argv) {
  tlc::prepareProcess();
  // However main returns: a closed or full stderr is no reason to fail.
  struct StderrGuard {
    ~StderrGuard() { tlc::forgetStderrFailure(); }
  } stderrGuard;
  auto parsed = tlc::parseCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed)
    return finish(parsed.takeError());
  tlc::CommandLine& line = *parsed;
  tlc::setColorChoice(line.color);
  // The commands that parse sources need the working folder (Clang's file system takes it as
  // given: one removed under tlc would end the parse in "out of memory").
  if (line.command == tlc::Command::Inspect || line.command == tlc::Command::Check ||
      line.command == tlc::Command::Build)
    if (llvm::Error error = tlc::checkWorkingFolder())
      return finish(std::move(error));
  tlc::InstallLayout layout = tlc::installLayoutOf(argv[0]);
  switch (line.command) {
  case tlc::Command::None:
    // A usage error that shows the usage: no command, or `tlc cache` without one of its own.
    tlc::printToolMessage(tlc::MessageKind::Error, line.problem);
    llvm::errs() << line.help;
    return static_cast<int>(tlc::ExitCode::UsageError);
  case tlc::Command::Help:
  case tlc::Command::Completion:
    llvm::outs() << line.help;
    return finish(llvm::Error::success());
  case tlc::Command::Version:
    tlc::printVersion(line.versionCudaPath, llvm::outs());
    return finish(llvm::Error::success());
  case tlc::Command::Inspect:
    completeSources(line.inspect.sources, layout);
    return finish(tlc::runInspect(line.inspect, llvm::outs()));
  case tlc::Command::Check:
    completeSources(line.check, layout);
    return finish(tlc::runCheck(line.check, llvm::outs()));
  case tlc::Command::Verify:
    return finish(tlc::runVerify(line.verify, llvm::outs()));
  case tlc::Command::Cache:
    return finish(tlc::runCache(line.cache, llvm::outs()));
  case tlc::Command::Build:
    completeSources(line.build.sources, layout);
    if (line.build.templateDir.empty())
      line.build.templateDir = layout.templatesDir();
    line.build.runtimeLibrary = layout.runtimeLibrary();
    line.build.pythonLibrary = layout.pythonLibrary();
    line.build.pythonHelpersDir = layout.pythonHelpersDir();
    return finish(tlc::runBuild(line.build));
  }
  return finish(tlc::internalError("unknown command"));
}
