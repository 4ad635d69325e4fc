// Device images as build inputs (builder/ImageInputs.h): telling inputs apart, reading images,
// choosing each target's code, the ptxas and fatbinary plan, the declared-kernel check, and the
// declarations-only parse of a header (frontend/Extractor.cpp).
#include "TestSupport.h"

#include "builder/ImageInputs.h"
#include "checks/Analysis.h"
#include "support/Error.h"
#include "support/Files.h"
#include "support/Process.h"
#include "toolchain/Toolchain.h"

#include "llvm/Support/Process.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace tlc;
using namespace tlc::test;

namespace {

// nvcc -cubin of the image fixture for `arch` (the producer: plain nvcc, no tlc).
std::string nvccCubin(const std::string& arch) {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  // Per process: CTest runs this file's tests as processes side by side, and scratchDir empties
  // its folder.
  std::string out = scratchDir("image-inputs-" + arch + "-" +
                               std::to_string(llvm::sys::Process::getProcessId())) +
                    "/vector.cubin";
  auto compiled = runCommand(
      {toolkit->nvcc, "-cubin", "-arch=" + arch, fixture("images/vector.cu"), "-o", out});
  REQUIRE_EXPECTED(compiled);
  INFO(compiled->output);
  REQUIRE(compiled->exitCode == 0);
  return out;
}

ExitCode codeOf(llvm::Error error) {
  return summarize(std::move(error)).code;
}

template <typename T> ExitCode codeOf(llvm::Expected<T> value) {
  return value ? ExitCode::Ok : codeOf(value.takeError());
}

// A part of image `image` holding one entry `k`.
ImagePart part(size_t image, bool ptx, unsigned arch, bool archSpecific = false,
               bool ptxFile = false) {
  ImagePart made;
  made.image = image;
  made.ptx = ptx;
  made.arch = arch;
  made.archSpecific = archSpecific;
  made.ptxFile = ptxFile;
  made.info.entries.push_back(ImageEntry{"k", false, false, {}, true, 0});
  return made;
}

GpuTarget sass(const std::string& number) {
  return {"compute_" + number, "sm_" + number};
}
GpuTarget ptx(const std::string& number) {
  return {"compute_" + number, "compute_" + number};
}

std::string message(llvm::Error error) {
  return summarize(std::move(error)).message;
}

void write(const std::string& path, const std::string& text) {
  REQUIRE(codeOf(writeFile(path, text)) == ExitCode::Ok);
}

} // namespace

TEST_CASE("inputs are told apart by suffix and sources and images never mix", "[images]") {
  CHECK(inputKindOf("a/k.cubin") == InputKind::Cubin);
  CHECK(inputKindOf("k.FATBIN") == InputKind::Fatbin);
  CHECK(inputKindOf("k.ptx") == InputKind::Ptx);
  CHECK(inputKindOf("k.cuh") == InputKind::Declarations);
  CHECK(inputKindOf("k.hpp") == InputKind::Declarations);
  CHECK(inputKindOf("k.cu") == InputKind::Source);
  CHECK_FALSE(hasImageInputs({"a.cu", "b.h"}));
  CHECK(hasImageInputs({"b.h", "k.ptx"}));
  CHECK(imageInputsOf({"b.h", "k.ptx", "c.cubin"}) == std::vector<std::string>{"k.ptx", "c.cubin"});
  CHECK(declarationInputsOf({"b.h", "k.ptx"}) == std::vector<std::string>{"b.h"});
  CHECK(codeOf(checkImageInputKinds({"a.cu", "b.cu"})) == ExitCode::Ok);
  CHECK(codeOf(checkImageInputKinds({"k.cubin", "k.h"})) == ExitCode::Ok);
  CHECK(codeOf(checkImageInputKinds({"k.cubin", "a.cu"})) == ExitCode::UsageError);
}

TEST_CASE("a cubin says whether it is arch-specific in its .nv.compat section", "[images]") {
  auto plain = readFile(nvccCubin("sm_90"));
  auto specific = readFile(nvccCubin("sm_90a"));
  REQUIRE_EXPECTED(plain);
  REQUIRE_EXPECTED(specific);
  CHECK_FALSE(cubinIsArchSpecific(*plain));
  CHECK(cubinIsArchSpecific(*specific));
  CHECK_FALSE(cubinIsArchSpecific("not an ELF file"));
}

// The hand-written PTX fixture under its image name: it is kept as scale.ptx.in, as a file
// named .ptx reads as a build output to tools that look for committed ones.
std::string scalePtx() {
  std::string ptx = scratchDir("image-inputs-ptx") + "/scale.ptx";
  REQUIRE_FALSE(llvm::errorToBool(copyFile(fixture("images/scale.ptx.in"), ptx)));
  return ptx;
}

