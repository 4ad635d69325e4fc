// Launcher templates: logic-less Mustache files (templates/*.mustache), rendered with
// kainjow::mustache from a JSON view of the module. Every template is also available to the
// others as a partial by its name ("ctype" for ctype.mustache).
#pragma once

#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace tlc {

class TemplateSet {
public:
  // Reads every *.mustache file in `dir`.
  static llvm::Expected<TemplateSet> load(const std::string& dir);

  // Renders template `name` ("header.h" for header.h.mustache). JSON lists become Mustache lists
  // whose items carry `_index`, `_first` and `_last`; lists of scalars become lists of
  // {"value": ...} objects; null is false.
  llvm::Expected<std::string> render(const std::string& name, const nlohmann::json& view) const;
  // ...written to the file `path`.
  llvm::Error renderTo(const std::string& name, const nlohmann::json& view,
                       const std::string& path) const;

  const std::vector<std::string>& files() const { return Files; }

private:
  std::string Dir;
  std::map<std::string, std::string> Texts; // by template name
  std::vector<std::string> Files;
};

} // namespace tlc
