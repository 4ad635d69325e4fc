// tlc's commands and options as data, from the CLI11 app and nvcc's option table.
#include "commands/CommandReference.h"

#include "commands/CommandLine.h"
#include "frontend/NvccOptions.h"
#include "support/Error.h"
#include "toolchain/GpuTargets.h"
#include "toolchain/Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

namespace tlc {

namespace {

// CLI11's type name: "TEXT", "DIR", "WHEN:{auto,always,never}", "UINT:N".
struct TypeName {
  std::string type;                 // before the first ':'
  std::string check;                // the validators' descriptions, after it
  std::vector<std::string> choices; // an IsMember validator's "{a,b}"
};

TypeName typeNameOf(const CLI::Option& option) {
  TypeName name;
  std::string full = option.get_type_name(); // outlives the StringRefs below
  auto [type, check] = llvm::StringRef(full).split(':');
  name.type = type.str();
  name.check = check.str();
  if (check.starts_with("{") && check.ends_with("}"))
    for (llvm::StringRef choice : llvm::split(check.drop_front().drop_back(), ','))
      name.choices.push_back(choice.str());
  return name;
}

ValueKind kindOf(const CLI::Option& option, const TypeName& type) {
  if (option.get_items_expected_max() == 0)
    return ValueKind::None;
  if (llvm::is_contained(option.get_lnames(), "arch") || type.type == "ARCH")
    return ValueKind::Arch;
  if (llvm::is_contained(option.get_lnames(), "gencode"))
    return ValueKind::Gencode;
  if (!type.choices.empty())
    return ValueKind::Choice;
  if (type.type == "DIR")
    return ValueKind::Folder;
  if (type.type == "FILE")
    return ValueKind::File;
  if (type.type == "CMD")
    return ValueKind::Program;
  return ValueKind::Other;
}

// The value's name for the synopsis: the choices, a validator's short name ("N", "sm_XX") or the
// type.
std::string placeholderOf(const TypeName& type) {
  if (!type.choices.empty())
    return llvm::join(type.choices, "|");
  if (!type.check.empty() && type.check.find(' ') == std::string::npos)
    return type.check;
  return type.type;
}

OptionEntry entryOf(const CLI::Option& option) {
  OptionEntry entry;
  for (const std::string& name : option.get_snames())
    entry.spellings.push_back("-" + name);
  for (const std::string& name : option.get_lnames())
    entry.spellings.push_back("--" + name);
  if (!option.nonpositional())
    entry.spellings.push_back(option.get_name());
  entry.description = option.get_description();
  TypeName type = typeNameOf(option);
  entry.kind = kindOf(option, type);
  entry.choices = type.choices;
  if (entry.kind != ValueKind::None)
    entry.placeholder = option.nonpositional() ? placeholderOf(type) : option.get_name();
  entry.repeatable = option.get_items_expected_max() > 1;
  return entry;
}

ValueKind kindOf(const NvccOption& option) {
  if (option.is("--gpu-architecture") || option.is("--gpu-code"))
    return ValueKind::Arch;
  if (option.is("--generate-code"))
    return ValueKind::Gencode;
  switch (option.value) {
  case NvccValue::None:
    return ValueKind::None;
  case NvccValue::Folder:
    return ValueKind::Folder;
  case NvccValue::File:
    return ValueKind::File;
  case NvccValue::Program:
    return ValueKind::Program;
  case NvccValue::Enum:
    return ValueKind::Choice;
  case NvccValue::Macro:
  case NvccValue::Undefine:
  case NvccValue::Plain:
    return ValueKind::Other;
  }
  return ValueKind::Other;
}

std::string placeholderOf(const NvccOption& option) {
  switch (option.value) {
  case NvccValue::None:
    return "";
  case NvccValue::Folder:
    return "DIR";
  case NvccValue::File:
    return "FILE";
  case NvccValue::Program:
    return "PROGRAM";
  case NvccValue::Macro:
    return "NAME[=VALUE]";
  case NvccValue::Undefine:
    return "NAME";
  case NvccValue::Plain:
    return "VALUE";
  case NvccValue::Enum:
    return llvm::join(option.allowed, "|");
  }
  return "VALUE";
}

void addNvccOptions(CommandEntry& entry) {
  entry.nvccRefused = refusedNvccSpellings();
  for (const NvccOption& option : nvccOptions()) {
    if (isRefused(option))
      continue;
    OptionEntry nvcc;
    nvcc.spellings.push_back(option.shortName().str());
    for (llvm::StringRef spelling : option.spellings)
      if (spelling != option.shortName())
        nvcc.spellings.push_back(spelling.str());
    nvcc.description = option.help.str();
    nvcc.kind = kindOf(option);
    for (llvm::StringRef allowed : option.allowed)
      nvcc.choices.push_back(allowed.str());
    nvcc.placeholder = placeholderOf(option);
    nvcc.repeatable = option.list;
    entry.nvccOptions.push_back(std::move(nvcc));
  }
}

bool visible(const CLI::App* command) {
  return !command->get_group().empty();
}

void describe(const CLI::App& command, std::vector<std::string> path,
              std::vector<CommandEntry>& into) {
  CommandEntry entry;
  entry.path = path;
  entry.description = command.get_description();
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_group().empty())
      continue; // hidden
    OptionEntry described = entryOf(*option);
    (option->nonpositional() ? entry.options : entry.positionals).push_back(std::move(described));
  }
  if (readsSources(command)) {
    addNvccOptions(entry);
    entry.takesClangArguments = true;
  }
  std::vector<const CLI::App*> commands = command.get_subcommands(visible);
  for (const CLI::App* sub : commands)
    entry.commands.push_back(sub->get_name());
  into.push_back(std::move(entry));
  for (const CLI::App* sub : commands) {
    std::vector<std::string> subPath = path;
    subPath.push_back(sub->get_name());
    describe(*sub, subPath, into);
  }
}

} // namespace

std::string CommandEntry::name() const {
  return llvm::join(path, " ");
}

std::vector<CommandEntry> commandReference(const CLI::App& root) {
  std::vector<CommandEntry> entries;
  describe(root, {root.get_name()}, entries);
  return entries;
}

TargetWords completionTargets(std::string& problem) {
  TargetWords words;
  auto toolkit = findCudaToolkit("");
  llvm::Expected<TargetEnvironment> environment =
      toolkit ? targetEnvironment(*toolkit)
              : llvm::Expected<TargetEnvironment>(toolkit.takeError());
  if (environment) {
    words.archs = targetNames(*environment);
    words.gencodes = gencodeForms(*environment);
    return words;
  }
  problem = summarize(environment.takeError()).message;
  words.archs = {"native", "all", "all-major"};
  return words;
}

} // namespace tlc
