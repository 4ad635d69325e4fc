// One input's parse facts (TranslationUnitFacts) as JSON and back, for the cache of parses
// (Frontend.h, ParseStore): a build that edits one file of several restores the facts of the
// others' parses instead of parsing them again. Unlike model/ModelJson.h, which prints the model
// for people and templates, this keeps every field, derived ones included, and reads back exactly
// what it wrote. It is tlc's own format: the cache key holds tlc's identity, so it has no version.
#pragma once

#include "frontend/Extractor.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tlc {

// None when a string of the facts is not UTF-8 (a path of bytes JSON cannot hold): such facts
// are not kept.
std::optional<std::string> writeUnitFacts(const TranslationUnitFacts& facts);

// The facts `text` holds; none when it is not what writeUnitFacts writes (a damaged or foreign
// entry: a field missing or of another type, an enumerator out of range, a kernel or definition
// said to be of another input than the facts', a parameter out of its place), which the caller
// treats as a miss and parses.
std::optional<TranslationUnitFacts> readUnitFacts(llvm::StringRef text);

} // namespace tlc
