// The Clang parse of each input in CUDA device mode, concurrently.
#include "frontend/Frontend.h"

#include "frontend/CompilerView.h"
#include "frontend/ParseArguments.h"
#include "frontend/ParseCompat.h"
#include "frontend/Preamble.h"
#include "support/CpuBudget.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Jobserver.h"
#include "support/Terminal.h"
#include "toolchain/GpuTargets.h"

#include "clang/Basic/DiagnosticDriver.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>

namespace tlc {

std::string defaultArch(const CudaToolkit& toolkit) {
  return toolkit.cudaVersion >= 13000 ? "sm_75" : "sm_52";
}

namespace {

// The parse's command line. For tlc's own parse, the compatibility header is the virtual file and
// the headers' ordinary function bodies are skipped; an editor's parse (clangd) needs a real file
// and every body, the kernels' included.
std::vector<std::string> commandLine(const std::string& input, const FrontendOptions& options,
                                     const CudaToolkit& toolkit, bool forEditor,
                                     const std::string& compatHeader) {
  std::string arch = options.arch.empty() ? defaultArch(toolkit) : options.arch;
  std::vector<std::string> args = {
      "clang",
      "-fsyntax-only",
      "-x",
      "cuda",
      "--cuda-path=" + toolkit.root,
      "--cuda-gpu-arch=" + clangGpuArch(arch),
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
      // nvcc is the compiler of record: host/device call checks Clang would make in function
      // bodies (a host function calling a __device__-only `max`) wait until code is emitted,
      // which a parse never does; and no count of errors stops the parse early.
      "-fgpu-defer-diag",
      "-ferror-limit=0",
      "-include",
      compatHeader,
  };
  // Lets the extractor skip the bodies of the headers' ordinary functions (Extractor.cpp). Any
  // other consumer of the flag would skip every body.
  if (!forEditor) {
    args.push_back("-Xclang");
    args.push_back("-skip-function-bodies");
    for (const char* define : textureIntrinsicsStandIn())
      args.push_back(define);
  }
  for (std::string& define :
       nvccPredefines(toolkit.release, options.relocatable, options.nvccFlags))
    args.push_back(std::move(define));
  for (std::string& define : nvccArchPredefines(arch))
    args.push_back(std::move(define));
  // A device-side launch (dynamic parallelism) needs relocatable device code in Clang too.
  if (options.relocatable)
    args.push_back("-fgpu-rdc");
  // Reported for CUDA 13.2's headers: Clang needs the rsqrt specifier macro defined empty.
  if (toolkit.cudaVersion >= 13020)
    args.push_back("-D_NV_RSQRT_SPECIFIER=");
  if (!options.tlcIncludeDir.empty()) {
    args.push_back("-isystem");
    args.push_back(options.tlcIncludeDir);
  }
  args.insert(args.end(), options.preprocessorFlags.begin(), options.preprocessorFlags.end());
  if (auto it = options.inputArgs.find(input); it != options.inputArgs.end())
    args.insert(args.end(), it->second.begin(), it->second.end());
  args.insert(args.end(), options.extraArgs.begin(), options.extraArgs.end());
  // The host compiler's own headers (omp.h), after everything else, as nvcc's host compiler has
  // them.
  if (!options.hostIncludeDir.empty()) {
    args.push_back("-idirafter");
    args.push_back(options.hostIncludeDir);
  }
  // Stand-ins for what Clang's wrapper includes and a toolkit may lack (ParseCompat.h), last.
  if (!forEditor) {
    args.push_back("-idirafter");
    args.push_back(parseFallbackIncludeDir());
  }
  args.push_back(input);
  return args;
}

} // namespace

std::vector<std::string> clangCommandLine(const std::string& input, const FrontendOptions& options,
                                          const CudaToolkit& toolkit) {
  return commandLine(input, options, toolkit, /*forEditor=*/false, parseCompatHeaderPath());
}

std::vector<std::string> editorCommandLine(const std::string& input, const FrontendOptions& options,
                                           const CudaToolkit& toolkit,
                                           const std::string& compatHeaderFile) {
  return commandLine(input, options, toolkit, /*forEditor=*/true, compatHeaderFile);
}

namespace {

// Clang's diagnostics, filtered by the rule that nvcc is the compiler of record:
//  - Clang's own errors and warnings inside a function body (host or device code) are Clang
//    disagreeing with nvcc about code nvcc compiles (an overload only nvcc's headers declare, an
//    asm operand, a gcc extension): they do not stop the build, and -v shows them as remarks.
//    A real problem there stops nvcc, which then reports it in its own words.
//  - Clang's own warnings elsewhere are about the user's code, which nvcc warns about itself:
//    -v only.
//  - Errors outside function bodies (a kernel's declaration, a missing header) and tlc's own
//    diagnostics print as they are.
//  - Clang 22 says on every parse that it knows CUDA only up to 12.9; that is noise.
// A device-side kernel launch, which Clang refuses without -fgpu-rdc, is noted: the build then
// compiles relocatable device code, as nvcc needs it too.
class ParseDiagnostics : public clang::DiagnosticConsumer {
public:
  ParseDiagnostics(clang::DiagnosticConsumer& next, bool verbose, TranslationUnitFacts& facts)
      : Next(next), Verbose(verbose), Facts(facts) {}

