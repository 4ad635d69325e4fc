// Reading a cubin's entry symbols and arch with LLVM's Object library.
#include "build/DeviceImage.h"

#include "support/Error.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace tlc {

static constexpr uint8_t kCudaEntryFunction = 0x10; // st_other of __global__ functions

static unsigned smOf(const llvm::object::ELFObjectFileBase& object) {
  unsigned flags = object.getPlatformFlags();
  // Since CUDA 12.9 cubins use ABI version 2, which moved the SM number up one byte.
  if (object.getEIdentABIVersion() == llvm::ELF::ELFABIVERSION_CUDA_V2)
    return (flags & llvm::ELF::EF_CUDA_SM_MASK) >> llvm::ELF::EF_CUDA_SM_OFFSET;
  return flags & llvm::ELF::EF_CUDA_SM;
}

llvm::Expected<CubinInfo> readCubin(llvm::MemoryBufferRef image) {
  auto object = llvm::object::ObjectFile::createObjectFile(image);
  if (!object)
    return internalError("'" + image.getBufferIdentifier() + "' is not a readable cubin: " +
                         llvm::toString(object.takeError()));
  const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  if (!elf || elf->getEMachine() != llvm::ELF::EM_CUDA)
    return internalError("'" + image.getBufferIdentifier() + "' is not a CUDA ELF image");

  CubinInfo info;
  info.sm = smOf(*elf);
  for (const llvm::object::ELFSymbolRef symbol : elf->symbols()) {
    if (symbol.getELFType() != llvm::ELF::STT_FUNC || !(symbol.getOther() & kCudaEntryFunction))
      continue;
    uint8_t binding = symbol.getBinding();
    if (binding == llvm::ELF::STB_LOCAL)
      continue;
    auto name = symbol.getName();
    if (!name)
      return internalError("unreadable symbol name in '" + image.getBufferIdentifier() +
                           "': " + llvm::toString(name.takeError()));
    info.entries.push_back({name->str(), binding == llvm::ELF::STB_WEAK});
  }
  std::sort(info.entries.begin(), info.entries.end(),
            [](const ImageEntry& a, const ImageEntry& b) { return a.symbol < b.symbol; });
  return info;
}

llvm::Expected<CubinInfo> readCubinFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return internalError("cannot read '" + path + "': " + buffer.getError().message());
  return readCubin((*buffer)->getMemBufferRef());
}

} // namespace tlc
