#!/usr/bin/env python3
"""Writes the warp matrix instruction tests of test/Emulator (mma-*.mlir,
mfma-*.mlir): one warp loads its fragments of A, B and C from global memory
with the per-lane layout of the instruction (transcribed here from the PTX ISA
and AMD CDNA3 ISA tables, independently of runtime/cpu/MatrixOps.cpp), runs
the instruction, stores its D fragment with the accumulator layout, and the
host compares D with a scalar reference computed in the same file.

Run from the repository root: python3 test/Emulator/Inputs/gen-matrix-tests.py
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)

# A coordinate of a fragment element: scale * term(lane) + offset.
# Terms: g = lane / 4, t = lane % 4 (PTX groupID, threadID_in_group),
# and lane % n, lane / n for the AMD layouts.


def nv_m16n8k16(kind):
    # PTX ISA 9.7.14.5.8 (mma.m16n8k16, .f16/.bf16).
    a = [(("g", 1, 8 * ((i >> 1) & 1)), ("t", 2, (i & 1) + 8 * (i >> 2)))
         for i in range(8)]
    b = [(("t", 2, (i & 1) + 8 * (i >> 1)), ("g", 1, 0)) for i in range(4)]
    c = [(("g", 1, 8 * (i >> 1)), ("t", 2, i & 1)) for i in range(4)]
    return a, b, c


def nv_m16n8k8_tf32():
    # PTX ISA 9.7.14.5.7 (mma.m16n8k8, .tf32).
    a = [(("g", 1, 8 * (i & 1)), ("t", 1, 4 * (i >> 1))) for i in range(4)]
    b = [(("t", 1, 4 * i), ("g", 1, 0)) for i in range(2)]
    c = [(("g", 1, 8 * (i >> 1)), ("t", 2, i & 1)) for i in range(4)]
    return a, b, c


def amd(m, k):
    # CDNA3 ISA 7.1: A holds row lane % m, k = (lane / m) * kpl + i.
    kpl = m * k // 64
    a = [((f"r{m}", 1, 0), (f"d{m}", kpl, i)) for i in range(kpl)]
    b = [((f"d{m}", kpl, i), (f"r{m}", 1, 0)) for i in range(kpl)]
    if m == 32:
        c = [((f"d32", 4, 8 * (i // 4) + i % 4), ("r32", 1, 0))
             for i in range(16)]
    else:
        c = [((f"d16", 4, i), ("r16", 1, 0)) for i in range(4)]
    return a, b, c


def transposed(frag):
    return [(col, row) for row, col in frag]


class Kernel:
    def __init__(self):
        self.lines = []
        self.n = 0
        self.consts = {}

    def fresh(self, base="v"):
        self.n += 1
        return f"%{base}{self.n}"

    def const(self, v):
        if v not in self.consts:
            name = f"%k{v}"
            self.lines.append(f"    {name} = arith.constant {v} : index")
            self.consts[v] = name
        return self.consts[v]

    def emit(self, text):
        self.lines.append("    " + text)


def term(kn, t):
    names = {"g": ("divui", 4), "t": ("remui", 4), "r32": ("remui", 32),
             "d32": ("divui", 32), "r16": ("remui", 16), "d16": ("divui", 16)}
    op, n = names[t]
    return op, n


def coordinate(kn, terms, coord):
    t, scale, offset = coord
    v = terms[t]
    if scale != 1:
        s = kn.fresh()
        kn.emit(f"{s} = arith.muli {v}, {kn.const(scale)} : index")
        v = s
    if offset:
        s = kn.fresh()
        kn.emit(f"{s} = arith.addi {v}, {kn.const(offset)} : index")
        v = s
    return v


def shape_of(vtype):
    inner = vtype[len("vector<"):-1]
    dims = inner.split("x")[:-1]
    return [int(d) for d in dims]


def positions(shape):
    if len(shape) == 1:
        return [[i] for i in range(shape[0])]
    return [[i, j] for i in range(shape[0]) for j in range(shape[1])]


def load_fragment(kn, terms, frag, mem, mtype, vtype, elt):
    if vtype == elt:  # a scalar fragment
        row, col = frag[0]
        r, c = coordinate(kn, terms, row), coordinate(kn, terms, col)
        v = kn.fresh("s")
        kn.emit(f"{v} = memref.load {mem}[{r}, {c}] : {mtype}")
        return v
    acc = kn.fresh("z")
    kn.emit(f"{acc} = arith.constant dense<0.0> : {vtype}")
    for (row, col), pos in zip(frag, positions(shape_of(vtype))):
        r, c = coordinate(kn, terms, row), coordinate(kn, terms, col)
        x = kn.fresh("e")
        kn.emit(f"{x} = memref.load {mem}[{r}, {c}] : {mtype}")
        nxt = kn.fresh("f")
        kn.emit(f"{nxt} = vector.insert {x}, {acc} [{', '.join(map(str, pos))}]"
                f" : {elt} into {vtype}")
        acc = nxt
    return acc


def store_fragment(kn, terms, frag, value, mem, mtype, vtype, elt):
    for (row, col), pos in zip(frag, positions(shape_of(vtype))):
        r, c = coordinate(kn, terms, row), coordinate(kn, terms, col)
        x = kn.fresh("d")
        kn.emit(f"{x} = vector.extract {value}[{', '.join(map(str, pos))}]"
                f" : {elt} from {vtype}")
        kn.emit(f"memref.store {x}, {mem}[{r}, {c}] : {mtype}")


FILL = """  // {name}[i][j] = (({p}*i + {q}*j + {r}) mod {mod} - {half}) * {scale}
  scf.for %i = %c0 to %c{rows} step %c1 {{
    scf.for %j = %c0 to %c{cols} step %c1 {{
      %pi = arith.muli %i, %c{p} : index
      %qj = arith.muli %j, %c{q} : index
      %s0 = arith.addi %pi, %qj : index
      %s1 = arith.addi %s0, %c{r} : index
      %s2 = arith.remui %s1, %c{mod} : index
      %s3 = arith.subi %s2, %c{half} : index
      %s4 = arith.index_cast %s3 : index to i32
      %s5 = arith.sitofp %s4 : i32 to f32
      %sc = arith.constant {scale} : f32
      %s6 = arith.mulf %s5, %sc : f32
{convert}      memref.store %s7, %{name}[%i, %j] : memref<{rows}x{cols}x{elt}>
    }}
  }}