  // Sema, once it exists, says whether a diagnostic comes from inside a function body.
  void attach(clang::CompilerInstance& ci) { Instance = &ci; }
  unsigned hidden() const { return Hidden; }
  bool serializationIssue() const { return SerializationIssue; }

  void BeginSourceFile(const clang::LangOptions& language,
                       const clang::Preprocessor* preprocessor) override {
    Next.BeginSourceFile(language, preprocessor);
  }
  void EndSourceFile() override { Next.EndSourceFile(); }
  void finish() override { Next.finish(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    unsigned id = info.getID();
    if (id >= clang::diag::DIAG_START_SERIALIZATION && id < clang::diag::DIAG_START_LEX)
      SerializationIssue = true; // a precompiled preamble Clang would not load
    if (id == clang::diag::warn_drv_new_cuda_version ||
        id == clang::diag::warn_drv_partially_supported_cuda_version)
      return;
    if (id == clang::diag::err_cuda_device_kernel_launch_require_rdc)
      Facts.deviceSideLaunch = true;
    if (level == clang::DiagnosticsEngine::Note) {
      if (!LastHidden)
        forward(level, info);
      else if (Verbose)
        Next.HandleDiagnostic(level, info);
      return;
    }
    LastHidden = !clang::DiagnosticIDs::IsCustomDiag(id) &&
                 (inFunctionBody() || level == clang::DiagnosticsEngine::Warning ||
                  level == clang::DiagnosticsEngine::Remark);
    if (!LastHidden)
      return forward(level, info);
    ++Hidden;
    if (Verbose)
      Next.HandleDiagnostic(clang::DiagnosticsEngine::Remark, info);
  }

private:
  bool inFunctionBody() const {
    return Instance && Instance->hasSema() &&
           Instance->getSema().getCurFunctionDecl(/*AllowLambda=*/true);
  }

  void forward(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) {
    DiagnosticConsumer::HandleDiagnostic(level, info); // keeps this consumer's counts
    Next.HandleDiagnostic(level, info);
  }

  clang::DiagnosticConsumer& Next;
  bool Verbose;
  TranslationUnitFacts& Facts;
  clang::CompilerInstance* Instance = nullptr;
  bool LastHidden = false;
  unsigned Hidden = 0;
  bool SerializationIssue = false;
};

// What the parse of one input sees of the compiler (frontend/CompilerView.h): nvcc's view and
// the folders that keep Clang's.
struct ParseView {
  PendingMacroValues nvcc;
  ViewFolders folders;
};

ParseView parseView(const std::vector<std::string>& commandLine, const FrontendOptions& options,
                    const CudaToolkit& toolkit, PendingMacroValues nvccView) {
  ParseView view{nvccView, {}};
  // Clang's headers, the toolkit's (CCCL, whatever folder finds it) and tlc's compatibility
  // header are never a library of the user's.
  view.folders.clang = {clangResourceDir(), toolkit.includeDir,
                        llvm::sys::path::parent_path(parseCompatHeaderPath()).str()};
  view.folders.system = driverSystemFolders(commandLine);
  if (!options.hostIncludeDir.empty())
    view.folders.system.push_back(options.hostIncludeDir);
  return view;
}

class ExtractAction : public clang::ASTFrontendAction {
public:
  ExtractAction(TranslationUnitFacts& facts, llvm::raw_ostream& diagnostics,
                ParseDiagnostics& filter, const ParseView& view, const Preamble* preamble,
                bool& loaded)
      : Facts(facts), Diagnostics(diagnostics), Filter(filter), View(view), Preamble(preamble),
        Loaded(loaded) {}

