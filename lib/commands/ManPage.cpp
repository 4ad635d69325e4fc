// tlc's man pages, in roff (man(7)), from the command reference.
#include "commands/CommandReference.h"

#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

namespace tlc {

namespace {

// `text` as roff text: backslashes and dashes escaped, no line read as a request.
std::string roff(llvm::StringRef text) {
  std::string out;
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '.' || c == '\''))
      out += "\\&";
    lineStart = c == '\n';
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  return out;
}

std::string bold(llvm::StringRef text) {
  return "\\fB" + roff(text) + "\\fR";
}

std::string italic(llvm::StringRef text) {
  return "\\fI" + roff(text) + "\\fR";
}

// "-o, --output DIR" in bold and italics: the tag of an option's item.
std::string optionTag(const OptionEntry& option) {
  std::vector<std::string> names;
  for (const std::string& spelling : option.spellings)
    names.push_back(bold(spelling));
  std::string tag = llvm::join(names, ", ");
  if (!option.placeholder.empty())
    tag += " " + italic(option.placeholder);
  if (option.repeatable)
    tag += " ...";
  return tag;
}

void listOptions(const std::vector<OptionEntry>& options, std::string& out) {
  for (const OptionEntry& option : options) {
    out += ".TP\n" + optionTag(option) + "\n" + roff(option.description) + "\n";
    if (!option.choices.empty() && option.placeholder.find('|') == std::string::npos)
      out += "One of: " + roff(llvm::join(option.choices, ", ")) + ".\n";
  }
}

void listPositionals(const std::vector<OptionEntry>& positionals, std::string& out) {
  for (const OptionEntry& positional : positionals)
    out += ".TP\n" + italic(positional.placeholder) + (positional.repeatable ? " ..." : "") + "\n" +
           roff(positional.description) + "\n";
}

std::string synopsis(const CommandEntry& command) {
  std::string line = bold(command.name()) + " [" + italic("OPTIONS") + "]";
  if (!command.commands.empty())
    line += " " + italic("COMMAND") + " ...";
  for (const OptionEntry& positional : command.positionals)
    line += " " + italic(positional.placeholder) + (positional.repeatable ? " ..." : "");
  if (command.takesClangArguments)
    line += " [" + bold("--") + " " + italic("CLANG_ARGS") + " ...]";
  return line + "\n";
}

const CommandEntry* entryNamed(const std::vector<CommandEntry>& reference,
                               std::vector<std::string> path) {
  for (const CommandEntry& entry : reference)
    if (entry.path == path)
      return &entry;
  return nullptr;
}

void nvccSection(const CommandEntry& command, std::string& out) {
  out += ".SH NVCC OPTIONS\n" +
         roff("nvcc's options, as nvcc spells them: long or short, the value after '=' or as "
              "the next argument, one-letter ones also joined (-O3, -Iinc), lists with commas. "
              "Those that change what the preprocessor sees reach Clang's parse too; inspect "
              "and check use only those.") +
         "\n";
  listOptions(command.nvccOptions, out);
  out += ".PP\n" +
         roff("Refused, as tlc decides them itself (tlc's -o is its output folder, -v its own): " +
              llvm::join(command.nvccRefused, " ") + ".") +
         "\n";
}

// `text` as a sentence of prose: a command's one-line description ends without a full stop, as
// --help lists it, and gets one where a man page writes it as prose (DESCRIPTION, COMMANDS, where
// "See tlc-build(1)." follows it).
std::string sentence(llvm::StringRef text) {
  text = text.rtrim();
  if (text.empty() || text.ends_with(".") || text.ends_with("!") || text.ends_with("?"))
    return text.str();
  return text.str() + ".";
}

