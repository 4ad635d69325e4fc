// Reading PTX text: tokens first (comments and strings dropped), then the module-level
// directives. Function bodies are skipped whole; only declarations matter to the fake.
#include "Ptx.h"

#include <cctype>
#include <cstring>

namespace fake_cuda {

namespace {

bool isPunctuation(char c) {
  return std::strchr("(),;[]{}", c) != nullptr;
}

bool startsComment(const std::string& text, size_t at) {
  return text[at] == '/' && at + 1 < text.size() && (text[at + 1] == '/' || text[at + 1] == '*');
}

std::vector<std::string> tokenize(const std::string& text) {
  std::vector<std::string> tokens;
  size_t at = 0;
  const size_t end = text.size();
  while (at < end) {
    char c = text[at];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++at;
    } else if (startsComment(text, at)) {
      size_t close = text[at + 1] == '/' ? text.find('\n', at) : text.find("*/", at + 2);
      at = close == std::string::npos ? end : close + (text[at + 1] == '/' ? 1 : 2);
    } else if (c == '"') {
      size_t close = text.find('"', at + 1);
      at = close == std::string::npos ? end : close + 1; // strings (.file, .pragma) say nothing
    } else if (isPunctuation(c)) {
      tokens.emplace_back(1, c);
      ++at;
    } else {
      size_t start = at;
      while (at < end && !std::isspace(static_cast<unsigned char>(text[at])) &&
             !isPunctuation(text[at]) && text[at] != '"' && !startsComment(text, at))
        ++at;
      tokens.push_back(text.substr(start, at - start));
    }
  }
  return tokens;
}

// Bytes of a parameter of PTX type `type`; 0 if it is not a type.
uint32_t typeSize(const std::string& type) {
  static const std::map<std::string, uint32_t> kSizes = {
      {".b8", 1},    {".u8", 1},     {".s8", 1},         {".b16", 2},    {".u16", 2}, {".s16", 2},
      {".f16", 2},   {".bf16", 2},   {".b32", 4},        {".u32", 4},    {".s32", 4}, {".f32", 4},
      {".f16x2", 4}, {".bf16x2", 4}, {".b64", 8},        {".u64", 8},    {".s64", 8}, {".f64", 8},
      {".b128", 16}, {".texref", 8}, {".samplerref", 8}, {".surfref", 8}};
  auto found = kSizes.find(type);
  return found == kSizes.end() ? 0 : found->second;
}

class Parser {
public:
  Parser(const std::vector<std::string>& tokens, PtxProgram& program)
      : Tokens(tokens), Program(program) {}

  void run() {
    bool sawVersion = false, sawTarget = false;
    std::set<std::string> linkage; // .visible, .weak, .extern before .entry or .func
    while (!done() && Program.valid()) {
      std::string token = take();
      if (token == ".version") {
        take();
        sawVersion = true;
      } else if (!sawVersion) {
        fail("Missing .version directive at start of file");
      } else if (token == ".target") {
        readTarget();
        sawTarget = true;
      } else if (token == ".address_size") {
        take();
      } else if (token == ".visible" || token == ".weak" || token == ".extern" ||
                 token == ".common") {
        linkage.insert(token);
        continue;
      } else if (token == ".entry" || token == ".func") {
        if (!sawTarget)
          fail("Missing .target directive");
        else
          readFunction(token == ".entry", linkage);
      } else if (token == "{") {
        --At;
        skipBlock(); // a variable's initializer
      }
      linkage.clear();
    }
    if (Program.valid() && !sawVersion)
      fail("Missing .version directive at start of file");
    if (Program.valid() && !sawTarget)
      fail("Missing .target directive");
  }

private:
  bool done() const { return At >= Tokens.size(); }
  const std::string& peek() const {
    static const std::string kEnd;
    return done() ? kEnd : Tokens[At];
  }
  std::string take() { return done() ? std::string() : Tokens[At++]; }