  // With a preamble, Clang loads it in place of the -include files it holds.
  bool BeginInvocation(clang::CompilerInstance& ci) override {
    if (!Preamble)
      return true;
    clang::PreprocessorOptions& preprocessor = ci.getPreprocessorOpts();
    if (!startsWithPreambleIncludes(preprocessor.Includes))
      return false;
    preprocessor.Includes.erase(preprocessor.Includes.begin(), preprocessor.Includes.begin() + 2);
    preprocessor.ImplicitPCHInclude = preamblePchPath();
    return true;
  }

  // Clang prints "N errors generated" to its verbose stream; keep it with this unit's messages.
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.setVerboseOutputStream(Diagnostics);
    Filter.attach(ci);
    return true;
  }

  // Once the preamble, if any, is loaded (after BeginSourceFileAction), before the input's
  // first line: the view switching reads the identity macros as the preamble left them.
  void ExecuteAction() override {
    clang::CompilerInstance& ci = getCompilerInstance();
    Loaded = !Preamble || (ci.hasASTContext() && ci.getASTContext().getExternalSource());
    installCompilerView(ci, View.nvcc, View.folders);
    ASTFrontendAction::ExecuteAction();
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    return makeExtractorConsumer(ci, Facts);
  }

private:
  TranslationUnitFacts& Facts;
  llvm::raw_ostream& Diagnostics;
  ParseDiagnostics& Filter;
  const ParseView& View;
  const tlc::Preamble* Preamble;
  bool& Loaded; // the preamble, if any, was loaded
};

// Why the parse does not open a file, for Clang's "cannot open file 'x': ..." at the #include.
class NotRegularCategory : public std::error_category {
public:
  const char* name() const noexcept override { return "tlc.not-regular"; }
  std::string message(int kind) const override {
    const char* what = kind == 1 ? "a FIFO" : kind == 2 ? "a device" : "a socket";
    return std::string(what) + ", not a regular file: tlc reads only regular files";
  }
};

// The real file system, except that what is not a regular file or a folder (a FIFO, a device
// such as /dev/stdin, a socket) is never opened: opening a FIFO waits for a writer, reading a
// terminal or /dev/zero never ends, and such a file has no content to hash for the cache or
// to name in a depfile. The #include naming it is an error at its line. (Refused rather than
// read and left out of the cache: nvcc reads it too, from another stdin, so the build would
// not be what the parse saw, and no later build could tell whether it changed.)
class RegularFilesOnly : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine& path) override {
    static const NotRegularCategory category;
    // stat() follows links (/dev/stdin is one) and never blocks; a file swapped for a FIFO in
    // between is a race only the folder's owner can run.
    if (auto status = getUnderlyingFS().status(path)) {
      switch (status->getType()) {
      case llvm::sys::fs::file_type::fifo_file:
        return std::error_code(1, category);
      case llvm::sys::fs::file_type::character_file:
      case llvm::sys::fs::file_type::block_file:
        return std::error_code(2, category);
      case llvm::sys::fs::file_type::socket_file:
        return std::error_code(3, category);
      default:
        break; // folders too: Clang opens and skips them where a header search meets one
      }
    }
    return ProxyFileSystem::openFileForRead(path);
  }
};

