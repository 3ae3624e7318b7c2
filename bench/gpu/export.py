#!/usr/bin/env python3
"""Compiles bench/gpu's GEMMs here, for bench/gpu/replay.py to run on a GPU
machine that has a CUDA driver and PyTorch but no MLIR.

    bench/gpu/export.py DIR [--build DIR] [--chip sm_90] [--shapes ...]
                        [--decomposition-shapes ...] [--sweep-shapes ...]

bench/gpu/run.py needs ext-run (and so LLVM's and MLIR's libraries) on the
machine with the GPU. Where that machine has neither, this script does the
host's part here: for every kernel and shape that run.py times (plus a sweep
of tensor-core tile shapes, warp grids and stage counts), it lowers the
scheduled GEMM with ext-gpu-pipeline, writes each gpu.module as PTX
(ext-translate) and as a cubin (ptxas, with its register and spill report),
and records what the host function does between entry and return: the
workspaces it allocates, the memsets, and each gpu.launch_func with its grid,
block, thread block cluster (`clusters in`; [1, 1, 1] without one), dynamic
shared memory and arguments. DIR/manifest.json holds that record; replay.py
replays it with the CUDA driver API. The cluster probe (cluster-probe.mlir,
a GEMM launched in clusters of 2x2 CTAs that writes C only when it sees
them) checks the cluster launch on chips that have clusters (sm_90 on).

The host function may do nothing else: any other operation in it is an error
here, not a silent omission there.
"""

import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (variants, decomposition_variants, ROOT)

PTXAS = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
ELEM_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "i8": 1, "i64": 8, "f64": 8}

# Tensor-core tile sweep around gemm_f16_mma_large's schedule: (tile, warps,
# stages). Rows are padded by 8 halves for conflict-free ldmatrix.
SWEEP = [((128, 256, 32), (2, 4), 3), ((128, 256, 32), (2, 4), 4),
         ((128, 256, 64), (2, 4), 3), ((256, 128, 32), (4, 2), 3),
         ((256, 128, 64), (4, 2), 3), ((128, 128, 32), (2, 2), 4),
         ((128, 128, 64), (2, 2), 3), ((128, 128, 32), (2, 4), 4)]


# The same for sm_90a's warpgroup MMA, C = A B and C = A B^T: (tile,
# stages); warps = [M / 16, 1], both tiles in the 128-byte swizzled layout
# (k tile 64).
WGMMA_SWEEP = [((128, 256, 64), 3), ((128, 256, 64), 4), ((128, 128, 64), 4),
               ((256, 128, 64), 3), ((64, 256, 64), 4)]


