// Evaluating the integer expressions written inside annotations.
#include "frontend/ConstantEvaluator.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclBase.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <optional>
#include <set>
#include <vector>

namespace tlc {

namespace {

struct Token {
  enum Kind { Number, Name, Operator } kind;
  std::string text;
  int64_t value = 0;
};

// Splits `text` into numbers, (possibly qualified) names and operators.
bool tokenize(llvm::StringRef text, std::vector<Token>& out, std::string& error) {
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (llvm::isSpace(c)) {
      ++i;
    } else if (llvm::isDigit(c)) {
      size_t start = i;
      while (i < text.size() && llvm::isAlnum(text[i]))
        ++i;
      llvm::StringRef literal = text.slice(start, i).rtrim("uUlL");
      unsigned long long value = 0;
      if (literal.getAsInteger(0, value) || value > uint64_t(INT64_MAX)) {
        error = "'" + text.slice(start, i).str() + "' is not an integer";
        return false;
      }
      out.push_back({Token::Number, literal.str(), static_cast<int64_t>(value)});
    } else if (llvm::isAlpha(c) || c == '_' || (c == ':' && text.substr(i).starts_with("::"))) {
      size_t start = i;
      while (i < text.size() && (llvm::isAlnum(text[i]) || text[i] == '_' ||
                                 (text[i] == ':' && text.substr(i).starts_with("::")))) {
        i += text[i] == ':' ? 2 : 1;
      }
      out.push_back({Token::Name, text.slice(start, i).str()});
    } else if (text.substr(i).starts_with("<<") || text.substr(i).starts_with(">>")) {
      out.push_back({Token::Operator, text.substr(i, 2).str()});
      i += 2;
    } else if (llvm::StringRef("+-*/%&|^~()").contains(c)) {
      out.push_back({Token::Operator, std::string(1, c)});
      ++i;
    } else {
      error = "unexpected '" + std::string(1, c) + "' in '" + text.str() + "'";
      return false;
    }
  }
  return true;
}

class Parser {
public:
  Parser(const std::vector<Token>& tokens, std::string& error) : Tokens(tokens), Error(error) {}

  bool parse(int64_t& value) {
    if (!binary(0, value))
      return false;
    if (Position != Tokens.size())
      return fail("unexpected '" + Tokens[Position].text + "'");
    return true;
  }

private:
  static int precedence(const std::string& op) {
    if (op == "|")
      return 1;
    if (op == "^")
      return 2;
    if (op == "&")
      return 3;
    if (op == "<<" || op == ">>")
      return 4;
    if (op == "+" || op == "-")
      return 5;
    if (op == "*" || op == "/" || op == "%")
      return 6;
    return -1;
  }

  bool fail(const std::string& message) {
    Error = message;
    return false;
  }

  const Token* peek() const { return Position < Tokens.size() ? &Tokens[Position] : nullptr; }

  bool binary(int minimum, int64_t& value) {
    if (!unary(value))
      return false;
    while (const Token* next = peek()) {
      int level = next->kind == Token::Operator ? precedence(next->text) : -1;
      if (level < 0 || level < minimum)
        break;
      std::string op = next->text;
      ++Position;
      int64_t rhs = 0;
      if (!binary(level + 1, rhs) || !apply(op, value, rhs, value))
        return false;
    }
    return true;
  }

  bool apply(const std::string& op, int64_t a, int64_t b, int64_t& out) {
    bool overflow = false;
    if (op == "+")
      overflow = __builtin_add_overflow(a, b, &out);
    else if (op == "-")
      overflow = __builtin_sub_overflow(a, b, &out);
    else if (op == "*")
      overflow = __builtin_mul_overflow(a, b, &out);
    else if (op == "/" || op == "%") {
      if (b == 0)
        return fail("division by zero");
      // The one quotient that does not fit (INT64_MIN / -1) traps in the CPU, % with it too.
      if (b == -1)
        overflow = op == "/" ? __builtin_sub_overflow(int64_t(0), a, &out) : (out = 0, false);
      else
        out = op == "/" ? a / b : a % b;
    } else if (op == "<<" || op == ">>") {
      if (b < 0 || b > 62)
        return fail("shift by " + std::to_string(b));
      // A left shift is a product that may overflow (and of a negative value, undefined).
      if (op == "<<")
        overflow = __builtin_mul_overflow(a, int64_t(1) << b, &out);
      else
        out = a >> b;
    } else if (op == "&")
      out = a & b;
    else if (op == "|")
      out = a | b;
    else
      out = a ^ b;
    return overflow ? fail("the value overflows 64 bits") : true;
  }

