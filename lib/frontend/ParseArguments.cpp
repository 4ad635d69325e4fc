// Screening the arguments after `--` with Clang's option table, and clearing what a parse could
// write or load from its invocation (ParseArguments.h).
#include "frontend/ParseArguments.h"

#include "support/Error.h"

#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Options/Options.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Option/Arg.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"

#include <vector>

namespace tlc {

namespace {

namespace opts = clang::options;

// Why an option the table knows is not taken; nullptr when it is.
const char* refusal(const llvm::opt::Option& option, const llvm::opt::OptTable& table) {
  llvm::StringRef name = option.getName();
  auto named = [&](std::initializer_list<llvm::StringRef> words) {
    for (llvm::StringRef word : words)
      if (name.contains(word))
        return true;
    return false;
  };
  if (option.matches(opts::OPT_M_Group) || option.matches(opts::OPT__serialize_diags) ||
      option.matches(opts::OPT_o) ||
      named({"time-trace", "save-", "record", "crash", "proc-stat", "dump", "report", "stack-usage",
             "output"}))
    return "it makes Clang write a file, and the parse writes none (tlc writes NAME.d: --depfile)";
  if (option.matches(opts::OPT_Wp_COMMA) || option.matches(opts::OPT_Xpreprocessor) ||
      option.matches(opts::OPT_Xclang) || option.matches(opts::OPT_mllvm) || named({"plugin"}))
    return "it loads code or passes arguments on to Clang's internals, which the parse does not";
  if (named({"module", "build-session", "pch", "libomptarget"}))
    return "modules and precompiled headers read and write caches of their own; the parse "
           "reads the sources as nvcc does";
  if (named({"cuda", "gpu", "offload", "hip", "sycl", "opencl", "openmp"}))
    return "tlc decides how the parse sees CUDA (--arch, --cuda-path, -rdc)";
  if (named({"profile", "coverage", "instrument", "xray", "embed", "sanitize", "codegen-data",
             "thinlto", "seed-file", "remapping", "depscan"}))
    return "it is about code generation or files beside it, which the parse does not do";
  // Options whose value the table calls a file or a folder, beyond the include paths.
  if (!option.matches(opts::OPT_IncludePath_Group)) {
    const char* metaVar = table.getOptionMetaVar(option.getID());
    llvm::StringRef value = metaVar ? metaVar : "";
    if (value.contains("file") || value.contains("dir") || value.contains("path"))
      return "it names a file of Clang's own, which the parse neither reads nor writes";
  }
  bool taken = option.matches(opts::OPT_Preprocessor_Group) || option.matches(opts::OPT_W_Group) ||
               option.matches(opts::OPT_R_Group) || option.matches(opts::OPT_f_Group) ||
               option.matches(opts::OPT_f_clang_Group) || option.matches(opts::OPT_w) ||
               option.matches(opts::OPT_pedantic) || option.matches(opts::OPT_pedantic_errors);
  if (taken)
    return nullptr;
  if (option.matches(opts::OPT_std_EQ))
    return "tlc's --std sets the dialect of nvcc and the parse alike";
  return "the parse takes only preprocessor, include, warning and language options";
}

llvm::Error refused(const std::string& argument, llvm::StringRef why) {
  return usageError("'" + argument + "' after '--': " + why.str() +
                    " (the parse takes -D, -U, -I, -isystem, -include, -W... and language -f... "
                    "options)");
}

} // namespace

llvm::Error screenParseArguments(llvm::ArrayRef<std::string> args) {
  if (args.empty())
    return llvm::Error::success();
  std::vector<const char*> argv;
  for (const std::string& arg : args) {
    // A response file would be read by the driver in the parse's place, and its options seen
    // by nobody here.
    if (llvm::StringRef(arg).starts_with("@"))
      return refused(arg, "a response file's options would reach the parse unscreened; give "
                          "them on the command line");
    argv.push_back(arg.c_str());
  }
  const llvm::opt::OptTable& table = clang::getDriverOptTable();
  unsigned missingIndex = 0, missingCount = 0;
  llvm::opt::InputArgList parsed =
      table.ParseArgs(argv, missingIndex, missingCount, llvm::opt::Visibility(opts::ClangOption));
  if (missingCount)
    return usageError("'" + args[missingIndex] + "' after '--' needs a value");
  for (const llvm::opt::Arg* arg : parsed) {
    const llvm::opt::Option& option = arg->getOption();
    std::string spelled = arg->getAsString(parsed);
    if (option.getKind() == llvm::opt::Option::InputClass)
      return refused(spelled, "it is no option; name inputs before '--'");
    if (option.getKind() == llvm::opt::Option::UnknownClass)
      return refused(spelled, "Clang knows no such option");
    if (const char* why = refusal(option, table))
      return refused(spelled, why);
  }
  return llvm::Error::success();
}

void keepParseFromWriting(clang::CompilerInvocation& invocation) {
  // -M*, -H into a file: what the preprocessor writes beside the parse.
  invocation.getDependencyOutputOpts() = clang::DependencyOutputOptions();
  // --serialize-diagnostics: opened with the diagnostics, before any action runs.
  invocation.getDiagnosticOpts().DiagnosticSerializationFile.clear();
  clang::FrontendOptions& frontend = invocation.getFrontendOpts();
  frontend.OutputFile.clear();
  frontend.Plugins.clear(); // -load: shared objects CompilerInstance would dlopen
  frontend.ActionName.clear();
  frontend.AddPluginActions.clear();
  frontend.PluginArgs.clear();
  frontend.LLVMArgs.clear();
  frontend.StatsFile.clear();
  frontend.TimeTracePath.clear();
  frontend.ModuleFiles.clear();
  invocation.getCodeGenOpts().PassPlugins.clear();
  // Implicit modules build into a cache folder; the parse reads the sources themselves.
  invocation.getHeaderSearchOpts().ModuleCachePath.clear();
  invocation.getLangOpts().ImplicitModules = false;
}

} // namespace tlc
