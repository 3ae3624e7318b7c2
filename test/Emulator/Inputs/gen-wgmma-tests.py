#!/usr/bin/env python3
"""Writes the warpgroup MMA tests of test/Emulator (wgmma-*.mlir).

One warpgroup (128 threads) stages A (64 x K) and B (K x N) in shared memory
in one of the canonical layouts of the PTX ISA (9.7.15.5.1.2: K-major or
MN-major, no swizzle or a 32/64/128-byte swizzle), transcribed here from the
ISA's tables independently of runtime/cpu/WarpgroupMma.cpp; builds the
matrix descriptors; runs K/k nvvm.wgmma.mma_async (the first with scale-d
0 over accumulators set to 100, so that an ignored scale-d shows); stores D
with the accumulator layout; and the host counts the elements that differ
from a scalar reference (small integers: exact). The same kernels go through
ext-gpu-pipeline for sm_90a and ptxas.

Run from the repository root: python3 test/Emulator/Inputs/gen-wgmma-tests.py
"""

import os

OUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SWIZZLE_MODE = {0: 0, 128: 1, 64: 2, 32: 3}


class Body:
    """Index arithmetic, emitted once per distinct expression."""

    def __init__(self, indent="    ", prefix=""):
        self.lines, self.n, self.memo, self.indent = [], 0, {}, indent
        self.prefix = prefix

    def emit(self, text):
        self.lines.append(self.indent + text)

    def const(self, v, ty="index"):
        key = ("c", v, ty)
        if key not in self.memo:
            name = f"%{self.prefix}c{v}_{ty}".replace("-", "m")
            self.emit(f"{name} = arith.constant {v} : {ty}")
            self.memo[key] = name
        return self.memo[key]

    def op(self, name, a, b, ty="index"):
        if isinstance(b, int):
            b = self.const(b, ty)
        key = (name, a, b, ty)
        if key not in self.memo:
            self.n += 1
            v = f"%{self.prefix}v{self.n}"
            self.emit(f"{v} = arith.{name} {a}, {b} : {ty}")
            self.memo[key] = v
        return self.memo[key]


