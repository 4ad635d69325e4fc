// NAME.h, NAME_launcher.cpp and NAME_image.S from a module's launcher view.
#include "builder/LauncherSources.h"

#include "support/Files.h"

namespace tlc {

LauncherFacts launcherFacts(const BuildOptions& options, const OutputNames& names,
                            const DisplayPaths& paths, bool relocatable,
                            const std::string& launcherTypes) {
  LauncherFacts facts;
  facts.name = names.module;
  for (const std::string& input : options.sources.inputs)
    facts.inputs.push_back(paths.input(input));
  for (const GpuTarget& target : options.targets)
    facts.targets.push_back(target.code);
  facts.relocatable = relocatable;
  facts.imageFile = names.image;
  facts.embedImage = !options.externalImage;
  facts.launcherTypes = launcherTypes;
  return facts;
}

LauncherSources::LauncherSources(const TemplateSet& templates, OutputNames names,
                                 std::string outputsDir, std::string sourceDir, bool embedImage)
    : Templates(templates), Names(std::move(names)), OutputsDir(std::move(outputsDir)),
      SourceDir(std::move(sourceDir)), EmbedImage(embedImage) {
}

llvm::Expected<bool> LauncherSources::write(const nlohmann::json& view) {
  std::string header = OutputsDir + "/" + Names.header;
  if (llvm::Error error = Templates.renderTo("header.h", view, header))
    return error;
  if (SourceDir != OutputsDir)
    if (llvm::Error error = copyFile(header, SourceDir + "/" + Names.header))
      return error;
  auto launcher = Templates.render("launcher.cpp", view);
  if (!launcher)
    return launcher.takeError();
  bool changed = *launcher != Launcher;
  if (changed) {
    Launcher = std::move(*launcher);
    if (llvm::Error error = writeFile(SourceDir + "/" + Names.launcherSource, Launcher))
      return error;
  }
  if (EmbedImage)
    if (llvm::Error error =
            Templates.renderTo("image.S", view, SourceDir + "/" + Names.imageAssembly))
      return error;
  return changed;
}

} // namespace tlc
