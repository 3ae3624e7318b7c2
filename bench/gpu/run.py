#!/usr/bin/env python3
"""Times ext's GEMM example schedules on a real GPU against cuBLAS.

    bench/gpu/run.py [--build DIR] [--out bench/gpu/results.csv] [--reps N]
                     [--shapes 1024x1024x1024,4096x4096x4096,128x4096x8192]
                     [--decomposition-shapes 896x1280x1024,4096x4096x4096,896x4864x4096]
                     [--check-limit MACS] [--no-cublas]

For every schedule of examples/kernels/gemm_*.mlir (the NVIDIA ones: the
tensor-core gemm_f16_mma and gemm_f16_mma_large, not the AMD gemm_f16_mfma)
on every shape of --shapes (M x N x K; by default 1024^3, 4096^3 and a
skinny 128 x 4096 x 8192), and for every tile decomposition (data-parallel,
split-K serial and parallel, Stream-K and its hybrids, auto) around the
large tensor-core schedule on --decomposition-shapes (a checked one whose
35 tiles Stream-K splits over 132 SMs, 4096^3, and 133 tiles on 132 SMs),
it writes a program that fills A and B on the host, copies them
to gpu.alloc'ed device buffers once, runs the scheduled GEMM once to warm up,
then `--reps` times between two rtclock() reads (device buffers are passed
to the kernels as they are: no copies in the loop, but each launch waits
for its kernel), and, for problems up to --check-limit multiply-adds,
copies C back and compares it with a reference computed on the host (the
inputs are small integers: any difference is an error). It runs the program
with `ext-run --target=cuda`. cuBLAS (through replay.py's ctypes wrappers
of the driver and libcublas) times the same product (Sgemm for f32, GemmEx
with f16 inputs and f32 accumulation for the f16 kernels) with CUDA events.
Prints TFLOP/s, the ratio to cuBLAS and the check, writes a CSV, and exits
1 if a check failed.

Without a GPU (no driver, or no device: ext's runner, through its Python
bindings, says which) it says so and exits 0; EXT_CUDA_DRIVER (as for
ext-run) points it at another driver, such as the test suite's fake one, to
exercise everything but cuBLAS (the fake runs no kernel, so every check
fails there). The examples' schedules are read, and their variants made,
as typed attributes through ext's bindings (BUILD/python_packages).
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def import_ext(build=None):
    """ext's Python package (the C++ bindings): as installed, else from
    BUILD/python_packages (`build`, $EXT_BUILD_DIR or ROOT/build)."""
    try:
        import ext
    except ImportError:
        build = build or os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build"))
        sys.path.insert(0, os.path.join(build, "python_packages"))
        import ext
    return ext


def gpu_present(build=None):
    """(True, name) when ext's runner finds a CUDA device (the driver it
    loads, libcuda.so.1 or EXT_CUDA_DRIVER, and device 0: what ext-run
    --target=cuda runs on), else (False, why)."""
    device = import_ext(build).tuning.cuda_device()
    if not device["available"]:
        return False, device["error"]
    return True, f"{device['name']} ({device['chip']})"


def example_schedule(text):
    """(element type, #ext.schedule, whether B is [N][K]) of the first
    scheduled compute of an example's MLIR `text`, read through ext's
    bindings: the schedule is a typed attribute (ext._ext.schedules)."""
    ext = import_ext()
    d = next(d for d in ext.Module.parse(text).computes() if d["schedule"])
    nk = d["operands"][1]["dims"] == [[1], [2]]  # B[j, k]
    return d["operands"][0]["dtype"], ext._ext.schedules.parse(d["schedule"]), nk


def variants(nk=False, tma=False):
    """(name, element type, #ext.schedule) of every GEMM example whose B is
    [K][N] (with `nk`: of those whose B is [N][K], C = A B^T, which only
    export.py builds); the schedules are typed attributes."""
    schedules = import_ext()._ext.schedules
    out = []
    kdir = os.path.join(ROOT, "examples", "kernels")
    for f in sorted(os.listdir(kdir)):
        if not f.startswith("gemm"):
            continue
        elem, schedule, b_nk = example_schedule(open(os.path.join(kdir, f)).read())
        fields = schedule.fields()
        # TMA loads need tensor maps built on the host: export.py's replay
        # builds them (`tma`); ext's own host code does not yet, so the
        # runner times the example with cp.async loads.
        if not tma:
            # (Warp specialization's producer issues TMA, and a cluster
            # multicasts it: they go too.)
            fields.update(tma=False, specialize="none", cluster=[])
            schedule = schedules.schedule(**fields)
        mma = fields["mma"]
        row = mma is not None and import_ext().chips.matrix_instruction(mma.fields()["shape"])
        if row and row["vendor"] == "amd":
            continue  # AMD matrix cores: not on a CUDA device
        if b_nk != nk:
            continue
        out.append((f[:-5], elem, schedule))
    return out


# Issue 15's decompositions around the tensor-core schedule of
# gemm_f16_mma_large (persistent grids sized for the --chip's SMs): name,
# parameters.
DECOMPOSITIONS = [
    ("data_parallel", {}), ("persistent", {}), ("split_k", {"slices": 2, "mode": "serial"}),
    ("split_k", {"slices": 2, "mode": "parallel"}), ("stream_k", {}), ("stream_k_dp", {}),
    ("stream_k_2tile", {}), ("auto", {})]


def decomposition_variants(shapes):
    """(name, element type, schedule, shapes) of every decomposition of the
    large tensor-core example's schedule."""
    base = [v for v in variants() if v[0] == "gemm_f16_mma_large"]
    if not base:
        return []
    _, elem, schedule = base[0]
    schedules = import_ext()._ext.schedules
    out = []
    for name, params in DECOMPOSITIONS:
        short = name + ("_par" if params.get("mode") == "parallel" else "")
        fields = dict(schedule.fields(), decomposition=schedules.decomposition(name, **params))
        out.append((f"mma_large+{short}", elem, schedules.schedule(**fields), shapes))
    return out


def gemm_body(elem):
    """The GEMM's multiply, %a * %b as f32 into %p (f16 inputs extended)."""
    if elem == "f16":
        return ("%a32 = arith.extf %a : f16 to f32\n    %b32 = arith.extf %b : f16 to f32\n"
                "    %p = arith.mulf %a32, %b32 : f32")
    return "%p = arith.mulf %a, %b : f32"


def program(elem, schedule, m, n, k, reps, check):
    """An MLIR program timing `reps` scheduled GEMMs of m x n x k on data
    that stays on the device (gpu.alloc'ed buffers, which
    ext-gpu-stage-kernel-operands passes as they are: no copies in the
    timing loop). Prints the seconds of the loop, then max |C - reference|
    where `check` (the reference runs on the host), else -1."""
    a, b, c = f"memref<{m}x{k}x{elem}>", f"memref<{k}x{n}x{elem}>", f"memref<{m}x{n}xf32>"
    body = gemm_body(elem)
    fill = lambda name, t, d0, d1, e: f'''
  ext.compute [#ext.axis<"{d0}", spatial, {e[0]}>, #ext.axis<"{d1}", spatial, {e[1]}>]
      outs({name} : {t}) maps [affine_map<({d0}, {d1}) -> ({d0}, {d1})>] {{
  ^bb0:
    %i = ext.index "{d0}" : index
    %j = ext.index "{d1}" : index
    %v = affine.apply affine_map<(i, j) -> ((i * 3 + j * 5) mod 11 - 5)>(%i, %j)
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to {elem}
    ext.yield %vf : {elem}
  }}'''
    gemm = lambda A, B, C, sched: f'''
  ext.compute [#ext.axis<"i", spatial, {m}>, #ext.axis<"j", spatial, {n}>, #ext.axis<"k", reduce, {k}>]
      ins({A}, {B} : {a}, {b}) outs({C} : {c})
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum){sched} {{
  ^bb0(%a: {elem}, %b: {elem}):
    {body}
    ext.yield %p : f32
  }}'''
    scheduled = f" attributes {{schedule = {schedule}}}"
    if check:
        compare = f'''
  %t6 = gpu.wait async
  %t7 = gpu.memcpy async [%t6] %C, %dC : {c}, {c}
  gpu.wait [%t7]
  %R = memref.alloc() : {c}{gemm("%A", "%B", "%R", "")}
  %E = memref.alloc() : memref<f32>
  ext.compute [#ext.axis<"i", reduce, {m}>, #ext.axis<"j", reduce, {n}>]
      ins(%C, %R : {c}, {c}) outs(%E : memref<f32>)
      maps [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>]
      combiner(max) {{
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    %e = math.absf %d : f32
    ext.yield %e : f32
  }}
  %err = memref.load %E[] : memref<f32>
  %err64 = arith.extf %err : f32 to f64'''
    else:
        compare = "\n  %err64 = arith.constant -1.0 : f64"
    return f'''func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {{
  %A = memref.alloc() : {a}
  %B = memref.alloc() : {b}
  %C = memref.alloc() : {c}{fill("%A", a, "i", "k", (m, k))}{fill("%B", b, "k", "j", (k, n))}
  %t0 = gpu.wait async
  %dA, %t1 = gpu.alloc async [%t0] () : {a}
  %dB, %t2 = gpu.alloc async [%t1] () : {b}
  %dC, %t3 = gpu.alloc async [%t2] () : {c}
  %t4 = gpu.memcpy async [%t3] %dA, %A : {a}, {a}
  %t5 = gpu.memcpy async [%t4] %dB, %B : {b}, {b}
  gpu.wait [%t5]{gemm("%dA", "%dB", "%dC", scheduled)}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %reps = arith.constant {reps} : index
  %s0 = call @rtclock() : () -> f64
  scf.for %r = %c0 to %reps step %c1 {{{gemm("%dA", "%dB", "%dC", scheduled)}
  }}
  %s1 = call @rtclock() : () -> f64
  %dt = arith.subf %s1, %s0 : f64
  call @printF64(%dt) : (f64) -> ()
  call @printNewline() : () -> (){compare}
  call @printF64(%err64) : (f64) -> ()
  call @printNewline() : () -> ()
  return
}}
'''


def cublas_seconds(elem, m, n, k):
    """Seconds per product through cuBLAS, with replay.py's driver and
    cuBLAS wrappers (the same GemmEx / Sgemm call, timed with CUDA events:
    the median of batches) on operands filled with a small constant."""
    import replay  # numpy: only where cuBLAS is timed
    drv, blas = replay.Driver(), replay.Cublas()
    esize = 2 if elem == "f16" else 4
    ptrs = []
    for elems, size in ((m * k, esize), (k * n, esize), (m * n, 4)):
        words = (elems * size + 3) // 4
        ptrs.append(drv.alloc(4 * words))
        drv.memset32(ptrs[-1], 0x3c3c3c3c, words)  # ~1.0 in f16, small in f32
    try:
        return drv.time_ms(lambda: blas.gemm(elem, m, n, k, *ptrs), 5, 25.0) / 1e3
    finally:
        for p in ptrs:
            drv.free(p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "gpu", "results.csv"))
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--shapes", default="1024x1024x1024,4096x4096x4096,128x4096x8192")
    ap.add_argument("--decomposition-shapes", default="896x1280x1024,4096x4096x4096,896x4864x4096",
                    help="shapes for every decomposition of the large tensor-core schedule "
                         "(the first checked against the host, the last 133 tiles of 128x256: "
                         "one wave of 132 SMs and a tile)")
    ap.add_argument("--no-cublas", action="store_true", help="time ext only")
    ap.add_argument("--check-limit", type=int, default=1 << 31,
                    help="check C against a host reference up to this many multiply-adds")
    args = ap.parse_args()
    present, what = gpu_present(args.build)
    if not present:
        print(f"bench/gpu: no GPU here ({what}); nothing timed.")
        return 0
    print(f"bench/gpu: {what}")
    extrun = os.path.join(args.build, "bin", "ext-run")
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    rows = []
    failures = 0
    jobs = [(name, elem, schedule, shapes) for name, elem, schedule in variants()]
    jobs += decomposition_variants(
        [tuple(int(x) for x in s.split("x")) for s in args.decomposition_shapes.split(",")])
    blas_cache = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, elem, schedule, job_shapes in jobs:
            for (m, n, k) in job_shapes:
                path = os.path.join(tmp, f"{name}_{m}x{n}x{k}.mlir".replace("+", "_"))
                with open(path, "w") as f:
                    f.write(program(elem, schedule, m, n, k, args.reps,
                                    m * n * k <= args.check_limit))
                p = subprocess.run([extrun, "--target=cuda", f"--chip={args.chip}", path],
                                   capture_output=True, text=True)
                flops = 2.0 * m * n * k
                if p.returncode != 0:
                    print(f"{name} {m}x{n}x{k}: ext-run failed: {p.stderr.strip()[-300:]}")
                    rows.append((name, m, n, k, "", "", "", "failed"))
                    failures += 1
                    continue
                seconds, err = (float(x) for x in p.stdout.split()[-2:])
                ext_s = seconds / args.reps
                check = "-" if err < 0 else ("ok" if err == 0 else f"WRONG ({err:g})")
                failures += err > 0
                blas_s = None
                if not args.no_cublas:
                    # cuBLAS runs once per type and shape, not per variant.
                    key = (elem, m, n, k)
                    try:
                        if key not in blas_cache:
                            blas_cache[key] = cublas_seconds(elem, m, n, k)
                        blas_s = blas_cache[key]
                    except (OSError, RuntimeError) as e:
                        print(f"cuBLAS: {e}")
                ext_tf = flops / ext_s / 1e12
                blas_tf = flops / blas_s / 1e12 if blas_s else None
                rows.append((name, m, n, k, f"{ext_tf:.2f}", f"{blas_tf:.2f}" if blas_tf else "",
                             f"{ext_tf / blas_tf:.3f}" if blas_tf else "", check))
    print(f"{'kernel':32} {'M x N x K':>20} {'ext TFLOP/s':>12} {'cuBLAS TFLOP/s':>15} {'ratio':>7}  check")
    for r in rows:
        print(f"{r[0]:32} {f'{r[1]}x{r[2]}x{r[3]}':>20} {r[4]:>12} {r[5]:>15} {r[6]:>7}  {r[7]}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "M", "N", "K", "ext_tflops", "cublas_tflops", "ratio", "check"])
        w.writerows(rows)
    print(f"{len(rows)} runs, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