"""


def fill(name, rows, cols, elt, p, q, r, mod, scale):
    convert = ("      %s7 = arith.truncf %s6 : f32 to " + elt + "\n"
               if elt != "f32" else "      %s7 = arith.addf %s6, %zero : f32\n")
    return FILL.format(name=name, rows=rows, cols=cols, elt=elt, p=p, q=q, r=r,
                       mod=mod, half=mod // 2, scale=scale, convert=convert)


def widen(v, elt, out, tf32=False):
    """f32 value of element `v` of type `elt` as the instruction sees it."""
    if elt == "f32" and not tf32:
        return f"      {out} = arith.addf {v}, %zero : f32\n"
    if elt == "f32":
        # tf32: the tensor core ignores the 13 low mantissa bits.
        return (f"      {out}_b = arith.bitcast {v} : f32 to i32\n"
                f"      {out}_m = arith.andi {out}_b, %tf32mask : i32\n"
                f"      {out} = arith.bitcast {out}_m : i32 to f32\n")
    return f"      {out} = arith.extf {v} : {elt} to f32\n"


def write_test(fname, title, run_lines, lanes, m, n, k, a_elt, c_elt, frags,
               op_text, types, check, scale=0.125, tf32=False, note=""):
    fa, fb, fc = frags
    vA, vB, vC = types
    kn = Kernel()
    kn.emit("%lane = gpu.thread_id x")
    terms = {}
    for t in ["g", "t", "r32", "d32", "r16", "d16"]:
        op, div = term(kn, t)
        terms[t] = f"%{t}"
        kn.emit(f"%{t} = arith.{op} %lane, {kn.const(div)} : index")
    a = load_fragment(kn, terms, fa, "%A", f"memref<{m}x{k}x{a_elt}>", vA,
                      a_elt)
    b = load_fragment(kn, terms, fb, "%B", f"memref<{k}x{n}x{a_elt}>", vB,
                      a_elt)
    c = load_fragment(kn, terms, fc, "%C", f"memref<{m}x{n}x{c_elt}>", vC,
                      c_elt)
    kn.emit(f"%res = {op_text.format(a=a, b=b, c=c)}")
    store_fragment(kn, terms, fc, "%res", "%D", f"memref<{m}x{n}x{c_elt}>",
                   vC, c_elt)
    kernel = "\n".join(kn.lines)
    consts = sorted({0, 1, 2, 3, 5, 6, 7, 8, 11, 13, 17, m, n, k, lanes})
    const_text = "\n".join(f"  %c{v} = arith.constant {v} : index"
                           for v in consts)
    tol = "1.0e-02" if c_elt == "f16" else "1.0e-05"
    body = f"""{run_lines}
