// The parse's precompiled preamble: made, kept in the cache and found again (Preamble.h).
#include "frontend/Preamble.h"

#include "frontend/Extractor.h"
#include "frontend/ParseCompat.h"
#include "support/Files.h"
#include "support/Hashing.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Serialization/ASTWriter.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

namespace tlc {

namespace {

constexpr const char* WrapperHeader = "__clang_cuda_runtime_wrapper.h";
constexpr size_t KeptPreambles = 8;
constexpr size_t KeptRefusals = 32;
// A preamble is some 6 to 8 MB; a larger file in its place is read no further than this.
constexpr uint64_t KeptPreambleBytes = uint64_t(256) << 20;

// A file's identity as the preamble records it: size, modification and change times, device and
// inode ("" when it cannot be read). A header rewritten, replaced or touched is another.
std::string identityOf(const std::string& path) {
  struct stat status{};
  if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode))
    return "";
  auto nanoseconds = [](const timespec& time) {
    return std::to_string(time.tv_sec) + "." + std::to_string(time.tv_nsec);
  };
  return std::to_string(status.st_size) + " " + nanoseconds(status.st_mtim) + " " +
         nanoseconds(status.st_ctim) + " " + std::to_string(status.st_dev) + " " +
         std::to_string(status.st_ino);
}

// Whether the headers the preamble's input names itself are each guarded against a second
// inclusion: the parse that loads the preamble reads those lines again.
bool namedHeadersGuarded(clang::CompilerInstance& ci) {
  const clang::SourceManager& sources = ci.getSourceManager();
  const clang::HeaderSearch& search = ci.getPreprocessor().getHeaderSearchInfo();
  clang::FileID input = sources.getMainFileID();
  for (unsigned i = 0; i < sources.local_sloc_entry_size(); ++i) {
    const clang::SrcMgr::SLocEntry& entry = sources.getLocalSLocEntry(i);
    if (!entry.isFile())
      continue;
    clang::SourceLocation includedAt = entry.getFile().getIncludeLoc();
    if (includedAt.isInvalid() || sources.getFileID(includedAt) != input)
      continue;
    clang::OptionalFileEntryRef file = entry.getFile().getContentCache().OrigEntry;
    if (!file || !search.isFileMultipleIncludeGuarded(*file))
      return false;
  }
  return true;
}

// GeneratePCHAction's work, into memory: the preamble of preambleInput(), with the parse's
// command line but only the -include files a preamble holds. The extractor walks its headers
// as a parse without a preamble would (and asks for the bodies it skips, and no others).
class MakePreamble : public clang::ASTFrontendAction {
public:
  MakePreamble(PreambleOutput& out, ViewFolders folders) : Out(out), Folders(std::move(folders)) {}

  bool BeginInvocation(clang::CompilerInstance& ci) override {
    std::vector<std::string>& includes = ci.getPreprocessorOpts().Includes;
    if (!startsWithPreambleIncludes(includes))
      return false;
    includes.resize(2);
    return true;
  }

  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getLangOpts().CompilingPCH = true;
    return true;
  }

  clang::TranslationUnitKind getTranslationUnitKind() override { return clang::TU_Prefix; }
  bool hasASTFileSupport() const override { return false; }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    Buffer = std::make_shared<clang::PCHBuffer>();
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::make_unique<clang::PCHGenerator>(
        ci.getPreprocessor(), ci.getModuleCache(), "", "", Buffer, ci.getCodeGenOpts(),
        ci.getFrontendOpts().ModuleFileExtensions));
    consumers.push_back(makeExtractorConsumer(ci, Facts));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

  void EndSourceFileAction() override {
    clang::CompilerInstance& ci = getCompilerInstance();
    std::vector<std::string> files;
    const clang::SourceManager& sources = ci.getSourceManager();
    for (auto it = sources.fileinfo_begin(); it != sources.fileinfo_end(); ++it) {
      llvm::StringRef name = it->first.getName();
      if (name != parseCompatHeaderPath() && name != preambleInputPath())
        files.push_back(name.str());
    }
    std::sort(files.begin(), files.end());
    Out.files = std::move(files);
    if (!Buffer || !Buffer->IsComplete || ci.getDiagnostics().hasErrorOccurred() ||
        !allOfClangView(ci, Out.files, Folders) || !namedHeadersGuarded(ci))
      return;
    Out.facts = {Facts.otherEntries, Facts.libraryKernelTemplates};
    Out.pch.assign(Buffer->Data.begin(), Buffer->Data.end());
  }

