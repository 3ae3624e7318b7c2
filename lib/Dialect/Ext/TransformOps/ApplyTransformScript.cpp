//===- ApplyTransformScript.cpp - ext-apply-transform-script --------------===//
//
// The script is moved out of the payload before it runs, so that it may
// transform the whole module (apply a pass to it, for one) without touching
// the ops being interpreted, and the lowering never sees it.
//
//===----------------------------------------------------------------------===//

// See ExtTransformOps.cpp: the installed MLIR's transform headers assume the
// NDEBUG it was built with.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "ext/Dialect/Ext/Transforms/Passes.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"

namespace ext {
#define GEN_PASS_DEF_EXTAPPLYTRANSFORMSCRIPT
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

struct ExtApplyTransformScriptPass
    : ext::impl::ExtApplyTransformScriptBase<ExtApplyTransformScriptPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef entryName =
        transform::TransformDialect::kTransformEntryPointSymbolName;
    StringRef libraryAttr =
        transform::TransformDialect::kWithNamedSequenceAttrName;

    // The script: the named sequences at the top level of the module or of
    // its nested script modules.
    SmallVector<Operation *> containers;
    SmallVector<transform::NamedSequenceOp> sequences;
    for (Operation &op : module.getBody()->getOperations()) {
      if (auto sequence = dyn_cast<transform::NamedSequenceOp>(op)) {
        sequences.push_back(sequence);
        containers.push_back(sequence);
      } else if (auto nested = dyn_cast<ModuleOp>(op);
                 nested && nested->hasAttr(libraryAttr)) {
        containers.push_back(nested);
        for (auto sequence : nested.getOps<transform::NamedSequenceOp>())
          sequences.push_back(sequence);
      }
    }
    if (sequences.empty())
      return;
    // A script without its entry would stay in the module and fail the
    // lowering far from here ('transform.yield' was not lowered): say which
    // entry is looked for and what was found.
    if (!llvm::any_of(sequences, [&](transform::NamedSequenceOp s) {
          return s.getSymName() == entryName;
        })) {
      InFlightDiagnostic diag = sequences.front().emitError()
                                << "ext-apply-transform-script: the module "
                                   "has a transform script, but none of its "
                                   "named sequences is @"
                                << entryName << ", the entry point it runs (found ";
      llvm::interleaveComma(sequences, diag, [&](transform::NamedSequenceOp s) {
        diag << "@" << s.getSymName();
      });
      diag << "): rename the entry sequence @" << entryName;
      return signalPassFailure();
    }

    // Moved into a module of their own, the sequences still find each
    // other (transform.include) by symbol.
    OpBuilder b(module.getContext());
    OwningOpRef<ModuleOp> script = ModuleOp::create(module.getLoc());
    (*script)->setAttr(libraryAttr, b.getUnitAttr());
    for (transform::NamedSequenceOp s : sequences)
      s->moveBefore(script->getBody(), script->getBody()->end());
    for (Operation *c : containers)
      if (isa<ModuleOp>(c))
        c->erase();
    if (module->hasAttr(libraryAttr))
      module->removeAttr(libraryAttr);

    Operation *entry = script->lookupSymbol(entryName);
    if (failed(transform::applyTransformNamedSequence(
            module, entry, *script, transform::TransformOptions())))
      return signalPassFailure();
  }
};

} // namespace