// {title}
// Generated by test/Emulator/Inputs/gen-matrix-tests.py. {note}
// One warp loads its fragments of A ({m}x{k}), B ({k}x{n}) and C ({m}x{n}) with
// the instruction's per-lane layout, runs it and stores D with the
// accumulator layout; the host counts the elements of D that differ from a
// scalar reference (f32 sums of the products, tolerance {tol} relative).

func.func private @printMemrefI32(memref<*xi32>) attributes {{ llvm.emit_c_interface }}

func.func @main() {{
{const_text}
  %zero = arith.constant 0.0 : f32
  %tf32mask = arith.constant -8192 : i32
  %A = memref.alloc() : memref<{m}x{k}x{a_elt}>
  %B = memref.alloc() : memref<{k}x{n}x{a_elt}>
  %C = memref.alloc() : memref<{m}x{n}x{c_elt}>
  %D = memref.alloc() : memref<{m}x{n}x{c_elt}>
{fill("A", m, k, a_elt, 7, 5, 3, 17, scale)}{fill("B", k, n, a_elt, 3, 11, 1, 13, scale)}{fill("C", m, n, c_elt, 5, 3, 2, 7, 0.5)}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c{lanes}, %sy = %c1, %sz = %c1) {{
{kernel}
    gpu.terminator
  }}

  // The reference, and the number of elements of D that differ from it.
  %bad = memref.alloc() : memref<1xi32>
  %czero = arith.constant 0 : i32
  %cone = arith.constant 1 : i32
  %tol = arith.constant {tol} : f32
  %one = arith.constant 1.0 : f32
  %count = scf.for %i = %c0 to %c{m} step %c1 iter_args(%n0 = %czero) -> (i32) {{
    %row = scf.for %j = %c0 to %c{n} step %c1 iter_args(%n1 = %n0) -> (i32) {{
      %c_ij = memref.load %C[%i, %j] : memref<{m}x{n}x{c_elt}>
{widen("%c_ij", c_elt, "%cw")}      %sum = scf.for %kk = %c0 to %c{k} step %c1 iter_args(%acc = %cw) -> (f32) {{
        %a_ik = memref.load %A[%i, %kk] : memref<{m}x{k}x{a_elt}>
        %b_kj = memref.load %B[%kk, %j] : memref<{k}x{n}x{a_elt}>
{widen("%a_ik", a_elt, "%a32", tf32)}{widen("%b_kj", a_elt, "%b32", tf32)}        %p = arith.mulf %a32, %b32 : f32
        %next = arith.addf %acc, %p : f32
        scf.yield %next : f32
      }}
      %d_ij = memref.load %D[%i, %j] : memref<{m}x{n}x{c_elt}>
{widen("%d_ij", c_elt, "%d32")}      %diff = arith.subf %d32, %sum : f32
      %err = math.absf %diff : f32
      %mag = math.absf %sum : f32
      %mag1 = arith.addf %mag, %one : f32
      %bound = arith.mulf %tol, %mag1 : f32
      %wrong = arith.cmpf ugt, %err, %bound : f32
      %inc = arith.select %wrong, %cone, %czero : i32
      %n2 = arith.addi %n1, %inc : i32
      scf.yield %n2 : i32
    }}
    scf.yield %row : i32
  }}
  memref.store %count, %bad[%c0] : memref<1xi32>
  %u = memref.cast %bad : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}}

