// render/Templates: a template set is read as every file tlc reads (a FIFO in a template's place
// is refused, not waited on), and one whose rendering would recurse without end or too deep for
// kainjow::mustache (sections nested 100000 deep, a partial using itself) is refused when it is
// loaded, naming the template, instead of ending tlc when it renders.
#include "render/Templates.h"

#include "TestSupport.h"

#include "support/Files.h"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace tlc;

namespace {

// The load's message for templates {name: text} ("" when it loads).
std::string loading(const std::string& test, const std::map<std::string, std::string>& texts) {
  std::string dir = test::scratchDir(test);
  for (const auto& [name, text] : texts)
    REQUIRE(!writeFile(dir + "/" + name + ".mustache", text));
  auto set = TemplateSet::load(dir);
  return set ? "" : summarize(set.takeError()).message;
}

std::string nested(size_t depth, const std::string& inside = "x") {
  std::string text;
  for (size_t i = 0; i < depth; ++i)
    text += "{{#s" + std::to_string(i) + "}}";
  text += inside;
  for (size_t i = depth; i-- > 0;)
    text += "{{/s" + std::to_string(i) + "}}";
  return text;
}

} // namespace

TEST_CASE("templates nesting sections deeper than 64 are refused before rendering", "[render]") {
  CHECK(loading("templates-64", {{"a", nested(64)}}).empty());
  CHECK_THAT(loading("templates-65", {{"a", nested(65)}}),
             Catch::Contains("templates-65/a.mustache' nests sections 65 deep, more than the 64"));
  // 100000 deep: kainjow parses and renders by recursion (std::bad_alloc, a stack overflow).
  CHECK_THAT(loading("templates-deep", {{"a", nested(100000)}}),
             Catch::Contains("nests sections 100000 deep"));
  // Inverted sections count, closing tags end them, comments and variables do not count.
  CHECK(loading("templates-flat", {{"a", "{{^x}}{{/x}}" + nested(60) + "{{! {{#y}} }}{{v}}"}})
            .empty());
  // Sections written with other delimiters, and triple mustaches, are read as kainjow reads them.
  std::string other = "{{=<% %>=}}";
  for (int i = 0; i < 70; ++i)
    other += "<%#s%>";
  CHECK_THAT(loading("templates-delimiters", {{"a", other}}),
             Catch::Contains("nests sections 70 deep"));
  CHECK(loading("templates-triple", {{"a", "{{{#not}}}" + nested(64)}}).empty());
}

TEST_CASE("partials count where they are used, and a partial using itself is refused", "[render]") {
  // 40 sections around a partial of 40: 80 deep when rendered.
  CHECK_THAT(loading("templates-partials", {{"a", nested(40, "{{> b}}")}, {"b", nested(40)}}),
             Catch::Contains("a.mustache' nests sections 80 deep with its partials"));
  CHECK(
      loading("templates-partials-ok", {{"a", nested(30, "{{> b}}")}, {"b", nested(30)}}).empty());
  CHECK_THAT(loading("templates-self", {{"a", "{{>a}}"}}),
             Catch::Contains("a.mustache' uses itself as a partial (a uses a)"));
  CHECK_THAT(loading("templates-cycle", {{"a", "{{#x}}{{> b}}{{/x}}"}, {"b", "{{> a}}"}}),
             Catch::Contains("uses itself as a partial (a uses b uses a)"));
  // A partial no template provides renders as nothing.
  CHECK(loading("templates-unknown", {{"a", "{{> nowhere}}"}}).empty());
}

TEST_CASE("a template that is not a regular file is refused, not waited on", "[render]") {
  std::string dir = test::scratchDir("templates-fifo");
  REQUIRE(!writeFile(dir + "/a.mustache", "x"));
  REQUIRE(::mkfifo((dir + "/b.mustache").c_str(), 0600) == 0);
  auto set = TemplateSet::load(dir);
  REQUIRE(!set);
  ErrorSummary summary = summarize(set.takeError());
  CHECK(summary.code == ExitCode::ToolchainError);
  CHECK_THAT(summary.message, Catch::Contains("cannot read '" + dir + "/b.mustache': a FIFO"));
}

TEST_CASE("tlc's own templates load and render", "[render]") {
  auto set = TemplateSet::load(std::string(TLC_SOURCE_DIR) + "/templates");
  REQUIRE_EXPECTED(set);
  CHECK(set->files().size() >= 9);
}