private:
  PreambleOutput& Out;
  ViewFolders Folders;
  std::shared_ptr<clang::PCHBuffer> Buffer;
  TranslationUnitFacts Facts;
};

// Whether `file` is a regular file of this user's that no one else may change, as the cache's
// entries are (a folder a group shares holds its members' preambles, which each member then
// makes again).
bool ownFile(const std::string& file) {
  struct stat status{};
  return ::lstat(file.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
         status.st_uid == ::geteuid() && !(status.st_mode & (S_IWGRP | S_IWOTH));
}

// "identity<TAB>path" for each of `files`; none if one cannot be read or named so.
std::optional<std::string> identityLines(const std::vector<std::string>& files) {
  std::string lines;
  for (const std::string& file : files) {
    std::string identity = identityOf(file);
    if (identity.empty() || file.find_first_of("\t\n") != std::string::npos)
      return std::nullopt;
    lines += identity + "\t" + file + "\n";
  }
  return lines;
}

// Keeps the `kept` preambles of `dir` used last (by their listings' times, which findPreamble
// renews): each is some 8 MB (30 with CUB's headers), and every distinct command line (a
// compilation database's per-file macros) and list of leading includes makes one. The same for
// the marks of preambles that cannot be kept (`suffix` ".refused"), which list the files read.
// `alsoRemove`: the suffix of a file that goes with each listing removed (".pch"), if any.
void keepRecent(const std::string& dir, llvm::StringRef suffix, size_t kept,
                llvm::StringRef alsoRemove) {
  std::vector<std::pair<llvm::sys::TimePoint<>, std::string>> listings;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::sys::fs::file_status status;
    if (llvm::StringRef(it->path()).ends_with(suffix) && !llvm::sys::fs::status(it->path(), status))
      listings.push_back({status.getLastModificationTime(), it->path()});
  }
  if (listings.size() <= kept)
    return;
  std::sort(listings.begin(), listings.end(), std::greater<>());
  for (size_t i = kept; i < listings.size(); ++i) {
    llvm::sys::fs::remove(listings[i].second);
    if (!alsoRemove.empty())
      llvm::sys::fs::remove(llvm::StringRef(listings[i].second).drop_back(suffix.size()) +
                            alsoRemove);
  }
}

// Whether the file a listing's line names ("identity<TAB>path", identityLines) is as it was.
bool unchanged(llvm::StringRef line) {
  auto [identity, file] = line.split('\t');
  return !file.empty() && identityOf(file.str()) == identity;
}

} // namespace

const char* preambleInputPath() {
  static const std::string path =
      llvm::sys::path::parent_path(parseCompatHeaderPath()).str() + "/tlc_preamble.cu";
  return path.c_str();
}

std::string preambleInput(const std::vector<std::string>& includes) {
  std::string text;
  for (const std::string& name : includes)
    text += "#include <" + name + ">\n";
  return text;
}

