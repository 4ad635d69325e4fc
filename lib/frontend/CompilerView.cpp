// The compiler-identity macros: nvcc's view for the user's code, Clang's for the headers Clang
// needs it for, switched at file boundaries.
#include "frontend/CompilerView.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Interrupts.h"
#include "support/ProbeMemo.h"
#include "support/Process.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>

namespace tlc {

const std::vector<std::string>& compilerIdentityMacros() {
  // From `nvcc -E -Xcompiler -dM` against the parse's own macros in a user file (CUDA 13.0, gcc
  // 12, Clang 22): Clang's name and version, its literal encodings and __llvm__; __CUDA__, which
  // Clang defines for CUDA and nvcc does not; NVPTX, Clang's device target, which nvcc's front
  // end (gcc preprocesses its device pass) never names; gcc's version, as both define it with
  // other values, and its execution character sets. The other differences are the target's
  // (long double, type widths), not the compiler's.
  static const std::vector<std::string> names = {
      "__clang__",
      "__clang_major__",
      "__clang_minor__",
      "__clang_patchlevel__",
      "__clang_version__",
      "__clang_literal_encoding__",
      "__clang_wide_literal_encoding__",
      "__llvm__",
      "__CUDA__",
      "__NVPTX__",
      "__PTX__",
      "__GNUC__",
      "__GNUC_MINOR__",
      "__GNUC_PATCHLEVEL__",
      "__GNUG__",
      "__VERSION__",
      "__GXX_ABI_VERSION",
      "__GNUC_EXECUTION_CHARSET_NAME",
      "__GNUC_WIDE_EXECUTION_CHARSET_NAME",
  };
  return names;
}

MacroValues identityMacrosIn(llvm::StringRef listing) {
  const auto& names = compilerIdentityMacros();
  MacroValues values;
  while (!listing.empty()) {
    auto [line, rest] = listing.split('\n');
    listing = rest;
    if (!line.consume_front("#define "))
      continue;
    auto [name, value] = line.split(' ');
    if (std::find(names.begin(), names.end(), name) != names.end())
      values[name.str()] = value.rtrim("\r").str();
  }
  return values;
}

namespace {

// nvcc's flags that choose its host compiler, with their values.
std::vector<std::string> hostCompilerFlags(const std::vector<std::string>& nvccFlags) {
  std::vector<std::string> chosen;
  for (size_t i = 0; i < nvccFlags.size(); ++i) {
    llvm::StringRef flag = nvccFlags[i];
    std::string value;
    if ((flag == "-ccbin" || flag == "--compiler-bindir") && i + 1 < nvccFlags.size())
      value = nvccFlags[++i];
    else if (flag.consume_front("-ccbin=") || flag.consume_front("--compiler-bindir="))
      value = flag.str();
    else
      continue;
    // nvcc pastes it into a shell command; the build refuses a value the shell would interpret.
    if (isShellSafe(value))
      chosen = {"-ccbin", value};
  }
  return chosen;
}

constexpr const char* QueryPrefix = "tlc-query-";

// What nvcc's answer depends on besides nvcc itself, for the probe memo: the host compiler it
// runs (-ccbin's file or folder, else gcc on PATH, as `nvcc -dryrun` shows) and the variables
// that add flags or choose the compiler. "" when the compiler cannot be found.
std::vector<std::string> macroProbeDependencies(llvm::ArrayRef<std::string> command) {
  std::string compiler;
  for (size_t i = 0; i + 1 < command.size(); ++i)
    if (command[i] == "-ccbin")
      compiler = command[i + 1];
  if (const char* chosen = std::getenv("NVCC_CCBIN"); compiler.empty() && chosen && *chosen)
    compiler = chosen;
  if (!compiler.empty() && llvm::sys::fs::is_directory(compiler))
    compiler += "/gcc";
  if (compiler.empty() || compiler.find('/') == std::string::npos) {
    auto found = llvm::sys::findProgramByName(compiler.empty() ? "gcc" : compiler);
    compiler = found ? *found : "";
  }
  std::vector<std::string> dependencies = {compiler.empty() ? "" : toolIdentity(compiler)};
  for (const char* name : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN", "PATH"}) {
    const char* value = std::getenv(name);
    dependencies.push_back(std::string(name) + "=" + (value ? value : ""));
  }
  return dependencies;
}

} // namespace

llvm::Expected<MacroValues> nvccCompilerView(const CudaToolkit& toolkit,
                                             const std::vector<std::string>& nvccFlags) {
  // C++ rather than CUDA: the host compiler's own macros, without nvcc's CUDA headers (ten
  // times faster).
  std::vector<std::string> command = {toolkit.nvcc, "-E", "-Xcompiler", "-dM", "-x", "c++"};
  for (std::string& flag : hostCompilerFlags(nvccFlags))
    command.push_back(std::move(flag));
  command.push_back("/dev/null");

  static std::mutex mutex;
  static std::map<std::vector<std::string>, MacroValues> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = known.find(command); found != known.end())
    return found->second;
  std::string memo = probeMemoFile(command, macroProbeDependencies(command));
  if (auto remembered = recallProbe(memo)) {
    MacroValues values = identityMacrosIn(*remembered);
    if (!values.empty())
      return known[command] = std::move(values);
  }
  // nvcc writes temporaries (tmpxft_*) even for this: into a folder of tlc's own, removed
  // however the query ends, an interrupt included.
  auto root = workRoot();
  if (!root)
    return root.takeError();
  removeAbandoned(*root, QueryPrefix);
  auto folder = LockedFolder::create(*root, QueryPrefix);
  if (!folder)
    return folder.takeError();
  Temporary registration((*folder)->path());
  RunOptions options;
  options.separateErrors = true;
  options.timeoutSeconds = probeTimeout(); // a probe like the others (ProbeMemo.h)
  options.environment = environmentWith({"TMPDIR=" + (*folder)->path()});
  auto result = runCommand(command, options);
  if (!result)
    return result.takeError();
  if (result->interrupted)
    return interruptedError();
  if (!result->succeeded())
    return toolchainError("'" + shellQuote(command) +
                          "' (which host compiler nvcc runs, so that the parse sees what nvcc "
                          "sees) failed, " +
                          result->status() + ":\n" + result->errors);
  MacroValues values = identityMacrosIn(result->output);
  if (values.empty())
    return toolchainError("'" + shellQuote(command) +
                          "' printed no compiler version macro (__GNUC__, __clang__, ...)");
  rememberProbe(memo, *result);
  return known[command] = std::move(values);
}

