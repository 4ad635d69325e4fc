// The options every command that reads sources takes (tlc inspect, check, build): the inputs and
// how to parse them. commands/CommandLine.h fills them in; commands/Commands.h's functions take
// them.
#pragma once

#include "frontend/Frontend.h"

#include <string>
#include <vector>

namespace tlc {

// Options every command that reads sources takes.
struct SourceOptions {
  std::vector<std::string> inputs;
  FrontendOptions frontend;
  std::string cudaPath;        // --cuda-path; else CUDA_PATH, CUDA_HOME, /usr/local/cuda
  std::string compileCommands; // -p BUILD_DIR or --compile-commands FILE: compile_commands.json
  bool verbose = false;
};

} // namespace tlc
