//===- MatrixInstructions.cpp - the table of matrix instructions ----------===//
//
// Sources: the PTX ISA ("Warp-level matrix fragment mma.m16n8k16",
// "m16n8k8", "wgmma.mma_async" and its register fragments), AMD's matrix
// instruction calculator and CDNA3 ISA guide (v_mfma_* register layouts),
// NVIDIA's A100 datasheet (tf32 at half of the f16 rate), AMD's CDNA3 ISA
// guide (v_mfma_f32_32x32x2f32 at 1/8 of the f16 rate). mma.sync at half
// of Hopper's wgmma peak is an assumption (bench/roofline's; docs/Tuning.md).
//
//===----------------------------------------------------------------------===//

#include "ext/Model/MatrixInstructions.h"

#include "llvm/ADT/STLExtras.h"

using namespace ext;

namespace {
constexpr MatrixInstruction kInstructions[] = {
    {"m16n8k16", "mma.sync.aligned.m16n8k16", GpuVendor::Nvidia,
     MatrixFeature::MmaSync, 16, 8, 16, 1, 32, {"f16", "bf16"}, "f16 or bf16",
     false, AccumulatorLayout::NvidiaQuads, 1.0, 0.5},
    {"m16n8k8", "mma.sync.aligned.m16n8k8.tf32", GpuVendor::Nvidia,
     MatrixFeature::MmaSync, 16, 8, 8, 1, 32, {"f32", ""},
     "f32 (rounded to tf32)", true, AccumulatorLayout::NvidiaQuads, 0.5, 0.25},
    {"mfma_32x32x8", "v_mfma_f32_32x32x8f16", GpuVendor::Amd,
     MatrixFeature::Mfma, 32, 32, 8, 1, 64, {"f16", ""}, "f16", false,
     AccumulatorLayout::AmdColumns, 1.0, 1.0},
    {"mfma_16x16x16", "v_mfma_f32_16x16x16f16", GpuVendor::Amd,
     MatrixFeature::Mfma, 16, 16, 16, 1, 64, {"f16", ""}, "f16", false,
     AccumulatorLayout::AmdColumns, 1.0, 1.0},
    {"mfma_32x32x2", "v_mfma_f32_32x32x2f32", GpuVendor::Amd,
     MatrixFeature::Mfma, 32, 32, 2, 1, 64, {"f32", ""}, "f32", false,
     AccumulatorLayout::AmdColumns, 0.125, 0.125},
    // Per warp: m16n8k16's accumulator tiles (so fragments, epilogues and
    // stores are mma.sync's); one instruction is 64 x N x 16 over a
    // warpgroup of 4 warps, N = 8..256.
    {"wgmma_k16", "wgmma.mma_async.m64nNk16", GpuVendor::Nvidia,
     MatrixFeature::WarpgroupMma, 16, 8, 16, 4, 32, {"f16", "bf16"},
     "f16 or bf16", false, AccumulatorLayout::NvidiaQuads, 1.0, 1.0},
};
} // namespace

bool MatrixInstruction::existsOn(const ChipInfo &chip) const {
  switch (feature) {
  case MatrixFeature::MmaSync:
    return chip.hasMmaSync;
  case MatrixFeature::WarpgroupMma:
    return chip.hasWarpgroupMma;
  case MatrixFeature::Mfma:
    return chip.hasMfma;
  }
  return false;
}

bool MatrixInstruction::takes(llvm::StringRef elementType) const {
  return !elementType.empty() && llvm::is_contained(inputs, elementType);
}

double MatrixInstruction::peakFractionOn(const ChipInfo &chip) const {
  return chip.isNvidia() && chip.smVersion >= 90 ? peakFractionSm90
                                                 : peakFraction;
}

llvm::ArrayRef<MatrixInstruction> ext::matrixInstructions() {
  return kInstructions;
}

const MatrixInstruction *ext::lookupMatrixInstruction(llvm::StringRef name) {
  for (const MatrixInstruction &row : kInstructions)
    if (row.name == name)
      return &row;
  return nullptr;
}