std::optional<CompilerView> viewOf(llvm::StringRef file, const ViewFolders& folders) {
  auto longest = [&](const std::vector<std::string>& list) {
    size_t best = 0;
    for (llvm::StringRef folder : list)
      if (folder.size() > best && file.size() > folder.size() && file.starts_with(folder) &&
          (llvm::sys::path::is_separator(folder.back()) ||
           llvm::sys::path::is_separator(file[folder.size()])))
        best = folder.size();
    return best;
  };
  if (longest(folders.clang))
    return CompilerView::Clang;
  size_t system = longest(folders.system), searched = longest(folders.searched);
  if (system && system >= searched)
    return CompilerView::Clang;
  if (searched)
    return CompilerView::Nvcc;
  return std::nullopt;
}

namespace {

std::string realFolder(llvm::StringRef folder) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(folder, real))
    return llvm::sys::path::remove_leading_dotslash(folder).str();
  return real.str().str();
}

} // namespace

std::vector<std::string> driverSystemFolders(const std::vector<std::string>& commandLine) {
  std::vector<const char*> argv;
  for (const std::string& arg : commandLine)
    argv.push_back(arg.c_str());
  clang::DiagnosticOptions diagnosticOptions;
  clang::IgnoringDiagConsumer ignore;
  auto files = llvm::vfs::getRealFileSystem();
  clang::CreateInvocationOptions options;
  options.Diags = clang::CompilerInstance::createDiagnostics(*files, diagnosticOptions, &ignore,
                                                             /*ShouldOwnClient=*/false);
  options.VFS = files;
  options.RecoverOnError = true;
  std::vector<std::string> cc1;
  options.CC1Args = &cc1;
  clang::createInvocation(argv, options);

  std::vector<std::string> folders;
  for (size_t i = 0; i + 1 < cc1.size(); ++i) {
    if (cc1[i] != "-internal-isystem" && cc1[i] != "-internal-externc-isystem")
      continue;
    llvm::StringRef folder = cc1[++i];
    // Where `make install` puts libraries by default (a GEMM library's headers, say): theirs.
    llvm::SmallString<256> normal(folder);
    llvm::sys::path::remove_dots(normal, /*remove_dot_dot=*/true);
    if (normal.str().ends_with("/usr/local/include"))
      continue;
    folders.push_back(folder.str());
  }
  return folders;
}

