// The wheel of a module's Python package (ModuleWheel.h): its files and metadata, zipped with
// minizip, RECORD hashed as the wheel format asks (SHA-256, URL-safe base64 without padding).
#include "builder/ModuleWheel.h"

#include "support/Error.h"
#include "support/Files.h"
#include "support/Hashing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Regex.h"

#include <minizip/zip.h>

#include <algorithm>
#include <set>

namespace tlc {

namespace {

// Libraries a manylinux wheel may leave to the system (PEP 600), of those a launcher library
// and its extension can need. The extension's binding has some C++ (its torch ops): libstdc++.
const std::set<std::string> kSystemLibraries = {
    "libc.so.6",  "libm.so.6",  "libz.so.1",      "libgcc_s.so.1",       "libpthread.so.0",
    "libdl.so.2", "librt.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2"};

// The oldest glibc (2.X) whose manylinux platform's libstdc++ has GLIBCXX_3.4.N and
// CXXABI_1.3.M (auditwheel's policies: manylinux2014 is GCC 4.8's, 2_24 GCC 6's, ...).
unsigned glibcForLibstdcxx(unsigned glibcxx, unsigned cxxabi) {
  struct Era {
    unsigned glibc, glibcxx, cxxabi;
  } eras[] = {{17, 19, 7},  {24, 22, 11}, {27, 24, 11}, {28, 25, 11},
              {31, 28, 12}, {34, 29, 13}, {35, 30, 13}, {39, 33, 15}};
  for (const Era& era : eras)
    if (glibcxx <= era.glibcxx && cxxabi <= era.cxxabi)
      return era.glibc;
  return ~0u; // newer than any platform known here
}

// The newest GLIBC_2.X a file's symbols need, or nullopt when it needs a library beyond the
// system's own (or cannot be read).
std::optional<unsigned> glibcMinorNeeded(const std::string& path,
                                         const std::set<std::string>& bundled) {
  auto bytes = readFile(path);
  if (!bytes) {
    llvm::consumeError(bytes.takeError());
    return std::nullopt;
  }
  auto file = llvm::object::ELF64LEFile::create(*bytes);
  if (!file) {
    llvm::consumeError(file.takeError());
    return std::nullopt;
  }
  auto sections = file->sections();
  if (!sections) {
    llvm::consumeError(sections.takeError());
    return std::nullopt;
  }
  unsigned minor = 17; // manylinux2014's floor: nothing older is a tag pip still installs
  unsigned glibcxx = 0, cxxabi = 0;
  for (const auto& section : *sections) {
    if (section.sh_type == llvm::ELF::SHT_DYNAMIC) {
      auto entries = file->dynamicEntries();
      auto strings = file->getLinkAsStrtab(section);
      if (!entries || !strings) {
        if (!entries)
          llvm::consumeError(entries.takeError());
        if (!strings)
          llvm::consumeError(strings.takeError());
        return std::nullopt;
      }
      for (const auto& entry : *entries)
        if (entry.getTag() == llvm::ELF::DT_NEEDED) {
          if (entry.getVal() >= strings->size())
            return std::nullopt;
          std::string needed = strings->drop_front(entry.getVal()).data();
          if (!kSystemLibraries.count(needed) && !bundled.count(needed))
            return std::nullopt;
        }
    }
    if (section.sh_type != llvm::ELF::SHT_GNU_verneed)
      continue;
    auto needs = file->getVersionDependencies(section);
    if (!needs) {
      llvm::consumeError(needs.takeError());
      return std::nullopt;
    }
    for (const llvm::object::VerNeed& need : *needs)
      for (const llvm::object::VernAux& aux : need.AuxV) {
        llvm::StringRef name = aux.Name.c_str(); // LLVM keeps the string table from there on
        unsigned version = 0;
        if (name.consume_front("GLIBC_2.") && !name.getAsInteger(10, version))
          minor = std::max(minor, version);
        else if (name.consume_front("GLIBCXX_3.4") &&
                 (name.empty() || (name.consume_front(".") && !name.getAsInteger(10, version))))
          glibcxx = std::max(glibcxx, version);
        else if (name.consume_front("CXXABI_1.3") &&
                 (name.empty() || (name.consume_front(".") && !name.getAsInteger(10, version))))
          cxxabi = std::max(cxxabi, version);
      }
  }
  unsigned era = glibcForLibstdcxx(glibcxx, cxxabi);
  if (era == ~0u)
    return std::nullopt;
  return std::max(minor, era);
}

std::string recordHash(llvm::StringRef data) {
  std::string hex = sha256Hex(data);
  std::string raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    raw += static_cast<char>(llvm::hexFromNibbles(hex[i], hex[i + 1]));
  std::string encoded = llvm::encodeBase64(raw);
  std::replace(encoded.begin(), encoded.end(), '+', '-');
  std::replace(encoded.begin(), encoded.end(), '/', '_');
  while (!encoded.empty() && encoded.back() == '=')
    encoded.pop_back();
  return "sha256=" + encoded;
}

struct Member {
  std::string name; // in the wheel
  std::string data;
  bool executable = false;
};

// Zips `members` into `path`: deflated, dated 1980-01-01, Unix modes, in the order given.
llvm::Error zipMembers(const std::string& path, const std::vector<Member>& members) {
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  if (!zip)
    return inputError("cannot create '" + path + "'");
  for (const Member& member : members) {
    zip_fileinfo info{};
    info.tmz_date.tm_mday = 1;
    info.tmz_date.tm_year = 1980;
    info.external_fa = static_cast<uLong>(member.executable ? 0100755 : 0100644) << 16;
    constexpr uLong kMadeByUnix = (3 << 8) | 20;
    if (zipOpenNewFileInZip4_64(zip, member.name.c_str(), &info, nullptr, 0, nullptr, 0, nullptr,
                                Z_DEFLATED, 6, 0, -MAX_WBITS, DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY,
                                nullptr, 0, kMadeByUnix, 0, 0) != ZIP_OK ||
        zipWriteInFileInZip(zip, member.data.data(), static_cast<unsigned>(member.data.size())) !=
            ZIP_OK ||
        zipCloseFileInZip(zip) != ZIP_OK) {
      zipClose(zip, nullptr);
      return inputError("cannot write '" + member.name + "' into '" + path + "'");
    }
  }
  if (zipClose(zip, nullptr) != ZIP_OK)
    return inputError("cannot write '" + path + "'");
  return llvm::Error::success();
}

std::string metadataOf(const OutputNames& names, const ModuleWheelFacts& facts) {
  std::vector<std::string> targets;
  for (const GpuTarget& target : facts.targets)
    targets.push_back(target.code);
  std::string metadata =
      "Metadata-Version: 2.1\nName: " + names.module + "\nVersion: " + facts.version +
      "\nSummary: CUDA kernels compiled ahead of time by tlc " + facts.tlcVersion + " for " +
      llvm::join(targets, ", ") + "\nKeywords: cuda,tlc," + llvm::join(targets, ",") +
      "\nRequires-Python: >=3.10\n"
      "Description-Content-Type: text/markdown\n\n";
  metadata += "# " + names.module + "\n\nCUDA kernels compiled ahead of time by tlc " +
              facts.tlcVersion + ", one Python function per launcher:\n\n";
  for (const std::string& kernel : facts.kernels)
    metadata += "- `" + names.module + "." + kernel + "`\n";
  metadata += "\nDevice code for: " + llvm::join(targets, ", ") +
              " (SASS runs on those GPUs; PTX is compiled for newer ones by the driver).\n"
              "Needs a CUDA driver, no toolkit; torch, CuPy and DLPack arrays are taken when "
              "given.\n";
  return metadata;
}

} // namespace

bool isWheelVersion(llvm::StringRef version) {
  static const llvm::Regex pep440(
      "^[0-9]+(\\.[0-9]+)*((a|b|rc)[0-9]+)?(\\.post[0-9]+)?(\\.dev[0-9]+)?$");
  return version.size() <= 64 && pep440.match(version);
}

std::string wheelPlatformTag(const std::vector<std::string>& files,
                             const std::set<std::string>& bundled) {
  unsigned newest = 17;
  for (const std::string& file : files) {
    std::optional<unsigned> minor = glibcMinorNeeded(file, bundled);
    if (!minor)
      return "linux_x86_64";
    newest = std::max(newest, *minor);
  }
  return "manylinux_2_" + std::to_string(newest) + "_x86_64";
}

llvm::Expected<std::string> writeModuleWheel(const OutputNames& names,
                                             const ModuleWheelFacts& facts,
                                             const std::string& outputsDir) {
  const PythonPackageFiles& package = names.python;
  // The library inside the package, where its extension looks first.
  std::vector<std::pair<std::string, std::string>> files; // (in the wheel, in outputsDir)
  for (const std::string& file : package.all())
    files.push_back({file, file});
  files.push_back({package.folder + "/" + names.library, names.library});
  if (facts.externalImage)
    files.push_back({package.folder + "/" + names.image, names.image});
  std::string platform = wheelPlatformTag(
      {outputsDir + "/" + names.library, outputsDir + "/" + package.extension}, {names.library});
  std::string tag = "cp310-abi3-" + platform;
  std::string distInfo = names.module + "-" + facts.version + ".dist-info";
  std::string wheelName = names.module + "-" + facts.version + "-" + tag + ".whl";

  std::vector<Member> members;
  std::string record;
  for (const auto& [inWheel, inOutputs] : files) {
    auto data = readFile(outputsDir + "/" + inOutputs);
    if (!data)
      return data.takeError();
    bool executable = llvm::StringRef(inWheel).ends_with(".so");
    record += inWheel + "," + recordHash(*data) + "," + std::to_string(data->size()) + "\n";
    members.push_back({inWheel, std::move(*data), executable});
  }
  std::pair<std::string, std::string> metadata[] = {
      {distInfo + "/METADATA", metadataOf(names, facts)},
      {distInfo + "/WHEEL", "Wheel-Version: 1.0\nGenerator: tlc " + facts.tlcVersion +
                                "\nRoot-Is-Purelib: false\nTag: " + tag + "\n"},
      {distInfo + "/top_level.txt", names.module + "\n"}};
  for (auto& [name, text] : metadata) {
    record += name + "," + recordHash(text) + "," + std::to_string(text.size()) + "\n";
    members.push_back({name, std::move(text), false});
  }
  record += distInfo + "/RECORD,,\n";
  members.push_back({distInfo + "/RECORD", record, false});

  // Zipped beside, then written as every output is (support/Files.h), so that a full disk or
  // a failed write leaves no half-written wheel.
  std::string zipped = outputsDir + "/." + wheelName + ".zip";
  llvm::sys::fs::remove(zipped);
  if (llvm::Error error = zipMembers(zipped, members)) {
    llvm::sys::fs::remove(zipped);
    return error;
  }
  auto bytes = readFile(zipped);
  llvm::sys::fs::remove(zipped);
  if (!bytes)
    return bytes.takeError();
  if (llvm::Error error = writeFile(outputsDir + "/" + wheelName, *bytes))
    return error;
  return wheelName;
}

} // namespace tlc
