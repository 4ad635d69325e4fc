// `tlc build` with what it runs on handed in: who starts the tools' processes and where the local
// cache is. runBuild (commands/Commands.h) gives it the real ones; tests give it a fake
// CommandRunner (builder/Steps.h) and a cache of their own, and drive the conductor itself
// without starting a tool, as ninja's build_test.cc drives its Builder
// (test/unit/commands/ConductorTests.cpp).
#pragma once

#include "builder/BuildOptions.h"
#include "builder/Steps.h"

#include "llvm/Support/Error.h"

#include <string>

namespace tlc {

struct BuildServices {
  const CommandRunner* commands = &processRunner(); // every step of the plan runs through it
  std::string cacheDir; // the local cache's folder; "": the user's (cache/Cache.h)
};

// The build of `requested`, from checking the options to publishing the outputs (runBuild holds
// the InterruptScope around it).
llvm::Error buildAndPublish(const BuildOptions& requested, const BuildServices& services);

} // namespace tlc
