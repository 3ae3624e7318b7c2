//===- ParserHazards.cpp - input the installed parser crashes on ----------===//

#include "ext/Support/ParserHazards.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <vector>

using namespace llvm;

namespace {

/// What the scan needs of MLIR's tokens: bare identifiers, `!`-names (type
/// aliases and dialect types) and single punctuation characters; everything
/// else (numbers, `%` `#` `^` `@` names, strings, comments) is skipped.
struct Token {
  enum Kind { Identifier, BangName, Punct } kind;
  StringRef text;
  size_t offset;
};

bool isIdentifierStart(char c) { return isAlpha(c) || c == '_'; }
bool isIdentifierChar(char c) {
  return isAlnum(c) || c == '_' || c == '$' || c == '.';
}

std::vector<Token> tokenize(StringRef text) {
  std::vector<Token> tokens;
  size_t i = 0, n = text.size();
  auto identifierEnd = [&](size_t from) {
    while (from < n && isIdentifierChar(text[from]))
      ++from;
    return from;
  };
  while (i < n) {
    char c = text[i];
    if (isSpace(c)) {
      ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
    } else if (c == '"') {
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
    } else if (isIdentifierStart(c)) {
      size_t end = identifierEnd(i);
      tokens.push_back({Token::Identifier, text.slice(i, end), i});
      i = end;
    } else if (c == '!' && i + 1 < n && isIdentifierStart(text[i + 1])) {
      size_t end = identifierEnd(i + 1);
      tokens.push_back({Token::BangName, text.slice(i, end), i});
      i = end;
    } else if (isDigit(c) || c == '%' || c == '#' || c == '^' || c == '@') {
      // Numbers and the other names: a run of identifier characters.
      size_t end = identifierEnd(i + 1);
      i = end;
    } else {
      tokens.push_back({Token::Punct, text.slice(i, i + 1), i});
      ++i;
    }
  }
  return tokens;
}

bool isPunct(const std::vector<Token> &tokens, size_t i, char c) {
  return i < tokens.size() && tokens[i].kind == Token::Punct &&
         tokens[i].text[0] == c;
}

/// Type aliases (`!name = type`) whose type is `index`, through chains of
/// aliases.
StringMap<bool> indexAliases(const std::vector<Token> &tokens) {
  StringMap<StringRef> definitions;
  for (size_t i = 0; i + 2 < tokens.size(); ++i)
    if (tokens[i].kind == Token::BangName && isPunct(tokens, i + 1, '=') &&
        tokens[i + 2].kind != Token::Punct)
      definitions.try_emplace(tokens[i].text, tokens[i + 2].text);
  StringMap<bool> isIndex;
  for (auto &entry : definitions) {
    StringRef type = entry.getValue();
    // Follow the chain, at most once through each definition.
    for (size_t steps = 0; steps <= definitions.size() && type.starts_with("!");
         ++steps) {
      auto next = definitions.find(type);
      if (next == definitions.end())
        break;
      type = next->getValue();
    }
    isIndex[entry.getKey()] = type == "index";
  }
  return isIndex;
}

} // namespace

std::optional<ext::ParserHazard> ext::findParserHazard(StringRef text) {
  std::vector<Token> tokens = tokenize(text);
  StringMap<bool> aliases = indexAliases(tokens);
  for (size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (tokens[i].kind != Token::Identifier || tokens[i].text != "array" ||
        !isPunct(tokens, i + 1, '<'))
      continue;
    const Token &element = tokens[i + 2];
    bool index = (element.kind == Token::Identifier && element.text == "index") ||
                 (element.kind == Token::BangName && aliases.lookup(element.text));
    if (index)
      return ParserHazard{
          tokens[i].offset,
          "a dense array of 'index' elements is invalid (index has no fixed "
          "bit width); rejected before parsing because the installed MLIR "
          "parser crashes on it (llvm/llvm-project#179045)"};
  }
  return std::nullopt;
}

LogicalResult ext::rejectParserHazards(SourceMgr &sourceMgr) {
  const MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (mlir::isBytecode(buffer->getMemBufferRef()))
    return success();
  std::optional<ParserHazard> hazard = findParserHazard(buffer->getBuffer());
  if (!hazard)
    return success();
  sourceMgr.PrintMessage(
      SMLoc::getFromPointer(buffer->getBufferStart() + hazard->offset),
      SourceMgr::DK_Error, hazard->message);
  return failure();
}