namespace {

// A macro whose body is `text`, lexed as the preprocessor lexes a #define's body.
clang::MacroInfo* macroWithBody(clang::Preprocessor& preprocessor, llvm::StringRef text) {
  clang::MacroInfo* macro = preprocessor.AllocateMacroInfo(clang::SourceLocation());
  if (text.empty())
    return macro;
  // The scratch buffer keeps a NUL-terminated copy for as long as the preprocessor lives.
  clang::Token whole;
  whole.startToken();
  preprocessor.CreateString(text, whole);
  const char* start = preprocessor.getSourceManager().getCharacterData(whole.getLocation());
  clang::Lexer lexer(whole.getLocation(), preprocessor.getLangOpts(), start, start,
                     start + text.size());
  std::vector<clang::Token> body;
  clang::Token token;
  for (lexer.LexFromRawLexer(token); token.isNot(clang::tok::eof); lexer.LexFromRawLexer(token)) {
    if (token.is(clang::tok::raw_identifier))
      preprocessor.LookUpIdentifierInfo(token);
    body.push_back(token);
  }
  llvm::copy(body,
             macro->allocateTokens(body.size(), preprocessor.getPreprocessorAllocator()).begin());
  return macro;
}

// Keeps each view's values of the identity macros and installs one view's at every file
// boundary where the view changes. A view's values are what they were when its files were last
// left, so a #define or #undef of one of them in a file of that view (a user's header defining
// __GNUC__ where it is missing) holds for the files of that view after it.
class CompilerViewSwitch : public clang::PPCallbacks {
public:
  CompilerViewSwitch(clang::Preprocessor& preprocessor, PendingMacroValues nvccView,
                     ViewFolders folders)
      : Preprocessor(preprocessor), NvccValues(std::move(nvccView)), Folders(std::move(folders)) {
    // With a precompiled preamble (frontend/Preamble.h), looking a name up reads its macro's
    // history, which would replace whatever was installed before it was read: so the switch is
    // made once the preamble is loaded, and looks every name up here.
    for (const std::string& name : compilerIdentityMacros())
      Names.push_back(Preprocessor.getIdentifierInfo(name));
    // Before the first file nothing is defined; Clang's values appear as its predefines run.
    Saved[index(CompilerView::Clang)].assign(Names.size(), nullptr);
  }

  void FileChanged(clang::SourceLocation location, FileChangeReason reason,
                   clang::SrcMgr::CharacteristicKind, clang::FileID) override {
    if (reason != EnterFile && reason != ExitFile)
      return;
    // The main file is entered first and left at once for the predefines, before any of its
    // tokens: its view is installed when the preamble returns to it, so a pending nvcc view is
    // waited for only then. The same macros reach its first token either way.
    if (!Started) {
      Started = true;
      if (Preprocessor.getSourceManager().getFileID(location) ==
          Preprocessor.getSourceManager().getMainFileID())
        return;
    }
    CompilerView view = viewAt(location);
    if (view == Current)
      return;
    Saved[index(Current)] = current();
    if (view == CompilerView::Nvcc && Saved[index(view)].empty())
      Saved[index(view)] = nvccMacros();
    install(Saved[index(view)], location);
    Current = view;
  }

private:
  static size_t index(CompilerView view) { return view == CompilerView::Clang ? 0 : 1; }

