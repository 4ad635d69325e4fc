// Packing a cache entry into one blob and unpacking it, every file checked by its SHA-256.
#include "cache/EntryPack.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"
#include "support/JsonFields.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <set>

namespace tlc {
namespace {

constexpr llvm::StringLiteral Magic = "tlc-entry 1\n";

llvm::Error badEntry(const llvm::Twine& reason) {
  return inputError("bad entry: " + reason);
}

} // namespace

std::vector<EntryDependency> hashDependencies(const std::vector<std::string>& paths,
                                              DependencyHashes& hashes) {
  std::vector<EntryDependency> dependencies;
  for (const std::string& path : paths)
    dependencies.push_back({path, hashes.of(path)});
  return dependencies;
}

std::string entryName(const std::vector<EntryDependency>& dependencies) {
  std::string text;
  for (const EntryDependency& dependency : dependencies)
    text += dependency.path + " " + dependency.hash + "\n";
  return sha256Hex(text).substr(0, 24);
}

bool isSafeEntryFileName(llvm::StringRef name) {
  if (name.empty() || name.starts_with("/") || name.contains('\0'))
    return false;
  for (auto part = llvm::sys::path::begin(name), end = llvm::sys::path::end(name); part != end;
       ++part)
    if (*part == ".." || *part == ".")
      return false;
  return true;
}

llvm::Expected<std::string> packEntry(const EntryDescription& entry,
                                      const std::string& outputsDir) {
  nlohmann::json header = {{"files", nlohmann::json::array()},
                           {"dependencies", nlohmann::json::array()}};
  std::string contents;
  for (const CachedFile& file : entry.files) {
    auto bytes = readFile(outputsDir + "/" + file.name);
    if (!bytes)
      return bytes.takeError();
    if (sha256Hex(*bytes) != file.sha256)
      return inputError("'" + file.name + "' changed since the build hashed it");
    header["files"].push_back(
        {{"name", file.name}, {"sha256", file.sha256}, {"size", bytes->size()}});
    contents += *bytes;
  }
  for (const EntryDependency& dependency : entry.dependencies)
    header["dependencies"].push_back({{"path", dependency.path}, {"hash", dependency.hash}});
  std::string headerText = header.dump();
  return Magic.str() + std::to_string(headerText.size()) + "\n" + headerText + contents;
}

llvm::Expected<UnpackedEntry> unpackEntry(llvm::StringRef blob) {
  if (!blob.consume_front(Magic))
    return badEntry("not a tlc entry");
  auto [lengthText, rest] = blob.split('\n');
  size_t headerLength = 0;
  if (lengthText.getAsInteger(10, headerLength) || headerLength > rest.size())
    return badEntry("its header is cut short");
  nlohmann::json header = nlohmann::json::parse(rest.take_front(headerLength), nullptr, false);
  llvm::StringRef contents = rest.drop_front(headerLength);
  if (!header.is_object() || !header["files"].is_array() || !header["dependencies"].is_array())
    return badEntry("its header is not an entry's description");

  UnpackedEntry unpacked;
  EntryDescription& entry = unpacked.description;
  std::vector<llvm::StringRef>& bytes = unpacked.contents;
  std::set<std::string> names;
  for (const nlohmann::json& file : header["files"]) {
    if (!file.is_object() || !hasString(file, "name") || !hasString(file, "sha256") ||
        !hasUnsigned(file, "size"))
      return badEntry("a file's description is malformed");
    std::string name = file.at("name"), sha256 = file.at("sha256");
    uint64_t size = file.at("size");
    if (!isSafeEntryFileName(name))
      return badEntry("'" + name + "' is not a file name inside an entry");
    if (!names.insert(name).second)
      return badEntry("'" + name + "' is in it twice");
    if (size > contents.size())
      return badEntry("'" + name + "' is cut short");
    bytes.push_back(contents.take_front(size));
    contents = contents.drop_front(size);
    if (sha256Hex(bytes.back()) != sha256)
      return badEntry("'" + name + "' does not match its SHA-256");
    entry.files.push_back({name, sha256});
  }
  if (!contents.empty())
    return badEntry("it holds more bytes than its files");
  for (const nlohmann::json& dependency : header["dependencies"]) {
    if (!dependency.is_object() || !hasString(dependency, "path") || !hasString(dependency, "hash"))
      return badEntry("a dependency's description is malformed");
    entry.dependencies.push_back({dependency.at("path"), dependency.at("hash")});
  }

  return unpacked;
}

} // namespace tlc
