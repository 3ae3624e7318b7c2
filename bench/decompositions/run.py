#!/usr/bin/env python3
"""Predicted SM utilization of every tile decomposition, and auto's choice.

For each GEMM shape (small, square, tall-skinny, wave-quantized, and shapes
from the Stream-K paper) and 108 / 132 SMs, asks ext-apply-schedule to
resolve #ext.auto with report=true: the remark lists every candidate the
cost model (ext/Model/TileWork.h) considered with its predicted
utilization. The table shows data-parallel, the best split-K, stream_k,
stream_k_dp, stream_k_2tile and auto, and checks

  * auto is never predicted worse than the best of data-parallel and split-K;
  * stream_k reaches 0.95 on every row with at least 20 iterations per CTA.

Each row is also run on the CPU emulator for correctness, with the same
tile grid and iteration count but 8x8x4 tiles (the decomposition's index
math and fixup are those of the row; only the tile's inner work is
smaller), integer data, and max |C - reference| must be 0. Rows above
--emulate-limit iterations are not emulated (marked '-').

Usage: bench/decompositions/run.py [--build build] [--emulate-limit N]
Writes bench/decompositions/results.txt.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (name, M, N, K, BM, BN, BK)
SHAPES = [
    ("small 128x128x4096", 128, 128, 4096, 64, 64, 32),
    ("small-M 16x4096x4096", 16, 4096, 4096, 16, 64, 32),
    ("square 1024^3", 1024, 1024, 1024, 128, 128, 32),
    ("square 4096^3", 4096, 4096, 4096, 128, 128, 32),
    ("tall-skinny 8192x64x2048", 8192, 64, 2048, 128, 64, 32),
    ("wave+1 133 tiles", 133 * 128, 128, 2048, 128, 128, 32),
    ("wave+1 109 tiles", 109 * 128, 128, 2048, 128, 128, 32),
    ("m!=n 384x128x640", 384, 128, 640, 128, 128, 64),
    ("paper 3840x4096x4096", 3840, 4096, 4096, 128, 128, 32),
    ("paper 1920x2048x8192", 1920, 2048, 8192, 128, 128, 32),
    ("paper 256x256x65536", 256, 256, 65536, 128, 128, 32),
]

TEMPLATE = """
func.func private @printMemrefF32(memref<*xf32>) attributes {{ llvm.emit_c_interface }}
func.func @gemm(%A: memref<{M}x{K}xf32>, %B: memref<{K}x{N}xf32>, %C: memref<{M}x{N}xf32>) {{
  ext.compute [#ext.axis<"i", spatial, {M}>, #ext.axis<"j", spatial, {N}>, #ext.axis<"k", reduce, {K}>]
      ins(%A, %B : memref<{M}x{K}xf32>, memref<{K}x{N}xf32>) outs(%C : memref<{M}x{N}xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) attributes {{schedule = #ext.schedule<tile = [{BM}, {BN}, {BK}], blocks = ["i", "j"],
        threads = [{TM}, {TN}, 1], decomposition = {DECOMP}>}} {{
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }}
  return
}}
"""

MAIN = """
func.func @reference(%A: memref<{M}x{K}xf32>, %B: memref<{K}x{N}xf32>, %C: memref<{M}x{N}xf32>) {{
  ext.compute [#ext.axis<"i", spatial, {M}>, #ext.axis<"j", spatial, {N}>, #ext.axis<"k", reduce, {K}>]
      ins(%A, %B : memref<{M}x{K}xf32>, memref<{K}x{N}xf32>) outs(%C : memref<{M}x{N}xf32>)
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {{
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    ext.yield %p : f32
  }}
  return
}}
func.func @main() {{
  %A = memref.alloc() : memref<{M}x{K}xf32>
  %B = memref.alloc() : memref<{K}x{N}xf32>
  %C = memref.alloc() : memref<{M}x{N}xf32>
  %R = memref.alloc() : memref<{M}x{N}xf32>
  %err = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", spatial, {M}>, #ext.axis<"k", spatial, {K}>]
      outs(%A : memref<{M}x{K}xf32>) maps [affine_map<(i, k) -> (i, k)>] {{
  ^bb0:
    %i = ext.index "i" : index
    %k = ext.index "k" : index
    %v = affine.apply affine_map<(i, k) -> ((i * 3 + k * 5) mod 7 - 3)>(%i, %k)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }}
  ext.compute [#ext.axis<"k", spatial, {K}>, #ext.axis<"j", spatial, {N}>]
      outs(%B : memref<{K}x{N}xf32>) maps [affine_map<(k, j) -> (k, j)>] {{
  ^bb0:
    %k = ext.index "k" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(k, j) -> ((k * 7 + j * 2) mod 5 - 2)>(%k, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    ext.yield %vf : f32
  }}
  call @gemm(%A, %B, %C) : (memref<{M}x{K}xf32>, memref<{K}x{N}xf32>, memref<{M}x{N}xf32>) -> ()
  call @reference(%A, %B, %R) : (memref<{M}x{K}xf32>, memref<{K}x{N}xf32>, memref<{M}x{N}xf32>) -> ()
  ext.compute [#ext.axis<"i", reduce, {M}>, #ext.axis<"j", reduce, {N}>]
      ins(%C, %R : memref<{M}x{N}xf32>, memref<{M}x{N}xf32>) outs(%err : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {{
  ^bb0(%c: f32, %r: f32):
    %d = arith.subf %c, %r : f32
    %a = math.absf %d : f32
    ext.yield %a : f32
  }}
  %u = memref.cast %err : memref<f32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}}
"""

LINE = re.compile(r"^\s+(\*)?\s*(\S.*?): utilization ([0-9.]+), grid (\d+), "
                  r"waves (\d+), max iterations per CTA (\d+), fixups (\d+)")
CHOICE = re.compile(r"decomposition (#ext\.[^ ]+(?: [^ ]+)*?) for (\d+) tiles "
                    r"of (\d+) iterations on (\d+) SMs")


def gemm_text(m, n, k, bm, bn, bk, decomposition):
    return TEMPLATE.format(M=m, N=n, K=k, BM=bm, BN=bn, BK=bk,
                           TM=min(bm, 16), TN=min(bn, 16), DECOMP=decomposition)


def report(build, shape, sms):
    _, m, n, k, bm, bn, bk = shape
    text = gemm_text(m, n, k, bm, bn, bk, "#ext.auto")
    out = subprocess.run(
        [os.path.join(build, "bin", "ext-opt"),
         f"--ext-apply-schedule=sms={sms} report=true", "-o", os.devnull],
        input=text, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ext-opt failed on {shape[0]}:\n{out.stderr}")
    candidates, choice = {}, None
    for line in out.stderr.splitlines():
        mm = LINE.match(line)
        if mm:
            candidates[mm.group(2)] = dict(
                util=float(mm.group(3)), grid=int(mm.group(4)),
                waves=int(mm.group(5)), maxiters=int(mm.group(6)),
                fixups=int(mm.group(7)))
            if mm.group(1):
                choice = mm.group(2)
    return candidates, choice


def emulate(build, shape, sms, limit):
    """The row's tile grid and iterations with 8x8x4 tiles, auto on `sms`."""
    _, m, n, k, bm, bn, bk = shape
    tm, tn, it = -(-m // bm), -(-n // bn), -(-k // bk)
    if tm * tn * it > limit:
        return "-"
    M, N, K = tm * 8, tn * 8, it * 4
    text = gemm_text(M, N, K, 8, 8, 4, "#ext.auto") + MAIN.format(M=M, N=N, K=K)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([os.path.join(build, "bin", "ext-run"),
                              f"--sms={sms}", f.name],
                             capture_output=True, text=True, timeout=1800)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        return "FAIL (" + out.stderr.strip().splitlines()[-1][:60] + ")"
    return "ok" if out.stdout.strip().splitlines()[-1] == "[0]" else "WRONG"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--emulate-limit", type=int, default=20000,
                    help="emulate rows of at most this many tile iterations")
    args = ap.parse_args()
    rows, failures = [], []
    header = (f"{'shape':<26} {'SMs':>4} {'tiles':>6} {'iters':>5} {'it/CTA':>7} "
              f"{'DP':>6} {'splitK':>6} {'SK':>6} {'SK-DP':>6} {'SK-2t':>6} "
              f"{'auto':>6}  {'auto picks':<36} emulator")
    for shape in SHAPES:
        for sms in (108, 132):
            c, choice = report(args.build, shape, sms)
            _, m, n, k, bm, bn, bk = shape
            tiles = -(-m // bm) * -(-n // bn)
            iters = -(-k // bk)
            dp = c["data_parallel"]["util"]
            split = max((v["util"] for name, v in c.items()
                         if name.startswith("split_k")), default=0.0)
            sk_name = f"stream_k<grid = {sms}>"
            sk = c[sk_name]["util"]
            skdp = c["stream_k_dp"]["util"]
            sk2 = c["stream_k_2tile"]["util"]
            auto = c[choice]["util"]
            per_cta = tiles * iters / min(sms, tiles * iters)
            if auto + 1e-9 < max(dp, split):
                failures.append(f"{shape[0]} on {sms}: auto {auto} < {max(dp, split)}")
            if per_cta >= 20 and sk < 0.95:
                failures.append(f"{shape[0]} on {sms}: stream_k {sk:.3f} < 0.95 "
                                f"at {per_cta:.0f} iterations per CTA")
            emu = emulate(args.build, shape, sms, args.emulate_limit)
            if emu not in ("ok", "-"):
                failures.append(f"{shape[0]} on {sms}: emulator {emu}")
            rows.append(f"{shape[0]:<26} {sms:>4} {tiles:>6} {iters:>5} {per_cta:>7.1f} "
                        f"{dp:>6.3f} {split:>6.3f} {sk:>6.3f} {skdp:>6.3f} {sk2:>6.3f} "
                        f"{auto:>6.3f}  {choice:<36} {emu}")
            print(rows[-1], flush=True)
    lines = [header] + rows + [""]
    lines.append("Predicted by ext/Model/TileWork.h's model (list scheduling of "
                 "the CTAs on the SMs, one CTA per SM; a partial's store or "
                 "combine costs 3/BK iterations).")
    lines += ["CHECK FAILED: " + f for f in failures] or ["All checks hold."]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(HERE, "results.txt"), "w") as f:
        f.write(text)
    print(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