class Operand:
    """An operand's shared-memory layout: `mn` x `k` elements of `eb` bytes,
    K-major or MN-major, swizzle 0/32/64/128; the ISA's canonical layout with
    the strides chosen here, per element and per instruction (its start)."""

    def __init__(self, kmajor, swizzle, mn, k, eb, ki):
        self.kmajor, self.swizzle, self.mn, self.k, self.eb, self.ki = (
            kmajor, swizzle, mn, k, eb, ki)
        t, w = 16 // eb, swizzle
        if kmajor and not w:  # core matrices: 8 rows x 16 B, K-adjacent
            self.lbo, self.sbo = 128, (k // t) * 128
        elif kmajor:  # W-byte rows, 8-row atoms stacked, K panels of W bytes
            self.lbo, self.sbo = 16, 8 * w
        elif not w:  # core matrices: 8 k x 16 B of MN, MN-adjacent
            self.lbo, self.sbo = (mn // t) * 128, 128
        else:  # W-byte rows of MN per k; MN panels of W bytes
            self.lbo, self.sbo = k * w, 8 * w
        self.bytes = mn * k * eb

    def offset(self, bd, x, kk):
        """Byte offset (before the swizzle) of element (x = mn, kk)."""
        t, w, eb = 16 // self.eb, self.swizzle, self.eb
        terms = []
        if self.kmajor and not w:
            terms = [(x, "rem", 8, 16), (x, "div", 8, self.sbo),
                     (kk, "rem", t, eb), (kk, "div", t, self.lbo)]
        elif self.kmajor:
            kp = w // eb
            terms = [(kk, "div", kp, self.mn * w), (x, "rem", 8, w),
                     (x, "div", 8, self.sbo), (kk, "rem", kp, eb)]
        elif not w:
            terms = [(x, "rem", t, eb), (x, "div", t, self.sbo),
                     (kk, "rem", 8, 16), (kk, "div", 8, self.lbo)]
        else:
            run = w // eb
            terms = [(x, "rem", run, eb), (x, "div", run, self.lbo),
                     (kk, "rem", 8, w), (kk, "div", 8, self.sbo)]
        total = None
        for v, how, by, scale in terms:
            part = bd.op("remui" if how == "rem" else "divui", v, by)
            part = bd.op("muli", part, scale)
            total = part if total is None else bd.op("addi", total, part)
        return total

    def start(self, s):
        """Byte offset of instruction s's start (its k = s * ki)."""
        kk, w, eb = s * self.ki, self.swizzle, self.eb
        if self.kmajor and not w:
            return (kk // (16 // eb)) * self.lbo
        if self.kmajor:
            kp = w // eb
            return (kk // kp) * self.mn * w + (kk % kp) * eb
        if not w:
            return (kk // 8) * self.lbo
        return (kk // 8) * self.sbo

    def descriptor(self, start_bytes, lbo=None, sbo=None):
        """The descriptor's constant fields (all but the start address)."""
        lbo = self.lbo if lbo is None else lbo
        sbo = self.sbo if sbo is None else sbo
        return ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (SWIZZLE_MODE[self.swizzle] << 62)


def swizzle(bd, addr, w):
    if not w:
        return addr
    mask = {128: 7, 64: 3, 32: 1}[w]
    bits = bd.op("andi", bd.op("shrui", addr, 7), mask)
    return bd.op("xori", addr, bd.op("shli", bits, 4))


def generate(name, elt, n, k, a, b, comment, wrong=None, error=None):
    """A test file: elt in f16/bf16/tf32; a and b: (kmajor, swizzle)."""
    eb = 4 if elt == "tf32" else 2
    ki = 8 if elt == "tf32" else 16
    mty = "f32" if elt == "tf32" else elt
    A = Operand(a[0], a[1], 64, k, eb, ki)
    B = Operand(b[0], b[1], n, k, eb, ki)
    b_base = (A.bytes + 1023) // 1024 * 1024
    smem = b_base + B.bytes
    acc_t = "!llvm.struct<(" + ", ".join(["f32"] * (n // 2)) + ")>"
    wg = "#gpu.address_space<workgroup>"
    lay_a = "col" if not a[0] else "row"  # M-major A is "col"
    lay_b = "col" if b[0] else "row"  # N-major B is "row"
    ptxname = "tf32.tf32" if elt == "tf32" else f"{elt}.{elt}"
    runs = ["// RUN: ext-run %s | FileCheck %s"]
    if error == "no-barrier":
        runs = ["// RUN: not ext-run --racecheck %s 2>&1 | FileCheck %s"]
    elif error:
        runs = ["// RUN: not ext-run %s 2>&1 | FileCheck %s"]
    elif not wrong:
        runs += [
            "// RUN: ext-opt %s --ext-gpu-pipeline=\"target=nvvm chip=sm_90a\" | "
            "ext-translate --ext-to-ptx -o %t.ptx",
            "// RUN: FileCheck %s --check-prefix=PTX < %t.ptx",
            "// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o /dev/null %}"]
    head = "\n".join(runs) + f"""
// {comment}
// Generated by test/Emulator/Inputs/gen-wgmma-tests.py: A (64x{k}) {'K' if a[0] else 'M'}-major,
// swizzle {a[1] or 'none'}; B ({k}x{n}) {'K' if b[0] else 'N'}-major, swizzle {b[1] or 'none'};
// {elt} inputs, f32 accumulators, {k // ki} x wgmma m64n{n}k{ki}.
"""
    bd = Body()
    for v in (0, 1, 64 * k, k * n, 128):
        bd.const(v)
    tid = "%tx"
    # Stage A and B: each thread copies elements tid, tid + 128, ...
    stage = []
    for opnd, name_, rows, cols, base, is_a in ((A, "A", 64, k, 0, True),
                                                (B, "B", k, n, b_base, False)):
        inner = Body("      ", name_.lower())
        e = "%e"
        if is_a:
            x, kk = inner.op("divui", e, cols), inner.op("remui", e, cols)
            load = f"memref.load %Ad[{x}, {kk}] : memref<64x{k}x{mty}>"
        else:
            kk, x = inner.op("divui", e, cols), inner.op("remui", e, cols)
            load = f"memref.load %Bd[{kk}, {x}] : memref<{k}x{n}x{mty}>"
        off = opnd.offset(inner, x, kk)
        addr = swizzle(inner, inner.op("addi", off, base), opnd.swizzle)
        slot = inner.op("divui", addr, eb)
        inner.emit(f"%val = {load}")
        inner.emit(f"memref.store %val, %sv[{slot}] : memref<{smem // eb}x{mty}, {wg}>")
        stage.append(f"""    scf.for %e = {tid} to {bd.const(rows * cols)} step {bd.const(128)} {{
{chr(10).join(inner.lines)}
    }}""")
    # Descriptors and the MMAs.
    mm = ([] if error == "no-barrier" else ["    gpu.barrier"]) + [
          f"    %base = memref.extract_aligned_pointer_as_index %smem : memref<{smem}xi8, {wg}> -> index",
          "    %base64 = arith.index_cast %base : index to i64",
          f"    %hundred = arith.constant 100.0 : f32",
          f"    %acc0 = llvm.mlir.poison : {acc_t}"]
    prev = "%acc0"
    for i in range(n // 2):
        mm.append(f"    %ai{i} = llvm.insertvalue %hundred, {prev}[{i}] : {acc_t}")
        prev = f"%ai{i}"
    if error != "no-fence":
        mm.append("    nvvm.wgmma.fence.aligned")
    for s in range(k // ki):
        descs = []
        for opnd, base, tag in ((A, 0, "a"), (B, b_base, "b")):
            lbo, sbo = (opnd.sbo, opnd.lbo) if wrong == tag else (None, None)
            fields = opnd.descriptor(0, lbo, sbo)
            st = base + opnd.start(s)
            mm += [f"    %s{tag}{s} = arith.addi %base64, {bd.const(st, 'i64')} : i64",
                   f"    %m{tag}{s} = arith.andi %s{tag}{s}, {bd.const(0x3FFFF, 'i64')} : i64",
                   f"    %h{tag}{s} = arith.shrui %m{tag}{s}, {bd.const(4, 'i64')} : i64",
                   f"    %d{tag}{s} = arith.ori %h{tag}{s}, {bd.const(fields - (1 << 64) if fields >= 1 << 63 else fields, 'i64')} : i64"]
        scale = "zero" if s == 0 else "one"
        mm.append(f"    %acc{s + 1} = nvvm.wgmma.mma_async %da{s}, %db{s}, {prev}, "
                  f"#nvvm.shape<m = 64, n = {n}, k = {ki}>, D[<f32>, <{scale}>], "
                  f"A[<{elt}>, <one>, <{lay_a}>], B[<{elt}>, <one>, <{lay_b}>] : "
                  f"{acc_t} -> {acc_t}")
        prev = f"%acc{s + 1}"
    mm.append("    nvvm.wgmma.commit.group.sync.aligned")
    mm.append(f"    nvvm.wgmma.wait.group.sync.aligned {1 if error == 'wait-1' else 0}")
    # D: warp w holds rows 16w + lane/4 (+8), register i column
    # 8*(i/4) + 2*(lane%4) + i%2 (rows +8 for i%4 >= 2).
    out = Body(prefix="o")
    warp, lane = out.op("divui", tid, 32), out.op("remui", tid, 32)
    row0 = out.op("addi", out.op("muli", warp, 16), out.op("divui", lane, 4))
    col0 = out.op("muli", out.op("remui", lane, 4), 2)
    for i in range(n // 2):
        r = out.op("addi", row0, 8 * ((i // 2) % 2)) if (i // 2) % 2 else row0
        cc = 8 * (i // 4) + i % 2
        c = out.op("addi", col0, cc) if cc else col0
        out.emit(f"%x{i} = llvm.extractvalue {prev}[{i}] : {acc_t}")
        out.emit(f"memref.store %x{i}, %C[{r}, {c}] : memref<64x{n}xf32>")
    body_out = out.lines

    fill = lambda nm, rows, cols, p, q, mod: f"""  scf.for %i = %c0 to %c{rows} step %c1 {{
    scf.for %j = %c0 to %c{cols} step %c1 {{
      %v = affine.apply affine_map<(i, j) -> ((i * {p} + j * {q}) mod {mod} - {mod // 2})>(%i, %j)
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to {mty}
      memref.store %vf, %{nm}[%i, %j] : memref<{rows}x{cols}x{mty}>
    }}
  }}"""
    consts = sorted({64, k, n, 1, 0, 128})
    if mty == "f32":
        extend = "        %p = arith.mulf %x, %y : f32"
    else:
        extend = (f"        %xf = arith.extf %x : {mty} to f32\n"
                  f"        %yf = arith.extf %y : {mty} to f32\n"
                  "        %p = arith.mulf %xf, %yf : f32")
    text = head + f"""
func.func private @printMemrefI32(memref<*xi32>) attributes {{ llvm.emit_c_interface }}

// C = A B on one warpgroup (bench/gpu/export.py also runs this on a GPU).
func.func @wgmma(%Ad: memref<64x{k}x{mty}>, %Bd: memref<{k}x{n}x{mty}>, %C: memref<64x{n}xf32>) {{
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             workgroup(%smem : memref<{smem}xi8, {wg}>) {{
{chr(10).join(bd.lines)}
    %sv = memref.view %smem[{bd.const(0)}][] : memref<{smem}xi8, {wg}> to memref<{smem // eb}x{mty}, {wg}>
{chr(10).join(stage)}
{chr(10).join(mm)}
{chr(10).join(body_out)}
    gpu.terminator
  }}
  return
}}

func.func @main() {{
{chr(10).join(f"  %c{v} = arith.constant {v} : index" for v in consts)}
  %Ad = memref.alloc() : memref<64x{k}x{mty}>
  %Bd = memref.alloc() : memref<{k}x{n}x{mty}>
  %C = memref.alloc() : memref<64x{n}xf32>
{fill("Ad", 64, k, 3, 5, 7)}
{fill("Bd", k, n, 5, 3, 9)}
  call @wgmma(%Ad, %Bd, %C) : (memref<64x{k}x{mty}>, memref<{k}x{n}x{mty}>, memref<64x{n}xf32>) -> ()
  // The reference, and the count of elements of C that differ from it.
  %bad = memref.alloc() : memref<1xi32>
  %zero32 = arith.constant 0 : i32
  %one32 = arith.constant 1 : i32
  memref.store %zero32, %bad[%c0] : memref<1xi32>
  scf.for %i = %c0 to %c64 step %c1 {{
    scf.for %j = %c0 to %c{n} step %c1 {{
      %z = arith.constant 0.0 : f32
      %ref = scf.for %kk = %c0 to %c{k} step %c1 iter_args(%s = %z) -> f32 {{
        %x = memref.load %Ad[%i, %kk] : memref<64x{k}x{mty}>
        %y = memref.load %Bd[%kk, %j] : memref<{k}x{n}x{mty}>
{extend}
        %s2 = arith.addf %s, %p : f32
        scf.yield %s2 : f32
      }}
      %got = memref.load %C[%i, %j] : memref<64x{n}xf32>
      %same = arith.cmpf oeq, %got, %ref : f32
      %old = memref.load %bad[%c0] : memref<1xi32>
      %inc = arith.select %same, %zero32, %one32 : i32
      %new = arith.addi %old, %inc : i32
      memref.store %new, %bad[%c0] : memref<1xi32>
    }}
  }}
  %u = memref.cast %bad : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}}
"""
    if error == "no-barrier":
        text += ("\n// The MMA reads the tiles the threads stored with no barrier between:\n"
                 "// a thread still storing when its warpgroup issued the MMA writes what\n"
                 "// the MMA reads in flight (or racecheck sees the reads race).\n"
                 "// CHECK: {{racecheck: [0-9]+ data race|writes shared memory .* that "
                 "the warpgroup MMA at .* reads while its group is in flight}}\n")
    elif error == "no-fence":
        text += "\n// CHECK: error: {{.*}}wgmma.mma_async without a wgmma.fence\n"
    elif error == "wait-1":
        text += ("\n// CHECK: error: {{.*}}reads an accumulator register of the "
                 "warpgroup MMA at {{.*}} while its group is in flight\n")
    elif wrong:
        text += ("\n// The descriptor of " + wrong.upper() + " swaps its leading and stride byte"
                 "\n// offsets: the hardware reads other elements, and so must the emulator.\n"
                 "// CHECK: [{{[1-9][0-9]*}}]\n")
    else:
        text += (f"\n// CHECK: [0]\n// PTX: wgmma.mma_async.sync.aligned.m64n{n}k{ki}.f32.{ptxname}\n")
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)


def main():
    generate("wgmma-f16-interleave.mlir", "f16", 64, 32, (True, 0), (False, 0),
             "K-major A and N-major B in 8x8 core matrices (no swizzle).")
    generate("wgmma-f16-swizzle128.mlir", "f16", 128, 64, (True, 128), (False, 128),
             "The 128-byte swizzle of both operands (CUTLASS's SW128 atoms), B in two\n"
             "// 64-column panels, A's k steps inside its 128-byte rows.")
    generate("wgmma-bf16-swizzle64.mlir", "bf16", 32, 32, (False, 64), (True, 64),
             "M-major A and K-major B (both transposed), 64-byte swizzle.")
    generate("wgmma-tf32-swizzle32.mlir", "tf32", 16, 16, (True, 32), (True, 32),
             "tf32 (K-major only), 32-byte swizzle; inputs are small integers, exact in tf32.")
    generate("wgmma-wrong-layout.mlir", "f16", 64, 32, (True, 0), (False, 0),
             "A wrong descriptor must give wrong numbers.", wrong="a")
    generate("wgmma-missing-fence.mlir", "f16", 16, 16, (True, 0), (False, 0),
             "wgmma.mma_async without wgmma.fence is an error.", error="no-fence")
    generate("wgmma-missing-barrier.mlir", "f16", 64, 64, (True, 128), (False, 128),
             "Staging A and B without a barrier before the MMA is a race.",
             error="no-barrier")
    generate("wgmma-wait-pending.mlir", "f16", 16, 16, (True, 0), (False, 0),
             "wgmma.wait_group 1 leaves the MMA in flight: reading its accumulators "
             "is reported.",
             error="wait-1")


if __name__ == "__main__":
    main()
