// NAME.json: the manifest's JSON, from the model and the facts of one build.
#include "pipeline/Manifest.h"

#include "model/ModelJson.h"

namespace tlc {

static nlohmann::json digest(const FileDigest& file) {
  return {{"file", file.path}, {"sha256", file.sha256}};
}

nlohmann::json buildManifest(const Module& module, const ManifestFacts& facts) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const FileDigest& input : facts.inputs)
    inputs.push_back(digest(input));
  nlohmann::json kernels = nlohmann::json::array();
  for (const Kernel& kernel : module.kernels) {
    nlohmann::json entry = toJson(kernel);
    entry["function"] = facts.name + "_" + kernel.launcher;
    kernels.push_back(std::move(entry));
  }
  nlohmann::json records = nlohmann::json::array();
  for (const Record& record : module.records)
    records.push_back(toJson(record));
  nlohmann::json targets = nlohmann::json::array(), archs = nlohmann::json::array();
  for (const GpuTarget& target : facts.targets) {
    targets.push_back({{"code", target.code},
                       {"kind", target.ptx() ? "ptx" : "sass"},
                       {"from", target.virtualArch}});
    if (!target.ptx())
      archs.push_back(target.code);
  }
  nlohmann::json image = digest(facts.image);
  image["format"] = facts.image.path.size() > 7 &&
                            facts.image.path.compare(facts.image.path.size() - 7, 7, ".fatbin") == 0
                        ? "fatbin"
                        : "cubin";
  image["embedded"] = facts.embeddedImage;
  nlohmann::json outputs = {
      {"image", image}, {"library", digest(facts.library)}, {"header", digest(facts.header)}};
  for (const auto& [role, file] : facts.python)
    outputs[role] = digest(file);
  return {{"schema", "tlc.manifest"},
          {"schema_version", kManifestSchemaVersion},
          {"name", facts.name},
          {"versions",
           {{"tlc", facts.tlcVersion},
            {"clang", facts.clangVersion},
            {"nvcc", facts.nvccVersion},
            {"host_compiler", facts.hostCompilerVersion}}},
          {"archs", archs},
          {"targets", targets},
          {"inputs", inputs},
          {"outputs", outputs},
          {"commands", facts.commands},
          {"kernels", kernels},
          {"records", records},
          {"other_entries", module.otherEntries}};
}

} // namespace tlc
