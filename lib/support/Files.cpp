// Small file operations with tlc's error conventions.
#include "support/Files.h"

#include "support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace tlc {

llvm::Error writeFile(const std::string& path, llvm::StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return inputError("cannot write '" + path + "': " + ec.message());
  out << contents;
  out.close();
  if (out.has_error())
    return inputError("cannot write '" + path + "': " + out.error().message());
  return llvm::Error::success();
}

llvm::Error checkInputFiles(const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (!llvm::sys::fs::exists(input))
      return inputError("no such file: " + input);
    if (llvm::sys::fs::is_directory(input))
      return inputError("'" + input + "' is a directory, expected a .cu file");
    if (!llvm::sys::fs::is_regular_file(input))
      return inputError("'" + input + "' is not a regular file, expected a .cu file");
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> readFile(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return inputError("cannot read '" + path + "': " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

llvm::Error replaceFileIfChanged(const std::string& path, llvm::StringRef contents) {
  if (auto existing = readFile(path); existing && *existing == contents)
    return llvm::Error::success();
  else if (!existing)
    llvm::consumeError(existing.takeError());
  llvm::SmallString<256> temporary;
  int fd = -1;
  if (auto ec = llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temporary))
    return inputError("cannot write '" + path + "': " + ec.message());
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << contents;
    out.close();
    // A short write (a full disk) must not be renamed into place as the whole file.
    if (std::error_code ec = out.error()) {
      out.clear_error();
      llvm::sys::fs::remove(temporary);
      return inputError("cannot write '" + path + "': " + ec.message());
    }
  }
  if (auto ec = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return inputError("cannot write '" + path + "': " + ec.message());
  }
  return llvm::Error::success();
}

std::string absolutePath(const std::string& path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  // "a/link/../b" is not "a/b" when `link` is a symbolic link (Clang names GCC's headers as
  // /usr/lib/gcc/.../../../../include/c++/12 and /lib links to usr/lib): ask the file system.
  bool hasDotDot = llvm::is_contained(llvm::make_range(llvm::sys::path::begin(absolute),
                                                       llvm::sys::path::end(absolute)),
                                      "..");
  llvm::SmallString<256> real;
  if (hasDotDot && !llvm::sys::fs::real_path(absolute, real))
    return real.str().str();
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  return absolute.str().str();
}

} // namespace tlc