// Preprocesses only, and keeps the values of some macros as they stand at the input's end.
class MacroProbeAction : public clang::PreprocessOnlyAction {
public:
  MacroProbeAction(const ParseView& view, const std::vector<std::string>& names, MacroValues& found,
                   llvm::raw_ostream& diagnostics)
      : View(view), Names(names), Found(found), Diagnostics(diagnostics) {}

  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.setVerboseOutputStream(Diagnostics);
    installCompilerView(ci, View.nvcc, View.folders);
    return true;
  }
  void EndSourceFileAction() override { Found = currentMacros(getCompilerInstance(), Names); }

private:
  const ParseView& View;
  const std::vector<std::string>& Names;
  MacroValues& Found;
  llvm::raw_ostream& Diagnostics;
};

// Runs one action on an invocation that can write nothing and load nothing, whatever its
// command line said (ParseArguments.h): its output fields are cleared before the diagnostics,
// which would open a serialized-diagnostics file, are made.
class ParseOnly : public clang::tooling::FrontendActionFactory {
public:
  explicit ParseOnly(std::unique_ptr<clang::FrontendAction> action) : Action(std::move(action)) {}

  std::unique_ptr<clang::FrontendAction> create() override { return std::move(Action); }

  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation,
                     clang::FileManager* files,
                     std::shared_ptr<clang::PCHContainerOperations> pchContainers,
                     clang::DiagnosticConsumer* diagnostics) override {
    keepParseFromWriting(*invocation);
    return FrontendActionFactory::runInvocation(std::move(invocation), files,
                                                std::move(pchContainers), diagnostics);
  }

private:
  std::unique_ptr<clang::FrontendAction> Action;
};

// Runs `action` under the parse command line `commandLine`, over the real file system with the
// compatibility header laid over it.
// `preambleText`: the text of preambleInputPath(), for the run that makes a preamble.
bool runParse(const std::vector<std::string>& commandLine, const CudaToolkit& toolkit,
              std::unique_ptr<clang::FrontendAction> action, clang::DiagnosticConsumer& diagnostics,
              clang::DiagnosticOptions& diagnosticOptions, const Preamble* preamble = nullptr,
              const std::string& preambleText = "") {
  // The real file system (regular files only), with the parse's compatibility header laid over
  // it.
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::makeIntrusiveRefCnt<RegularFilesOnly>(llvm::vfs::getRealFileSystem()));
  auto virtualFiles = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  virtualFiles->addFile(parseCompatHeaderPath(), 0,
                        llvm::MemoryBuffer::getMemBufferCopy(parseCompatHeader(toolkit)));
  virtualFiles->addFile(preambleInputPath(), 0, llvm::MemoryBuffer::getMemBufferCopy(preambleText));
  for (const std::string& header : parseFallbackHeaders())
    virtualFiles->addFile(std::string(parseFallbackIncludeDir()) + "/" + header, 0,
                          llvm::MemoryBuffer::getMemBufferCopy(
                              "// tlc: a stand-in for a header this CUDA toolkit lacks\n"));
  if (preamble) // the bytes its digest was checked on (Preamble.h)
    virtualFiles->addFile(preamblePchPath(), 0,
                          llvm::MemoryBuffer::getMemBuffer(preamble->bytes->getMemBufferRef(),
                                                           /*RequiresNullTerminator=*/false));
  overlay->pushOverlay(virtualFiles);
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(
      new clang::FileManager(clang::FileSystemOptions(), overlay));
  ParseOnly parseOnly(std::move(action));
  clang::tooling::ToolInvocation invocation(commandLine, &parseOnly, files.get(),
                                            std::make_shared<clang::PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&diagnostics);
  invocation.setDiagnosticOptions(&diagnosticOptions);
  return invocation.run();
}

struct UnitOutcome {
  TranslationUnitFacts facts;
  std::string diagnostics;
  unsigned errors = 0;
  bool preambleRefused = false; // Clang would not load the preamble: parse again without it
};

// `to` with each of `more` it lacks, sorted.
void addAll(std::vector<std::string>& to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
  std::sort(to.begin(), to.end());
  to.erase(std::unique(to.begin(), to.end()), to.end());
}

