// The parses kept between builds (frontend/Frontend.h, ParseStore): a kept parse is used instead
// of parsing and gives what the parse gave, field for field (frontend/UnitFactsJson.h); a parse
// with errors is not kept; the identity a parse is kept under changes with what decides it; and
// facts that are not what tlc wrote are never read.
#include "TestSupport.h"

#include "frontend/Frontend.h"
#include "frontend/UnitFactsJson.h"
#include "support/Files.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <mutex>

using namespace tlc;
using namespace tlc::test;

namespace {

CudaToolkit toolkitInUse() {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  return *toolkit;
}

std::vector<TranslationUnitFacts> parseOk(const std::vector<std::string>& inputs,
                                          const FrontendOptions& options,
                                          ParseStore* store = nullptr) {
  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  auto units = parseInputs(inputs, options, toolkitInUse(), stream, nullptr, store);
  REQUIRE_EXPECTED(units);
  return std::move(*units);
}

// A store in memory that counts what it is asked.
class MemoryStore : public ParseStore {
public:
  std::optional<Kept> find(const std::string& input, const std::string& identity) override {
    std::lock_guard<std::mutex> lock(Mutex);
    ++Finds;
    auto found = Parses.find(input + "\n" + identity);
    if (found == Parses.end())
      return std::nullopt;
    return found->second;
  }
  void keep(const std::string& input, const std::string& identity, const Kept& parse) override {
    std::lock_guard<std::mutex> lock(Mutex);
    Parses[input + "\n" + identity] = parse;
  }

  std::mutex Mutex;
  std::map<std::string, Kept> Parses;
  int Finds = 0;
};

// The facts as JSON; fails the test where they cannot be written.
std::string written(const TranslationUnitFacts& facts) {
  auto text = writeUnitFacts(facts);
  REQUIRE(text);
  return *text;
}

} // namespace

TEST_CASE("a parse's facts read back as they were written", "[parse-store]") {
  FrontendOptions options = frontendFor();
  for (const char* input :
       {"shapes/shapes.cu", "tma/valid.cu", "parity/template_bodies.cu", "parity/static_a.cu",
        "parity/dynamic.cu", "names/api_names.cu", "parity/host_headers.cu"}) {
    INFO(input);
    FrontendOptions forInput = options;
    forInput.relocatable = std::string(input) == "parity/dynamic.cu";
    for (const TranslationUnitFacts& unit : parseOk({fixture(input)}, forInput)) {
      std::string text = written(unit);
      auto read = readUnitFacts(text);
      REQUIRE(read);
      CHECK(written(*read) == text);
      CHECK(read->kernels.size() == unit.kernels.size());
      CHECK(read->filesRead == unit.filesRead);
    }
  }

  // Every optional part, set: what no fixture above may hold.
  TranslationUnitFacts facts;
  facts.input = "in.cu";
  Kernel kernel;
  kernel.name = "k";
  kernel.translationUnits = {"in.cu"};
  kernel.instantiatedAt = SourceLocation{"in.cu", 3, 4};
  kernel.launchBounds = LaunchBounds{256, 2, std::nullopt};
  kernel.clusterDims = std::array<uint64_t, 3>{2, 1, 1};
  kernel.explicitNameLocation = {"in.cu", 9, 1};
  Param param;
  param.kind = ParamKind::TensorMap;
  TensorMapSpec spec;
  spec.mode = TensorMapMode::Im2col;
  spec.lower = {-1, -1};
  spec.swizzle = TensorMapSwizzle::B128Atom64B;
  param.tensorMap = spec;
  kernel.params.push_back(param);
  facts.kernels.push_back(kernel);
  facts.hostFunctions.push_back({"main", {"in.cu", 1, 5}});
  facts.deviceSideLaunch = true;
  auto read = readUnitFacts(written(facts));
  REQUIRE(read);
  REQUIRE(read->kernels.size() == 1);
  const Kernel& back = read->kernels.front();
  CHECK(back.instantiatedAt->line == 3);
  CHECK(back.launchBounds->minBlocks == 2u);
  CHECK(!back.launchBounds->maxBlocksPerCluster);
  CHECK((*back.clusterDims)[0] == 2u);
  CHECK(back.explicitNameLocation.line == 9u);
  REQUIRE(back.params.front().tensorMap);
  CHECK(back.params.front().tensorMap->mode == TensorMapMode::Im2col);
  CHECK(back.params.front().tensorMap->lower == std::vector<int64_t>{-1, -1});
  CHECK(back.params.front().tensorMap->swizzle == TensorMapSwizzle::B128Atom64B);
  CHECK(read->hostFunctions.front().location.column == 5u);
  CHECK(read->deviceSideLaunch);
}

