//===- IndirectReads.h - data-dependent reads of a compute ------*- C++ -*-===//
//
// An input of an ext.compute may be read at a place another input's element
// gives (a paged KV cache's block table): its map has symbols, each bound by
// an #ext.indirect to a table input read through the table's own map. The
// verifier checks the bindings here; the lowerings load the table's element
// and apply the map with it as the symbol's operand.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_DIALECT_EXT_IR_INDIRECTREADS_H
#define EXT_DIALECT_EXT_IR_INDIRECTREADS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace ext {

class ComputeOp;

/// Every symbol of every input map bound exactly once, to an integer table
/// read through a map of the axes alone; outputs without symbols.
mlir::LogicalResult verifyIndirectReads(ComputeOp op);

/// Whether `expr` reads a symbol (a table's entry): its range is unknown
/// before the compute runs.
bool usesSymbol(mlir::AffineExpr expr);

/// "input #1 ('Kc')" for diagnostics: the input's number, and the name the
/// location of the function argument it is gives (Python names each one).
std::string describeInput(ComputeOp op, unsigned input);

} // namespace ext

#endif // EXT_DIALECT_EXT_IR_INDIRECTREADS_H