// One parse of `input` under `commandLine`, with `preamble` loaded if there is one.
UnitOutcome parseUnit(const std::string& input, const FrontendOptions& options,
                      const std::vector<std::string>& commandLine, const CudaToolkit& toolkit,
                      const ParseView& view, const Preamble* preamble) {
  UnitOutcome outcome;
  outcome.facts.input = input;
  outcome.facts.declarationsOnly = options.declarationsOnly;
  llvm::raw_string_ostream diagnosticsStream(outcome.diagnostics);
  // The text is printed later, in input order; a string stream has colors off unless told.
  diagnosticsStream.enable_colors(options.color);
  clang::DiagnosticOptions diagnosticOptions;
  diagnosticOptions.ShowColors = options.color;
  clang::TextDiagnosticPrinter printer(diagnosticsStream, diagnosticOptions);
  ParseDiagnostics filter(printer, options.verbose, outcome.facts);
  bool loaded = false;
  bool ok = runParse(commandLine, toolkit,
                     std::make_unique<ExtractAction>(outcome.facts, diagnosticsStream, filter, view,
                                                     preamble, loaded),
                     filter, diagnosticOptions, preamble, preamble ? preamble->input : "");
  outcome.errors = filter.getNumErrors();
  // Clang counts the errors it was told to keep quiet about too; only a failure that printed
  // nothing at all (the driver's own) fails the parse here.
  if (!ok && outcome.errors == 0 && filter.hidden() == 0)
    outcome.errors = 1;
  diagnosticsStream.flush();
  outcome.preambleRefused = preamble && (!loaded || filter.serializationIssue());
  outcome.facts.fromPreamble = preamble && !outcome.preambleRefused;
  if (outcome.facts.fromPreamble && !outcome.facts.filesRead.empty()) {
    addAll(outcome.facts.filesRead, preamble->files);
    // What the walk, which skipped the preamble's headers, would have found there.
    addAll(outcome.facts.otherEntries, preamble->facts.otherEntries);
    addAll(outcome.facts.libraryKernelTemplates, preamble->facts.libraryKernelTemplates);
  }
  return outcome;
}

// The preamble of `commandLine` at `stem` (preambleStem), made there first if it is not
// (Preamble.h).
// `includes`: the input's leading system includes it holds too (Preamble.h).
std::optional<Preamble> preambleFor(const std::string& stem,
                                    const std::vector<std::string>& commandLine,
                                    const CudaToolkit& toolkit, const ParseView& view,
                                    const std::vector<std::string>& includes) {
  std::string text = preambleInput(includes);
  if (auto found = findPreamble(stem)) {
    found->input = text;
    return found;
  }
  if (preambleRefused(stem) || !preambleWanted(stem))
    return std::nullopt;
  std::vector<std::string> preambleOnly = commandLine;
  preambleOnly.back() = preambleInputPath();
  PreambleOutput made;
  clang::DiagnosticOptions diagnosticOptions;
  clang::IgnoringDiagConsumer quiet; // the parse without a preamble shows what matters
  runParse(preambleOnly, toolkit, makePreambleAction(made, view.folders), quiet, diagnosticOptions,
           nullptr, text);
  auto stored = storePreamble(stem, made);
  if (!stored)
    refusePreamble(stem, made.files);
  else
    stored->input = text;
  return stored;
}

// The preambles one run of parses found or made, by stem: inputs parsed with one command line
// share one, whose files are checked and whose bytes are read and checked once (some 8 MB and
// 200 files each time), and made once when none is there. A parse that waits here for another
// to make it would otherwise make its own, or parse the headers without.
class RunPreambles {
public:
  std::optional<Preamble> find(const std::string& dir, const std::vector<std::string>& commandLine,
                               const CudaToolkit& toolkit, const ParseView& view,
                               const std::vector<std::string>& includes) {
    std::lock_guard<std::mutex> lock(Mutex);
    std::string stem = preambleStem(dir, commandLine, toolkit, includes);
    auto known = Found.find(stem);
    if (known != Found.end())
      return known->second;
    return Found[stem] = preambleFor(stem, commandLine, toolkit, view, includes);
  }

