// The Clang parse of each input in CUDA device mode, concurrently.
#include "frontend/Frontend.h"

#include "support/Error.h"
#include "support/Files.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/DiagnosticDriver.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Threading.h"

#include <memory>

namespace tlc {

std::string defaultArch(const CudaToolkit& toolkit) {
  return toolkit.cudaVersion >= 13000 ? "sm_75" : "sm_52";
}

std::vector<std::string> clangCommandLine(const std::string& input, const FrontendOptions& options,
                                          const CudaToolkit& toolkit) {
  std::string arch = options.arch.empty() ? defaultArch(toolkit) : options.arch;
  std::vector<std::string> args = {
      "clang",
      "-fsyntax-only",
      "-x",
      "cuda",
      "--cuda-path=" + toolkit.root,
      "--cuda-gpu-arch=" + arch,
      // A host parse would make libTooling pick the host job and name kernels by their stubs.
      "--cuda-device-only",
      "-nocudalib",
      "-resource-dir",
      clangResourceDir(),
      // CUDA 13 moved CCCL (cuda/*, cub, thrust) under include/cccl; nvcc adds it implicitly.
      "-isystem",
      toolkit.includeDir + "/cccl",
      "-Wno-unknown-cuda-version",
      // The driver tells only host jobs which CUDA it found; without it a device parse assumes
      // a pre-9.2 toolkit and wants cudaConfigureCall for every <<<...>>> in host code.
      "-Xclang",
      "-target-sdk-version=" + toolkit.versionString(),
      "-std=" + options.standard,
      "-D__TLC__=1",
      // cooperative_groups declares its cluster API for nvcc, or where this says the cluster
      // intrinsics exist; they do for Clang's parse (it still checks the arch itself).
      "-D_CG_CLUSTER_INTRINSICS_AVAILABLE",
  };
  // Reported for CUDA 13.2's headers: Clang needs the rsqrt specifier macro defined empty.
  if (toolkit.cudaVersion >= 13020)
    args.push_back("-D_NV_RSQRT_SPECIFIER=");
  if (!options.tlcIncludeDir.empty()) {
    args.push_back("-isystem");
    args.push_back(options.tlcIncludeDir);
  }
  for (const std::string& dir : options.includeDirs)
    args.push_back("-I" + dir);
  for (const std::string& define : options.defines)
    args.push_back("-D" + define);
  if (auto it = options.inputArgs.find(input); it != options.inputArgs.end())
    args.insert(args.end(), it->second.begin(), it->second.end());
  args.insert(args.end(), options.extraArgs.begin(), options.extraArgs.end());
  args.push_back(input);
  return args;
}

namespace {

class ExtractAction : public clang::ASTFrontendAction {
public:
  ExtractAction(TranslationUnitFacts& facts, llvm::raw_ostream& diagnostics)
      : Facts(facts), Diagnostics(diagnostics) {}

  // Clang prints "N errors generated" to its verbose stream; keep it with this unit's messages.
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.setVerboseOutputStream(Diagnostics);
    return true;
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    return makeExtractorConsumer(ci, Facts);
  }

private:
  TranslationUnitFacts& Facts;
  llvm::raw_ostream& Diagnostics;
};

// Clang 22 knows CUDA up to 12.9 and says so on every parse of a CUDA 13 file; the driver emits
// that before `-Wno-unknown-cuda-version` applies. It is noise for tlc's users, so drop it here.
class QuietCudaVersionConsumer : public clang::DiagnosticConsumer {
public:
  explicit QuietCudaVersionConsumer(clang::DiagnosticConsumer& next) : Next(next) {}

  void BeginSourceFile(const clang::LangOptions& language,
                       const clang::Preprocessor* preprocessor) override {
    Next.BeginSourceFile(language, preprocessor);
  }
  void EndSourceFile() override { Next.EndSourceFile(); }
  void finish() override { Next.finish(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    unsigned id = info.getID();
    if (id == clang::diag::warn_drv_new_cuda_version ||
        id == clang::diag::warn_drv_partially_supported_cuda_version)
      return;
    DiagnosticConsumer::HandleDiagnostic(level, info); // keeps this consumer's counts
    Next.HandleDiagnostic(level, info);
  }

private:
  clang::DiagnosticConsumer& Next;
};

struct UnitOutcome {
  TranslationUnitFacts facts;
  std::string diagnostics;
  unsigned errors = 0;
};

UnitOutcome parseOne(const std::string& input, const FrontendOptions& options,
                     const CudaToolkit& toolkit) {
  UnitOutcome outcome;
  outcome.facts.input = input;
  llvm::raw_string_ostream diagnosticsStream(outcome.diagnostics);
  // The text is printed later, in input order; a string stream has colors off unless told.
  diagnosticsStream.enable_colors(options.color);
  clang::DiagnosticOptions diagnosticOptions;
  diagnosticOptions.ShowColors = options.color;
  clang::TextDiagnosticPrinter printer(diagnosticsStream, diagnosticOptions);

  llvm::IntrusiveRefCntPtr<clang::FileManager> files(
      new clang::FileManager(clang::FileSystemOptions()));
  clang::tooling::ToolInvocation invocation(clangCommandLine(input, options, toolkit),
                                            std::make_unique<ExtractAction>(outcome.facts, diagnosticsStream),
                                            files.get());
  QuietCudaVersionConsumer consumer(printer);
  invocation.setDiagnosticConsumer(&consumer);
  invocation.setDiagnosticOptions(&diagnosticOptions);
  bool ok = invocation.run();
  outcome.errors = consumer.getNumErrors();
  if (!ok && outcome.errors == 0)
    outcome.errors = 1; // a driver failure that printed nothing through the consumer
  diagnosticsStream.flush();
  return outcome;
}

} // namespace

unsigned effectiveJobs(unsigned requested) {
  return requested ? requested : llvm::hardware_concurrency().compute_thread_count();
}

llvm::Expected<std::vector<TranslationUnitFacts>>
parseInputs(const std::vector<std::string>& inputs, const FrontendOptions& options,
            const CudaToolkit& toolkit, llvm::raw_ostream& diagnostics, JobSlots* slots) {
  if (llvm::Error error = checkInputFiles(inputs))
    return error;

  JobSlots ownSlots(effectiveJobs(options.jobs));
  JobSlots& pool = slots ? *slots : ownSlots;
  std::vector<UnitOutcome> outcomes(inputs.size());
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < inputs.size(); ++i)
    tasks.push_back([&, i] {
      SlotGuard slot(pool);
      outcomes[i] = parseOne(inputs[i], options, toolkit);
    });
  runConcurrently(std::move(tasks));

  unsigned errors = 0;
  std::vector<TranslationUnitFacts> units;
  for (UnitOutcome& outcome : outcomes) {
    diagnostics << outcome.diagnostics;
    errors += outcome.errors;
    units.push_back(std::move(outcome.facts));
  }
  diagnostics.flush();
  if (errors)
    return reportedInputError(std::to_string(errors) + " error(s) in the inputs");
  return units;
}

} // namespace tlc
