// libFuzzer: readFatbin over any bytes, then readDeviceImageFile over the same bytes as a file
// (what tlc reads its builds' images with: a fat binary's cubins read in place, its PTX as text; a
// cubin; a host object's .nv_fatbin section). The file is a memfd, rewritten for each input.
// Seeds: test/fuzz/corpus/fatbin (nvcc --no-compress fat binaries and imgforge.py's forgeries).
#include "FuzzChecks.h"

#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// The bytes as a file readDeviceImageFile can open, or "" where the system has no memfd.
std::string asFile(llvm::StringRef bytes) {
  static int fd = ::memfd_create("fuzz-image", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, 0) != 0)
    return "";
  for (size_t written = 0; written < bytes.size();) {
    ssize_t wrote = ::pwrite(fd, bytes.data() + written, bytes.size() - written, written);
    if (wrote <= 0)
      return "";
    written += size_t(wrote);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(data), size);
  auto entries = tlc::readFatbin(bytes);
  if (!entries) {
    tlc::fuzz::consume(entries.takeError());
  } else {
    const char* previous = bytes.begin();
    for (const tlc::FatbinEntry& entry : *entries) {
      tlc::fuzz::require(entry.payload.begin() >= bytes.begin() &&
                             entry.payload.end() <= bytes.end(),
                         "an entry's payload lies inside the fat binary");
      // Each entry is its header's 48 bytes or more, then its payload, after the one before.
      tlc::fuzz::require(entry.payload.begin() - previous >= 48,
                         "entries follow one another, each after its header");
      previous = entry.payload.end();
      tlc::fuzz::require(entry.ptx ? !entry.payload.empty()
                                   : entry.payload.starts_with("\x7f"
                                                               "ELF"),
                         "an entry holds PTX text or an ELF image");
    }
  }
  std::string path = asFile(bytes);
  if (path.empty())
    return 0;
  auto contents = tlc::readDeviceImageFile(path);
  if (!contents) {
    tlc::fuzz::consume(contents.takeError());
    return 0;
  }
  for (const tlc::ImageContents::Part& part : contents->parts) {
    tlc::fuzz::require(part.entry.payload.empty(), "a part keeps no view of the freed buffer");
    tlc::fuzz::checkInfo(part.info, part.entry.ptx);
  }
  return 0;
}
