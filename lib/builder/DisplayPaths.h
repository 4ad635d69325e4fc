// How build outputs name files: inputs relative to their common folder, temporaries as
// "<work>/...", the toolkit's and tlc's own files by placeholders ("<cuda>/bin/nvcc"), and every
// other path relative to the inputs' folder ("../include/k.cuh"). Nothing a build writes then
// depends on where the checkout, the build folder or the tools are, which keeps manifests and
// generated files byte-identical across folders, checkouts and machines.
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
  // Files in `folder` (absolute) are shown as `shown` followed by their place in it: the
  // toolkit as "<cuda>", tlc's installation as "<tlc>", or one file by its name ("c++").
  void addPlaceholder(const std::string& folder, const std::string& shown);

private:
  std::vector<std::string> Inputs; // as typed
  std::string Root;                // absolute common folder of the inputs, with a trailing '/'
  std::string Work;                // absolute staging folder, with a trailing '/'
  std::string RealRoot;            // the real path of Root, without a trailing '/'
  std::vector<std::pair<std::string, std::string>> Placeholders; // folder, shown; longest first

  // An absolute path outside the inputs' folder: by its placeholder, else relative to the
  // inputs' folder (through their real paths, as the file system resolves "..").
  std::string outsideInputs(const std::string& absolute) const;
};

} // namespace tlc
