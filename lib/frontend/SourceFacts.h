// Small questions about source positions that several extraction steps ask.
#pragma once

#include "model/Model.h"

#include "clang/Basic/SourceLocation.h"

#include <string>

namespace clang {
class ASTContext;
}

namespace tlc {

// file:line:col as the user sees it (through #line and macro expansions to the spelling site).
SourceLocation presumedLocation(const clang::ASTContext& context, clang::SourceLocation location);

// A fingerprint of a definition's source text. Two translation units that reach one definition
// through a shared header, or that spell the same template identically (which the ODR allows),
// get equal keys; definitions that differ get different ones.
std::string definitionKey(const clang::ASTContext& context, clang::SourceRange range);

bool isInSystemHeader(const clang::ASTContext& context, clang::SourceLocation location);
bool isInMainFile(const clang::ASTContext& context, clang::SourceLocation location);

} // namespace tlc