  // Clang refused it: no parse of this run tries it again.
  void refused(const Preamble& preamble) {
    std::lock_guard<std::mutex> lock(Mutex);
    for (auto& [stem, found] : Found)
      if (found && found->pch == preamble.pch)
        found.reset();
  }

private:
  std::mutex Mutex;
  std::map<std::string, std::optional<Preamble>> Found;
};

// The `#include <...>` lines `input` starts with (leadingSystemIncludes); none when it cannot be
// read (the parse says why).
std::vector<std::string> inputIncludes(const std::string& input) {
  auto text = readFileBuffer(input);
  if (!text) {
    llvm::consumeError(text.takeError());
    return {};
  }
  return leadingSystemIncludes((*text)->getBuffer());
}

std::optional<Preamble> preambleOf(const std::string& input, const FrontendOptions& options,
                                   const std::vector<std::string>& commandLine,
                                   const CudaToolkit& toolkit, const ParseView& view,
                                   RunPreambles& preambles) {
  std::vector<std::string> includes = inputIncludes(input);
  if (!includes.empty())
    if (auto preamble = preambles.find(options.preambleDir, commandLine, toolkit, view, includes))
      return preamble;
  return preambles.find(options.preambleDir, commandLine, toolkit, view, {});
}

UnitOutcome parseOne(const std::string& input, const FrontendOptions& options,
                     const CudaToolkit& toolkit, const PendingMacroValues& nvccView,
                     RunPreambles& preambles) {
  // LLVM's overlay file system takes the working folder as given: one removed under tlc would
  // end it in "out of memory".
  if (auto folder = llvm::vfs::getRealFileSystem()->getCurrentWorkingDirectory(); !folder) {
    UnitOutcome outcome;
    outcome.facts.input = input;
    outcome.diagnostics = "tlc: error: cannot parse " + input +
                          ": cannot read the working folder (" + folder.getError().message() +
                          "; was it removed?)\n";
    outcome.errors = 1;
    return outcome;
  }
  std::vector<std::string> commandLine = clangCommandLine(input, options, toolkit);
  ParseView view = parseView(commandLine, options, toolkit, nvccView);
  // -v shows Clang's remarks about every header, which a preamble made earlier does not repeat.
  // The preamble of the input's leading includes where one is kept, else the command line's.
  if (!options.preambleDir.empty() && !options.verbose)
    if (auto preamble = preambleOf(input, options, commandLine, toolkit, view, preambles)) {
      UnitOutcome outcome = parseUnit(input, options, commandLine, toolkit, view, &*preamble);
      // An error in a header the input's include lines name would be shown as included from
      // the preamble's own input, a name of tlc's: such a parse runs again without it, so that
      // its messages name the input's lines (a failing build's cost alone).
      bool includedFromPreamble = outcome.errors > 0 && !preamble->input.empty();
      if (!outcome.preambleRefused && !includedFromPreamble)
        return outcome;
      if (outcome.preambleRefused) {
        preambles.refused(*preamble);
        discardPreamble(*preamble);
      }
    }
  return parseUnit(input, options, commandLine, toolkit, view, nullptr);
}

} // namespace

llvm::Expected<MacroValues> macrosInUserCode(const std::string& input,
                                             const FrontendOptions& options,
                                             const CudaToolkit& toolkit,
                                             const std::vector<std::string>& names) {
  auto nvccView = nvccCompilerView(toolkit, options.nvccFlags);
  if (!nvccView)
    return nvccView.takeError();
  std::string text;
  llvm::raw_string_ostream stream(text);
  clang::DiagnosticOptions diagnosticOptions;
  clang::TextDiagnosticPrinter printer(stream, diagnosticOptions);
  std::vector<std::string> commandLine = clangCommandLine(input, options, toolkit);
  std::promise<MacroValues> known;
  known.set_value(std::move(*nvccView));
  ParseView view = parseView(commandLine, options, toolkit, known.get_future().share());
  MacroValues found;
  if (!runParse(commandLine, toolkit,
                std::make_unique<MacroProbeAction>(view, names, found, stream), printer,
                diagnosticOptions) &&
      printer.getNumErrors())
    return inputError("cannot preprocess " + input + ":\n" + text);
  return found;
}

