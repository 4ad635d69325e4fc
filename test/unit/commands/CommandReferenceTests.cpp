// The command reference (commands/CommandReference.h) and what is made from it: every command and
// option of the CLI11 app and every nvcc option reach the man pages and the completion scripts.
#include "commands/CommandLine.h"
#include "commands/CommandReference.h"
#include "frontend/NvccOptions.h"

#include <catch2/catch.hpp>

using namespace tlc;
using Catch::Contains;

namespace {

const CommandEntry& entryOf(const std::vector<CommandEntry>& reference,
                            const std::vector<std::string>& path) {
  for (const CommandEntry& entry : reference)
    if (entry.path == path)
      return entry;
  FAIL("no entry for " << path.back());
  return reference.front();
}

// `spelling` as roff writes it: dashes escaped.
std::string roffed(const std::string& spelling) {
  std::string out;
  for (char c : spelling)
    out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

// Whether `script` has `word` as a word of a list: after a space or a quote, before a space or a
// quote.
bool listsWord(const std::string& script, const std::string& word) {
  for (const char* before : {" ", "\""})
    for (const char* after : {" ", "\""})
      if (script.find(before + word + after) != std::string::npos)
        return true;
  return false;
}

} // namespace

TEST_CASE("the reference holds every command and option of the app", "[cli][shell-files]") {
  CommandLine line;
  std::unique_ptr<CLI::App> app = makeApp(line);
  std::vector<CommandEntry> reference = commandReference(*app);
  REQUIRE(reference.front().path == std::vector<std::string>{"tlc"});
  for (const CLI::App* command : app->get_subcommands([](const CLI::App*) { return true; })) {
    const CommandEntry& entry = entryOf(reference, {"tlc", command->get_name()});
    CHECK(entry.description == command->get_description());
    for (const CLI::Option* option : command->get_options())
      for (const std::string& longName : option->get_lnames()) {
        bool found = false;
        for (const OptionEntry& described : entry.options)
          found = found || llvm::is_contained(described.spellings, "--" + longName);
        CHECK(found);
      }
  }
  const CommandEntry& build = entryOf(reference, {"tlc", "build"});
  CHECK(build.takesClangArguments);
  CHECK(build.positionals.front().kind == ValueKind::File);
  size_t offered = build.nvccOptions.size() + build.nvccRefused.size();
  CHECK(offered == nvccOptions().size());
  CHECK(entryOf(reference, {"tlc", "verify"}).nvccOptions.empty());
  CHECK(entryOf(reference, {"tlc", "cache"}).commands ==
        std::vector<std::string>{"stats", "clear", "prune"});
}

TEST_CASE("options say what their values are, for completion", "[cli][shell-files]") {
  CommandLine line;
  std::unique_ptr<CLI::App> app = makeApp(line);
  std::vector<CommandEntry> reference = commandReference(*app);
  auto kindOf = [&](const std::vector<std::string>& path, const std::string& spelling) {
    const CommandEntry& entry = entryOf(reference, path);
    for (const auto* list : {&entry.options, &entry.nvccOptions, &entry.positionals})
      for (const OptionEntry& option : *list)
        if (llvm::is_contained(option.spellings, spelling))
          return option.kind;
    FAIL("no option " << spelling);
    return ValueKind::None;
  };
  CHECK(kindOf({"tlc", "build"}, "-o") == ValueKind::Folder);
  CHECK(kindOf({"tlc", "build"}, "--depfile") == ValueKind::File);
  CHECK(kindOf({"tlc", "build"}, "--arch") == ValueKind::Arch);
  CHECK(kindOf({"tlc", "inspect"}, "--arch") == ValueKind::Arch);
  CHECK(kindOf({"tlc", "build"}, "-arch") == ValueKind::Arch);
  CHECK(kindOf({"tlc", "build"}, "--launcher") == ValueKind::Program);
  CHECK(kindOf({"tlc", "build"}, "-I") == ValueKind::Folder);
  CHECK(kindOf({"tlc", "build"}, "--color") == ValueKind::Choice);
  CHECK(kindOf({"tlc", "build"}, "--python") == ValueKind::None);
  CHECK(kindOf({"tlc", "verify"}, "outdir") == ValueKind::Folder);
  CHECK(kindOf({"tlc", "build"}, "--gencode") == ValueKind::Gencode);
  CHECK(kindOf({"tlc", "build"}, "-gencode") == ValueKind::Gencode);
}

TEST_CASE("completion offers the GPU targets tlc checks against", "[cli][shell-files]") {
  // Issue 36: completion offered Clang's sm_20...sm_72, which tlc refuses, and lacked sm_100f.
  std::string problem;
  TargetWords targets = completionTargets(problem);
  REQUIRE(problem.empty());
  for (const char* arch : {"sm_75", "sm_90a", "compute_90a", "sm_100f", "sm_120f", "compute_120f",
                           "native", "all", "all-major"})
    CHECK(llvm::is_contained(targets.archs, arch));
  for (const char* old : {"sm_20", "sm_35", "sm_50", "sm_72", "compute_20", "sm_80a", "sm_90f"})
    CHECK_FALSE(llvm::is_contained(targets.archs, old));
  CHECK(llvm::is_contained(targets.gencodes, "arch=compute_90a,code=sm_90a"));
  CHECK(llvm::is_contained(targets.gencodes, "arch=compute_80,code=[sm_80,compute_80]"));
  CommandLine line;
  std::unique_ptr<CLI::App> app = makeApp(line);
  std::string bash = completionScript(commandReference(*app), "bash", targets);
  CHECK_THAT(bash, Contains("sm_100f"));
  CHECK_THAT(bash, !Contains("sm_72"));
  CHECK_THAT(bash, Contains("arch=compute_90,code=sm_90"));
}

TEST_CASE("the man pages and completion scripts name every option", "[cli][shell-files]") {
  CommandLine line;
  std::unique_ptr<CLI::App> app = makeApp(line);
  std::vector<CommandEntry> reference = commandReference(*app);
  const CommandEntry& build = entryOf(reference, {"tlc", "build"});
  std::string page = manPage(reference, build);
  TargetWords targets{{"sm_90a"}, {"arch=compute_90a,code=sm_90a"}};
  std::string bash = completionScript(reference, "bash", targets);
  std::string zsh = completionScript(reference, "zsh", targets);
  for (const auto* list : {&build.options, &build.nvccOptions})
    for (const OptionEntry& option : *list)
      for (const std::string& spelling : option.spellings) {
        CHECK_THAT(page, Contains("\\fB" + roffed(spelling) + "\\fR"));
        CHECK(listsWord(bash, spelling));
        CHECK(listsWord(zsh, spelling));
      }
  for (const std::string& refused : build.nvccRefused)
    CHECK_THAT(page, Contains(roffed(refused)));
  std::string top = manPage(reference, reference.front());
  for (const std::string& command : reference.front().commands)
    CHECK_THAT(top, Contains(".BR tlc\\-" + command + " (1)"));
}

TEST_CASE("the man pages' prose sentences end with full stops", "[cli][shell-files]") {
  // Issue 36: a command's one-line description, written without a full stop as --help lists it,
  // ran into the next sentence: "List every kernel ...: a table, or --json See tlc-inspect(1)."
  CommandLine line;
  std::unique_ptr<CLI::App> app = makeApp(line);
  std::vector<CommandEntry> reference = commandReference(*app);
  auto lineAfter = [](const std::string& page, const std::string& marker) {
    size_t at = page.find(marker);
    REQUIRE(at != std::string::npos);
    size_t start = at + marker.size();
    return page.substr(start, page.find('\n', start) - start);
  };
  for (const CommandEntry& entry : reference) {
    std::string page = manPage(reference, entry);
    INFO(manPageName(entry));
    CHECK(llvm::StringRef(lineAfter(page, ".SH DESCRIPTION\n")).ends_with("."));
  }
  std::string top = manPage(reference, reference.front());
  for (const std::string& command : reference.front().commands) {
    INFO(command);
    CHECK(llvm::StringRef(lineAfter(top, ".TP\n\\fB" + command + "\\fR\n")).ends_with("."));
  }
}
