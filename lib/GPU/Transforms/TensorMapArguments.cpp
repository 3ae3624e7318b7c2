//===- TensorMapArguments.cpp - tensor maps as kernel pointers ------------===//
//
// A tensor map built on the host reaches the kernel as an argument of nvgpu
// type, which no upstream signature conversion lowers. On the device a map
// is an address: both sides pass it as !llvm.ptr, cast to the map's type
// where its users (bulk tensor copies, prefetches) expect it.
//
//===----------------------------------------------------------------------===//

#include "ext/GPU/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace ext {
#define GEN_PASS_DEF_EXTGPUTENSORMAPARGUMENTS
#include "ext/GPU/Transforms/Passes.h.inc"
} // namespace ext

using namespace mlir;

namespace {

/// Makes the tensor-map arguments of `kernel` pointers.
void convertKernel(gpu::GPUFuncOp kernel) {
  auto ptr = LLVM::LLVMPointerType::get(kernel.getContext());
  Block &entry = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  bool changed = false;
  SmallVector<Type> inputs(kernel.getArgumentTypes());
  for (BlockArgument arg : entry.getArguments()) {
    Type map = arg.getType();
    if (!isa<nvgpu::TensorMapDescriptorType>(map))
      continue;
    arg.setType(ptr);
    auto cast = UnrealizedConversionCastOp::create(b, arg.getLoc(), map, arg);
    arg.replaceAllUsesExcept(cast.getResult(0), cast);
    inputs[arg.getArgNumber()] = ptr;
    changed = true;
  }
  if (changed)
    kernel.setType(FunctionType::get(kernel.getContext(), inputs,
                                     kernel.getResultTypes()));
}

struct ExtGPUTensorMapArgumentsPass
    : ext::impl::ExtGPUTensorMapArgumentsBase<ExtGPUTensorMapArgumentsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.isKernel())
        convertKernel(kernel);
    });
    module.walk([&](gpu::LaunchFuncOp launch) {
      OpBuilder b(launch);
      for (OpOperand &operand : launch.getKernelOperandsMutable()) {
        if (!isa<nvgpu::TensorMapDescriptorType>(operand.get().getType()))
          continue;
        auto cast = UnrealizedConversionCastOp::create(
            b, launch.getLoc(), LLVM::LLVMPointerType::get(&getContext()),
            operand.get());
        operand.set(cast.getResult(0));
      }
    });
  }
};

} // namespace
