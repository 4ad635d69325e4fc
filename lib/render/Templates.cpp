// Loading and rendering the Mustache launcher templates.
#include "render/Templates.h"

#include "render/Literals.h"
#include "support/Error.h"
#include "support/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
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

namespace {

// How deep sections (and the partials used inside them) may nest. kainjow::mustache parses and
// renders by recursion, so a template nesting 100000 sections ends tlc (std::bad_alloc, a stack
// overflow) instead of rendering; tlc's own templates nest 4 deep.
constexpr size_t kMaxNesting = 64;
// Larger than any template needs (tlc's largest is some 10 KiB); rendering is not linear in it.
constexpr uint64_t kTemplateReadLimit = uint64_t(16) << 20;

// What the render's recursion will be for one template: how deep its sections nest, and which
// partials it uses at which depth.
struct TemplateShape {
  size_t depth = 0;
  std::vector<std::pair<std::string, size_t>> partials; // name, sections around it
};

// Reads the tags of `text` as kainjow::mustache does: "{{" and "}}" (or what a "{{=<% %>=}}"
// tag sets), "{{{...}}}" with the braces, the tag's text trimmed, its first character its kind.
// Where kainjow would stop with a parse error, the rest is not read: it is never rendered.
TemplateShape shapeOf(llvm::StringRef text) {
  TemplateShape shape;
  std::string open = "{{", close = "}}";
  size_t depth = 0;
  for (size_t at = text.find(open); at != llvm::StringRef::npos; at = text.find(open, at)) {
    size_t contents = at + open.size();
    bool triple = open == "{{" && contents < text.size() && text[contents] == '{';
    llvm::StringRef end = triple ? llvm::StringRef("}}}") : llvm::StringRef(close);
    size_t stop = text.find(end, contents + (triple ? 1 : 0));
    if (stop == llvm::StringRef::npos)
      break; // an unclosed tag
    llvm::StringRef tag = text.slice(contents + (triple ? 1 : 0), stop).trim();
    at = stop + end.size();
    if (triple || tag.empty())
      continue;
    switch (tag.front()) {
    case '=': { // {{=BEGIN END=}}
      if (tag.size() < 5 || tag.back() != '=')
        return shape;
      auto [begin, rest] = tag.drop_front().drop_back().trim().split(' ');
      rest = rest.ltrim(' ');
      if (begin.empty() || rest.empty())
        return shape;
      open = begin.str();
      close = rest.str();
      break;
    }
    case '#':
    case '^':
      shape.depth = std::max(shape.depth, ++depth);
      break;
    case '/':
      if (depth)
        --depth;
      break;
    case '>':
      shape.partials.push_back({tag.drop_front().trim().str(), depth});
      break;
    default:
      break;
    }
  }
  return shape;
}

// How deep rendering `name` nests, its partials' sections counted where they are used; an
// error naming the templates when that is deeper than kMaxNesting or a partial uses itself
// (rendering it would never end). `visiting`: the partials being expanded, outermost first.
llvm::Expected<size_t> nesting(const std::string& name,
                               const std::map<std::string, TemplateShape>& shapes,
                               const std::map<std::string, std::string>& files,
                               std::vector<std::string>& visiting) {
  auto shape = shapes.find(name);
  if (shape == shapes.end())
    return 0; // kainjow renders a partial it does not know as nothing
  if (llvm::is_contained(visiting, name)) {
    std::string chain;
    for (const std::string& step : visiting)
      chain += step + " uses " + (step == visiting.back() ? name : "");
    return toolchainError("template '" + files.at(name) + "' uses itself as a partial (" + chain +
                          "): rendering it would never end");
  }
  if (shape->second.depth > kMaxNesting)
    return toolchainError("template '" + files.at(name) + "' nests sections " +
                          std::to_string(shape->second.depth) + " deep, more than the " +
                          std::to_string(kMaxNesting) + " tlc renders");
  visiting.push_back(name);
  size_t deepest = shape->second.depth;
  for (const auto& [partial, depth] : shape->second.partials) {
    auto inner = nesting(partial, shapes, files, visiting);
    if (!inner)
      return inner.takeError();
    deepest = std::max(deepest, depth + *inner);
  }
  visiting.pop_back();
  if (deepest > kMaxNesting)
    return toolchainError("template '" + files.at(name) + "' nests sections " +
                          std::to_string(deepest) + " deep with its partials, more than the " +
                          std::to_string(kMaxNesting) + " tlc renders");
  return deepest;
}

} // namespace

llvm::Expected<TemplateSet> TemplateSet::load(const std::string& dir) {
  TemplateSet set;
  set.Dir = dir;
  std::map<std::string, TemplateShape> shapes;
  std::map<std::string, std::string> files; // by template name
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef path = it->path();
    if (!path.ends_with(".mustache"))
      continue;
    // Read as every file tlc reads (support/Files.h): a FIFO or a device in a template's place is
    // refused, not waited on.
    auto text = readFile(path.str(), kTemplateReadLimit);
    if (!text)
      return toolchainError(summarize(text.takeError()).message +
                            " (a template; reinstall tlc or pass another --template-dir)");
    std::string name = llvm::sys::path::filename(path).drop_back(strlen(".mustache")).str();
    set.Texts[name] = joinStandaloneTags(*text);
    shapes[name] = shapeOf(set.Texts[name]);
    files[name] = path.str();
    set.Files.push_back(path.str());
  }
  if (ec)
    return toolchainError("cannot read the template folder '" + dir + "': " + ec.message() +
                          " (reinstall tlc or pass --template-dir)");
  if (set.Texts.empty())
    return toolchainError("no templates (*.mustache) in '" + dir +
                          "' (reinstall tlc or pass --template-dir)");
  // Checked before anything renders: every template may be rendered or used as a partial.
  for (const auto& [name, shape] : shapes) {
    std::vector<std::string> visiting;
    if (auto depth = nesting(name, shapes, files, visiting); !depth)
      return depth.takeError();
  }
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
  // Every {{value}} is data in the generated file's language (render/Literals.h); only
  // {{{value}}} pastes code, and only tlc's own tables fill those.
  std::optional<TargetLanguage> language = templateLanguage(name);
  if (!language)
    return toolchainError("template '" + name +
                          ".mustache' names no file of a language tlc generates (.c, .cpp, .h, "
                          ".S, .py, .pyi)");
  mustache::mustache tmpl(it->second);
  tmpl.set_custom_escape(
      [language](const std::string& text) { return literalText(*language, text); });
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

llvm::Error TemplateSet::renderTo(const std::string& name, const nlohmann::json& view,
                                  const std::string& path) const {
  auto text = render(name, view);
  if (!text)
    return text.takeError();
  return writeFile(path, *text);
}

} // namespace tlc
