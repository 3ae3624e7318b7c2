//===- ExtOps.td - ext operations ---------------------------*- tablegen -*-===//

#ifndef EXT_DIALECT_EXT_IR_EXTOPS_TD
#define EXT_DIALECT_EXT_IR_EXTOPS_TD

include "ext/Dialect/Ext/IR/ExtDialect.td"
include "ext/Dialect/Ext/IR/ExtAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Ext_AxisArrayAttr : TypedArrayAttrBase<Ext_AxisAttr, "array of ext.axis">;

//===----------------------------------------------------------------------===//
// ComputeOp
//===----------------------------------------------------------------------===//

def Ext_ComputeOp : Ext_Op<"compute", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "a computation over named spatial and reduce axes";
  let description = [{
    `ext.compute` is TVM's `te.compute` on memrefs. Its iteration domain is
    the box of its `axes` (each `#ext.axis<name, spatial|reduce, extent>`).
    Every operand, inputs first and then outputs, is accessed through one
    affine map from the domain (one dimension per axis, in order) to the
    operand's indices.

    The `body` region computes, for one point of the domain, one value per
    output from one element of each input (its block arguments, in input
    order); `ext.index "name"` gives an axis' current index. If there are
    reduce axes, each output element is the combination, over every point
    of the reduce axes, of the body's values, starting from the combiner's
    identity:

    * `sum`, `prod`, `max`, `min` apply element-wise to each output, with
      identities 0, 1, the lowest value (`-inf` for floats) and the highest
      value; integers are compared as signed.
    * `custom` takes a commutative reducer (TVM's `comm_reducer`): the
      `reducer` region gets the accumulated values followed by the new
      values and yields the combined ones, and `identity` lists one typed
      identity per output. A reducer may carry several values, as argmax
      carries a value and its index.

    Output maps name only spatial axes, each spatial axis exactly once, so
    every output element is written once. The previous contents of the
    outputs are not read. Body and reducer ops must be free of memory
    effects: all memory traffic is the compute's own accesses.

    Example (matmul, `k` a reduce axis):

    ```mlir
    ext.compute [#ext.axis<"i", spatial, 64>, #ext.axis<"j", spatial, 32>,
                 #ext.axis<"k", reduce, 16>]
        ins(%A, %B : memref<64x16xf32>, memref<16x32xf32>)
        outs(%C : memref<64x32xf32>)
        maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
              affine_map<(i, j, k) -> (i, j)>]
        combiner(sum) {
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      ext.yield %p : f32
    }
    ```
  }];

  let arguments = (ins
    Ext_AxisArrayAttr:$axes,
    Variadic<AnyMemRef>:$inputs,
    Variadic<AnyMemRef>:$outputs,
    AffineMapArrayAttr:$indexing_maps,
    OptionalAttr<Ext_CombinerKind>:$combiner,
    OptionalAttr<TypedArrayAttrBase<TypedAttrInterface, "typed identities">>:$identity
  );
  let regions = (region SizedRegion<1>:$body, AnyRegion:$reducer);

  let assemblyFormat = [{
    $axes
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)`
    `maps` $indexing_maps
    (`combiner` `(` $combiner^ `)`)?
    (`identity` $identity^)?
    attr-dict-with-keyword
    $body
    (`reducer` $reducer^)?
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;

  let extraClassDeclaration = [{
    unsigned getNumAxes() { return getAxes().size(); }
    ::ext::AxisAttr getAxis(unsigned i) {
      return ::llvm::cast<::ext::AxisAttr>(getAxes()[i]);
    }
    ::llvm::SmallVector<::ext::AxisAttr> getAxisList();
    /// Position of the axis called `name`, if any.
    std::optional<unsigned> getAxisPosition(::llvm::StringRef name);
    bool hasReduceAxes();
    ::llvm::SmallVector<int64_t> getExtents();
    ::llvm::SmallVector<::mlir::AffineMap> getMaps() {
      return ::llvm::to_vector(
          getIndexingMaps().getAsValueRange<::mlir::AffineMapAttr>());
    }
    ::mlir::AffineMap getInputMap(unsigned i) { return getMaps()[i]; }
    ::mlir::AffineMap getOutputMap(unsigned i) {
      return getMaps()[getInputs().size() + i];
    }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    bool hasCustomReducer() {
      return getCombiner() && *getCombiner() == ::ext::CombinerKind::custom;
    }
  }];
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

def Ext_YieldOp : Ext_Op<"yield", [Pure, ReturnLike, Terminator,
                                    HasParent<"ComputeOp">]> {
  let summary = "yields the values of an ext.compute body or reducer";
  let description = [{
    Terminates the `body` of an `ext.compute` (one value per output) or its
    `reducer` (the combined values, one per output).
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// IndexOp
//===----------------------------------------------------------------------===//

def Ext_IndexOp : Ext_Op<"index", [Pure]> {
  let summary = "the current index along a named axis";
  let description = [{
    Inside the `body` of an `ext.compute`, the index of the current domain
    point along the axis named `axis` (as `linalg.index`, by name).

    ```mlir
    %k = ext.index "k" : index
    ```
  }];
  let arguments = (ins StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // EXT_DIALECT_EXT_IR_EXTOPS_TD