def wgmma_schedule(tile, stages, nk):
    """B [N][K] (`nk`): K-major, any width; B [K][N]: N-major, in column
    panels of 64 (one 128-byte swizzle row each). A typed #ext.schedule
    (ext._ext.schedules)."""
    s = run.import_ext()._ext.schedules
    tm, tn, tk = tile
    sw = s.swizzle(bits=3, base=3, shift=3)
    sw_b = sw if nk else s.swizzle(bits=3, base=3, shift=3, panel=64)
    return s.schedule(tile=[tm, tn, tk], blocks=["i", "j"], threads=[tm // 16, 32, 1],
                      mma=s.mma(shape="wgmma_k16"), warps=[tm // 16, 1], vector=8,
                      stages=stages, cache=[s.cache(operand=0, swizzle=sw),
                                            s.cache(operand=1, swizzle=sw_b)])


def sweep_schedule(tile, warps, stages):
    """mma.sync over `warps`, both tiles' rows padded by 8 halves. A typed
    #ext.schedule (ext._ext.schedules)."""
    s = run.import_ext()._ext.schedules
    tm, tn, tk = tile
    return s.schedule(
        tile=[tm, tn, tk], blocks=["i", "j"], threads=[warps[0] * warps[1], 32, 1],
        mma=s.mma(shape="m16n8k16"), warps=list(warps), vector=8, stages=stages,
        cache=[s.cache(operand=0, align=[s.storage_align(dim=0, factor=tk * 2, offset=tk + 8)]),
               s.cache(operand=1, align=[s.storage_align(dim=0, factor=tn, offset=8)])])


def gemm_function(elem, schedule, m, n, k, nk=False):
    """@gemm(A, B, C): C = A B under `schedule` (a typed #ext.schedule, set
    on the compute through ext's bindings), the body run.py times; with
    `nk`, B is [N][K] and C = A B^T."""
    a, c = f"memref<{m}x{k}x{elem}>", f"memref<{m}x{n}xf32>"
    b = f"memref<{n}x{k}x{elem}>" if nk else f"memref<{k}x{n}x{elem}>"
    b_map = "(j, k)" if nk else "(k, j)"
    body = run.gemm_body(elem)
    text = f'''func.func @gemm(%A: {a}, %B: {b}, %C: {c}) {{
  ext.compute [#ext.axis<"i", spatial, {m}>, #ext.axis<"j", spatial, {n}>, #ext.axis<"k", reduce, {k}>]
      ins(%A, %B : {a}, {b}) outs(%C : {c})
      maps [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> {b_map}>, affine_map<(i, j, k) -> (i, j)>]
      combiner(sum) {{
  ^bb0(%a: {elem}, %b: {elem}):
    {body}
    ext.yield %p : f32
  }}
  return
}}
'''
    return str(run.import_ext().Module.parse(text).with_schedule("gemm", 0, schedule))


MEMREF = re.compile(r"memref<((?:\d+x)*)(\w+)(?:, strided<\[([\d, ]*)\](?:, offset: (\d+))?>)?>")


def memref_layout(text):
    """(shape, element bytes, strides, offset) of a static memref type."""
    m = MEMREF.fullmatch(text.strip())
    if not m:
        raise ValueError(f"unsupported memref type {text}")
    shape = [int(d) for d in m.group(1).split("x") if d]
    esize = ELEM_BYTES[m.group(2)]
    if m.group(3) is not None:
        strides = [int(s) for s in m.group(3).split(",") if s.strip()]
        offset = int(m.group(4) or 0)
    else:
        strides, acc = [], 1
        for d in reversed(shape):
            strides.insert(0, acc)
            acc *= d
        offset = 0
    return shape, esize, strides, offset


def host_plan(mlir):
    """The host function's allocations, memsets and launches, in order."""
    host = mlir[:mlir.index("gpu.module @")]
    consts = {name: int(v) for name, v in
              re.findall(r"(%[\w-]+) = arith\.constant (-?\d+) : (?:index|i32|i64)", host)}
    buffers, views, steps = {}, {}, []
    # TMA tensor maps (tma = true): built on the host from an operand or a
    # buffer, passed to the kernel as a pointer.
    casts, maps = {}, {}
    def source_of(name):
        if am := re.fullmatch(r"%arg(\d+)", name):
            return {"operand": int(am.group(1)), "byte_offset": 0}
        base, shift = views[name]
        return {"buffer": base, "byte_offset": shift}
    for line in host.splitlines():
        line = line.strip()
        if (not line or line.startswith(("module", "func.func", "return", "}", "gpu.wait"))
                or re.match(r"%[\w-]+ = (arith\.constant|llvm\.mlir\.(poison|undef|zero|constant))",
                            line)
                or re.match(r"%\w+ = gpu\.wait async$", line)):
            continue
        if m := re.match(r"(%\w+), %\w+ = gpu\.alloc async \[%\w+\] \(\) : (memref<.*>)$", line):
            shape, esize, _, _ = memref_layout(m.group(2))
            size = esize
            for d in shape:
                size *= d
            buffers[m.group(1)] = len(buffers)
            steps.append({"op": "alloc", "buffer": buffers[m.group(1)], "bytes": size})
            views[m.group(1)] = (buffers[m.group(1)], 0)
        elif m := re.match(r"(%\w+) = memref\.view (%\w+)\[(%\w+)\]\[\] : .* to (memref<.*>)$",
                           line):
            base, shift = views[m.group(2)]
            views[m.group(1)] = (base, shift + consts[m.group(3)])
        elif m := re.match(r"%\w+ = gpu\.memset async \[%\w+\] (%\w+), (%\w+) : (memref<.*>), "
                           r"(\w+)$", line):
            base, shift = views[m.group(1)]
            shape, esize, _, _ = memref_layout(m.group(3))
            count = 1
            for d in shape:
                count *= d
            if esize != 4:
                raise ValueError(f"memset of {esize}-byte elements: {line}")
            steps.append({"op": "memset32", "buffer": base, "byte_offset": shift,
                          "count": count, "value": consts[m.group(2)]})
        elif m := re.match(r"(%\w+) = memref\.cast (%\w+) : (memref<[^>]*>) to memref<\*x\w+>$",
                           line):
            casts[m.group(1)] = (m.group(2), m.group(3))
        elif m := re.match(r"(%\w+) = nvgpu\.tma\.create\.descriptor (%\w+) box\[(.*?)\] : "
                           r"memref<\*x(\w+)> -> <tensor = memref<[^>]*>, swizzle = (\w+), "
                           r"l2promo = (\w+), oob = (\w+), interleave = (\w+)>$", line):
            src, ty = casts[m.group(2)]
            shape, esize, strides, offset = memref_layout(ty)
            maps[m.group(1)] = dict(
                source_of(src), shape=shape, strides=strides, offset=offset, elem_bytes=esize,
                elem=m.group(4), box=[consts[x.strip()] for x in m.group(3).split(",")],
                swizzle=m.group(5), l2promo=m.group(6), oob=m.group(7), interleave=m.group(8))
        elif m := re.match(r"(%\w+) = builtin\.unrealized_conversion_cast (%\w+) : "
                           r"!nvgpu\.tensormap\.descriptor<.*> to !llvm\.ptr$", line):
            maps[m.group(1)] = maps[m.group(2)]
        elif m := re.match(r"%\w+ = gpu\.dealloc async \[%\w+\] (%\w+) : .*$", line):
            steps.append({"op": "free", "buffer": views[m.group(1)][0]})
        elif m := re.match(r"gpu\.launch_func\s+@(\w+)::@(\w+)\s+(?:clusters in \((.*?)\)\s+)?"
                           r"blocks in \((.*?)\) threads in \((.*?)\)\s*"
                           r"(?:dynamic_shared_memory_size (%\w+) )?args\((.*)\)$", line):
            args = []
            for name, ty in re.findall(r"(%\w+) : (memref<[^>]*(?:<[^>]*>[^>]*)*>|!llvm\.ptr)",
                                       m.group(7)):
                if ty == "!llvm.ptr":
                    args.append({"tensor_map": maps[name]})
                    continue
                shape, esize, strides, offset = memref_layout(ty)
                args.append(dict(source_of(name), shape=shape, strides=strides,
                                 offset=offset, elem_bytes=esize))
            dims = lambda group: [consts[x.strip()] for x in group.split(",")]
            steps.append({"op": "launch", "module": m.group(1), "kernel": m.group(2),
                          "grid": dims(m.group(4)), "block": dims(m.group(5)),
                          "cluster": dims(m.group(3)) if m.group(3) else [1, 1, 1],
                          "shared_bytes": consts[m.group(6)] if m.group(6) else 0,
                          "args": args})
        else:
            raise ValueError(f"host operation that replay.py cannot replay: {line}")
    return steps


def wgmma_probes():
    """(name, element type, @wgmma's text, shape) of each warpgroup MMA test
    of test/Emulator that must compute C exactly: run on the GPU, they check
    the emulator's reading of wgmma's descriptors and layouts against the
    chip's."""
    out = []
    tdir = os.path.join(run.ROOT, "test", "Emulator")
    for f in sorted(os.listdir(tdir)):
        if not (f.startswith("wgmma-") and f.endswith(".mlir")):
            continue
        text = open(os.path.join(tdir, f)).read()
        if "// CHECK: [0]" not in text:
            continue
        body = text[text.index("func.func @wgmma("):]
        body = body[:body.index("\n}\n") + 3]
        sig = re.search(r"memref<64x(\d+)x(\w+)>, %Bd: memref<\d+x(\d+)x", body)
        k, elem, n = int(sig.group(1)), sig.group(2), int(sig.group(3))
        out.append((f"wgmma-probe:{f[len('wgmma-'):-5]}", elem, body, (64, n, k)))
    return out


def cluster_probe():
    """(name, element type, @gemm's text, shape) of the cluster probe."""
    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "cluster-probe.mlir")).read()
    sig = re.search(r"func\.func @gemm\(%A: memref<(\d+)x(\d+)x(\w+)>, %B: memref<\d+x(\d+)x",
                    text)
    m, k, elem, n = int(sig.group(1)), int(sig.group(2)), sig.group(3), int(sig.group(4))
    return "cluster-probe", elem, text, (m, n, k)


