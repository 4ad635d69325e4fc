// `tlc verify OUTDIR`: every output against the SHA-256 its manifest records.
#include "commands/Commands.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "build/Manifest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

namespace tlc {

// The manifest in `dir`: the one *.json whose schema is tlc.manifest.
static llvm::Expected<nlohmann::json> findManifest(const std::string& dir) {
  std::error_code ec;
  std::vector<nlohmann::json> found;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".json")
      continue;
    auto text = readFile(it->path());
    if (!text) {
      llvm::consumeError(text.takeError());
      continue;
    }
    nlohmann::json document = nlohmann::json::parse(*text, nullptr, false);
    if (document.is_object() && document.value("schema", "") == "tlc.manifest")
      found.push_back(std::move(document));
  }
  if (ec)
    return inputError("cannot read '" + dir + "': " + ec.message());
  if (found.size() != 1)
    return inputError("'" + dir + "' holds " + std::to_string(found.size()) +
                      " tlc manifests; expected one");
  return found.front();
}

llvm::Error runVerify(const std::string& outputDir, llvm::raw_ostream& out) {
  auto manifest = findManifest(outputDir);
  if (!manifest)
    return manifest.takeError();
  if (manifest->value("schema_version", 0) > kManifestSchemaVersion)
    return inputError("the manifest in '" + outputDir + "' has schema version " +
                      std::to_string(manifest->value("schema_version", 0)) +
                      ", newer than this tlc understands");
  std::string mismatches;
  unsigned checked = 0;
  for (const auto& [role, output] : (*manifest)["outputs"].items()) {
    std::string file = output.value("file", "");
    auto digest = sha256OfFile(outputDir + "/" + file);
    ++checked;
    if (!digest) {
      mismatches += "\n  " + file + ": missing or unreadable";
      llvm::consumeError(digest.takeError());
    } else if (*digest != output.value("sha256", "")) {
      mismatches += "\n  " + file + ": SHA-256 " + *digest + ", manifest says " +
                    output.value("sha256", "");
    }
  }
  if (!mismatches.empty())
    return inputError("'" + outputDir + "' does not match its manifest:" + mismatches);
  out << "ok: " << checked << " files of " << manifest->value("name", "?")
      << " match the manifest\n";
  return llvm::Error::success();
}

} // namespace tlc