  void fail(const std::string& why) {
    if (Program.valid())
      Program.error = "ptxas fatal   : " + why;
  }
  void unexpected(const std::string& token) {
    fail("Parsing error near '" + (token.empty() ? std::string("<end of file>") : token) +
         "': syntax error");
  }

  // `.target sm_90a[, option...]`
  void readTarget() {
    std::string target = take();
    size_t digits = 3;
    while (digits < target.size() && std::isdigit(static_cast<unsigned char>(target[digits])))
      ++digits;
    std::string suffix = target.substr(digits);
    if (target.compare(0, 3, "sm_") != 0 || digits == 3 ||
        !(suffix.empty() || suffix == "a" || suffix == "f")) {
      fail("Unknown target '" + target + "'");
      return;
    }
    Program.sm = std::stoi(target.substr(3, digits - 3));
    Program.variant = suffix.empty() ? 0 : suffix[0];
    while (peek() == ",") {
      take();
      take();
    }
  }

  // At '{': past the matching '}'.
  void skipBlock() {
    int depth = 0;
    do {
      std::string token = take();
      if (token == "{")
        ++depth;
      else if (token == "}")
        --depth;
      else if (token.empty())
        return unexpected(token);
    } while (depth > 0);
  }

  // At '(': a parameter list, through ')'; the size of each parameter into `sizes`.
  void readParameters(std::vector<uint32_t>* sizes) {
    take();
    if (peek() == ")") {
      take();
      return;
    }
    while (Program.valid()) {
      uint32_t size = 0, count = 1;
      bool named = false;
      for (std::string token = take();; token = take()) {
        if (token.empty())
          return unexpected(token);
        if (token == "," || token == ")") {
          if (!named || size == 0)
            return unexpected(token);
          if (sizes)
            sizes->push_back(size * count);
          if (token == ")")
            return;
          break;
        }
        if (token == ".align") {
          take();
        } else if (token == "[") {
          std::string extent = take();
          if (extent != "]") {
            count *= static_cast<uint32_t>(std::strtoul(extent.c_str(), nullptr, 10));
            if (take() != "]")
              return unexpected(extent);
          }
        } else if (uint32_t bytes = typeSize(token)) {
          size = bytes;
        } else if (token[0] != '.') {
          named = true;
        } // .param, .reg, .ptr and state spaces say nothing about the size
      }
    }
  }

  // After `.entry` or `.func`: the name, parameters, directives and a body or ';'.
  void readFunction(bool entry, const std::set<std::string>& linkage) {
    if (!entry && peek() == "(")
      readParameters(nullptr); // the return value
    std::string name = take();
    if (name.empty() || isPunctuation(name[0]))
      return unexpected(name);
    PtxEntry description;
    if (peek() == "(")
      readParameters(&description.parameterSizes);
    while (Program.valid() && peek() != "{" && peek() != ";") {
      std::string token = take();
      if (token.empty())
        return unexpected(token);
      if (token == ".reqnctapercluster")
        for (int i = 0; i < 3 && std::isdigit(static_cast<unsigned char>(peek()[0])); ++i) {
          description.clusterDims[i] = static_cast<unsigned>(std::stoul(take()));
          if (peek() == ",")
            take();
        }
    }
    if (!Program.valid())
      return;
    bool body = peek() == "{";
    if (body)
      skipBlock();
    else
      take();
    if (!body) {
      if (!entry && linkage.count(".extern"))
        Program.externs.push_back(name);
      return;
    }
    if (entry)
      Program.entries[name] = description;
    if (linkage.count(".visible") || linkage.count(".weak")) {
      Program.exported.insert(name);
      if (linkage.count(".weak"))
        Program.weak.insert(name);
    }
  }

  const std::vector<std::string>& Tokens;
  PtxProgram& Program;
  size_t At = 0;
};

} // namespace

PtxProgram parsePtx(const std::string& text) {
  PtxProgram program;
  std::vector<std::string> tokens = tokenize(text.substr(0, text.find('\0')));
  Parser(tokens, program).run();
  return program;
}

} // namespace fake_cuda
