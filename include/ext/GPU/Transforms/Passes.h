//===- Passes.h - ext's passes on upstream gpu IR ---------------*- C++ -*-===//

#ifndef EXT_GPU_TRANSFORMS_PASSES_H
#define EXT_GPU_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace ext {

#define GEN_PASS_DECL
#include "ext/GPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ext/GPU/Transforms/Passes.h.inc"

} // namespace ext

#endif // EXT_GPU_TRANSFORMS_PASSES_H
