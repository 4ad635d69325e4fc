// Per-input flags from compile_commands.json, split between Clang and nvcc.
#include "frontend/CompileCommands.h"

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

#include <algorithm>

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

// -arch X with -code Y1,Y2 is -gencode arch=<X's virtual arch>,code=[Y1,Y2]; -arch alone is
// what nvcc and tlc's --arch mean by it.
void addTargets(const std::vector<std::string>& archs, const std::vector<std::string>& codes,
                InputFlags& flags) {
  if (codes.empty()) {
    flags.archs.insert(flags.archs.end(), archs.begin(), archs.end());
    return;
  }
  for (llvm::StringRef arch : archs) {
    std::string virtualArch =
        arch.starts_with("sm_") ? "compute_" + arch.drop_front(3).str() : arch.str();
    flags.gencodes.push_back("arch=" + virtualArch + ",code=[" + llvm::join(codes, ",") + "]");
  }
}

// Flags whose next argument is their value, as nvcc spells them.
bool takesValue(llvm::StringRef flag) {
  static const char* const flags[] = {"-o",
                                      "-x",
                                      "-MF",
                                      "-MT",
                                      "-MQ",
                                      "-I",
                                      "-isystem",
                                      "-D",
                                      "-U",
                                      "-include",
                                      "-arch",
                                      "-gencode",
                                      "-code",
                                      "--std",
                                      "-ccbin",
                                      "--compiler-bindir",
                                      "-Xcompiler",
                                      "-Xptxas",
                                      "-Xnvlink",
                                      "-Xlinker",
                                      "--dependency-output",
                                      "-odir"};
  return std::find(std::begin(flags), std::end(flags), flag) != std::end(flags);
}

} // namespace

InputFlags translateNvccCommand(const std::vector<std::string>& command,
                                const std::string& directory, const std::string& input) {
  InputFlags flags;
  std::string inputPath = absolutePath(resolve(input, directory));
  auto keepPath = [&](const std::string& clangFlag, const std::string& nvccFlag,
                      const std::string& path) {
    std::string absolute = resolve(path, directory);
    flags.clang.push_back(clangFlag);
    flags.clang.push_back(absolute);
    flags.nvcc.push_back(nvccFlag);
    flags.nvcc.push_back(absolute);
  };
  std::vector<std::string> archs, codes;
  for (size_t i = 1; i < command.size(); ++i) {
    llvm::StringRef arg = command[i];
    std::string value;
    llvm::StringRef flag = arg;
    if (takesValue(arg) && i + 1 < command.size()) {
      value = command[++i];
    } else if ((arg.starts_with("-I") || arg.starts_with("-D") || arg.starts_with("-U")) &&
               arg.size() > 2) {
      flag = arg.take_front(2); // -DNAME=VALUE: the '=' belongs to the value
      value = arg.drop_front(2).str();
    } else if (arg.contains('=') && arg.starts_with("-")) {
      auto [name, rest] = arg.split('=');
      flag = name;
      value = rest.str();
    }

    // What tlc decides itself: the mode, outputs, dependency files, the language, the targets.
    if (flag == "-c" || flag == "-dc" || flag == "--device-c" || flag == "-rdc" ||
        flag == "--relocatable-device-code" || flag == "-o" || flag == "-x" || flag == "-odir" ||
        flag.starts_with("-M") || flag == "--generate-dependencies" ||
        flag == "--generate-nonsystem-dependencies" || flag == "--dependency-output" ||
        flag == "--generate-dependencies-with-compile" ||
        flag == "--generate-nonsystem-dependencies-with-compile")
      continue;
    if (flag == "-arch" || flag == "--gpu-architecture") {
      archs.push_back(value);
      continue;
    }
    if (flag == "-code" || flag == "--gpu-code") {
      llvm::SmallVector<llvm::StringRef, 4> parts;
      llvm::StringRef(value).split(parts, ',', -1, false);
      for (llvm::StringRef part : parts)
        codes.push_back(part.str());
      continue;
    }
    if (flag == "-gencode" || flag == "--generate-code") {
      flags.gencodes.push_back(value);
      continue;
    }
    if (!arg.starts_with("-") && absolutePath(resolve(arg.str(), directory)) == inputPath)
      continue;

    if (flag == "-I" || flag == "--include-path")
      keepPath("-I", "-I", value);
    else if (flag == "-isystem" || flag == "--system-include")
      keepPath("-isystem", "-isystem", value);
    else if (flag == "-include" || flag == "--pre-include")
      keepPath("-include", "-include", value);
    else if (flag == "-D" || flag == "--define-macro") {
      flags.clang.push_back("-D" + value);
      flags.nvcc.push_back("-D" + value);
    } else if (flag == "-U" || flag == "--undefine-macro") {
      flags.clang.push_back("-U" + value);
      flags.nvcc.push_back("-U" + value);
    } else if (flag == "-std" || flag == "--std") {
      flags.clang.push_back("-std=" + value);
      flags.nvcc.push_back("-std=" + value);
    } else if (flag == "--use_fast_math" || flag == "-use_fast_math") {
      flags.clang.push_back("-D__USE_FAST_MATH__=1"); // nvcc defines it under this flag
      flags.nvcc.push_back(arg.str());
    } else if (takesValue(flag) && flag == arg) {
      flags.nvcc.push_back(arg.str()); // e.g. -Xcompiler VALUE: for nvcc only, as written
      flags.nvcc.push_back(value);
    } else {
      flags.nvcc.push_back(arg.str());
    }
  }
  addTargets(archs, codes, flags);
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

// A file `--compile-commands-out` may replace: empty, or holding what tlc writes there. The
// database is written before the parse, so it cannot be compared with the headers the build
// reads (pipeline/OutputPaths.h does that after the parse, too late for it): a header of the
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
  bool ours =
      contents.empty() || (header ? contents.starts_with(parseCompatHeaderFirstLine())
                                  : contents.starts_with("[") && nlohmann::json::accept(*text));
  if (ours)
    return llvm::Error::success();
  return usageError("--compile-commands-out '" + shown + "': '" + path + "' exists and is not " +
                    (header ? "the header tlc writes beside a compilation database"
                            : "a compilation database (a JSON list)") +
                    "; tlc replaces only what it wrote there: name another file");
}

llvm::Error checkCompileDatabaseOut(const std::string& path) {
  if (llvm::Error error = checkReplaceable(path, path, /*header=*/false))
    return error;
  return checkReplaceable(compileDatabaseCompatHeader(path), path, /*header=*/true);
}

llvm::Error writeCompileDatabase(const std::string& path, const std::vector<std::string>& inputs,
                                 const FrontendOptions& options, const CudaToolkit& toolkit) {
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
  for (const std::string& input : inputs) {
    std::vector<std::string> arguments = editorCommandLine(input, options, toolkit, compatHeader);
    std::string file = absolutePath(input);
    arguments.back() = file; // the input, last: as `file` names it
    entries.push_back({{"directory", directory.str().str()},
                       {"file", file},
                       {"arguments", std::move(arguments)}});
  }
  // The header first: the database never names a file that is not there.
  if (llvm::Error error = replaceFileIfChanged(compatHeader, parseCompatHeader(toolkit)))
    return error;
  return replaceFileIfChanged(database, entries.dump(2) + "\n");
}

} // namespace tlc
