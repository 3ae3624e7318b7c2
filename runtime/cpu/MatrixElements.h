//===- MatrixElements.h - matrix instruction operands on the CPU -*- C++
//-*-===//
//
// What the warp and warpgroup matrix instructions of the CPU emulation share
// (MatrixOps.cpp, WarpgroupMma.cpp): the element types of their operands,
// read and rounded as the tensor cores do.
//
//===----------------------------------------------------------------------===//

#ifndef EXT_RUNTIME_CPU_MATRIXELEMENTS_H
#define EXT_RUNTIME_CPU_MATRIXELEMENTS_H

#include <cstdint>
#include <cstring>
#include <string>

namespace ext::emu {

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(man & 0x400)) {
      man <<= 1;
      ++shift;
    }
    bits = sign | (uint32_t(113 - shift) << 23) | ((man & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Round to nearest even, as the hardware converts f32 results to f16.
inline uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t exp = (bits >> 23) & 0xff, man = bits & 0x7fffff;
  if (exp == 0xff)
    return sign | 0x7c00 | (man ? 0x200 : 0);
  int32_t e = int32_t(exp) - 127 + 15;
  if (e >= 0x1f)
    return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10)
      return sign;
    man |= 0x800000;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = man >> shift, rest = man & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return sign | uint16_t(half);
  }
  uint32_t half = (uint32_t(e) << 10) | (man >> 13), rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, up to infinity: still right
  return sign | uint16_t(half);
}

inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// An f32 operand of a .tf32 mma: the tensor core keeps the sign, the
/// exponent and the 10 high mantissa bits and ignores the 13 low ones (PTX
/// leaves the tf32 encoding implementation-defined; Ampere and Hopper
/// truncate, which is why CUTLASS rounds with cvt.rna.tf32.f32 first).
inline float tf32(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (((bits >> 23) & 0xff) != 0xff)
    bits &= ~uint32_t(0x1fff);
  std::memcpy(&f, &bits, 4);
  return f;
}

enum class Elt { F16, BF16, TF32, F32 };

inline int32_t eltBytes(Elt e) {
  return e == Elt::F16 || e == Elt::BF16 ? 2 : 4;
}

inline float readElt(const char *p, Elt e) {
  if (e == Elt::F16 || e == Elt::BF16) {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return e == Elt::F16 ? halfToFloat(h) : bf16ToFloat(h);
  }
  float f;
  std::memcpy(&f, p, 4);
  return e == Elt::TF32 ? tf32(f) : f;
}

} // namespace ext::emu

#endif // EXT_RUNTIME_CPU_MATRIXELEMENTS_H