  bool unary(int64_t& value) {
    const Token* token = peek();
    if (!token)
      return fail("expected a value");
    ++Position;
    if (token->kind == Token::Number) {
      value = token->value;
      return true;
    }
    if (token->kind == Token::Operator && token->text == "(") {
      if (!binary(0, value))
        return false;
      const Token* close = peek();
      if (!close || close->text != ")")
        return fail("missing ')'");
      ++Position;
      return true;
    }
    if (token->kind == Token::Operator &&
        (token->text == "-" || token->text == "+" || token->text == "~")) {
      if (!unary(value))
        return false;
      if (token->text == "-" && __builtin_sub_overflow(int64_t(0), value, &value))
        return fail("the value overflows 64 bits");
      else if (token->text == "~")
        value = ~value;
      return true;
    }
    return fail("unexpected '" + token->text + "'");
  }

  const std::vector<Token>& Tokens;
  std::string& Error;
  size_t Position = 0;
};

std::optional<int64_t> valueOf(const clang::NamedDecl* decl, clang::ASTContext& context) {
  if (const auto* constant = llvm::dyn_cast<clang::EnumConstantDecl>(decl))
    return constant->getInitVal().getExtValue();
  const auto* variable = llvm::dyn_cast<clang::VarDecl>(decl);
  if (!variable || !variable->getType()->isIntegralOrEnumerationType() ||
      !variable->isUsableInConstantExpressions(context))
    return std::nullopt;
  const clang::APValue* value = variable->evaluateValue();
  if (!value || !value->isInt())
    return std::nullopt;
  return value->getInt().getExtValue();
}

// The declaration context named `name` inside `scope` (a namespace, class or enum).
const clang::DeclContext* childContext(const clang::DeclContext* scope, llvm::StringRef name,
                                       clang::ASTContext& context) {
  for (const clang::NamedDecl* decl : scope->lookup(&context.Idents.get(name)))
    if (const auto* child = llvm::dyn_cast<clang::DeclContext>(decl))
      return child;
  return nullptr;
}

// A constant named `name` ("TILE", "cfg::kTile", "::kTile") as seen from `scope`.
std::optional<int64_t> lookupConstant(llvm::StringRef name, const clang::DeclContext* scope,
                                      clang::ASTContext& context) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  bool global = name.consume_front("::");
  name.split(parts, "::");
  std::vector<const clang::DeclContext*> starts;
  if (global)
    starts.push_back(context.getTranslationUnitDecl());
  else
    for (const clang::DeclContext* dc = scope; dc; dc = dc->getParent())
      starts.push_back(dc);
  for (const clang::DeclContext* start : starts) {
    const clang::DeclContext* dc = start;
    for (size_t i = 0; dc && i + 1 < parts.size(); ++i)
      dc = childContext(dc, parts[i], context);
    if (!dc)
      continue;
    for (const clang::NamedDecl* decl : dc->lookup(&context.Idents.get(parts.back())))
      if (auto value = valueOf(decl, context))
        return value;
  }
  return std::nullopt;
}

} // namespace

bool ConstantEvaluator::evaluate(llvm::StringRef text, const clang::DeclContext* scope,
                                 const llvm::StringMap<int64_t>& bound, int64_t& value,
                                 std::string& error) {
  std::vector<Token> tokens;
  if (!tokenize(text, tokens, error))
    return false;
  // Replace names by values: template parameters, then macros (re-tokenised, a bounded number
  // of times so recursive definitions stop), then constants.
  std::vector<Token> resolved;
  unsigned expansions = 0;
  while (!tokens.empty()) {
    Token token = tokens.front();
    tokens.erase(tokens.begin());
    if (token.kind != Token::Name) {
      resolved.push_back(token);
      continue;
    }
    if (auto it = bound.find(token.text); it != bound.end()) {
      resolved.push_back({Token::Number, token.text, it->second});
      continue;
    }
    const clang::MacroInfo* macro =
        Preprocessor.getMacroInfo(Preprocessor.getIdentifierInfo(token.text));
    if (macro) {
      if (!macro->isObjectLike()) {
        error =
            "'" + token.text + "' is a function-like macro; only object-like macros expand here";
        return false;
      }
      if (++expansions > 64) {
        error = "macro '" + token.text + "' expands too deeply";
        return false;
      }
      std::string replacement;
      for (const clang::Token& part : macro->tokens())
        replacement += Preprocessor.getSpelling(part) + " ";
      std::vector<Token> expanded;
      if (!tokenize(replacement, expanded, error))
        return false;
      tokens.insert(tokens.begin(), expanded.begin(), expanded.end());
      continue;
    }
    if (auto constant = lookupConstant(token.text, scope, Context)) {
      resolved.push_back({Token::Number, token.text, *constant});
      continue;
    }
    error =
        "'" + token.text + "' is not a macro, integer constant or template parameter known here";
    return false;
  }
  return Parser(resolved, error).parse(value);
}

} // namespace tlc
