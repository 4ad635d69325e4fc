// The module model as JSON: what `tlc inspect --json` prints and what the launcher templates are
// filled from. docs/model-schema.md documents every field; bump kSchemaVersion on any change
// that removes or renames one.
#pragma once

#include "model/Model.h"

#include <nlohmann/json.hpp>

namespace tlc {

inline constexpr int kSchemaVersion = 1;

struct ToolVersions {
  std::string tlc;
  std::string clang;
  std::string cuda; // nvcc's release, e.g. "13.0.88"
};

nlohmann::json toJson(const SourceLocation& location);
nlohmann::json toJson(const CType& type);
nlohmann::json toJson(const Param& param);
nlohmann::json toJson(const Kernel& kernel);
nlohmann::json toJson(const Record& record);
// The module's own part of the document: inputs, kernels, records, other_entries. The launcher
// templates' view is this plus build facts (render/LauncherView.h).
nlohmann::json toJson(const Module& module);

// The whole `inspect --json` document.
nlohmann::json moduleDocument(const Module& module, const ToolVersions& versions,
                              const std::string& arch);

} // namespace tlc
