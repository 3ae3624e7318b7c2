//===- ExtTransformOps.td - transform-dialect ops for ext --*- tablegen -*-===//
//
// A schedule may live in a transform script beside its payload: these ops
// find computes and attach or edit their schedules. Lowering is the
// registered passes' (transform.apply_registered_pass "ext-apply-schedule").
//
//===----------------------------------------------------------------------===//

#ifndef EXT_TRANSFORM_OPS
#define EXT_TRANSFORM_OPS

include "ext/Dialect/Ext/IR/ExtAttrs.td"
include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def MatchComputesOp : Op<Transform_Dialect, "ext.match_computes", [
    NavigationTransformOpTrait,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "the ext.computes under the targets, by name";
  let description = [{
    Returns a handle to every `ext.compute` nested in the `root` payload ops
    (in IR order), or only those whose `name` is `compute_name`. Matching
    nothing is a silenceable failure naming what was looked for, so a
    script that misspells a compute says so instead of scheduling nothing.

    ```mlir
    %mm = transform.ext.match_computes "matmul_1" in %root
        : (!transform.any_op) -> !transform.any_op
    ```
  }];
  let arguments = (ins TransformHandleTypeInterface:$root,
                       OptionalAttr<StrAttr>:$compute_name);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = [{
    ($compute_name^)? `in` $root attr-dict `:` functional-type($root, $result)
  }];
}

def SetScheduleOp : Op<Transform_Dialect, "ext.set_schedule", [
    TransformEachOpTrait, TransformOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "attaches a schedule to ext.computes";
  let description = [{
    Sets the `schedule` of each targeted `ext.compute`, replacing any it
    had, exactly as the same `#ext.schedule<...>` written in the compute's
    attributes (the lowering cannot tell them apart). The compute is then
    verified: a schedule that does not fit it fails with the verifier's
    diagnostic at the compute, and the compute keeps its old schedule. A
    target that is not an `ext.compute` is a silenceable failure.

    ```mlir
    transform.ext.set_schedule #ext.schedule<tile = [64, 64, 16],
        blocks = ["d0", "d1"], threads = [16, 16, 1],
        cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>]>
        to %mm : !transform.any_op
    ```
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       Ext_ScheduleAttr:$schedule);
  let results = (outs);
  let assemblyFormat = "$schedule `to` $target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def UpdateScheduleOp : Op<Transform_Dialect, "ext.update_schedule", [
    TransformEachOpTrait, TransformOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "edits fields of the schedules of ext.computes";
  let description = [{
    Changes the named fields of each targeted compute's schedule and keeps
    the others: a script can take a schedule from the payload (or from an
    earlier `set_schedule`) and change its tile, threads, caches,
    decomposition, tensor-core instruction or fusions. The fields are those
    of `#ext.schedule` with builtin attribute values:

    - `tile`, `threads`, `warps`: arrays of integers (`array<i64: ...>` or
      `[...]`);
    - `blocks`, `compute_inline`: arrays of strings (axis or compute names);
    - `cache`: an array of `#ext.cache`; `compute_at`, `reverse_compute_at`:
      arrays of `#ext.at`;
    - `decomposition`, `layout`: the attribute (`#ext.stream_k<...>`,
      `#ext.blocked<...>`); `mma`: an `#ext.mma<...>` or `"auto"`;
    - `raster`: `"row"` or `"col"`; `swizzle`, `vector`, `unroll`,
      `stages`: integers; `async`, `fast_math`: bools.

    A compute without a schedule gets one from the fields alone (`tile` and
    `threads` then required). The result is checked like any schedule (the
    attribute's verifier, then the compute's); an unknown field or a value
    of the wrong kind fails naming the field.

    ```mlir
    transform.ext.update_schedule %mm with {stages = 3, tile = [128, 128, 32],
        decomposition = #ext.stream_k<sms = 132>} : !transform.any_op
    ```
  }];
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DictionaryAttr:$fields);
  let results = (outs);
  let assemblyFormat = "$target `with` $fields attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

#endif // EXT_TRANSFORM_OPS
