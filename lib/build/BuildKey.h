// The first part of a build's cache key (cache/Cache.h) from the build's options: everything that
// decides what `tlc build` writes. Each options record is taken apart field by field with a
// structured binding, which stops compiling when a field is added: a new option is in the key,
// or named with the reason it does not change the outputs, by construction.
#pragma once

#include "build/BuildOptions.h"
#include "build/DisplayPaths.h"
#include "cache/Cache.h"
#include "cache/Relocation.h"

namespace tlc {

// `options` after resolution: the module's name, the compile database's flags and the archs
// are final. Inputs are named as outputs name them (`paths`), not where they are; folders and
// flags naming folders are relocated (`relocation`: relative under --base-dir).
void addBuildOptions(CacheKey& key, const BuildOptions& options, const DisplayPaths& paths,
                     const PathRelocation& relocation);

} // namespace tlc