TEST_CASE("images are read with their entries and a wrong one is a usage error", "[images]") {
  std::string cubin = nvccCubin("sm_90a");
  auto set = readImageInputs({cubin, scalePtx(), fixture("images/vector.h")});
  REQUIRE_EXPECTED(set);
  REQUIRE(set->parts.size() == 2);
  CHECK(set->declarations == std::vector<std::string>{fixture("images/vector.h")});
  CHECK(set->parts[0].arch == 90);
  CHECK(set->parts[0].archSpecific);
  CHECK(set->parts[0].info.entries.size() == 2);
  CHECK(set->parts[1].ptxFile);
  CHECK(set->parts[1].arch == 80);
  REQUIRE(set->parts[1].info.entries.size() == 1);
  CHECK(set->parts[1].info.entries[0].symbol == "scale_f32");

  std::string dir = scratchDir("image-inputs-garbage");
  for (const char* name : {"/g.cubin", "/g.fatbin", "/g.ptx"}) {
    write(dir + name, "garbage, not an image");
    INFO(name);
    CHECK(codeOf(readImageInputs({dir + name})) == ExitCode::UsageError);
  }
  write(dir + "/empty.ptx", ".version 8.0\n.target sm_80\n");
  CHECK(codeOf(readImageInputs({dir + "/empty.ptx"})) == ExitCode::UsageError);
  CHECK(codeOf(readImageInputs({dir + "/missing.cubin"})) == ExitCode::UsageError);
}

TEST_CASE("without --arch the targets are what the images hold", "[images]") {
  ImageSet set;
  set.images = {"a.cubin", "b.ptx"};
  set.parts = {part(0, false, 90, true), part(1, true, 80, false, true)};
  std::vector<std::string> codes;
  for (const GpuTarget& target : targetsHeld(set))
    codes.push_back(target.code);
  CHECK(codes == std::vector<std::string>{"sm_90a", "sm_80", "compute_80"});
}

TEST_CASE("each target takes its code from one image", "[images]") {
  ImageSet set;
  set.images = {"a.cubin", "b.ptx"};
  set.parts = {part(0, false, 90), part(1, true, 80, false, true)};

  SECTION("a cubin of the target's arch as it is, PTX assembled for the others") {
    auto sources = chooseTargetSources(set, {sass("90"), sass("100"), ptx("80")});
    REQUIRE_EXPECTED(sources);
    REQUIRE(sources->size() == 3);
    CHECK((*sources)[0].part == 0);
    CHECK_FALSE((*sources)[0].assemble);
    CHECK((*sources)[1].part == 1);
    CHECK((*sources)[1].assemble);
    CHECK((*sources)[2].part == 1);
    CHECK_FALSE((*sources)[2].assemble);
  }
  SECTION("older PTX serves a newer virtual target (the JIT compiles it)") {
    auto sources = chooseTargetSources(set, {sass("90"), ptx("90")});
    REQUIRE_EXPECTED(sources);
    CHECK((*sources)[1].part == 1);
  }
  SECTION("a target no image can give") {
    auto sources = chooseTargetSources(set, {sass("75")});
    REQUIRE(!static_cast<bool>(sources));
    std::string text = message(sources.takeError());
    CHECK_THAT(text, Catch::Contains("no image holds code for sm_75"));
    CHECK_THAT(text, Catch::Contains("'a.cubin' holds sm_90"));
  }
  SECTION("an image no target takes") {
    auto sources = chooseTargetSources(set, {sass("90")});
    REQUIRE(!static_cast<bool>(sources));
    CHECK_THAT(message(sources.takeError()),
               Catch::Contains("'b.ptx' holds PTX for sm_80, which none of the build's targets "
                               "(sm_90) takes"));
  }
  SECTION("two images for one target") {
    set.images.push_back("c.cubin");
    set.parts.push_back(part(2, false, 90));
    auto sources = chooseTargetSources(set, {sass("90"), ptx("80")});
    REQUIRE(!static_cast<bool>(sources));
    CHECK_THAT(message(sources.takeError()),
               Catch::Contains("'a.cubin' and 'c.cubin' both hold code for sm_90"));
  }
  SECTION("arch-specific code serves its own target only") {
    ImageSet specific;
    specific.images = {"a.cubin"};
    specific.parts = {part(0, false, 90, true)};
    CHECK(codeOf(chooseTargetSources(specific, {sass("90")})) == ExitCode::UsageError);
    CHECK(codeOf(chooseTargetSources(specific, {sass("90a")})) == ExitCode::Ok);
  }
}

