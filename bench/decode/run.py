#!/usr/bin/env python3
"""Decode GEMMs: one build per decomposition serves every M.

C[M, N] = A[M, K] @ B[K, N] with N = K = 4096, f16 inputs and f32
accumulation, M = 1 .. 256: an LLM's decode step, M being the batch. The
schedule is one decode tile (16 x 128 x 64 on mma.sync m16n8k16, 4 warps,
3 stages), so the grid is ceil(M / 16) x 32 tiles of 64 iterations: 32 to
512 tiles, which leaves most of a 132-SM H200 idle under data-parallel.

1. Model (every M from 1 to 256; the table shows some): for each single
   decomposition (data-parallel, split-K serial and parallel with 2, 4, 8
   and 16 slices, stream_k on the SM count, stream_k_dp, stream_k_2tile)
   the cost model's predicted SM utilization and makespan
   (ext/Model/TileWork.h through ext.predict_work), and `auto`'s choice
   at launch (ext.choose_at_launch: the function the kernels' host code
   calls when it runs). Model time = makespan x the time of one main-loop
   iteration of one CTA, from a roofline of the tile on an H200: an
   iteration moves (16 + 128) x 64 x 2 bytes and the SMs share 4.8 TB/s of
   HBM evenly (36 GB/s each; L2 hits and an SM's ability to draw more than
   its share when few SMs are busy are ignored: this flatters Stream-K
   against data-parallel at small M), against 2 x 16 x 128 x 64 flops at
   half the 989 TFLOP/s f16 peak (mma.sync, as bench/roofline assumes):
   memory bound, 0.51 us per iteration. Checks, at every M:
   * auto's predicted makespan is within 5% of the best single
     decomposition's;
   * auto's predicted utilization is at least 0.9 for M >= 8.
2. Build: each decomposition is built once over a symbolic M (ext.var) for
   sm_80 (mma.sync); the PTX's kernel entries are counted (one; two for
   parallel split-K, whose reduction is a second launch).
3. Emulator: the same schedule and decompositions (auto included, on 132
   SMs) at reduced N = 256, K = 512 (2 x ceil(M / 16) tiles of 8
   iterations), one program per decomposition calling its one compiled
   kernel at M = 1, 7, 16, 33, 100 on gpu.alloc'ed buffers, checked
   against the host reference (integer data: exact).
4. Static mix (where ptxas and ../shared/tools/sass are present): the
   data-parallel and stream_k kernels at a static M = 256, over a symbolic
   M, over a symbolic M with multiple_of = 16, and over symbolic M and K
   (K without a fact, and with multiple_of = 64), compiled by ptxas for
   sm_80: registers, spills, and the k-step's SASS mix (HMMA, LDSM, LDGSTS,
   integer/address instructions, local stores). Masking must stay at the
   edges: the symbolic kernels' HMMA, LDSM and LDGSTS per k-step are the
   static kernel's (checked; not for a K without a fact, whose A rows have
   unknown length, so its copies move one element at a time).
5. GPU (--gpu, where one is present): the same programs at N = K = 4096 and
   every M of the table, timed (--reps launches between two clock reads)
   with `ext-run --target=cuda`, against cuBLAS's GemmEx (bench/gpu's
   wrappers).

Usage: PYTHONPATH=build/python_packages /usr/bin/python3 bench/decode/run.py
           [--build build] [--sms 132] [--no-emulate] [--gpu] [--reps N]
Writes bench/decode/results.md; exits 1 if a check fails.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import kstep_mix  # noqa: E402  (bench/kstep_mix.py)

N = K = 4096
BM, BN, BK = 16, 128, 64
SCHEDULE = dict(tile=(BM, BN, BK), mma="m16n8k16", threads=[4, 32, 1], warps=[1, 4],
                cache=[0, 1], stages=3, vector=8)
TABLE_MS = [1, 2, 4, 8, 16, 17, 32, 48, 64, 100, 128, 200, 256]
EMULATED_MS = [1, 7, 16, 33, 100]

# H200 (bench/roofline's machine model): HBM bytes/s, SMs, f16 tensor peak.
HBM = 4.8e12
PEAK_F16 = 989.4e12
MMA_SYNC_FRACTION = 0.5


def iteration_seconds(sms):
    memory = (BM + BN) * BK * 2 / (HBM / sms)
    tensor = 2 * BM * BN * BK / (PEAK_F16 * MMA_SYNC_FRACTION / sms)
    return max(memory, tensor)


def single_decompositions(sms):
    """(label, ext.predict_work arguments, ext.matmul arguments)."""
    out = [("data_parallel", ("data_parallel", 0), dict(decomposition="data_parallel"))]
    for mode in ("serial", "parallel"):
        for s in (2, 4, 8, 16):
            kind = "split_k" if mode == "serial" else "split_k_parallel"
            out.append((f"split_k {s}{' par' if mode == 'parallel' else ''}", (kind, s),
                        dict(decomposition="split_k", split_k=s, split_k_mode=mode)))
    out.append(("stream_k", ("stream_k", 0), dict(decomposition="stream_k", sms=sms)))
    out.append(("stream_k_dp", ("stream_k_dp", 0), dict(decomposition="stream_k_dp", sms=sms)))
    out.append(("stream_k_2tile", ("stream_k_2tile", 0),
                dict(decomposition="stream_k_2tile", sms=sms)))
    return out


def model(sms):
    """Per M: every single decomposition's prediction and auto's."""
    iters = -(-K // BK)
    rows = {}
    for m in range(1, 257):
        tiles = -(-m // BM) * -(-N // BN)
        preds = {}
        for label, (kind, param), _ in single_decompositions(sms):
            try:
                preds[label] = ext.predict_work(kind, tiles, iters, sms, param, BK)
            except ValueError:
                pass  # split-K slices beyond the iterations: not a candidate
        pick, auto = ext.choose_at_launch(tiles, iters, sms, BK)
        rows[m] = dict(tiles=tiles, iters=iters, preds=preds, pick=pick, auto=auto)
    return rows


def program(n, k, ms, decomposition_fields, reps, check, sms):
    """An MLIR program with one GEMM over a symbolic M (the decomposition's
    one compiled kernel, from the Python schedule) called at every M of
    `ms` on rows [0, M) of gpu.alloc'ed buffers: per M it prints M, the
    seconds of `reps` calls and max |C - reference| (-1 without `check`)."""
    w = ext.matmul(ext.var("M"), n, k, dtype="float16", chip="sm_90", **SCHEDULE,
                   **decomposition_fields)
    module = w.mlir()
    start = module.index("func.func @kernel")
    aliases = "".join(line + "\n" for line in module.splitlines() if line.startswith("#"))
    text = aliases + module[start:module.rindex("}")].rstrip().replace("@kernel", "@gemm", 1)
    mmax = max(ms)
    a, b, c = f"memref<{mmax}x{k}xf16>", f"memref<{k}x{n}xf16>", f"memref<{mmax}x{n}xf32>"
    da, dc = f"memref<?x{k}xf16>", f"memref<?x{n}xf32>"
    fill = lambda name, t, e: f'''
  ext.compute [#ext.axis<"i", spatial, {e[0]}>, #ext.axis<"j", spatial, {e[1]}>]
      outs({name} : {t}) maps [affine_map<(i, j) -> (i, j)>] {{
  ^bb0:
    %i = ext.index "i" : index
    %j = ext.index "j" : index
    %v = affine.apply affine_map<(i, j) -> ((i * 3 + j * 5) mod 11 - 5)>(%i, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f16
    ext.yield %vf : f16
  }}'''
    body = [f'''func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()
{text}
func.func @reference(%A: {da}, %B: {b}, %C: {dc}) {{
  ext.compute [#ext.axis<"i", spatial, ?>, #ext.axis<"j", spatial, {n}>, #ext.axis<"k", reduce, {k}>]
      ins(%A, %B : {da}, {b}) outs(%C : {dc})
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {{
  ^bb0(%a: f16, %b: f16):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    ext.yield %p : f32
  }}
  return
}}

func.func @main() {{
  %A = memref.alloc() : {a}
  %B = memref.alloc() : {b}
  %C = memref.alloc() : {c}
  %R = memref.alloc() : {c}{fill("%A", a, (mmax, k))}{fill("%B", b, (k, n))}
  %t0 = gpu.wait async
  %dA, %t1 = gpu.alloc async [%t0] () : {a}
  %dB, %t2 = gpu.alloc async [%t1] () : {b}
  %dC, %t3 = gpu.alloc async [%t2] () : {c}
  %t4 = gpu.memcpy async [%t3] %dA, %A : {a}, {a}
  %t5 = gpu.memcpy async [%t4] %dB, %B : {b}, {b}
  gpu.wait [%t5]
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %reps = arith.constant {reps} : index''']
    for m in ms:
        body.append(f'''
  // M = {m}: rows [0, {m}) of the buffers, as the kernel's memref<?x...>.
  %a{m}s = memref.subview %dA[0, 0] [{m}, {k}] [1, 1] : {a} to memref<{m}x{k}xf16, strided<[{k}, 1]>>
  %a{m} = memref.cast %a{m}s : memref<{m}x{k}xf16, strided<[{k}, 1]>> to {da}
  %cv{m}s = memref.subview %dC[0, 0] [{m}, {n}] [1, 1] : {c} to memref<{m}x{n}xf32, strided<[{n}, 1]>>
  %cv{m} = memref.cast %cv{m}s : memref<{m}x{n}xf32, strided<[{n}, 1]>> to {dc}
  call @gemm(%a{m}, %dB, %cv{m}) : ({da}, {b}, {dc}) -> ()
  %s0_{m} = call @rtclock() : () -> f64
  scf.for %r = %c0 to %reps step %c1 {{
    func.call @gemm(%a{m}, %dB, %cv{m}) : ({da}, {b}, {dc}) -> ()
  }}
  %s1_{m} = call @rtclock() : () -> f64
  %dt{m} = arith.subf %s1_{m}, %s0_{m} : f64
  %mf{m} = arith.constant {float(m)} : f64
  call @printF64(%mf{m}) : (f64) -> ()
  call @printNewline() : () -> ()
  call @printF64(%dt{m}) : (f64) -> ()
  call @printNewline() : () -> ()''')
        if check:
            body.append(f'''
  %t6_{m} = gpu.wait async
  %t7_{m} = gpu.memcpy async [%t6_{m}] %C, %dC : {c}, {c}
  gpu.wait [%t7_{m}]
  %ha{m}s = memref.subview %A[0, 0] [{m}, {k}] [1, 1] : {a} to memref<{m}x{k}xf16, strided<[{k}, 1]>>
  %ha{m} = memref.cast %ha{m}s : memref<{m}x{k}xf16, strided<[{k}, 1]>> to {da}
  %hc{m}s = memref.subview %C[0, 0] [{m}, {n}] [1, 1] : {c} to memref<{m}x{n}xf32, strided<[{n}, 1]>>
  %hc{m} = memref.cast %hc{m}s : memref<{m}x{n}xf32, strided<[{n}, 1]>> to {dc}
  %hr{m}s = memref.subview %R[0, 0] [{m}, {n}] [1, 1] : {c} to memref<{m}x{n}xf32, strided<[{n}, 1]>>
  %hr{m} = memref.cast %hr{m}s : memref<{m}x{n}xf32, strided<[{n}, 1]>> to {dc}
  call @reference(%ha{m}, %B, %hr{m}) : ({da}, {b}, {dc}) -> ()
  %E{m} = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, ?>, #ext.axis<"j", reduce, {n}>]
      ins(%hc{m}, %hr{m} : {dc}, {dc}) outs(%E{m} : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {{
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %e = math.absf %d : f32
    ext.yield %e : f32
  }}
  %err{m} = memref.load %E{m}[] : memref<f32>
  %err64_{m} = arith.extf %err{m} : f32 to f64''')
        else:
            body.append(f"\n  %err64_{m} = arith.constant -1.0 : f64")
        body.append(f'''
  call @printF64(%err64_{m}) : (f64) -> ()
  call @printNewline() : () -> ()''')
    body.append("\n  return\n}\n")
    return "".join(body)


def sass_section(failures):
    """The k-step SASS mix of static and symbolic kernels (ptxas, sm_80)."""
    why = kstep_mix.available()
    if why:
        return [f"\n## Static mix: not measured ({why})\n"]
    out = ["\n## Static mix: k-step SASS per CTA (ptxas, sm_80; sass_mix.py)\n",
           "| kernel | M | registers | stack | HMMA | LDSM | LDGSTS | int/addr | STL |",
           "|---|---|---|---|---|---|---|---|---|"]
    # (label, M, K, whether the k-step must match the static kernel's): a
    # symbolic K's rows have unknown length, so without a fact its copies
    # of A move one element at a time (reported, not checked).
    sizes = [("256", 256, K, True), ("symbolic", ext.var("M"), K, True),
             ("symbolic, multiple_of 16", ext.var("M", multiple_of=16), K, True),
             ("symbolic, K symbolic", ext.var("M"), ext.var("K"), False),
             ("symbolic, K symbolic multiple_of 64", ext.var("M"),
              ext.var("K", multiple_of=64), True)]
    for label, fields in (("data_parallel", dict(decomposition="data_parallel")),
                          ("stream_k", dict(decomposition="stream_k", sms=132))):
        base = None
        for size_label, m, k, checked in sizes:
            ptx = ext.matmul(m, N, k, dtype="float16", **SCHEDULE, **fields).build(
                "nvvm", chip="sm_80").ptx
            mix = kstep_mix.kstep_mix(ptx)
            if mix is None:
                out.append(f"| {label} | {size_label} | ptxas/sass_mix failed | | | | | | |")
                continue
            row = {k: mix.get(k, 0) for k in ("HMMA", "LDSM", "LDGSTS", "int/addr", "STL")}
            out.append(f"| {label} | {size_label} | {mix['registers']} | {mix['stack']} | "
                       f"{row['HMMA']} | {row['LDSM']} | {row['LDGSTS']} | {row['int/addr']} | "
                       f"{row['STL']} |")
            if base is None:
                base = row
            elif checked and any(row[c] != base[c] for c in ("HMMA", "LDSM", "LDGSTS")):
                failures.append(f"{label}, M {size_label}: k-step HMMA/LDSM/LDGSTS "
                                f"{row['HMMA']}/{row['LDSM']}/{row['LDGSTS']} differ from the "
                                f"static kernel's {base['HMMA']}/{base['LDSM']}/{base['LDGSTS']}")
    print("\n".join(out), flush=True)
    return out


def run_program(build, text, target, sms):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        p = subprocess.run([os.path.join(build, "bin", "ext-run"), f"--target={target}",
                            "--chip=sm_90", f"--sms={sms}", f.name],
                           capture_output=True, text=True, timeout=3600)
    finally:
        os.unlink(f.name)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["?"])[-1][:120]
    vals = [float(x) for x in p.stdout.split()]
    return {int(vals[i]): (vals[i + 1], vals[i + 2]) for i in range(0, len(vals), 3)}, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--no-emulate", action="store_true")
    ap.add_argument("--gpu", action="store_true", help="time on a GPU against cuBLAS")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    sms, failures, out = args.sms, [], []
    t_it = iteration_seconds(sms)

    # 1. Model.
    rows = model(sms)
    for m, r in rows.items():
        best = min(r["preds"].items(), key=lambda kv: kv[1]["makespan"])
        r["best"] = best
        ratio = r["auto"]["makespan"] / best[1]["makespan"]
        r["ratio"] = ratio
        if ratio > 1.05:
            failures.append(f"M = {m}: auto ({r['pick']}) predicted {ratio:.3f}x the best "
                            f"single decomposition ({best[0]})")
        if m >= 8 and r["auto"]["utilization"] < 0.9:
            failures.append(f"M = {m}: auto's predicted utilization "
                            f"{r['auto']['utilization']:.3f} < 0.9")
    split_names = [d[0] for d in single_decompositions(sms) if d[0].startswith("split_k")]
    out.append(f"## Model: predicted SM utilization on {sms} SMs "
               f"(tile {BM}x{BN}x{BK}, N = K = {N})\n")
    out.append("| M | tiles | DP | best split-K | stream_k | stream_k_dp | stream_k_2tile | "
               "auto picks | auto | auto / best time | auto model us | DP model us |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m in TABLE_MS:
        r = rows[m]
        p = r["preds"]
        split = max((n for n in split_names if n in p), key=lambda n: p[n]["utilization"])
        out.append(
            f"| {m} | {r['tiles']} | {p['data_parallel']['utilization']:.3f} | "
            f"{p[split]['utilization']:.3f} ({split}) | {p['stream_k']['utilization']:.3f} | "
            f"{p['stream_k_dp']['utilization']:.3f} | {p['stream_k_2tile']['utilization']:.3f} | "
            f"{r['pick']} | {r['auto']['utilization']:.3f} | {r['ratio']:.3f} | "
            f"{r['auto']['makespan'] * t_it * 1e6:.1f} | "
            f"{p['data_parallel']['makespan'] * t_it * 1e6:.1f} |")
    worst = max(rows.items(), key=lambda kv: kv[1]["ratio"])
    low = min(((m, r) for m, r in rows.items() if m >= 8),
              key=lambda kv: kv[1]["auto"]["utilization"])
    out.append(f"\nOver every M in 1..256: auto's worst predicted time against the best "
               f"single decomposition {worst[1]['ratio']:.4f}x (M = {worst[0]}); its lowest "
               f"utilization at M >= 8 {low[1]['auto']['utilization']:.3f} (M = {low[0]}). "
               f"One iteration: {t_it * 1e6:.3f} us (memory bound).\n")
    print("\n".join(out), flush=True)

    # 2. Build: one kernel per decomposition over a symbolic M.
    decomps = [(label, fields) for label, _, fields in single_decompositions(sms)
               if label in ("data_parallel", "split_k 4", "split_k 4 par", "stream_k",
                            "stream_k_dp", "stream_k_2tile")]
    decomps.append(("auto", dict(decomposition="auto", sms=sms)))
    out.append("## Build: one kernel per decomposition over a symbolic M (sm_80, mma.sync)\n")
    out.append("| decomposition | PTX entries |")
    out.append("|---|---|")
    for label, fields in decomps:
        w = ext.matmul(ext.var("M"), N, K, dtype="float16", **SCHEDULE, **fields)
        entries = w.build("nvvm", chip="sm_80").ptx.count(".entry")
        want = 2 if label.endswith("par") else 1
        if entries != want:
            failures.append(f"{label}: {entries} PTX entries, expected {want}")
        out.append(f"| {label} | {entries} |")
    print("\n".join(out[-len(decomps) - 3:]), flush=True)

    # 3. Emulator at reduced N, K.
    if not args.no_emulate:
        out.append(f"\n## Emulator: N = 256, K = 512, M = {EMULATED_MS}, max |C - reference|\n")
        out.append("| decomposition | " + " | ".join(f"M = {m}" for m in EMULATED_MS) + " |")
        out.append("|---|" + "---|" * len(EMULATED_MS))
        for label, fields in decomps:
            res, err = run_program(args.build, program(256, 512, EMULATED_MS, fields, 0, True, sms),
                                   "cpu", sms)
            if res is None:
                failures.append(f"emulator, {label}: {err}")
                out.append(f"| {label} | failed: {err} |")
            else:
                cells = []
                for m in EMULATED_MS:
                    e = res.get(m, (0, float("nan")))[1]
                    cells.append("0" if e == 0 else f"WRONG {e:g}")
                    if e != 0:
                        failures.append(f"emulator, {label}, M = {m}: max error {e:g}")
                out.append(f"| {label} | " + " | ".join(cells) + " |")
            print(out[-1], flush=True)

    # 4. Static mix.
    out += sass_section(failures)

    # 5. GPU.
    if args.gpu:
        sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
        import run as gpu_run  # bench/gpu/run.py
        present, name = gpu_run.gpu_present()
        if not present:
            out.append(f"\n## GPU: not run ({name})\n")
        else:
            out.append(f"\n## GPU: {name}, ext (one kernel per decomposition) against cuBLAS, us\n")
            out.append("| decomposition | " + " | ".join(f"M = {m}" for m in TABLE_MS) + " |")
            out.append("|---|" + "---|" * len(TABLE_MS))
            blas = ["%.1f" % (gpu_run.cublas_seconds("f16", m, N, K) * 1e6) for m in TABLE_MS]
            out.append("| cuBLAS | " + " | ".join(blas) + " |")
            for label, fields in decomps:
                res, err = run_program(args.build,
                                       program(N, K, TABLE_MS, fields, args.reps, False, sms),
                                       "cuda", sms)
                if res is None:
                    failures.append(f"GPU, {label}: {err}")
                    out.append(f"| {label} | failed: {err} |")
                    continue
                out.append(f"| {label} | " + " | ".join(
                    "%.1f" % (res[m][0] / args.reps * 1e6) for m in TABLE_MS) + " |")
                print(out[-1], flush=True)

    out += [""] + (["CHECK FAILED: " + f for f in failures] or ["All checks hold."])
    text = "# bench/decode\n\n" + "\n".join(out) + "\n"
    with open(os.path.join(HERE, "results.md"), "w") as f:
        f.write(text)
    print("\n".join(out[-max(1, len(failures)):]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
