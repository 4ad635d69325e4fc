// How build outputs name files: inputs relative to their common folder, temporaries as
// "<work>/...". Nothing a build writes then depends on where the checkout or build folder is,
// which keeps manifests and generated files byte-identical across folders.
#pragma once

#include "model/Model.h"

#include <string>
#include <vector>

namespace tlc {

class DisplayPaths {
public:
  DisplayPaths(const std::vector<std::string>& inputs, std::string workDir);

  // Rewrites absolute paths inside `text` (an argument such as -I/abs/dir counts).
  std::string operator()(const std::string& text) const;
  // An input as outputs name it: relative to the inputs' common folder.
  std::string input(const std::string& path) const;
  std::string commandLine(const std::vector<std::string>& argv) const;
  // A file as outputs name it (`input`), as the user named it: an input as typed, another file
  // by its absolute path. For messages after relativize(), which must name the user's paths.
  std::string sourcePath(const std::string& shown) const;
  // Every source location and input name in `module`, as outputs name them.
  void relativize(Module& module) const;
  // With a base folder (--base-dir, a real path), paths under it outside the inputs' folder are
  // named relative to that folder too: "../include/k.cuh" is the same in every checkout, as the
  // cache key that finds the outputs is.
  void setBase(const std::string& base);

private:
  std::vector<std::string> Inputs; // as typed
  std::string Root;                // absolute common folder of the inputs, with a trailing '/'
  std::string Work;                // absolute staging folder, with a trailing '/'
  std::string Base;                // real base folder, "" when none
  std::string RealRoot;            // the real path of Root, without a trailing '/'

  // A path under Base relative to the inputs' folder; "" when it is not under Base.
  std::string underBase(const std::string& absolute) const;
};

} // namespace tlc
