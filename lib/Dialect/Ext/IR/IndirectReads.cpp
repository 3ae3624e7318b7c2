//===- IndirectReads.cpp - data-dependent reads of a compute --------------===//
//
// The verifier of an ext.compute's `indirect` bindings (IndirectReads.h).
//
//===----------------------------------------------------------------------===//

#include "ext/Dialect/Ext/IR/IndirectReads.h"
#include "ext/Dialect/Ext/IR/ExtOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace ext;

bool ext::usesSymbol(AffineExpr expr) {
  bool found = false;
  expr.walk([&](AffineExpr e) { found |= isa<AffineSymbolExpr>(e); });
  return found;
}

std::string ext::describeInput(ComputeOp op, unsigned input) {
  std::string text = "input #" + std::to_string(input);
  Value v = op.getInputs()[input];
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
      text += " ('" + name.getName().str() + "')";
  return text;
}

SmallVector<unsigned> ComputeOp::getIndirectTables(unsigned input) {
  SmallVector<unsigned> tables(getInputMap(input).getNumSymbols(), 0);
  if (ArrayAttr indirect = getIndirectAttr())
    for (auto read : indirect.getAsRange<IndirectAttr>())
      if (read.getInput() == input)
        tables[read.getSymbol()] = read.getTable();
  return tables;
}

LogicalResult ext::verifyIndirectReads(ComputeOp op) {
  int64_t numInputs = op.getInputs().size();
  SmallVector<AffineMap> maps = op.getMaps();
  // Outputs are written where the axes say, never at a table's entry.
  for (int64_t o = 0, e = op.getOutputs().size(); o < e; ++o)
    if (maps[numInputs + o].getNumSymbols() != 0)
      return op.emitOpError() << "indexing map of output #" << o
                              << " has symbols; outputs are never written "
                                 "indirectly";
  ArrayAttr indirect = op.getIndirectAttr();
  llvm::DenseSet<std::pair<int64_t, int64_t>> bound;
  for (auto [n, attr] : llvm::enumerate(indirect ? indirect.getValue()
                                                 : ArrayRef<Attribute>())) {
    auto read = cast<IndirectAttr>(attr);
    int64_t input = read.getInput(), symbol = read.getSymbol(),
            table = read.getTable();
    // (n copied: clang before 16 cannot capture a structured binding.)
    auto err = [&, n = n]() {
      return op.emitOpError() << "indirect read #" << n << " ";
    };
    for (int64_t i : {input, table})
      if (i < 0 || i >= numInputs)
        return err() << "names input #" << i << ", but the compute has "
                     << numInputs << " inputs";
    if (input == table)
      return err() << "reads input #" << input << " at its own element";
    unsigned numSymbols = maps[input].getNumSymbols();
    if (symbol < 0 || symbol >= numSymbols)
      return err() << "binds symbol #" << symbol << " of input #" << input
                   << "'s map, which has " << numSymbols << " symbols";
    if (!bound.insert({input, symbol}).second)
      return err() << "binds symbol #" << symbol << " of input #" << input
                   << "'s map a second time";
    if (maps[table].getNumSymbols() != 0)
      return err() << "takes its index from input #" << table
                   << ", which is read indirectly itself; a table is read "
                      "through a map of the axes alone";
    Type elem = cast<MemRefType>(op.getInputs()[table].getType())
                    .getElementType();
    if (!elem.isSignlessInteger() && !elem.isIndex())
      return err() << "takes its index from input #" << table
                   << " of element type " << elem
                   << "; a table holds integers (signless, or index)";
  }
  for (int64_t i = 0; i < numInputs; ++i)
    for (unsigned s = 0, e = maps[i].getNumSymbols(); s < e; ++s)
      if (!bound.contains({i, s}))
        return op.emitOpError()
               << "indexing map of input #" << i << " has symbol #" << s
               << ", which no #ext.indirect binds to a table input";
  return success();
}