{check}
"""
    with open(os.path.join(OUT, fname), "w") as f:
        f.write(body)


NV_RUN = """// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=5 %s | FileCheck %s"""
AMD_RUN = """// RUN: ext-run --chip=gfx942 %s | FileCheck %s
// RUN: ext-run --chip=gfx942 --racecheck --emu-seed=5 %s | FileCheck %s"""
GOOD = """// Mismatched elements of D:
// CHECK: [0]"""

MMA = ("nvgpu.mma.sync ({a}, {b}, {c}) {{mmaShape = [16, 8, 16]}} : "
       "({A}, {B}, {C}) -> {C}")


def mma_text(a, b, c, shape="[16, 8, 16]", extra=""):
    return ("nvgpu.mma.sync ({a}, {b}, {c}) {{mmaShape = " + shape + extra +
            "}} : (" + a + ", " + b + ", " + c + ") -> " + c)


def main():
    f16 = ("vector<4x2xf16>", "vector<2x2xf16>", "vector<2x2xf32>")
    write_test("mma-sync-m16n8k16-f16.mlir",
               "nvgpu.mma.sync m16n8k16, f16 inputs, f32 accumulators.",
               NV_RUN, 32, 16, 8, 16, "f16", "f32", nv_m16n8k16("f16"),
               mma_text(*f16), f16, GOOD)
    f16acc = ("vector<4x2xf16>", "vector<2x2xf16>", "vector<2x2xf16>")
    write_test("mma-sync-m16n8k16-f16-f16acc.mlir",
               "nvgpu.mma.sync m16n8k16, f16 inputs, f16 accumulators.",
               NV_RUN, 32, 16, 8, 16, "f16", "f16", nv_m16n8k16("f16"),
               mma_text(*f16acc), f16acc, GOOD)
    bf16 = ("vector<4x2xbf16>", "vector<2x2xbf16>", "vector<2x2xf32>")
    write_test("mma-sync-m16n8k16-bf16.mlir",
               "nvgpu.mma.sync m16n8k16, bf16 inputs, f32 accumulators.",
               NV_RUN, 32, 16, 8, 16, "bf16", "f32", nv_m16n8k16("bf16"),
               mma_text(*bf16), bf16, GOOD)
    tf32 = ("vector<4x1xf32>", "vector<2x1xf32>", "vector<2x2xf32>")
    write_test("mma-sync-m16n8k8-tf32.mlir",
               "nvgpu.mma.sync m16n8k8 with tf32 inputs: the reference drops "
               "the 13 low\n// mantissa bits of A and B as the tensor core "
               "does (inputs are multiples of 0.1,\n// so an untruncated "
               "product would be off by more than the tolerance).",
               NV_RUN, 32, 16, 8, 8, "f32", "f32", nv_m16n8k8_tf32(),
               mma_text(*tf32, shape="[16, 8, 8]", extra=", tf32Enabled"),
               tf32, GOOD, scale=0.1, tf32=True)
    # The wrong layout: A's fragment loaded as if it were transposed
    # (row and column swapped); D must come out wrong.
    a, b, c = nv_m16n8k16("f16")
    write_test("mma-sync-wrong-layout.mlir",
               "A kernel that places A's fragment registers as if the layout "
               "were transposed\n// (row and column swapped): the emulator "
               "must give wrong numbers, as the GPU would.",
               NV_RUN.replace("ext-run", "ext-run").replace(
                   "| FileCheck %s", "| FileCheck %s --check-prefix=WRONG"),
               32, 16, 8, 16, "f16", "f32", (transposed(a), b, c),
               mma_text(*f16), f16,
               "// Most of D differs from the reference:\n"
               "// WRONG: [{{[1-9][0-9]*}}]")
    mfma = lambda m, n, k, ta, tc: (
        "amdgpu.mfma " + f"{m}x{n}x{k}" + " {a} * {b} + {c} blgp = none : " +
        ta + ", " + ta + ", " + tc)
    write_test("mfma-32x32x8-f16.mlir",
               "amdgpu.mfma 32x32x8 f16 (v_mfma_f32_32x32x8_f16) on a 64-lane "
               "wave.", AMD_RUN, 64, 32, 32, 8, "f16", "f32", amd(32, 8),
               mfma(32, 32, 8, "vector<4xf16>", "vector<16xf32>"),
               ("vector<4xf16>", "vector<4xf16>", "vector<16xf32>"), GOOD)
    write_test("mfma-16x16x16-f16.mlir",
               "amdgpu.mfma 16x16x16 f16 (v_mfma_f32_16x16x16_f16) on a "
               "64-lane wave.", AMD_RUN, 64, 16, 16, 16, "f16", "f32",
               amd(16, 16),
               mfma(16, 16, 16, "vector<4xf16>", "vector<4xf32>"),
               ("vector<4xf16>", "vector<4xf16>", "vector<4xf32>"), GOOD)
    write_test("mfma-32x32x2-f32.mlir",
               "amdgpu.mfma 32x32x2 f32 (v_mfma_f32_32x32x2_f32) on a 64-lane "
               "wave.", AMD_RUN, 64, 32, 32, 2, "f32", "f32", amd(32, 2),
               mfma(32, 32, 2, "f32", "vector<16xf32>"),
               ("f32", "f32", "vector<16xf32>"), GOOD)


