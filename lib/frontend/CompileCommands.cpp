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

#include <map>
#include <set>

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

namespace {

// Checks a compilation database's JSON before Clang's reader sees it, which reports syntax
// errors on stderr without the file's name (`YAML:1:61: error: ...`), loads what it read up to
// there, and parses nesting by recursion. Here a syntax error is a message with its line and
// column, and nothing may nest deeper than a database does (a list of entries, each an object
// holding a list of arguments). nlohmann's SAX parser does not recurse.
class DatabaseSyntax : public nlohmann::json_sax<nlohmann::json> {
public:
  std::string problem;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t&) override { return true; }
  bool start_object(std::size_t) override { return enter(); }
  bool start_array(std::size_t) override { return enter(); }
  bool end_object() override { return leave(); }
  bool end_array() override { return leave(); }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& error) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 61: syntax error ..."
    llvm::StringRef text = error.what();
    size_t at = text.find("line ");
    problem = (at == llvm::StringRef::npos ? text : text.drop_front(at)).str();
    return false;
  }

private:
  static constexpr size_t kDepth = 3; // [ { "arguments": [ ] } ]
  bool enter() {
    if (++Depth <= kDepth)
      return true;
    problem = "it nests deeper than a compilation database (a list of objects holding lists)";
    return false;
  }
  bool leave() {
    --Depth;
    return true;
  }
  size_t Depth = 0;
};

} // namespace

llvm::Expected<std::map<std::string, InputFlags>>
flagsFromCompileDatabase(const std::string& path, const std::vector<std::string>& inputs) {
  // Read as every file tlc reads (support/Files.h): a FIFO or a device named as the database
  // (-p pointing at one, --compile-commands /dev/zero) is refused, not waited on or read forever.
  auto text = readFile(path, kCompileDatabaseReadLimit);
  if (!text)
    return text.takeError();
  DatabaseSyntax syntax;
  if (!nlohmann::json::sax_parse(*text, &syntax))
    return inputError("cannot read the compilation database '" + path + "': " + syntax.problem);
  std::string error;
  auto database = clang::tooling::JSONCompilationDatabase::loadFromBuffer(
      *text, error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
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

std::string compileDatabaseCompatHeader(const std::string& path) {
  llvm::SmallString<256> header(absolutePath(path));
  if (llvm::sys::path::extension(header) == ".json")
    llvm::sys::path::replace_extension(header, "");
  header += ".tlc_nvcc_compat.h";
  return header.str().str();
}

// A compilation database: a JSON list of entries, each naming its file and folder, as every tool
// that writes one does (an empty list included). Any other JSON list is someone's data.
static bool isCompileDatabase(const std::string& text) {
  nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return document.is_array() && llvm::all_of(document, [](const nlohmann::json& entry) {
           return entry.is_object() && entry.contains("file") && entry["file"].is_string() &&
                  entry.contains("directory") && entry["directory"].is_string();
         });
}

// A file `--compile-commands-out` may replace: empty, or holding what tlc writes there. The
// database is written before the parse, so it cannot be compared with the headers the build
// reads (builder/OutputPaths.h does that after the parse, too late for it): a header of the
// user's named by mistake (`--compile-commands-out include/tile.h`) is told by its content.
static llvm::Error checkReplaceable(const std::string& path, const std::string& shown,
                                    bool header) {
  if (llvm::Error error = checkWritable(path))
    return error;
  if (!llvm::sys::fs::exists(path))
    return llvm::Error::success();
  auto text = readFile(path, kCompileDatabaseReadLimit);
  if (!text)
    return text.takeError();
  llvm::StringRef contents = llvm::StringRef(*text).ltrim();
  bool ours = contents.empty() || (header ? contents.starts_with(parseCompatHeaderFirstLine())
                                          : isCompileDatabase(*text));
  if (ours)
    return llvm::Error::success();
  return usageError("--compile-commands-out '" + shown + "': '" + path + "' exists and is not " +
                    (header ? "the header tlc writes beside a compilation database"
                            : "a compilation database (a JSON list of entries, each naming its "
                              "file and directory)") +
                    "; tlc replaces only what it wrote there: name another file");
}

// The headers a database tlc wrote at `path` lists: its entries but the inputs' (a `.cu` file is
// taken for a former input, not a header), each a file that still exists. None when there is no
// such database (checkReplaceable said it is ours).
static std::vector<std::string> headersListed(const std::string& path) {
  std::vector<std::string> headers;
  auto text = readFile(path, kCompileDatabaseReadLimit);
  if (!text) {
    llvm::consumeError(text.takeError());
    return headers;
  }
  nlohmann::json database = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!database.is_array())
    return headers;
  for (const nlohmann::json& entry : database)
    if (entry.is_object() && entry.contains("file") && entry["file"].is_string()) {
      std::string file = entry["file"].get<std::string>();
      if (llvm::sys::path::extension(file) != ".cu" && llvm::sys::fs::is_regular_file(file))
        headers.push_back(file);
    }
  return headers;
}

llvm::Error checkCompileDatabaseOut(const std::string& path) {
  if (llvm::Error error = checkReplaceable(path, path, /*header=*/false))
    return error;
  return checkReplaceable(compileDatabaseCompatHeader(path), path, /*header=*/true);
}

llvm::Error writeCompileDatabase(const std::string& path, const std::vector<std::string>& inputs,
                                 const FrontendOptions& options, const CudaToolkit& toolkit,
                                 const std::map<std::string, std::string>* headers) {
  llvm::SmallString<256> directory;
  if (std::error_code ec = llvm::sys::fs::current_path(directory))
    return inputError("cannot write '" + path + "': no working folder: " + ec.message());
  // Both files are checked before either is written: /dev/null as the database is refused
  // before /dev/null.tlc_nvcc_compat.h is made.
  if (llvm::Error error = checkCompileDatabaseOut(path))
    return error;
  std::string database = absolutePath(path);
  std::string compatHeader = compileDatabaseCompatHeader(path);
  if (std::error_code ec =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(database)))
    return inputError("cannot create the folder of '" + path + "': " + ec.message());

  nlohmann::json entries = nlohmann::json::array();
  std::set<std::string> files;
  auto add = [&](const std::string& input, const std::string& file) {
    std::vector<std::string> arguments = editorCommandLine(input, options, toolkit, compatHeader);
    arguments.back() = file; // the input, last: as `file` names it
    entries.push_back({{"directory", directory.str().str()},
                       {"file", file},
                       {"arguments", std::move(arguments)}});
  };
  for (const std::string& input : inputs)
    if (files.insert(absolutePath(input)).second)
      add(input, absolutePath(input));
  std::map<std::string, std::string> known;
  if (!headers && !inputs.empty())
    for (const std::string& header : headersListed(database))
      known.emplace(header, inputs.front());
  for (const auto& [header, input] : headers ? *headers : known)
    if (files.insert(header).second)
      add(input, header);
  // The header first: the database never names a file that is not there.
  if (llvm::Error error = replaceFileIfChanged(compatHeader, parseCompatHeader(toolkit)))
    return error;
  return replaceFileIfChanged(database, entries.dump(2) + "\n");
}

} // namespace tlc
