// Helpers for the tests that run `tlc build`: reading what a build wrote and checking it.
#pragma once

#include "TestSupport.h"

#include "builder/BuildOptions.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <set>
#include <string>
#include <vector>

namespace tlc::test {

// The CUDA toolkit's include folder (cuda.h).
std::string cudaInclude();
// A copy of the toolkit tlc was built against in `dir` (the headers, nvcc and nvcc.profile
// copied, every other file a link to the original's); returns the original's real root.
std::string copyToolkit(const std::string& dir);
// The names in a folder.
std::set<std::string> listFolder(const std::string& dir);
// OUTDIR/NAME.json, parsed.
nlohmann::json manifestOf(const std::string& dir, const std::string& name);
// The staging folder a --keep-temps build named in its note.
std::string keptFolder(const ToolRun& build);
// Runs a command; fails the test if it cannot start.
CommandResult run(const std::vector<std::string>& argv);
// The API a library exports: `nm -D --defined-only`, names only.
std::set<std::string> exportedSymbols(const std::string& library);
// What lib<name>.so must export: the module API (tlc_<name>_*, from the one table that defines
// it) and one NAME_<launcher> per kernel.
std::set<std::string> apiOf(const std::string& name, std::initializer_list<std::string> launchers);
// The image in `out` holds an entry of each kind the manifest's targets name, and every entry
// (cubin or PTX) holds exactly the manifest's kernels.
void checkImageMatchesManifest(const std::string& out, const nlohmann::json& manifest);
// `tlc build ARGS`; fails the test (showing tlc's messages) unless it succeeds.
ToolRun buildOk(const std::vector<std::string>& args);
// `tlc build ARGS` as the command line and main.cpp make its options, with this build tree's
// templates, headers and runtime: for the tests that call buildAndPublish themselves.
BuildOptions buildOptions(std::vector<std::string> args);

} // namespace tlc::test