unsigned effectiveJobs(unsigned requested) {
  if (requested)
    return requested;
  // Under make, its -jN: tlc cannot usefully run more at once even with make's jobserver, and
  // where make did not pass the jobserver on, it is the best bound known.
  if (unsigned make = processMakeFlags().jobs)
    return make;
  // The CPUs this process may use (affinity, cgroup quota), not the machine's.
  return availableCpus();
}

std::string parseIdentity(const std::string& input, const FrontendOptions& options,
                          const CudaToolkit& toolkit, const MacroValues& nvccView) {
  llvm::SmallString<256> folder;
  if (llvm::sys::fs::current_path(folder)) // the parse will say why
    return "";
  std::string identity;
  // Each part by its length: no name or flag can end one part and start another.
  auto add = [&](llvm::StringRef label, llvm::StringRef value) {
    identity += label.str() + " " + std::to_string(value.size()) + "\n" + value.str() + "\n";
  };
  add("clang", clangVersion());
  add("cuda", toolkit.release);
  add("folder", folder);
  for (const std::string& arg : clangCommandLine(input, options, toolkit))
    add("arg", arg);
  for (const std::string& flag : options.nvccFlags)
    add("nvcc-flag", flag);
  add("compat", parseCompatHeader(toolkit));
  for (const auto& [name, value] : nvccView)
    add("view " + name, value);
  add("shown", std::string(options.color ? "color" : "plain") +
                   (options.verbose ? " verbose" : "") +
                   (options.declarationsOnly ? " declarations" : ""));
  return identity;
}

llvm::Expected<std::vector<TranslationUnitFacts>>
parseInputs(const std::vector<std::string>& inputs, const FrontendOptions& options,
            const CudaToolkit& toolkit, llvm::raw_ostream& diagnostics, JobSlots* slots,
            ParseStore* store) {
  if (llvm::Error error = checkInputFiles(inputs))
    return error;

  JobSlots ownSlots(effectiveJobs(options.jobs), processJobserver());
  JobSlots& pool = slots ? *slots : ownSlots;
  // One nvcc run, beside the parses where the job limit leaves a slot for both: they wait for
  // its answer only once past their preamble (CompilerView.h). It takes its slot before any
  // parse takes one, so parses waiting for it never hold every slot it could run in.
  std::promise<MacroValues> nvccView;
  std::promise<void> slotTaken;
  auto query = std::async(std::launch::async, [&]() -> llvm::Error {
    SlotGuard slot(pool);
    slotTaken.set_value();
    auto values = nvccCompilerView(toolkit, options.nvccFlags);
    nvccView.set_value(values ? std::move(*values) : MacroValues());
    return values.takeError();
  });
  slotTaken.get_future().wait();
  PendingMacroValues pending = nvccView.get_future().share();
  std::vector<UnitOutcome> outcomes(inputs.size());
  std::vector<std::function<void()>> tasks;
  RunPreambles preambles;
  for (size_t i = 0; i < inputs.size(); ++i)
    tasks.push_back([&, i] {
      SlotGuard slot(pool);
      // A parse kept in `store` is as good as this one: its identity and files are the same.
      // Without nvcc's view (its query failed) the parse means nothing, and none is kept.
      std::string identity;
      if (store && !pending.get().empty())
        identity = parseIdentity(inputs[i], options, toolkit, pending.get());
      if (!identity.empty())
        if (auto kept = store->find(inputs[i], identity)) {
          outcomes[i].facts = std::move(kept->facts);
          outcomes[i].diagnostics = std::move(kept->diagnostics);
          return;
        }
      outcomes[i] = parseOne(inputs[i], options, toolkit, pending, preambles);
      if (!identity.empty() && outcomes[i].errors == 0)
        store->keep(inputs[i], identity, {outcomes[i].facts, outcomes[i].diagnostics});
    });
  runConcurrently(std::move(tasks));
  // Without nvcc's view the parses saw no compiler at all: the query's error is the build's,
  // their diagnostics are not shown.
  if (llvm::Error error = query.get())
    return error;

  unsigned errors = 0;
  std::vector<TranslationUnitFacts> units;
  StderrSection section; // the diagnostics below no progress line
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
