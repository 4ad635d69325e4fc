// The tools' view of the file system: relative names of tlc's choosing, links, macro headers.
#include "builder/ToolPaths.h"

#include "frontend/NvccOptions.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace tlc {

std::string safeFileName(llvm::StringRef name) {
  llvm::StringRef extension = llvm::sys::path::extension(name);
  if (!isShellSafe(extension))
    extension = "";
  llvm::StringRef stem = name.drop_back(extension.size());
  std::string safe;
  for (char c : stem)
    safe += llvm::isAlnum(c) || c == '_' || c == '-' || c == '.' ? c : '_';
  if (safe.empty() || safe.front() == '.' || safe.front() == '-')
    safe = "input" + safe;
  return safe + extension.str();
}

// A name a `#line` directive can hold as it is: no quote, backslash or control character.
static bool fitsLineMarker(llvm::StringRef name) {
  return !name.empty() && llvm::none_of(name, [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

// `path` as one item of an nvcc option list: shell-safe, without the list's ',' (unsafe
// characters become '_'), and still telling paths apart: a short hash of the original follows
// a path that had to change.
static std::string listItemSpelling(const std::string& path) {
  if (isShellSafe(path) && !llvm::StringRef(path).contains(','))
    return path;
  std::string safe;
  for (char c : path)
    safe += llvm::isAlnum(c) || llvm::StringRef("_-./=:+@%").contains(c) ? c : '_';
  return safe + "-" + sha256Hex(path).substr(0, 12);
}

SourceIdentity sourceIdentity(const std::string& typed, const std::string& relocated,
                              bool debugInfo, bool inUserFolder) {
  std::string absolute = absolutePath(typed);
  // nvcc hashes the absolute path of what it compiles; under a base folder, the relocated one.
  // Compiled in the user's folder, the spelling as typed, which the line table names too: a
  // project's copies in two folders then build the same bytes.
  bool fromTyped = inUserFolder && llvm::sys::path::is_absolute(relocated) &&
                   !llvm::sys::path::is_absolute(typed);
  std::string hashed = fromTyped                                 ? typed
                       : llvm::sys::path::is_absolute(relocated) ? absolute
                                                                 : relocated;
  SourceIdentity identity;
  identity.hashedPath = listItemSpelling(hashed);
  // nvcc names a file as it was given; the cache's relocated spelling under a base folder.
  std::string lineName = inUserFolder                              ? typed
                         : debugInfo                               ? absolute
                         : llvm::sys::path::is_absolute(relocated) ? typed
                                                                   : relocated;
  identity.lineName = fitsLineMarker(lineName) ? lineName : identity.hashedPath;
  return identity;
}

static std::string absoluteOf(const std::string& path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  return absolute.str().str();
}

bool ToolPaths::mayBeToolName(llvm::StringRef component) {
  for (llvm::StringRef numbered : {"in", "src", "inc", "pre", "image"}) {
    llvm::StringRef rest = component;
    if (rest.consume_front(numbered) && !rest.empty() && llvm::isDigit(rest.front()))
      return true;
  }
  return component.starts_with("cuda") || component.starts_with("tlc-") ||
         component.starts_with("libtlc_");
}

// Whether gcc, nvcc's host preprocessor, would read `path` as an include folder under its sysroot
// (a leading '=' or `$SYSROOT`; any leading '$' is taken for one), where the parse reads the
// folder named: such a path never reaches nvcc as typed.
static bool readUnderSysroot(llvm::StringRef path) {
  return path.starts_with("=") || path.starts_with("$");
}

bool ToolPaths::usableAsTyped(const std::string& typed) {
  llvm::StringRef path = typed;
  return !path.empty() && isShellSafe(path) && !path.contains(',') && !path.starts_with("-") &&
         !readUnderSysroot(path) &&
         (llvm::sys::path::is_absolute(path) || !mayBeToolName(path.split('/').first));
}

bool ToolPaths::usableAsTypedInQuotes(const std::string& typed) {
  // Each piece between spaces and '$'s usable on its own: no quote, '`' or backslash, which
  // double quotes do not hide, and nothing a shell would act on unquoted. A '$' is allowed: nvcc
  // writes it as \$ in the double quotes of every step (checked with `nvcc -dryrun` for -c,
  // -fatbin, -cubin, -ptx, -G, -M and -E), and without '(', '{' or a quote a '$' a step left
  // unescaped could only expand a variable, never run anything.
  llvm::StringRef path = typed;
  std::string pieces = typed;
  std::replace(pieces.begin(), pieces.end(), ' ', '_');
  std::replace(pieces.begin(), pieces.end(), '$', '_');
  return usableAsTyped(pieces) && !path.starts_with(" ") && !path.ends_with(" ") &&
         !readUnderSysroot(path);
}

std::string ToolPaths::addLink(std::string name, const std::string& target,
                               const std::string& shown, bool copy) {
  // DeviceBuild tells tlc's names from the user's by this (usableAsTyped).
  assert(mayBeToolName(llvm::StringRef(name).split('/').first) && "a work name of unknown form");
  Links.push_back({name, target, shown, copy, "", false});
  return name;
}

// A path nvcc may be given as it is: absolute, shell-safe, and without the ',' nvcc's option lists
// split at.
static bool safeAsItIs(const std::string& absolute) {
  return isShellSafe(absolute) && !llvm::StringRef(absolute).contains(',');
}

bool ToolPaths::reachableAsItIs(const std::string& absolute) const {
  return RealPaths && safeAsItIs(absolute);
}

bool ToolPaths::givenAsTyped(const std::string& path, bool quoted) const {
  return AsTyped && (usableAsTyped(path) || (quoted && usableAsTypedInQuotes(path)));
}

bool ToolPaths::givenAsItIs(const std::string& path, bool quoted) const {
  return givenAsTyped(path, quoted) || reachableAsItIs(absoluteOf(path));
}

std::string ToolPaths::reach(const std::string& path, const std::string& name) {
  return reachAs(path, name, RealPaths);
}

std::string ToolPaths::reachByRealPath(const std::string& path, const std::string& name) {
  return reachAs(path, name, true);
}

std::string ToolPaths::reachAs(const std::string& path, const std::string& name, bool real,
                               bool quoted) {
  std::string absolute = absoluteOf(path);
  // In the user's folder, as typed; else by its absolute path.
  bool typed = givenAsTyped(path, quoted);
  std::string given = typed ? path : absolute;
  if (!real || !(typed || safeAsItIs(absolute)))
    return link(path, name);
  for (const Link& existing : Links)
    if (existing.real && existing.name == given)
      return given;
  // Not made (materialize), only remembered: messages show the user's spelling again.
  Links.push_back({given, absolute, path, false, "", true});
  return given;
}

std::string ToolPaths::input(size_t index, const std::string& path,
                             const SourceIdentity& identity) {
  std::string absolute = absoluteOf(path);
  std::string folder = llvm::sys::path::parent_path(absolute).str();
  if (InputFolders.size() <= index)
    InputFolders.resize(index + 1);
  std::string shownFolder = llvm::sys::path::parent_path(path).str();
  if (AsTyped) { // checked usableAsTyped by the caller: nvcc reads the original
    Links.push_back({path, absolute, path, false, identity.lineName, true});
    inputWorkFolder(index);
    return path;
  }
  if (reachableAsItIs(folder)) {
    Links.push_back({folder, folder, shownFolder, false, "", true});
    InputFolders[index] = folder;
  } else {
    InputFolders[index] = addLink("src" + std::to_string(index), folder, shownFolder, false);
  }
  std::string name =
      addLink("in" + std::to_string(index) + "/" + safeFileName(llvm::sys::path::filename(path)),
              absolute, path, true);
  Links.back().lineName = identity.lineName;
  return name;
}

// The copy of an input: a line marker naming the original, then its text. A UTF-8 byte order
// mark is dropped: it is allowed only at the very start of a file, where the marker now is.
static llvm::Error copyInput(const std::string& from, const std::string& to,
                             const std::string& lineName) {
  auto text = readFile(from);
  if (!text)
    return text.takeError();
  llvm::StringRef body = *text;
  body.consume_front("\xEF\xBB\xBF");
  return writeFile(to, "#line 1 \"" + lineName + "\"\n" + body.str());
}

std::string ToolPaths::inputFolder(size_t index) const {
  return index < InputFolders.size() ? InputFolders[index] : "src" + std::to_string(index);
}

std::string ToolPaths::inputWorkFolder(size_t index) {
  std::string name = "in" + std::to_string(index);
  if (AsTyped) // a copy's folder otherwise
    WorkFolders.insert(name);
  return name;
}

bool ToolPaths::linksAny() const {
  return std::any_of(Links.begin(), Links.end(),
                     [](const Link& link) { return !link.real && !link.copy; });
}

std::set<std::string> ToolPaths::workNames() const {
  std::set<std::string> names(WorkFolders.begin(), WorkFolders.end());
  for (const Link& link : Links)
    if (!link.real)
      names.insert(llvm::StringRef(link.name).split('/').first.str());
  for (const auto& [name, contents] : Headers)
    names.insert(llvm::StringRef(name).split('/').first.str());
  return names;
}

std::string ToolPaths::folder(const std::string& path, bool quoted) {
  std::string absolute = absoluteOf(path);
  auto known = FolderNames.find(absolute);
  if (known != FolderNames.end())
    return known->second;
  std::string name = givenAsItIs(path, quoted)
                         ? reachAs(path, "", RealPaths, quoted)
                         : addLink("inc" + std::to_string(LinkedFolders++), absolute, path, false);
  FolderNames[absolute] = name;
  return name;
}

std::string ToolPaths::link(const std::string& path, const std::string& name) {
  for (const Link& existing : Links)
    if (existing.name == name)
      return name;
  return addLink(name, absoluteOf(path), path, false);
}

namespace {

bool isIdentifier(llvm::StringRef text) {
  return !text.empty() && !llvm::isDigit(text.front()) &&
         llvm::all_of(text, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

// NAME or NAME(a, b, ...) as -D takes it.
bool isMacroName(llvm::StringRef text) {
  auto [name, rest] = text.split('(');
  if (!isIdentifier(name))
    return false;
  if (!text.contains('('))
    return true;
  return rest.ends_with(")") && llvm::all_of(rest.drop_back(), [](char c) {
           return llvm::isAlnum(c) || c == '_' || c == ',' || c == ' ' || c == '.';
         });
}

} // namespace

llvm::Error ToolPaths::define(std::vector<std::string>& out, Macros& macros, bool undefine,
                              llvm::StringRef value) {
  std::string shown = (undefine ? "-U " : "-D ") + value.str();
  if (value.contains('\n') || value.contains('\r'))
    return usageError("'" + shown + "': a macro cannot span lines");
  auto [name, body] = value.split('=');
  if (undefine ? !isIdentifier(value) : !isMacroName(name))
    return usageError("'" + shown + "': '" + (undefine ? value : name) + "' is not a macro name");
  // Safe macros stay on the command line, where nvcc defines them before its own headers; from
  // the first unsafe one on, all go to the header, in order. A comma is safe for the shell, but
  // nvcc would split the macro at it.
  std::string onCommandLine = (undefine ? "-U" : "-D") + value.str();
  if (!macros.started && isShellSafe(onCommandLine) && !value.contains(',')) {
    out.push_back(onCommandLine);
    return llvm::Error::success();
  }
  macros.started = true;
  if (undefine) {
    macros.text += "#undef " + value.str() + "\n";
    return llvm::Error::success();
  }
  std::string definition = value.contains('=') ? body.str() : "1";
  std::string line = "#define " + name.str() + " " + definition;
  // A trailing backslash (or its trigraph) would join the next line to this one.
  if (llvm::StringRef(definition).ends_with("\\") || llvm::StringRef(definition).ends_with("?\?/"))
    line += "/**/";
  macros.text += line + "\n";
  return llvm::Error::success();
}

llvm::Expected<std::string> ToolPaths::program(llvm::StringRef value) {
  if (!value.contains('/'))
    return value.str(); // looked up on PATH
  if (llvm::sys::fs::is_directory(value))
    return folder(value.str());
  // The program keeps its name (nvcc tells gcc from clang by it), in a linked folder.
  llvm::StringRef name = llvm::sys::path::filename(value);
  if (!isShellSafe(name))
    return llvm::make_error<llvm::StringError>(name.str(), llvm::inconvertibleErrorCode());
  return folder(llvm::sys::path::parent_path(value).str()) + "/" + name.str();
}

llvm::Expected<std::vector<std::string>> ToolPaths::nvccFlags(const std::vector<std::string>& flags,
                                                              const std::string& origin,
                                                              Macros& macros) {
  std::vector<std::string> out;
  auto unsafe = [&](const std::string& shown) {
    return usageError(origin + " flag '" + shown +
                      "' holds characters nvcc's shell steps would interpret; only letters, "
                      "digits and _-./=,:+@% can reach nvcc (put macros with other characters "
                      "in a -D, which tlc passes through a header)");
  };
  for (size_t i = 0; i < flags.size();) {
    NvccArgument argument = readNvccArgument(flags, i, /*splitLists=*/false);
    if (!argument.known() || !argument.option->takesValue()) {
      if (!isShellSafe(argument.spelling))
        return unsafe(argument.written);
      out.push_back(argument.spelling);
      continue;
    }
    const NvccOption& option = *argument.option;
    for (const std::string& value : argument.values) {
      switch (option.value) {
      case NvccValue::Folder:
        out.push_back(argument.spelling);
        out.push_back(folder(value, option.is("--include-path") || option.is("--system-include")));
        continue;
      case NvccValue::File: {
        std::string name = "pre" + std::to_string(Links.size()) + "-" +
                           safeFileName(llvm::sys::path::filename(value));
        out.push_back(argument.spelling);
        out.push_back(reach(value, name));
        continue;
      }
      case NvccValue::Program: {
        auto name = program(value);
        if (!name) {
          llvm::consumeError(name.takeError());
          return unsafe(argument.written);
        }
        out.push_back(argument.spelling);
        out.push_back(*name);
        continue;
      }
      case NvccValue::Macro:
      case NvccValue::Undefine:
        if (llvm::Error error = define(out, macros, option.value == NvccValue::Undefine, value))
          return error;
        continue;
      case NvccValue::None:
      case NvccValue::Plain:
      case NvccValue::Enum:
        // A comma inside a list's value needs nvcc's backslash, which no shell step may see.
        if (!isShellSafe(value) || (option.list && llvm::StringRef(value).contains(',')))
          return unsafe(argument.written);
        for (std::string& flag : argument.asGiven(value))
          out.push_back(std::move(flag));
        continue;
      }
    }
  }
  return out;
}

std::vector<std::string> ToolPaths::forceInclude(const std::string& name, const Macros& macros) {
  if (macros.text.empty())
    return {};
  Headers[name] = "/* macros from tlc's command line, in their order */\n" + macros.text;
  return {"-include", name};
}

llvm::Error ToolPaths::materialize() const {
  auto fail = [&](const std::string& path, const std::string& why) {
    return inputError("cannot prepare '" + path + "' for the tools: " + why);
  };
  for (const Link& link : Links) {
    if (link.real) // the tools are given its own path
      continue;
    std::string path = Work + "/" + link.name;
    std::string parent = llvm::sys::path::parent_path(path).str();
    if (auto ec = llvm::sys::fs::create_directories(parent))
      return fail(parent, ec.message());
    if (link.copy) {
      if (llvm::Error error = copyInput(link.target, path, link.lineName))
        return error;
      continue;
    }
    if (::symlink(link.target.c_str(), path.c_str()) != 0 && errno != EEXIST)
      return fail(path, std::strerror(errno));
  }
  for (const auto& [name, contents] : Headers)
    if (llvm::Error error = writeFile(Work + "/" + name, contents))
      return error;
  for (const std::string& name : WorkFolders)
    if (auto ec = llvm::sys::fs::create_directories(Work + "/" + name))
      return fail(Work + "/" + name, ec.message());
  return llvm::Error::success();
}

std::string ToolPaths::outside(llvm::StringRef path) const {
  if (llvm::sys::path::is_absolute(path))
    return absolutePath(path.str());
  for (const Link& link : Links) {
    if (link.real)
      continue;
    llvm::StringRef rest = path;
    if (!rest.consume_front(link.name) || !(rest.empty() || rest.starts_with("/")))
      continue;
    return absolutePath(link.target + rest.str());
  }
  return absolutePath(Work + "/" + path.str());
}

std::string ToolPaths::withoutWorkFolder(llvm::StringRef text) const {
  if (Work.empty())
    return text.str();
  std::string prefix = Work + "/", out;
  for (size_t at; (at = text.find(prefix)) != llvm::StringRef::npos;) {
    out += text.take_front(at).str();
    text = text.drop_front(at + prefix.size());
  }
  return out + text.str();
}

// Each link name that starts a path (at the start of the text, or after a character no path
// name holds here) is replaced with the user's spelling. Tools running in the user's folder are
// given tlc's names by their absolute paths: the work folder's is dropped first.
std::string ToolPaths::message(llvm::StringRef given) const {
  std::string stripped = withoutWorkFolder(given);
  llvm::StringRef text = stripped;
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool boundary =
        i == 0 || !(llvm::isAlnum(text[i - 1]) || llvm::StringRef("_-./").contains(text[i - 1]));
    const Link* found = nullptr;
    if (boundary)
      for (const Link& link : Links) {
        llvm::StringRef rest = text.drop_front(i);
        if (!rest.starts_with(link.name))
          continue;
        rest = rest.drop_front(link.name.size());
        bool ends = rest.empty() || rest.front() == '/' ||
                    !(llvm::isAlnum(rest.front()) || llvm::StringRef("_-.").contains(rest.front()));
        if (ends && (!found || link.name.size() > found->name.size()))
          found = &link;
      }
    if (!found) {
      out += text[i++];
      continue;
    }
    out += found->shown;
    i += found->name.size();
    // An input typed without a folder: "src0/x.h" is "x.h".
    if (found->shown.empty() && i < text.size() && text[i] == '/')
      ++i;
  }
  return out;
}

std::vector<std::string> ToolPaths::realPaths() const {
  std::vector<std::string> paths;
  for (const Link& link : Links)
    if (link.real && std::find(paths.begin(), paths.end(), link.name) == paths.end())
      paths.push_back(link.name);
  return paths;
}

std::string ToolPaths::argument(llvm::StringRef given) const {
  std::string stripped = withoutWorkFolder(given);
  llvm::StringRef arg = stripped;
  for (const Link& link : Links) {
    if (link.real) // the argument names it already
      continue;
    size_t at = arg.find(link.name);
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef before = arg.take_front(at), after = arg.drop_front(at + link.name.size());
    bool starts = before.empty() || before.ends_with("=") || before == "-I" || before == "-L" ||
                  before.ends_with(",file=");
    if (starts && (after.empty() || after.starts_with("/")))
      return before.str() + link.target + after.str();
  }
  return arg.str();
}

} // namespace tlc
