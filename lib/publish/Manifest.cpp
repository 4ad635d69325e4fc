// NAME.json: the manifest's JSON, from the model and the facts of one build; the outputs a
// manifest lists, read back checked (tlc verify, and publishing over a previous build).
#include "publish/Manifest.h"

#include "builder/ModuleWheel.h"
#include "model/ModelJson.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/JsonFields.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <iterator>
#include <optional>

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

std::vector<std::string> planCommands(const StepRunner& runner, const DevicePlan& device,
                                      const HostPlan& host, const PythonPlan* python) {
  std::vector<const Step*> steps;
  for (const std::vector<Step>* group : {&device.compiles, &device.links})
    for (const Step& step : *group)
      steps.push_back(&step);
  for (const std::optional<Step>* step : {&device.package})
    if (*step)
      steps.push_back(&**step);
  steps.push_back(&host.compileLauncher);
  steps.push_back(&host.link);
  if (python) {
    steps.push_back(&python->compileExtension);
    steps.push_back(&python->linkExtension);
  }
  std::vector<std::string> commands;
  for (const Step* step : steps)
    commands.push_back(runner.commandLine(*step));
  return commands;
}

// `file` in `outputsDir` with its SHA-256, named as OUTDIR names it.
static llvm::Expected<FileDigest> outputDigest(const std::string& outputsDir,
                                               const std::string& file) {
  auto sha = sha256OfFile(outputsDir + "/" + file);
  if (!sha)
    return sha.takeError();
  return FileDigest{file, *sha};
}

llvm::Expected<std::vector<FileDigest>> inputDigests(const std::vector<std::string>& inputs,
                                                     const DisplayPaths& paths,
                                                     FileDigests& digests) {
  std::vector<FileDigest> listed;
  for (const std::string& input : inputs) {
    auto digest = digests.of(input);
    if (!digest)
      return digest.takeError();
    listed.push_back({paths.input(input), *digest});
  }
  return listed;
}

llvm::Expected<std::vector<CachedFile>>
writeManifest(const Module& module, const ManifestSources& sources, const OutputNames& names,
              const std::string& workDir, const std::string& outputsDir) {
  const BuildOptions& options = *sources.options;
  ManifestFacts facts;
  facts.name = names.module;
  facts.tlcVersion = sources.versions.tlc;
  facts.clangVersion = sources.versions.clang;
  facts.nvccVersion = sources.versions.nvcc;
  facts.hostCompilerVersion = sources.versions.hostCompiler;
  facts.targets = options.targets;
  facts.commands = sources.commands;
  facts.inputs = sources.inputs;
  const std::string& out = outputsDir;
  if (llvm::Error error = copyFile(workDir + "/" + names.library, out + "/" + names.library, 0777))
    return error;
  std::pair<FileDigest*, std::string> outputs[] = {
      {&facts.image, names.image},
      {&facts.library, names.library},
      {&facts.header, names.header},
  };
  for (auto& [digest, file] : outputs) {
    auto read = outputDigest(out, file);
    if (!read)
      return read.takeError();
    *digest = *read;
  }
  facts.embeddedImage = !options.externalImage;
  if (options.python) {
    const PythonPackageFiles& files = names.python;
    if (llvm::Error error =
            copyFile(workDir + "/" + names.pythonExtensionWork, out + "/" + files.extension, 0777))
      return error;
    std::pair<const char*, std::string> roles[] = {
        {"python_init", files.init},
        {"python_stubs", files.stubs},
        {"python_marker", files.marker},
        {"python_helpers", files.helpers},
        {"python_helper_stubs", files.helperStubs},
        {"python_extension", files.extension},
    };
    for (const auto& [role, file] : roles) {
      auto read = outputDigest(out, file);
      if (!read)
        return read.takeError();
      facts.python.push_back({role, *read});
    }
    if (options.wheel) {
      ModuleWheelFacts wheel{
          options.wheelVersion, options.targets, {}, facts.tlcVersion, options.externalImage};
      for (const Kernel& kernel : module.kernels)
        wheel.kernels.push_back(kernel.launcher);
      auto written = writeModuleWheel(names, wheel, out);
      if (!written)
        return written.takeError();
      auto read = outputDigest(out, *written);
      if (!read)
        return read.takeError();
      facts.python.push_back({"python_wheel", *read});
    }
  }
  // A name that is not UTF-8 (a file name) is written with replacement characters.
  std::string manifest =
      buildManifest(module, facts).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
      "\n";
  if (llvm::Error error = writeFile(out + "/" + names.manifest, manifest))
    return error;
  std::vector<CachedFile> published = {{facts.image.path, facts.image.sha256},
                                       {facts.library.path, facts.library.sha256},
                                       {facts.header.path, facts.header.sha256},
                                       {names.manifest, sha256Hex(manifest)}};
  for (const auto& [role, digest] : facts.python)
    published.push_back({digest.path, digest.sha256});
  return published;
}

bool isPlainOutputName(llvm::StringRef name) {
  if (name.empty() || name.starts_with("/") || name.contains('\0'))
    return false;
  llvm::SmallVector<llvm::StringRef, 4> parts;
  name.split(parts, '/');
  return llvm::none_of(
      parts, [](llvm::StringRef part) { return part.empty() || part == "." || part == ".."; });
}

namespace {

// The outputs every manifest lists, and those of the Python package (--python), all or none.
const char* const RequiredRoles[] = {"image", "library", "header"};
const char* const PythonRoles[] = {"python_init",    "python_stubs",        "python_marker",
                                   "python_helpers", "python_helper_stubs", "python_extension"};
const char* const WheelRole = "python_wheel";

} // namespace

llvm::Expected<std::vector<FileDigest>> manifestOutputs(const nlohmann::json& manifest,
                                                        const std::string& file) {
  auto broken = [&](const std::string& why) {
    return inputError("the manifest '" + file + "' is damaged: " + why);
  };
  auto outputs = manifest.find("outputs");
  if (outputs == manifest.end() || !outputs->is_object())
    return broken("it has no \"outputs\"");
  std::vector<const char*> roles(std::begin(RequiredRoles), std::end(RequiredRoles));
  if (outputs->contains(PythonRoles[0]))
    roles.insert(roles.end(), std::begin(PythonRoles), std::end(PythonRoles));
  if (outputs->contains(WheelRole)) // --wheel: the package's wheel too
    roles.push_back(WheelRole);
  std::vector<FileDigest> listed;
  for (const char* role : roles) {
    auto output = outputs->find(role);
    if (output == outputs->end())
      return broken("\"outputs\" has no \"" + std::string(role) + "\"");
    std::optional<std::string> name = stringAt(*output, "file");
    std::optional<std::string> sha = stringAt(*output, "sha256");
    if (!name || !isPlainOutputName(*name))
      return broken("\"outputs\".\"" + std::string(role) + "\" names no file in the folder");
    if (!sha || !isSha256Hex(*sha))
      return broken("\"outputs\".\"" + std::string(role) + "\" has no SHA-256");
    listed.push_back({*name, *sha});
  }
  if (outputs->size() != roles.size())
    return broken("\"outputs\" lists other outputs than the image, library and header (and the "
                  "Python package's, all of them)");
  return listed;
}

} // namespace tlc