namespace {

// `text` past blank space and comments; `ok` false at a comment that does not end, or a line
// comment continued with a backslash.
llvm::StringRef skipBlankAndComments(llvm::StringRef text, bool& ok) {
  for (;;) {
    text = text.ltrim(" \t\r\n\f\v");
    if (text.consume_front("//")) {
      llvm::StringRef line = text.take_until([](char c) { return c == '\n'; });
      if (line.rtrim(" \t\r").ends_with("\\"))
        return ok = false, text;
      text = text.drop_front(line.size());
    } else if (text.consume_front("/*")) {
      size_t end = text.find("*/");
      if (end == llvm::StringRef::npos)
        return ok = false, text;
      text = text.drop_front(end + 2);
    } else {
      return text;
    }
  }
}

// A header's name between <>, as a preamble may name it again: no quote, backslash, control
// character or '>' (nothing that would read otherwise in preambleInput()).
bool plainHeaderName(llvm::StringRef name) {
  return !name.empty() && llvm::none_of(name, [](char c) {
    return c == '"' || c == '\\' || c == '>' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

} // namespace

std::vector<std::string> leadingSystemIncludes(llvm::StringRef text) {
  std::vector<std::string> names;
  text.consume_front("\xEF\xBB\xBF");
  for (bool ok = true;;) {
    text = skipBlankAndComments(text, ok);
    if (!ok || !text.consume_front("#"))
      return names;
    llvm::StringRef line = text.take_until([](char c) { return c == '\n'; });
    text = text.drop_front(line.size());
    llvm::StringRef rest = line.ltrim(" \t");
    if (!rest.consume_front("include"))
      return names;
    rest = rest.ltrim(" \t");
    if (!rest.consume_front("<"))
      return names;
    auto [name, after] = rest.split('>');
    // Only blank space or a line comment may follow; a line continued ends the run.
    after = after.trim(" \t\r");
    bool restOfLineBlank = after.empty() || (after.starts_with("//") && !after.ends_with("\\"));
    if (!rest.contains('>') || !plainHeaderName(name) || !restOfLineBlank)
      return names;
    names.push_back(name.str());
  }
}

// XXH3 finds a changed or cut file at memory speed (a SHA-256 of the 8 MB would cost a warm parse
// a tenth of its time); the folder is this user's alone, so it guards against damage, not an
// adversary.
std::string preambleDigest(llvm::StringRef bytes) {
  llvm::XXH128_hash_t digest = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(bytes));
  return "xxh128 " + llvm::utohexstr(digest.high64, true, 16) +
         llvm::utohexstr(digest.low64, true, 16);
}

const char* preamblePchPath() {
  static const std::string path =
      llvm::sys::path::parent_path(parseCompatHeaderPath()).str() + "/tlc_preamble.pch";
  return path.c_str();
}

bool startsWithPreambleIncludes(const std::vector<std::string>& includes) {
  return includes.size() >= 2 && includes[0] == WrapperHeader &&
         includes[1] == parseCompatHeaderPath();
}

std::string preambleStem(const std::string& dir, const std::vector<std::string>& commandLine,
                         const CudaToolkit& toolkit, const std::vector<std::string>& includes) {
  // "bodies 2": which bodies the parse skips (skipsBodyOf), which a preamble holds as they were;
  // "facts 1": its listing holds the extractor's facts of its headers.
  std::string material =
      "tlc " + std::string(tlcVersion()) + "\nclang " + clangVersion() + "\nbodies 2\nfacts 1\n";
  for (size_t i = 0; i + 1 < commandLine.size(); ++i) // not the input
    material += "arg " + commandLine[i] + "\n";
  for (const std::string& name : includes)
    material += "include " + name + "\n";
  material += "compat\n" + parseCompatHeader(toolkit);
  return dir + "/" + sha256Hex(material).substr(0, 40);
}

std::optional<Preamble> findPreamble(const std::string& stem) {
  if (!ownFile(stem + ".files") || !ownFile(stem + ".pch"))
    return std::nullopt;
  auto listing = readFile(stem + ".files");
  if (!listing) {
    llvm::consumeError(listing.takeError());
    return std::nullopt;
  }
  auto [digest, rest] = llvm::StringRef(*listing).split('\n');
  Preamble preamble{stem + ".pch", {}, nullptr, {}, ""};
  llvm::SmallVector<llvm::StringRef, 256> lines;
  rest.split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    auto [identity, file] = line.split('\t');
    if (identity == "entry")
      preamble.facts.otherEntries.push_back(file.str());
    else if (identity == "template")
      preamble.facts.libraryKernelTemplates.push_back(file.str());
    else if (!unchanged(line))
      return std::nullopt;
    else
      preamble.files.push_back(file.str());
  }
  if (preamble.files.empty())
    return std::nullopt;
  auto bytes = readFileBuffer(preamble.pch, KeptPreambleBytes);
  if (!bytes) {
    llvm::consumeError(bytes.takeError());
    return std::nullopt;
  }
  if (preambleDigest((*bytes)->getBuffer()) != digest)
    return std::nullopt; // damaged: made again by this parse (preambleWanted)
  preamble.bytes = std::move(*bytes);
  // Used now: the last to go (keepRecent).
  ::utimensat(AT_FDCWD, (stem + ".files").c_str(), nullptr, 0);
  return preamble;
}

bool preambleWanted(const std::string& stem) {
  std::string mark = stem + ".seen";
  if (llvm::sys::fs::exists(mark))
    return true;
  if (!llvm::sys::fs::create_directories(llvm::sys::path::parent_path(stem), true,
                                         llvm::sys::fs::owner_all))
    llvm::consumeError(writeFile(mark, "", 0600));
  return false;
}

std::unique_ptr<clang::FrontendAction> makePreambleAction(PreambleOutput& out,
                                                          const ViewFolders& folders) {
  return std::make_unique<MakePreamble>(out, folders);
}

std::optional<Preamble> storePreamble(const std::string& stem, const PreambleOutput& made) {
  if (made.pch.empty() || made.files.empty())
    return std::nullopt;
  auto files = identityLines(made.files);
  if (!files)
    return std::nullopt;
  std::string listing = preambleDigest(made.pch) + "\n" + *files;
  // Symbols and qualified names hold no tab or line break.
  for (const std::string& entry : made.facts.otherEntries)
    listing += "entry\t" + entry + "\n";
  for (const std::string& name : made.facts.libraryKernelTemplates)
    listing += "template\t" + name + "\n";
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(stem), true,
                                        llvm::sys::fs::owner_all))
    return std::nullopt;
  // The precompiled file first: a listing names a preamble only once it is there whole.
  if (llvm::Error error = writeFile(stem + ".pch", made.pch, 0600)) {
    llvm::consumeError(std::move(error));
    return std::nullopt;
  }
  if (llvm::Error error = writeFile(stem + ".files", listing, 0600)) {
    llvm::consumeError(std::move(error));
    return std::nullopt;
  }
  keepRecent(llvm::sys::path::parent_path(stem).str(), ".files", KeptPreambles, ".pch");
  return Preamble{stem + ".pch", made.files, llvm::MemoryBuffer::getMemBufferCopy(made.pch),
                  made.facts, ""};
}