  CompilerView viewAt(clang::SourceLocation location) {
    clang::SourceManager& sources = Preprocessor.getSourceManager();
    clang::FileID id = sources.getFileID(sources.getExpansionLoc(location));
    if (id == sources.getMainFileID())
      return CompilerView::Nvcc;
    // Buffers that are no file: the predefines and the command line's macros.
    clang::OptionalFileEntryRef file = sources.getFileEntryRefForID(id);
    if (!file)
      return CompilerView::Clang;
    // A file in no folder is entered from the file that includes it (the view now): a header
    // beside it, or one a link in a search folder leads out of it (a toolkit's headers linked
    // into /usr/local/include).
    auto [known, added] = Views.try_emplace(&file->getFileEntry(), Current);
    if (added)
      known->second =
          viewOf(sources.getFileManager().getCanonicalName(*file), Folders).value_or(Current);
    return known->second;
  }

  std::vector<clang::MacroInfo*> current() const {
    std::vector<clang::MacroInfo*> macros;
    for (clang::IdentifierInfo* name : Names)
      macros.push_back(Preprocessor.getMacroInfo(name));
    return macros;
  }

  std::vector<clang::MacroInfo*> nvccMacros() const {
    const MacroValues& values = NvccValues.get();
    std::vector<clang::MacroInfo*> macros;
    for (clang::IdentifierInfo* name : Names) {
      auto value = values.find(name->getName().str());
      macros.push_back(value == values.end() ? nullptr
                                             : macroWithBody(Preprocessor, value->second));
    }
    return macros;
  }

  void install(const std::vector<clang::MacroInfo*>& macros, clang::SourceLocation location) {
    for (size_t i = 0; i < Names.size(); ++i) {
      if (Preprocessor.getMacroInfo(Names[i]) == macros[i])
        continue;
      if (macros[i])
        Preprocessor.appendDefMacroDirective(Names[i], macros[i], location);
      else
        Preprocessor.appendMacroDirective(Names[i], new (Preprocessor.getPreprocessorAllocator())
                                                        clang::UndefMacroDirective(location));
    }
  }

  clang::Preprocessor& Preprocessor;
  PendingMacroValues NvccValues;
  ViewFolders Folders;
  bool Started = false; // past the first file change
  std::vector<clang::IdentifierInfo*> Names;
  std::array<std::vector<clang::MacroInfo*>, 2> Saved; // by index(view)
  CompilerView Current = CompilerView::Clang;
  llvm::DenseMap<const clang::FileEntry*, CompilerView> Views;
};

} // namespace

namespace {

// `given` as real paths, with `instance`'s header search folders added to `searched`.
ViewFolders realFolders(clang::CompilerInstance& instance, const ViewFolders& given) {
  ViewFolders folders;
  for (const std::string& folder : given.clang)
    folders.clang.push_back(realFolder(folder));
  for (const std::string& folder : given.system)
    folders.system.push_back(realFolder(folder));
  for (const std::string& folder : given.searched)
    folders.searched.push_back(realFolder(folder));
  for (const auto& entry : instance.getHeaderSearchOpts().UserEntries)
    folders.searched.push_back(realFolder(entry.Path));
  return folders;
}

} // namespace

bool allOfClangView(clang::CompilerInstance& instance, const std::vector<std::string>& files,
                    const ViewFolders& given) {
  ViewFolders folders = realFolders(instance, given);
  return llvm::all_of(files, [&](const std::string& file) {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(file, real))
      return false;
    return viewOf(real, folders).value_or(CompilerView::Clang) == CompilerView::Clang;
  });
}

void installCompilerView(clang::CompilerInstance& instance, PendingMacroValues nvccView,
                         const ViewFolders& given) {
  ViewFolders folders = realFolders(instance, given);
  clang::Preprocessor& preprocessor = instance.getPreprocessor();
  preprocessor.addPPCallbacks(
      std::make_unique<CompilerViewSwitch>(preprocessor, std::move(nvccView), std::move(folders)));
}

MacroValues currentMacros(clang::CompilerInstance& instance,
                          const std::vector<std::string>& names) {
  clang::Preprocessor& preprocessor = instance.getPreprocessor();
  MacroValues values;
  for (const std::string& name : names) {
    const clang::MacroInfo* macro = preprocessor.getMacroInfo(preprocessor.getIdentifierInfo(name));
    if (!macro)
      continue;
    std::string body;
    for (const clang::Token& token : macro->tokens())
      body += (body.empty() ? "" : " ") + preprocessor.getSpelling(token);
    values[name] = body;
  }
  return values;
}

} // namespace tlc