def write_ldmatrix_test():
    """ldmatrix x1/x2/x4, with and without .trans, from a 32x8 f16 tile in
    shared memory whose element (r, c) is 8r + c; lane L supplies row
    (5L + 3) % 32, so each matrix's rows come from scattered addresses."""
    variants = [(1, False), (2, False), (4, False), (1, True), (2, True),
                (4, True)]
    kn = Kernel()
    # Constants the kernel text below defines.
    kn.consts = {v: f"%k{v}" for v in (0, 1, 3, 5, 8, 32)}
    for v, (tiles, trans) in enumerate(variants):
        t = "true" if trans else "false"
        r = kn.fresh("m")
        kn.emit(f"{r} = nvgpu.ldmatrix %S[%row, %k0] {{numTiles = {tiles} : i32,"
                f" transpose = {t}}} : memref<32x8xf16, #gpu.address_space"
                f"<workgroup>> -> vector<{tiles}x2xf16>")
        for i in range(tiles):
            for j in range(2):
                x = kn.fresh("x")
                kn.emit(f"{x} = vector.extract {r}[{i}, {j}] : f16 from "
                        f"vector<{tiles}x2xf16>")
                kn.emit(f"memref.store {x}, %out[{kn.const(v)}, %tx, "
                        f"{kn.const(2 * i + j)}] : memref<6x32x8xf16>")
    loads = "\n".join(kn.lines)
    text = f"""// RUN: ext-run %s | FileCheck %s
// RUN: ext-run --racecheck --emu-seed=3 %s | FileCheck %s
// RUN: ext-run --bank-conflicts %s 2>&1 | FileCheck %s --check-prefix=BANKS
// nvgpu.ldmatrix x1, x2 and x4, without and with .trans (PTX
// ldmatrix.sync.aligned.m8n8.x{{1,2,4}}[.trans].shared.b16).
// Generated by test/Emulator/Inputs/gen-matrix-tests.py.
// A 32x8 f16 tile in shared memory holds 8r + c at (r, c); lane L supplies
// the address of row p(L) = (5L + 3) % 32. Matrix i is made of the rows
// supplied by lanes 8i..8i+7, so lane L must receive, in register i,
//   without .trans: (p(8i + L/4), 2(L%4) + j)            for j = 0, 1
//   with .trans:    (p(8i + 2(L%4) + j), L/4)            for j = 0, 1
// The host counts the lanes' elements that differ from that.

func.func private @printMemrefI32(memref<*xi32>) attributes {{ llvm.emit_c_interface }}

func.func @main() {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %out = memref.alloc() : memref<6x32x8xf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {{
    %S = memref.alloc() : memref<32x8xf16, #gpu.address_space<workgroup>>
    %k0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k8 = arith.constant 8 : index
    %k32 = arith.constant 32 : index
    // Lane L writes row L.
    %base = arith.muli %tx, %k8 : index
    scf.for %c = %k0 to %k8 step %k1 {{
      %v = arith.addi %base, %c : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f16
      memref.store %vf, %S[%tx, %c] : memref<32x8xf16, #gpu.address_space<workgroup>>
    }}
    gpu.barrier
    %k5 = arith.constant 5 : index
    %k3 = arith.constant 3 : index
    %r5 = arith.muli %tx, %k5 : index
    %r53 = arith.addi %r5, %k3 : index
    %row = arith.remui %r53, %k32 : index
{loads}
    gpu.terminator
  }}

  %bad = memref.alloc() : memref<1xi32>
  %czero = arith.constant 0 : i32
  %cone = arith.constant 1 : i32
  %tiles = arith.constant dense<[1, 2, 4, 1, 2, 4]> : vector<6xindex>
  %count = scf.for %v = %c0 to %c6 step %c1 iter_args(%n0 = %czero) -> (i32) {{
    %ntiles = vector.extract %tiles[%v] : index from vector<6xindex>
    %trans = arith.cmpi uge, %v, %c3 : index
    %nv = scf.for %lane = %c0 to %c32 step %c1 iter_args(%n1 = %n0) -> (i32) {{
      %nl = scf.for %i = %c0 to %ntiles step %c1 iter_args(%n2 = %n1) -> (i32) {{
        %nj = scf.for %j = %c0 to %c2 step %c1 iter_args(%n3 = %n2) -> (i32) {{
          %g = arith.divui %lane, %c4 : index
          %t = arith.remui %lane, %c4 : index
          %i8 = arith.muli %i, %c8 : index
          // Without .trans: row p(8i + g), column 2t + j.
          %srcA = arith.addi %i8, %g : index
          %t2 = arith.muli %t, %c2 : index
          %colA = arith.addi %t2, %j : index
          // With .trans: row p(8i + 2t + j), column g.
          %srcB = arith.addi %i8, %colA : index
          %src = arith.select %trans, %srcB, %srcA : index
          %col = arith.select %trans, %g, %colA : index
          %p5 = arith.muli %src, %c5 : index
          %p53 = arith.addi %p5, %c3 : index
          %prow = arith.remui %p53, %c32 : index
          %e8 = arith.muli %prow, %c8 : index
          %expect = arith.addi %e8, %col : index
          %reg = arith.muli %i, %c2 : index
          %slot = arith.addi %reg, %j : index
          %got = memref.load %out[%v, %lane, %slot] : memref<6x32x8xf16>
          %goti = arith.fptosi %got : f16 to i32
          %expi = arith.index_cast %expect : index to i32
          %wrong = arith.cmpi ne, %goti, %expi : i32
          %inc = arith.select %wrong, %cone, %czero : i32
          %n4 = arith.addi %n3, %inc : i32
          scf.yield %n4 : i32
        }}
        scf.yield %nj : i32
      }}
      scf.yield %nl : i32
    }}
    scf.yield %nv : i32
  }}
  memref.store %count, %bad[%c0] : memref<1xi32>
  %u = memref.cast %bad : memref<1xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}}

// Mismatched elements:
// CHECK: [0]

// Each ldmatrix is one request of 16-byte rows (8 per matrix): 1, 2 or 4
// wavefronts, free of conflicts since the 8 rows of each matrix fall in
// distinct groups of 4 banks.
// BANKS-COUNT-6: 1 requests {{{{[124]}}}} wavefronts ratio 1.000 worst 1-way
"""
    with open(os.path.join(OUT, "ldmatrix.mlir"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
    write_ldmatrix_test()
