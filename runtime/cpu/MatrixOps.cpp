//===- MatrixOps.cpp - warp matrix instructions, lane by lane -------------===//
//
// The entry points of ext/Runtime/CpuEmulationMatrixABI.h. A warp matrix
// instruction is a collective: when these run, every lane of the warp has
// published the address of its operands and is held at the rendezvous, so
// the caller reads the other lanes' operands through those addresses and
// computes its own part of the result. The per-lane fragment layouts below
// are the hardware's (docs/CpuEmulation.md cites the tables): a kernel that
// places its operands as if the layout were different gets different
// numbers, as it would on the GPU.
//
//===----------------------------------------------------------------------===//

#include "FiberScheduler.h"
#include "MatrixElements.h"
#include "ext/Runtime/CpuEmulationABI.h"
#include "ext/Runtime/CpuEmulationMatrixABI.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace ext::emu;

namespace {

/// Fails the launch: a matrix instruction used against its contract has no
/// result to give. The launch's error names the op of `site`; the calling
/// thread never runs again, and the host gets the error (Python raises).
[[noreturn]] void fail(int32_t site, std::string message) {
  Thread *t = currentThread();
  if (!t)
    outsideLaunch("a matrix instruction");
  t->launch->instructionFailed(*t, site, std::move(message));
}

/// Every lane of the caller's warp took part (matrix instructions are
/// .sync.aligned: the whole warp executes them together).
void requireFullWarp(int32_t site, int64_t mask, int32_t lanes,
                     const char *what) {
  Thread *t = currentThread();
  int32_t warpSize = t ? t->launch->warpSize() : lanes;
  if (warpSize != lanes)
    fail(site, std::string(what) + " needs a warp of " + std::to_string(lanes) +
                   " lanes; this launch has " + std::to_string(warpSize) +
                   " (the emulated chip sets it: ext-run --chip=gfx... "
                   "for 64-lane waves, EXT_EMU_WARP_SIZE)");
  uint64_t full = lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
  if ((uint64_t(mask) & full) != full)
    fail(site, std::string(what) + " needs all " + std::to_string(lanes) +
                   " lanes of the warp; some had exited or are outside the "
                   "block");
}

struct Coord {
  int32_t row, col;
};

/// One warp matrix instruction: D (MxN) = A (MxK) * B (KxN) + C, each
/// operand distributed over `lanes` lanes, `nA`/`nB`/`nC` elements per lane
/// in register order; the coordinate functions give the matrix element a
/// lane's i-th element holds.
struct Instruction {
  const char *name;
  int32_t lanes, m, n, k;
  Elt a, b, c;
  int32_t nA, nB, nC;
  Coord (*aAt)(int32_t lane, int32_t i); // (m, k)
  Coord (*bAt)(int32_t lane, int32_t i); // (k, n)
  Coord (*cAt)(int32_t lane, int32_t i); // (m, n)
};

// PTX ISA 9.7.14.5.8, "Matrix Fragments for mma.m16n8k16 with floating point
// type": groupID = lane >> 2, threadID_in_group = lane % 4.
Coord m16n8k16A(int32_t lane, int32_t i) {
  int32_t g = lane >> 2, t = lane & 3;
  return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
}
Coord m16n8k16B(int32_t lane, int32_t i) {
  int32_t g = lane >> 2, t = lane & 3;
  return {2 * t + (i & 1) + 8 * (i >> 1), g};
}
Coord m16n8C(int32_t lane, int32_t i) {
  int32_t g = lane >> 2, t = lane & 3;
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}
// PTX ISA 9.7.14.5.7, "Matrix Fragments for mma.m16n8k8", .tf32.
Coord m16n8k8A(int32_t lane, int32_t i) {
  int32_t g = lane >> 2, t = lane & 3;
  return {g + 8 * (i & 1), t + 4 * (i >> 1)};
}
Coord m16n8k8B(int32_t lane, int32_t i) {
  int32_t g = lane >> 2, t = lane & 3;
  return {t + 4 * i, g};
}
// PTX ISA, "Matrix Fragments for mma.m16n8k4", .tf32: A holds rows g and
// g + 8 of column t, B row t of column g.
Coord m16n8k4A(int32_t lane, int32_t i) {
  return {(lane >> 2) + 8 * i, lane & 3};
}
Coord m16n8k4B(int32_t lane, int32_t) { return {lane & 3, lane >> 2}; }
// AMD CDNA3 ISA, 7.1 "Dependency and layout of MFMA operands" (and AMD's
// matrix instruction calculator): for a block of a 64-lane wave, A's lane
// holds row lane % M and consecutive k from (lane / M) * (K*M/64); B
// likewise by column; a 32x32 accumulator holds column lane % 32 and, in
// register i, row 8*(i/4) + 4*(lane/32) + i%4; a 16x16 one row
// 4*(lane/16) + i.
Coord mfma32x32x8A(int32_t lane, int32_t i) {
  return {lane % 32, 4 * (lane / 32) + i};
}
Coord mfma32x32x8B(int32_t lane, int32_t i) {
  return {4 * (lane / 32) + i, lane % 32};
}
Coord mfma32x32C(int32_t lane, int32_t i) {
  return {8 * (i / 4) + 4 * (lane / 32) + i % 4, lane % 32};
}
Coord mfma16x16x16A(int32_t lane, int32_t i) {
  return {lane % 16, 4 * (lane / 16) + i};
}
Coord mfma16x16x16B(int32_t lane, int32_t i) {
  return {4 * (lane / 16) + i, lane % 16};
}
Coord mfma16x16C(int32_t lane, int32_t i) {
  return {4 * (lane / 16) + i, lane % 16};
}
Coord mfma32x32x2A(int32_t lane, int32_t) { return {lane % 32, lane / 32}; }
Coord mfma32x32x2B(int32_t lane, int32_t) { return {lane / 32, lane % 32}; }

const Instruction *instructionOf(int32_t kind) {
  static const Instruction m16n8k16f16f32 = {
      "mma.sync m16n8k16 f16 (f32 accumulate)",
      32,
      16,
      8,
      16,
      Elt::F16,
      Elt::F16,
      Elt::F32,
      8,
      4,
      4,
      m16n8k16A,
      m16n8k16B,
      m16n8C};
  static const Instruction m16n8k16f16f16 = {
      "mma.sync m16n8k16 f16 (f16 accumulate)",
      32,
      16,
      8,
      16,
      Elt::F16,
      Elt::F16,
      Elt::F16,
      8,
      4,
      4,
      m16n8k16A,
      m16n8k16B,
      m16n8C};
  static const Instruction m16n8k16bf16 = {"mma.sync m16n8k16 bf16",
                                           32,
                                           16,
                                           8,
                                           16,
                                           Elt::BF16,
                                           Elt::BF16,
                                           Elt::F32,
                                           8,
                                           4,
                                           4,
                                           m16n8k16A,
                                           m16n8k16B,
                                           m16n8C};
  static const Instruction m16n8k8tf32 = {"mma.sync m16n8k8 tf32",
                                          32,
                                          16,
                                          8,
                                          8,
                                          Elt::TF32,
                                          Elt::TF32,
                                          Elt::F32,
                                          4,
                                          2,
                                          4,
                                          m16n8k8A,
                                          m16n8k8B,
                                          m16n8C};
  static const Instruction m16n8k4tf32 = {"mma.sync m16n8k4 tf32",
                                          32,
                                          16,
                                          8,
                                          4,
                                          Elt::TF32,
                                          Elt::TF32,
                                          Elt::F32,
                                          2,
                                          1,
                                          4,
                                          m16n8k4A,
                                          m16n8k4B,
                                          m16n8C};
  static const Instruction mfma32x32x8 = {
      "mfma 32x32x8 f16", 64,        32, 32, 8,  Elt::F16,
      Elt::F16,           Elt::F32,  4,  4,  16, mfma32x32x8A,
      mfma32x32x8B,       mfma32x32C};
  static const Instruction mfma16x16x16 = {"mfma 16x16x16 f16",
                                           64,
                                           16,
                                           16,
                                           16,
                                           Elt::F16,
                                           Elt::F16,
                                           Elt::F32,
                                           4,
                                           4,
                                           4,
                                           mfma16x16x16A,
                                           mfma16x16x16B,
                                           mfma16x16C};
  static const Instruction mfma32x32x2 = {
      "mfma 32x32x2 f32", 64,        32, 32, 2,  Elt::F32,
      Elt::F32,           Elt::F32,  1,  1,  16, mfma32x32x2A,
      mfma32x32x2B,       mfma32x32C};
  switch (kind) {
  case EXT_EMU_MMA_M16N8K16_F16_F32:
    return &m16n8k16f16f32;
  case EXT_EMU_MMA_M16N8K16_F16_F16:
    return &m16n8k16f16f16;
  case EXT_EMU_MMA_M16N8K16_BF16_F32:
    return &m16n8k16bf16;
  case EXT_EMU_MMA_M16N8K8_TF32_F32:
    return &m16n8k8tf32;
  case EXT_EMU_MMA_M16N8K4_TF32_F32:
    return &m16n8k4tf32;
  case EXT_EMU_MFMA_32X32X8_F16_F32:
    return &mfma32x32x8;
  case EXT_EMU_MFMA_16X16X16_F16_F32:
    return &mfma16x16x16;
  case EXT_EMU_MFMA_32X32X2_F32_F32:
    return &mfma32x32x2;
  default:
    return nullptr;
  }
}

/// Where a matrix element lives: a lane and its element index.
struct Owner {
  int32_t lane = -1, index = -1;
};

/// Which lane holds each element of A (MxK) and B (KxN): the inverse of the
/// layout, built once per instruction.
struct Owners {
  std::vector<Owner> a, b;
  explicit Owners(const Instruction &in)
      : a(size_t(in.m) * in.k), b(size_t(in.k) * in.n) {
    for (int32_t lane = 0; lane < in.lanes; ++lane) {
      for (int32_t i = 0; i < in.nA; ++i) {
        Coord c = in.aAt(lane, i);
        a[size_t(c.row) * in.k + c.col] = {lane, i};
      }
      for (int32_t i = 0; i < in.nB; ++i) {
        Coord c = in.bAt(lane, i);
        b[size_t(c.row) * in.n + c.col] = {lane, i};
      }
    }
  }
};

struct Entry {
  const Instruction &in;
  Owners owners;
  explicit Entry(const Instruction &in) : in(in), owners(in) {}
};

/// The instruction of `kind` with its owner tables (built once, thread
/// safe), null for an unknown kind.
const Entry *lookup(int32_t kind) {
  static const std::array<std::unique_ptr<Entry>, 64> entries = [] {
    std::array<std::unique_ptr<Entry>, 64> table;
    for (int32_t k = 0; k < 64; ++k)
      if (const Instruction *in = instructionOf(k))
        table[k] = std::make_unique<Entry>(*in);
    return table;
  }();
  return kind >= 0 && kind < 64 ? entries[kind].get() : nullptr;
}

int64_t align8(int64_t x) { return (x + 7) / 8 * 8; }

const char *laneBuffer(int64_t slots, int32_t lane) {
  int64_t addr;
  std::memcpy(&addr,
              reinterpret_cast<const char *>(slots) +
                  EXT_EMU_SCRATCH_BYTES_PER_THREAD * int64_t(lane),
              8);
  return reinterpret_cast<const char *>(addr);
}

} // namespace

