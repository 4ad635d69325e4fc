// Loading and rendering the Mustache launcher templates.
#include "render/Templates.h"

#include "support/Error.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <kainjow/mustache.hpp>

#include <algorithm>

namespace tlc {

namespace mustache = kainjow::mustache;

// The Mustache spec drops "standalone" lines (a section, inverted-section, closing or comment
// tag alone on its line) entirely; kainjow::mustache keeps their newlines in some cases. Joining
// such lines to the next one before parsing gives the spec's output.
static std::string joinStandaloneTags(llvm::StringRef text) {
  std::string out;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    bool hadNewline = text.size() > line.size();
    llvm::StringRef trimmed = line.trim();
    bool standalone = trimmed.starts_with("{{") && trimmed.ends_with("}}") && trimmed.size() > 4 &&
                      llvm::StringRef("#^/!").contains(trimmed[2]) &&
                      trimmed.drop_front(2).find("{{") == llvm::StringRef::npos;
    if (standalone)
      out += trimmed.str();
    else
      out += line.str() + (hadNewline ? "\n" : "");
    text = rest;
  }
  return out;
}

llvm::Expected<TemplateSet> TemplateSet::load(const std::string& dir) {
  TemplateSet set;
  set.Dir = dir;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef path = it->path();
    if (!path.ends_with(".mustache"))
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return toolchainError("cannot read template '" + path + "': " + buffer.getError().message());
    llvm::StringRef name = llvm::sys::path::filename(path).drop_back(strlen(".mustache"));
    set.Texts[name.str()] = joinStandaloneTags((*buffer)->getBuffer());
    set.Files.push_back(path.str());
  }
  if (ec)
    return toolchainError("cannot read the template folder '" + dir + "': " + ec.message() +
                          " (reinstall tlc or pass --template-dir)");
  if (set.Texts.empty())
    return toolchainError("no templates (*.mustache) in '" + dir +
                          "' (reinstall tlc or pass --template-dir)");
  std::sort(set.Files.begin(), set.Files.end());
  return set;
}

static mustache::data toData(const nlohmann::json& value);

static mustache::data listItem(const nlohmann::json& element, size_t index, size_t count) {
  mustache::data item = element.is_object() ? toData(element) : mustache::data();
  if (!element.is_object())
    item.set("value", toData(element));
  item.set("_index", std::to_string(index));
  item.set("_first", mustache::data(index == 0));
  item.set("_last", mustache::data(index + 1 == count));
  return item;
}

static mustache::data toData(const nlohmann::json& value) {
  switch (value.type()) {
  case nlohmann::json::value_t::object: {
    mustache::data object;
    for (const auto& [key, member] : value.items())
      object.set(key, toData(member));
    return object;
  }
  case nlohmann::json::value_t::array: {
    mustache::data list(mustache::data::type::list);
    for (size_t i = 0; i < value.size(); ++i)
      list.push_back(listItem(value[i], i, value.size()));
    return list;
  }
  case nlohmann::json::value_t::string:
    return mustache::data(value.get<std::string>());
  case nlohmann::json::value_t::boolean:
    return mustache::data(value.get<bool>());
  case nlohmann::json::value_t::null:
    return mustache::data(false);
  default:
    return mustache::data(value.dump()); // numbers, as JSON spells them
  }
}

// Generated files get at most one blank line in a row, none at the start, one final newline.
static std::string tidyBlankLines(const std::string& text) {
  std::string out;
  size_t newlines = 0;
  for (char c : text) {
    if (c == '\n') {
      if (!out.empty() && ++newlines <= 2)
        out += c;
      continue;
    }
    newlines = 0;
    out += c;
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

llvm::Expected<std::string> TemplateSet::render(const std::string& name,
                                                const nlohmann::json& view) const {
  auto it = Texts.find(name);
  if (it == Texts.end())
    return toolchainError("template '" + name + ".mustache' is missing from '" + Dir + "'");
  mustache::mustache tmpl(it->second);
  // Generated code is C, not HTML: values go in verbatim.
  tmpl.set_custom_escape([](const std::string& text) { return text; });
  if (!tmpl.is_valid())
    return toolchainError("template '" + name + ".mustache': " + tmpl.error_message());
  mustache::data data = toData(view);
  for (const auto& [partialName, text] : Texts) {
    // A partial's final newline belongs to the file, not to where it is used.
    std::string body = llvm::StringRef(text).rtrim("\n").str();
    data.set(partialName, mustache::partial([body] { return body; }));
  }
  std::string rendered = tmpl.render(data);
  if (!tmpl.is_valid())
    return toolchainError("template '" + name + ".mustache': " + tmpl.error_message());
  return tidyBlankLines(rendered);
}

} // namespace tlc