TEST_CASE("the image build is ptxas per assembled target, then fatbinary", "[images]") {
  ImageSet set;
  set.images = {"a.cubin", "b.ptx"};
  set.parts = {part(0, false, 90), part(1, true, 80, false, true)};
  ImageBuildOptions options;
  options.name = "m";
  options.workDir = "/work";
  options.ptxas = "cuda/bin/ptxas";
  options.fatbinary = "cuda/bin/fatbinary";
  options.linked = {"image0.cubin", "image1.ptx"};
  options.displayed = {"a.cubin", "b.ptx"};

  SECTION("several targets") {
    options.targets = {sass("90"), sass("100"), ptx("80")};
    ImageBuild build = planImageBuild(set, {{0, false}, {1, true}, {1, false}}, options);
    REQUIRE(build.device.compiles.size() == 1);
    const Step& ptxas = build.device.compiles[0];
    CHECK(ptxas.argv == std::vector<std::string>{"cuda/bin/ptxas", "-arch=sm_100", "image1.ptx",
                                                 "-o", "image-sm_100.cubin"});
    CHECK(ptxas.compilesSources); // its refusal is the PTX's problem, exit 1
    CHECK(ptxas.description == "ptxas b.ptx (sm_100)");
    REQUIRE(build.device.package);
    std::vector<std::string> packed(build.device.package->argv.begin() + 4,
                                    build.device.package->argv.end());
    CHECK(packed == std::vector<std::string>{"--image3=kind=elf,sm=90,file=image-part0.cubin",
                                             "--image3=kind=elf,sm=100,file=image-sm_100.cubin",
                                             "--image3=kind=ptx,sm=80,file=image1.ptx"});
    CHECK(build.device.image == "/work/m.fatbin");
    CHECK(build.device.fatbin);
    REQUIRE(build.staged.size() == 1);
    CHECK(build.staged[0].path == "/work/image-part0.cubin");
  }
  SECTION("one cubin is the image itself") {
    options.targets = {sass("90")};
    ImageBuild build = planImageBuild(set, {{0, false}}, options);
    CHECK(build.device.compiles.empty());
    CHECK_FALSE(build.device.package);
    CHECK(build.device.image == "/work/m.cubin");
    REQUIRE(build.staged.size() == 1);
    CHECK(build.staged[0].path == "/work/m.cubin");
  }
}

TEST_CASE("a header's kernel declarations are kernels to launch, checked against the image",
          "[images]") {
  auto toolkit = findCudaToolkit("");
  REQUIRE_EXPECTED(toolkit);
  FrontendOptions options = frontendFor("sm_90a");
  options.declarationsOnly = true;
  auto analysis = analyze({fixture("images/vector.h")}, options, *toolkit);
  REQUIRE_EXPECTED(analysis);
  Module& module = analysis->module;
  REQUIRE(module.kernels.size() == 2);
  std::vector<std::string> symbols;
  for (const Kernel& kernel : module.kernels)
    symbols.push_back(kernel.symbol);
  std::sort(symbols.begin(), symbols.end());
  CHECK(symbols == std::vector<std::string>{"_ZN3ops6affineEPf6Affinej", "vadd"});

  // Without declarationsOnly a declaration is no kernel of the input (sources define theirs).
  auto sources = analyze({fixture("images/vector.h")}, frontendFor("sm_90a"), *toolkit);
  REQUIRE_EXPECTED(sources);
  CHECK(sources->module.kernels.empty());

  TargetEntries held;
  held["vadd"] = ImageEntry{"vadd", false, false, {}, true, 0};
  held["_ZN3ops6affineEPfi"] = ImageEntry{"_ZN3ops6affineEPfi", false, false, {}, true, 0};
  std::string text;
  llvm::raw_string_ostream stream(text);
  {
    SourceDiagnostics diagnostics(stream, false);
    CHECK(codeOf(checkDeclaredKernels(module, {held}, diagnostics)) == ExitCode::InputError);
  }
  stream.flush();
  CHECK_THAT(text, Catch::Contains("vector.h:13:17: error: kernel 'ops::affine' is declared "
                                   "here, but no image holds its symbol "
                                   "_ZN3ops6affineEPf6Affinej"));
  CHECK_THAT(text, Catch::Contains("note: the image holds _ZN3ops6affineEPfi of that name"));
  CHECK_THAT(text, !Catch::Contains("'vadd'"));
}
