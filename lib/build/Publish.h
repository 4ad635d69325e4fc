// Atomic publishing: a build writes everything into a staging folder beside OUTDIR (same file
// system) and only moves its outputs into OUTDIR when every step succeeded. On failure, or when
// interrupted, the staging folder is removed and OUTDIR is as it was.
#pragma once

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tlc {

class Staging {
public:
  // Creates the staging folder for `outputDir` (whose parent folders are created if needed).
  static llvm::Expected<std::unique_ptr<Staging>> create(const std::string& outputDir);
  ~Staging();

  const std::string& outputsDir() const { return Outputs; } // what publish() moves
  const std::string& workDir() const { return Work; }       // temporaries, never published
  const std::string& root() const { return Root; }

  // Moves each of `files` (paths inside outputsDir(), subfolders created as needed) into the
  // output folder, replacing files
  // of the same name unless their contents are equal (their timestamps then stay). If any move
  // fails, the ones already made are undone.
  llvm::Error publish(const std::vector<std::string>& files);

  // Keeps the staging folder (--keep-temps) instead of removing it.
  void keep() { Kept = true; }

private:
  Staging() = default;
  std::string OutputDir, Root, Outputs, Work;
  bool Kept = false;
};

} // namespace tlc