// The commands of `command`: for the top, each with its page; for another (cache), each with
// its options.
void commandsSection(const std::vector<CommandEntry>& reference, const CommandEntry& command,
                     std::string& out) {
  out += ".SH COMMANDS\n";
  for (const std::string& name : command.commands) {
    std::vector<std::string> path = command.path;
    path.push_back(name);
    const CommandEntry* sub = entryNamed(reference, path);
    if (!sub)
      continue;
    out += ".TP\n" + bold(name) + "\n" + roff(sentence(sub->description)) + "\n";
    if (command.path.size() == 1) {
      out += "See " + bold(manPageName(*sub)) + "(1).\n";
      continue;
    }
    bool ownOptions = false;
    for (const OptionEntry& option : sub->options)
      ownOptions = ownOptions || !llvm::is_contained(option.spellings, "--help");
    if (!ownOptions)
      continue;
    out += ".RS\n.PP\n" + synopsis(*sub);
    listOptions(sub->options, out);
    out += ".RE\n";
  }
}

void exitStatusSection(std::string& out) {
  out += ".SH EXIT STATUS\n";
  struct {
    const char* code;
    const char* meaning;
  } codes[] = {{"0", "Success."},
               {"1", "The input is wrong: a source, a file named on the command line, a build "
                     "folder that does not match its manifest."},
               {"2", "The command line is malformed (a usage error)."},
               {"3", "A tool tlc needs is missing or failed: nvcc, the host compiler, Clang."},
               {"4", "A bug in tlc, or an inconsistency it found in its own outputs."},
               {"130, 143", "Interrupted by SIGINT or SIGTERM; the build removed what it made."}};
  for (const auto& code : codes)
    out += ".TP\n" + bold(code.code) + "\n" + roff(code.meaning) + "\n";
}

void seeAlsoSection(const std::vector<CommandEntry>& reference, const CommandEntry& command,
                    std::string& out) {
  out += ".SH SEE ALSO\n";
  std::vector<std::string> pages;
  if (command.path.size() > 1) {
    pages.push_back(".BR tlc (1)");
  } else {
    for (const CommandEntry& entry : reference)
      if (entry.path.size() == 2)
        pages.push_back(".BR " + roff(manPageName(entry)) + " (1)");
  }
  out += llvm::join(pages, ",\n") + "\n";
  out += ".PP\n" +
         roff("The README and docs/ of tlc's sources: the tour, the launcher API, CMake and "
              "Python.") +
         "\n";
}

} // namespace

std::string manPageName(const CommandEntry& command) {
  return llvm::join(command.path, "-");
}

std::string manPage(const std::vector<CommandEntry>& reference, const CommandEntry& command) {
  std::string name = manPageName(command);
  llvm::StringRef description = command.description;
  // The top's description starts "tlc: what it is."
  llvm::StringRef summary = description.split('\n').first;
  summary.consume_front(command.path.front() + ": ");
  summary.consume_back(".");
  std::string out = ".\\\" Generated by `tlc help --man` from tlc's option tables; do not edit.\n";
  out += ".TH " + roff(llvm::StringRef(name).upper()) + " 1 \"\" \"tlc " + tlcVersion() +
         "\" \"User Commands\"\n";
  out += ".SH NAME\n" + roff(name) + " \\- " + roff(summary) + "\n";
  out += ".SH SYNOPSIS\n" + synopsis(command);
  out += ".SH DESCRIPTION\n" + roff(sentence(description)) + "\n";
  if (command.takesClangArguments)
    out += ".PP\n" + roff("Arguments after -- are passed to Clang when parsing.") + "\n";
  if (!command.positionals.empty()) {
    out += ".SH ARGUMENTS\n";
    listPositionals(command.positionals, out);
  }
  out += ".SH OPTIONS\n";
  listOptions(command.options, out);
  if (!command.nvccOptions.empty())
    nvccSection(command, out);
  if (!command.commands.empty())
    commandsSection(reference, command, out);
  if (command.path.size() == 1)
    exitStatusSection(out);
  seeAlsoSection(reference, command, out);
  return out;
}

} // namespace tlc