bool preambleRefused(const std::string& stem) {
  std::string mark = stem + ".refused";
  if (!ownFile(mark))
    return false;
  auto listing = readFile(mark);
  if (!listing) {
    llvm::consumeError(listing.takeError());
    return false;
  }
  llvm::SmallVector<llvm::StringRef, 256> lines;
  llvm::StringRef(*listing).split(lines, '\n', -1, false);
  return !lines.empty() && llvm::all_of(lines, unchanged);
}

void refusePreamble(const std::string& stem, const std::vector<std::string>& files) {
  auto lines = identityLines(files);
  if (!lines || lines->empty() ||
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(stem), true,
                                        llvm::sys::fs::owner_all))
    return;
  llvm::consumeError(writeFile(stem + ".refused", *lines, 0600));
  // A mark's stem may hold a preamble kept since (a file changed): that one stays.
  keepRecent(llvm::sys::path::parent_path(stem).str(), ".refused", KeptRefusals, "");
}

// The files a preamble's stem names, the listing first (removeKeptPreamble's order).
constexpr const char* PreambleSuffixes[] = {".files", ".pch", ".refused", ".seen"};

std::vector<KeptPreamble> keptPreambles(const std::string& dir) {
  std::map<std::string, KeptPreamble> byStem;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef path = it->path();
    const char* const* suffix =
        llvm::find_if(PreambleSuffixes, [&](const char* name) { return path.ends_with(name); });
    llvm::sys::fs::file_status status;
    if (suffix == std::end(PreambleSuffixes) || llvm::sys::fs::status(path, status) ||
        status.type() != llvm::sys::fs::file_type::regular_file)
      continue; // a writer's temporary file, or nothing tlc names so
    std::string stem = path.drop_back(std::strlen(*suffix)).str();
    KeptPreamble& kept = byStem[stem];
    kept.stem = stem;
    kept.precompiled |= llvm::StringRef(*suffix) == ".pch";
    kept.bytes += status.getSize();
    kept.used = std::max(kept.used, status.getLastModificationTime());
  }
  std::vector<KeptPreamble> kept;
  for (auto& [stem, preamble] : byStem)
    kept.push_back(std::move(preamble));
  return kept;
}

void removeKeptPreamble(const std::string& stem) {
  for (const char* suffix : PreambleSuffixes)
    llvm::sys::fs::remove(stem + suffix);
}

void discardPreamble(const Preamble& preamble) {
  llvm::StringRef stem = llvm::StringRef(preamble.pch).drop_back(4); // ".pch"
  llvm::sys::fs::remove(stem + ".files");
  llvm::sys::fs::remove(preamble.pch);
}

} // namespace tlc
