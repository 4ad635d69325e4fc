// Small questions about source positions (system headers, definition fingerprints).
#include "frontend/SourceFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

namespace tlc {

std::string SourceLocation::str() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

SourceLocation presumedLocation(const clang::ASTContext& context, clang::SourceLocation location) {
  const clang::SourceManager& sources = context.getSourceManager();
  clang::PresumedLoc presumed = sources.getPresumedLoc(sources.getExpansionLoc(location));
  SourceLocation out;
  if (presumed.isInvalid())
    return out;
  out.file = presumed.getFilename();
  out.line = presumed.getLine();
  out.column = presumed.getColumn();
  return out;
}

std::string definitionKey(const clang::ASTContext& context, clang::SourceRange range) {
  const clang::SourceManager& sources = context.getSourceManager();
  clang::CharSourceRange expansion =
      sources.getExpansionRange(clang::CharSourceRange::getTokenRange(range));
  llvm::StringRef text = clang::Lexer::getSourceText(expansion, sources, context.getLangOpts());
  return llvm::utohexstr(llvm::xxh3_64bits(text));
}

bool isInSystemHeader(const clang::ASTContext& context, clang::SourceLocation location) {
  return context.getSourceManager().isInSystemHeader(
      context.getSourceManager().getExpansionLoc(location));
}

bool isInMainFile(const clang::ASTContext& context, clang::SourceLocation location) {
  return context.getSourceManager().isInMainFile(
      context.getSourceManager().getExpansionLoc(location));
}

} // namespace tlc
