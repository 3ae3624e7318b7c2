//===- Passes.h - ext transformation passes ---------------------*- C++ -*-===//

#ifndef EXT_DIALECT_EXT_TRANSFORMS_PASSES_H
#define EXT_DIALECT_EXT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace ext {

#define GEN_PASS_DECL
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ext/Dialect/Ext/Transforms/Passes.h.inc"

} // namespace ext

#endif // EXT_DIALECT_EXT_TRANSFORMS_PASSES_H
