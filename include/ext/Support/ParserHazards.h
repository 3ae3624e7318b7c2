//===- ParserHazards.h - input the installed parser crashes on --*- C++ -*-===//
//
// ext is built against an installed MLIR and cannot patch its parser. Where
// that parser crashes on malformed text instead of reporting it, ext's tools
// scan the text first and report the construct as an error at its location.
// Each hazard names the upstream bug; drop it once the minimum MLIR has the
// fix.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_SUPPORT_PARSERHAZARDS_H
#define EXT_SUPPORT_PARSERHAZARDS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace ext {

/// A construct the installed MLIR parser crashes on: where it starts in the
/// scanned text and what is wrong with it.
struct ParserHazard {
  size_t offset;
  std::string message;
};

/// The first parser hazard in MLIR text (bytecode is never scanned):
///
/// - `array<index ...>`, directly or through a type alias: the parser asks
///   `index` for its bit width and dereferences null in release builds
///   (llvm/llvm-project#179045, fixed after LLVM 22).
///
/// The scan is lexical (comments and string literals are skipped), so it can
/// flag text that the parser would reject earlier anyway, never miss a form
/// that reaches the crashing code.
std::optional<ParserHazard> findParserHazard(llvm::StringRef text);

/// Reports the first parser hazard of the main buffer of `sourceMgr` as an
/// error at its location (on stderr) and fails, or succeeds.
llvm::LogicalResult rejectParserHazards(llvm::SourceMgr &sourceMgr);

} // namespace ext

#endif // EXT_SUPPORT_PARSERHAZARDS_H