extern "C" {

void __ext_emu_ldmatrix(int32_t site, int64_t mask, int64_t slots, int32_t lane,
                        int32_t numTiles, int32_t transpose, int64_t out) {
  requireFullWarp(site, mask, 32, "ldmatrix");
  if (numTiles != 1 && numTiles != 2 && numTiles != 4)
    fail(site,
         "ldmatrix loads 1, 2 or 4 matrices, not " + std::to_string(numTiles));
  auto *result = reinterpret_cast<char *>(out);
  for (int32_t tile = 0; tile < numTiles; ++tile) {
    char *reg = result + 4 * tile;
    if (!transpose) {
      // Row lane/4 of the tile, 4 bytes from its (lane%4)-th word.
      const char *row = laneBuffer(slots, 8 * tile + lane / 4);
      std::memcpy(reg, row + 4 * (lane % 4), 4);
      continue;
    }
    // 16-bit elements: rows 2*(lane%4) and 2*(lane%4)+1, column lane/4.
    for (int32_t j = 0; j < 2; ++j) {
      const char *row = laneBuffer(slots, 8 * tile + 2 * (lane % 4) + j);
      std::memcpy(reg + 2 * j, row + 2 * (lane / 4), 2);
    }
  }
}

void __ext_emu_mma(int32_t site, int64_t mask, int64_t slots, int32_t lane,
                   int32_t kind) {
  const Entry *entry = lookup(kind);
  if (!entry)
    fail(site, "unknown warp matrix instruction kind " + std::to_string(kind));
  const Instruction *in = &entry->in;
  const Owners &owners = entry->owners;
  requireFullWarp(site, mask, in->lanes, in->name);
  int64_t aBytes = eltBytes(in->a), bBytes = eltBytes(in->b),
          cBytes = eltBytes(in->c);
  int64_t bOffset = align8(in->nA * aBytes);
  int64_t cOffset = bOffset + align8(in->nB * bBytes);
  char *own = const_cast<char *>(laneBuffer(slots, lane));
  for (int32_t i = 0; i < in->nC; ++i) {
    Coord d = in->cAt(lane, i);
    char *cElt = own + cOffset + i * cBytes;
    // Products of f16, bf16 and tf32 values are exact in f32; the sum is
    // kept in f32 and added in k order. The hardware's order of additions
    // (and its internal precision) is unspecified, so results may differ in
    // the last bits: tests compare with a tolerance.
    float acc = readElt(cElt, in->c == Elt::F16 ? Elt::F16 : Elt::F32);
    for (int32_t kk = 0; kk < in->k; ++kk) {
      Owner oa = owners.a[size_t(d.row) * in->k + kk];
      Owner ob = owners.b[size_t(kk) * in->n + d.col];
      float x = readElt(laneBuffer(slots, oa.lane) + oa.index * aBytes, in->a);
      float y = readElt(
          laneBuffer(slots, ob.lane) + bOffset + ob.index * bBytes, in->b);
      acc += x * y;
    }
    if (in->c == Elt::F16) {
      uint16_t h = floatToHalf(acc);
      std::memcpy(cElt, &h, 2);
    } else {
      std::memcpy(cElt, &acc, 4);
    }
  }
}

} // extern "C"