def has_clusters(chip):
    """Thread block clusters: sm_90 and later."""
    sm = re.fullmatch(r"sm_(\d+)a?", chip)
    return bool(sm) and int(sm.group(1)) >= 90


def export(build, chip, name, elem, schedule, shape, outdir, source=None, nk=False):
    """Lowers one GEMM (`source`, a function of A, B and C, or run.py's
    GEMM under `schedule`, B [N][K] with `nk`) and writes its modules;
    returns its manifest entry."""
    m, n, k = shape
    mma = schedule.fields()["mma"] if schedule is not None else None
    if mma is not None and mma.fields()["shape"] == "wgmma_k16" and chip == "sm_90":
        chip = "sm_90a"  # wgmma is an sm_90a instruction
    tag = f"{name}_{m}x{n}x{k}".replace("+", "_").replace(":", "_")
    src = os.path.join(outdir, tag + ".mlir")
    try:
        text = source or gemm_function(elem, schedule, m, n, k, nk)
    except ValueError as e:  # the schedule does not verify on this GEMM
        return {"name": name, "shape": shape, "error": str(e).strip()[-400:]}
    with open(src, "w") as f:
        f.write(text)
    p = subprocess.run([os.path.join(build, "bin", "ext-opt"), src,
                        f"--ext-gpu-pipeline=target=nvvm chip={chip}"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return {"name": name, "shape": shape, "error": p.stderr.strip()[-400:]}
    lowered = p.stdout
    steps = host_plan(lowered)
    kdir = os.path.join(outdir, tag)
    os.makedirs(kdir, exist_ok=True)
    t = subprocess.run([os.path.join(build, "bin", "ext-translate"), "--ext-to-ptx",
                        f"--ext-output-dir={kdir}"], input=lowered, capture_output=True, text=True)
    if t.returncode != 0:
        return {"name": name, "shape": shape, "error": t.stderr.strip()[-400:]}
    modules, report = {}, []
    for s in steps:
        if s["op"] != "launch" or s["module"] in modules:
            continue
        ptx = os.path.join(kdir, s["module"] + ".ptx")
        cubin = os.path.join(kdir, s["module"] + ".cubin")
        modules[s["module"]] = {"ptx": os.path.relpath(ptx, outdir)}
        if os.path.exists(PTXAS):
            a = subprocess.run([PTXAS, f"-arch={chip}", "-v", ptx, "-o", cubin],
                               capture_output=True, text=True)
            if a.returncode != 0:
                return {"name": name, "shape": shape, "error": a.stderr.strip()[-400:]}
            modules[s["module"]]["cubin"] = os.path.relpath(cubin, outdir)
            regs = re.search(r"Used (\d+) registers", a.stderr)
            spills = re.search(r"(\d+) bytes spill stores", a.stderr)
            report.append(f"{s['module']}: {regs.group(1) if regs else '?'} registers, "
                          f"{spills.group(1) if spills else '?'} B spilled")
    os.remove(src)
    return {"name": name, "elem": elem, "shape": shape,
            "schedule": "" if schedule is None else str(schedule), "b_nk": nk,
            "chip": chip, "modules": modules, "steps": steps, "ptxas": report}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--build", default=os.environ.get("EXT_BUILD_DIR",
                                                      os.path.join(run.ROOT, "build")))
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--shapes", default="1024x1024x1024,4096x4096x4096,128x4096x8192")
    ap.add_argument("--decomposition-shapes", default="896x1280x1024,4096x4096x4096,896x4864x4096")
    ap.add_argument("--sweep-shapes", default="4096x4096x4096,8192x8192x8192")
    ap.add_argument("--only", default="", help="export entries whose name matches this regex")
    args = ap.parse_args()
    parse = lambda s: [tuple(int(x) for x in t.split("x")) for t in s.split(",") if t]
    jobs = []  # the tensor-core sweep first: a replay cut short still has it
    for tile, warps, stages in SWEEP:
        jobs.append((f"mma_{tile[0]}x{tile[1]}x{tile[2]}_w{warps[0]}x{warps[1]}_s{stages}", "f16",
                     sweep_schedule(tile, warps, stages), parse(args.sweep_shapes)))
    for tile, stages in WGMMA_SWEEP:
        for nk in (False, True):
            jobs.append((f"wgmma_{tile[0]}x{tile[1]}x{tile[2]}_s{stages}" + (":nt" if nk else ""),
                         "f16", wgmma_schedule(tile, stages, nk), parse(args.sweep_shapes)))
    jobs += [(name, elem, sched, parse(args.shapes))
             for name, elem, sched in run.variants(tma=True)]
    # C = A B^T examples (B [N][K]: wgmma's K-major B of any width).
    jobs += [(name + ":nt", elem, sched, parse(args.shapes))
             for name, elem, sched in run.variants(nk=True, tma=True)]
    jobs += run.decomposition_variants(parse(args.decomposition_shapes))
    os.makedirs(args.outdir, exist_ok=True)
    entries, errors = [], 0
    # The warpgroup MMA probes need sm_90a (wgmma); they come first, then
    # the cluster probe where the chip has clusters.
    probes = [(p, args.chip + "a" if args.chip == "sm_90" else args.chip) for p in wgmma_probes()]
    if has_clusters(args.chip):
        probes.append((cluster_probe(), args.chip))
    else:
        print(f"cluster-probe: skipped ({args.chip} has no thread block clusters)")
    for (name, elem, source, shape), chip in probes:
        if args.only and not re.search(args.only, name):
            continue
        e = export(args.build, chip, name, elem, None, shape, args.outdir, source)
        errors += "error" in e
        print(f"{name} {'x'.join(map(str, shape))}: "
              f"{e.get('error') or '; '.join(e['ptxas']) or 'no ptxas'}", flush=True)
        entries.append(e)
    for name, elem, schedule, shapes in jobs:
        if args.only and not re.search(args.only, name):
            continue
        for shape in shapes:
            e = export(args.build, args.chip, name, elem, schedule, shape, args.outdir,
                       nk=name.endswith(":nt"))
            errors += "error" in e
            print(f"{name} {'x'.join(map(str, shape))}: "
                  f"{e.get('error') or '; '.join(e['ptxas']) or 'no ptxas'}", flush=True)
            entries.append(e)
    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump({"chip": args.chip, "entries": entries}, f, indent=1)
    print(f"{len(entries)} exported, {errors} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