TEST_CASE("facts that are not what tlc wrote are not read", "[parse-store]") {
  TranslationUnitFacts facts;
  facts.input = "in.cu";
  Kernel kernel;
  kernel.translationUnits = {"in.cu"};
  kernel.params.push_back(Param());
  facts.kernels.push_back(kernel);
  nlohmann::json good = nlohmann::json::parse(written(facts));
  REQUIRE(readUnitFacts(good.dump()));

  CHECK(!readUnitFacts(""));
  CHECK(!readUnitFacts("{\"input\": "));
  CHECK(!readUnitFacts("[]"));
  nlohmann::json missing = good;
  missing.erase("kernels");
  CHECK(!readUnitFacts(missing.dump()));
  nlohmann::json wrongType = good;
  wrongType["deviceSideLaunch"] = "yes";
  CHECK(!readUnitFacts(wrongType.dump()));
  // An enumerator past the last would index past the model's tables of names.
  for (int kind : {6, -1, 1000}) {
    nlohmann::json outOfRange = good;
    outOfRange["kernels"][0]["params"][0]["kind"] = kind;
    CHECK(!readUnitFacts(outOfRange.dump()));
  }
  nlohmann::json lastKind = good;
  lastKind["kernels"][0]["params"][0]["kind"] = 5; // ParamKind::Bytes
  CHECK(readUnitFacts(lastKind.dump()));
  // What the steps after the parse take for granted: a kernel is the input's own, its
  // parameters are each at their place.
  for (nlohmann::json units : {nlohmann::json::array(), nlohmann::json::array({"other.cu"}),
                               nlohmann::json::array({"in.cu", "in.cu"})}) {
    nlohmann::json foreign = good;
    foreign["kernels"][0]["translationUnits"] = units;
    CHECK(!readUnitFacts(foreign.dump()));
  }
  nlohmann::json misplaced = good;
  misplaced["kernels"][0]["params"][0]["index"] = 1;
  CHECK(!readUnitFacts(misplaced.dump()));
  DeviceSymbol symbol;
  symbol.translationUnit = "other.cu";
  TranslationUnitFacts otherDefinition = facts;
  otherDefinition.definitions.push_back(symbol);
  CHECK(!readUnitFacts(written(otherDefinition)));
}

TEST_CASE("facts that JSON cannot hold are not written", "[parse-store]") {
  TranslationUnitFacts facts;
  facts.input = "utf\xe9/a.cu"; // a path of Latin-1 bytes
  CHECK(!writeUnitFacts(facts));
}

TEST_CASE("a kept parse is used instead of parsing, and only a parse without errors is kept",
          "[parse-store]") {
  std::string dir = scratchDir("parse-store");
  REQUIRE(!writeFile(dir + "/a.cu", "__global__ void ka(float* x) { x[0] = 1; }\n"));
  REQUIRE(!writeFile(dir + "/b.cu", "__global__ void kb(float* x) { x[0] = 2; }\n"));
  FrontendOptions options = frontendFor();
  MemoryStore store;
  std::vector<TranslationUnitFacts> first =
      parseOk({dir + "/a.cu", dir + "/b.cu"}, options, &store);
  REQUIRE(store.Parses.size() == 2);
  CHECK(store.Finds == 2);
  for (auto& [key, kept] : store.Parses) {
    bool isA = kept.facts.input == dir + "/a.cu";
    CHECK(written(kept.facts) == written(first[isA ? 0 : 1]));
  }

  // What the store holds is what the parses give: a kernel's name changed there shows.
  for (auto& [key, kept] : store.Parses)
    if (kept.facts.input == dir + "/a.cu") {
      kept.facts.kernels.front().name = "from_the_store";
      kept.diagnostics = "kept: a message\n";
    }
  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  auto again =
      parseInputs({dir + "/a.cu", dir + "/b.cu"}, options, toolkitInUse(), stream, nullptr, &store);
  REQUIRE_EXPECTED(again);
  CHECK(again->front().kernels.front().name == "from_the_store");
  CHECK(again->back().kernels.front().name == "kb");
  stream.flush();
  CHECK(diagnostics == "kept: a message\n");

  // An input with an error is not kept; the others are.
  REQUIRE(!writeFile(dir + "/c.cu", "__global__ void kc(undeclared_type* x) {}\n"));
  MemoryStore fresh;
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  auto failed = parseInputs({dir + "/a.cu", dir + "/c.cu"}, options, toolkitInUse(), errorStream,
                            nullptr, &fresh);
  REQUIRE(!failed);
  llvm::consumeError(failed.takeError());
  REQUIRE(fresh.Parses.size() == 1);
  CHECK(fresh.Parses.begin()->second.facts.input == dir + "/a.cu");
}

TEST_CASE("a parse is kept under what decides it", "[parse-store]") {
  CudaToolkit toolkit = toolkitInUse();
  FrontendOptions options = frontendFor();
  MacroValues view = {{"__GNUC__", "12"}};
  std::string identity = parseIdentity("a.cu", options, toolkit, view);
  CHECK(parseIdentity("a.cu", options, toolkit, view) == identity);
  CHECK(parseIdentity("b.cu", options, toolkit, view) != identity);
  CHECK(parseIdentity("a.cu", options, toolkit, {{"__GNUC__", "13"}}) != identity);
  FrontendOptions changed = options;
  changed.preprocessorFlags.push_back("-DSCALE=2");
  CHECK(parseIdentity("a.cu", changed, toolkit, view) != identity);
  changed = options;
  changed.color = !options.color;
  CHECK(parseIdentity("a.cu", changed, toolkit, view) != identity);
  changed = options;
  changed.verbose = !options.verbose;
  CHECK(parseIdentity("a.cu", changed, toolkit, view) != identity);
  changed = options;
  changed.declarationsOnly = !options.declarationsOnly;
  CHECK(parseIdentity("a.cu", changed, toolkit, view) != identity);
  changed = options;
  changed.nvccFlags.push_back("--use_fast_math");
  CHECK(parseIdentity("a.cu", changed, toolkit, view) != identity);
  // Only the preamble's folder and the job count are none of it: neither changes what a parse
  // records (PreambleTests: a parse with a preamble sees what one without sees).
  changed = options;
  changed.preambleDir = "/elsewhere";
  changed.jobs = 7;
  CHECK(parseIdentity("a.cu", changed, toolkit, view) == identity);
}
