#!/usr/bin/env python3
"""Every example kernel's schedule under every tile decomposition and many
grids, on the CPU emulator with the race checker, against the example's own
unscheduled reference.

Each examples/kernels/*.mlir with a scheduled ext.compute and a @main that
prints max |kernel - reference| first gets its schedule's decomposition
replaced by each of: data_parallel, serial split_k with 2 and 3 slices, and
for each grid G: stream_k<grid = G>, stream_k_dp<sms = G>,
stream_k_2tile<sms = G>, persistent<grid = G>. The grids run from 1 to
tiles + 3 where that is at most 12 values, else 1, 2, 3, 5, tiles - 1,
tiles, tiles + 1, tiles + 3 (CTAs that run several work units, one each, and
more CTAs than tiles). Each variant runs under `ext-run --racecheck` with a
seed of its own; it is

  right    when ext-run succeeds and the first number printed (the max error)
           is at most 1e-5, and any second one (softmax's "1 if right") is 1;
  refused  when the compiler rejects the schedule with a diagnostic at the
           input (a decomposition that cannot take the problem);
  wrong    otherwise: a wrong number, a race, a hang, a crash.

With --python (and the `ext` package importable), the fused Python
examples (examples/python: softmax with compute_at and compute_inline,
LayerNorm, GEMM + bias + ReLU with its epilogue fused) are swept the same
way: their modules come from ext.build, and each variant runs
`ext-run --entry --random-inputs --racecheck`, its outputs compared with
those of `ext-run --reference` (the computes as plain loops) on the same
inputs.

Variants whose kernels lower to the same IR (a persistent grid above the
tile count, say) run once and count once per variant. Prints one line per
wrong variant and a summary; exits 1 if any is wrong.

Usage: scripts/decomposition_sweep.py [--build build] [--jobs N] [--python]
                                      [--examples softmax,py_softmax]
                                      [--grids 1,2,5] [--verbose]
"""
import argparse
import concurrent.futures
import glob
import hashlib
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOLERANCE = 1e-5
# ext-run's LLVM optimization level: -O0 compiles in a fraction of the time
# and leaves what a kernel computes and what the race checker sees (its
# hooks are calls in the IR) as they are.
OPT = ["-O", "0"]


def decompositions(grids):
    """(family, grid or None, attribute text) of each variant."""
    out = [("data_parallel", None, "#ext.data_parallel"),
           ("split_k", None, "#ext.split_k<slices = 2, mode = serial>"),
           ("split_k", None, "#ext.split_k<slices = 3, mode = serial>")]
    for g in grids:
        out += [("stream_k", g, f"#ext.stream_k<grid = {g}>"),
                ("stream_k_dp", g, f"#ext.stream_k_dp<sms = {g}>"),
                ("stream_k_2tile", g, f"#ext.stream_k_2tile<sms = {g}>"),
                ("persistent", g, f"#ext.persistent<grid = {g}>")]
    return out


def grids_for(tiles):
    if tiles + 3 <= 12:
        return list(range(1, tiles + 4))
    return sorted({1, 2, 3, 5, tiles - 1, tiles, tiles + 1, tiles + 3})


def matching_angle(text, start):
    """The index just past the '>' closing the '<' at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "<":
            depth += 1
        elif text[i] == ">":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced #ext.schedule<...>")


def with_decomposition(source, attr):
    """`source` with every #ext.schedule's decomposition set to `attr`."""
    out, pos = [], 0
    for m in re.finditer(r"#ext\.schedule<", source):
        if m.start() < pos:
            continue
        end = matching_angle(source, m.end() - 1)
        body = source[m.end():end - 1]
        # Drop an existing `decomposition = #ext.name` or `#ext.name<...>`.
        d = re.search(r",?\s*decomposition\s*=\s*#ext\.\w+", body)
        if d:
            tail = d.end()
            if tail < len(body) and body[tail] == "<":
                tail = matching_angle(body, tail)
            body = body[:d.start()] + body[tail:]
            body = re.sub(r"^\s*,\s*", "", body)
        out.append(source[pos:m.end()])
        out.append(f"decomposition = {attr}, " + body.lstrip() + ">")
        pos = end
    out.append(source[pos:])
    return "".join(out)


def examples(names):
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "kernels", "*.mlir"))):
        name = os.path.splitext(os.path.basename(path))[0]
        text = open(path).read()
        if "#ext.schedule<" not in text or "func.func @main" not in text:
            continue
        if names and name not in names:
            continue
        found.append((name, path, text))
    return found


def set_target(chip):
    return f"--ext-set-target=chip={chip}" if chip else "--ext-set-target"


def python_examples(names):
    """(name, module text, entry, output argument indices) of the fused
    Python examples, built as examples/python builds them."""
    import ext
    found = []

    def add(name, schedule):
        if names and name not in names:
            return
        kernel = ext.build(schedule)
        first = len(kernel.inputs)
        found.append((name, kernel.mlir(), kernel.name,
                      list(range(first, first + len(kernel.outputs)))))

    # examples/python/softmax.py
    M, N = 67, 1000
    X = ext.placeholder((M, N), "float32", name="X")
    k1, k2 = ext.reduce_axis(N, name="k1"), ext.reduce_axis(N, name="k2")
    row_max = ext.compute((M,), lambda i: ext.max(X[i, k1], axis=k1), name="row_max")
    e = ext.compute((M, N), lambda i, j: ext.exp(X[i, j] - row_max[i]), name="e")
    row_sum = ext.compute((M,), lambda i: ext.sum(e[i, k2], axis=k2), name="row_sum")
    softmax = ext.compute((M, N), lambda i, j: e[i, j] / row_sum[i], name="softmax")
    s = ext.schedule(softmax, tile=(1, 1024), blocks=["i"], threads=(1, 256), cache=[e],
                     vector=4)
    s.compute_at(row_max, "i").compute_inline(e).compute_at(row_sum, "i")
    add("py_softmax", s)

    # examples/python/layernorm.py
    M, N, EPS = 32, 768, 1e-5
    X = ext.placeholder((M, N), "float32", name="X")
    gamma = ext.placeholder((N,), "float32", name="gamma")
    beta = ext.placeholder((N,), "float32", name="beta")
    k1, k2 = ext.reduce_axis(N, name="k1"), ext.reduce_axis(N, name="k2")
    mean = ext.compute((M,), lambda i: ext.sum(X[i, k1] / float(N), axis=k1), name="mean")
    var = ext.compute((M,), lambda i: ext.sum((X[i, k2] - mean[i]) * (X[i, k2] - mean[i])
                                              / float(N), axis=k2), name="var")
    y = ext.compute((M, N), lambda i, j: (X[i, j] - mean[i]) * ext.rsqrt(var[i] + EPS)
                    * gamma[j] + beta[j], name="y")
    s = ext.schedule(y, tile=(2, N), blocks=["i"], threads=(1, 256), cache=[X], vector=4)
    s.compute_at(mean, "i").compute_at(var, "i")
    add("py_layernorm", s)

    # examples/python/gemm_bias_relu.py
    M, N, K = 300, 200, 128
    A = ext.placeholder((M, K), "float16", name="A")
    B = ext.placeholder((K, N), "float16", name="B")
    bias = ext.placeholder((N,), "float32", name="bias")
    k = ext.reduce_axis(K, name="k")
    C = ext.compute((M, N), lambda i, j: ext.sum(ext.cast(A[i, k], "float32") *
                                                 ext.cast(B[k, j], "float32"), axis=k), name="C")
    D = ext.compute((M, N), lambda i, j: ext.cast(ext.max(C[i, j] + bias[j], 0.0), "float16"),
                    name="D")
    s = ext.schedule(C, tile=(64, 64, 32), mma="m16n8k16", threads=[4, 32, 1], warps=[2, 2],
                     cache=[A, B], stages=3, vector=8).reverse_compute_at(D, "j")
    add("py_gemm_bias_relu", s)
    return found


def outputs_match(ref_dir, out_dir, indices):
    """'' when each output argument's .npy matches the reference's, else why."""
    import numpy as np
    for i in indices:
        ref = np.load(os.path.join(ref_dir, f"arg{i}.npy")).astype(np.float64)
        got_path = os.path.join(out_dir, f"arg{i}.npy")
        if not os.path.exists(got_path):
            return f"output arg{i} not written"
        got = np.load(got_path)
        # f16 outputs: a sum rounded once more or less differs by an ulp.
        rtol, atol = (1e-2, 1e-2) if got.dtype == np.float16 else (1e-4, 1e-6)
        got = got.astype(np.float64)
        if not np.allclose(got, ref, rtol=rtol, atol=atol):
            return f"arg{i}: max |kernel - reference| = {np.max(np.abs(got - ref)):.3g}"
    return ""


def run_python_variant(tools, path, entry, indices, ref_dir, seed, timeout):
    with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as out_dir:
        cmd = [tools["ext-run"], *OPT, "--racecheck", f"--emu-seed={seed}", f"--entry={entry}",
               "--random-inputs=1", f"--save-outputs={out_dir}", path]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "wrong", f"timed out after {timeout} s"
        if r.returncode != 0:
            return judge(r.returncode, r.stdout, r.stderr, path)
        why = outputs_match(ref_dir, out_dir, indices)
        return ("wrong", why) if why else ("right", "")


def tile_count(tools, path, text):
    """(tiles, iterations per tile, chip): the chip is None (the module's
    target, else ext-run's default) unless the schedule needs the one its
    comment names (`chip=gfx942` for an MFMA example)."""
    chips = [None] + re.findall(r"chip=(\w+)", text)
    for chip in chips:
        r = subprocess.run([tools["ext-opt"], path, set_target(chip), "--ext-apply-schedule"],
                           capture_output=True, text=True)
        m = re.search(r"ext\.kernel tiles \[([0-9, ]+)\] iters (\d+)", r.stdout)
        if r.returncode == 0 and m:
            tiles = 1
            for t in m.group(1).split(","):
                tiles *= int(t)
            return tiles, int(m.group(2)), chip
    return None


def lowered_key(tools, path, chip):
    """A hash of the variant's kernels after ext-kernel-to-gpu (the plan is
    constants there); None when the compiler refuses it (ext-run says so)."""
    r = subprocess.run([tools["ext-opt"], path, set_target(chip),
                        "--ext-apply-schedule", "--ext-kernel-to-gpu"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return hashlib.sha256(r.stdout.encode()).hexdigest()


NUMBER = re.compile(r"^\[\s*([-+0-9.eEinfaINFA]+)\s*\]\s*$")


def judge(rc, stdout, stderr, path):
    """('right'|'refused'|'wrong', detail)."""
    values = [float(m.group(1)) for m in map(NUMBER.match, stdout.splitlines()) if m]
    if rc == 0:
        if not values:
            return "wrong", "printed no result"
        if not values[0] <= TOLERANCE:
            return "wrong", f"max |kernel - reference| = {values[0]}"
        if len(values) > 1 and values[1] != 1:
            return "wrong", f"the example's check printed {values[1]}"
        return "right", ""
    first = next((l for l in stderr.splitlines() if "error" in l), stderr.strip()[:300])
    # The compiler's diagnostics carry a location (the .mlir file's, or the
    # Python source's that built the module); the emulator's say ext-emu.
    compile_error = re.search(r":\d+:\d+: error:", stderr)
    if rc > 0 and compile_error and "ext-emu" not in stderr:
        return "refused", first
    return "wrong", f"exit {rc}: {first}"


def run_variant(tools, path, chip, seed, timeout):
    cmd = [tools["ext-run"], *OPT, "--racecheck", f"--emu-seed={seed}", path]
    if chip:
        cmd.insert(1, f"--chip={chip}")
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "wrong", f"timed out after {timeout} s"
    return judge(r.returncode, r.stdout, r.stderr, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--examples", default="", help="comma-separated names (default: all)")
    ap.add_argument("--grids", default="", help="comma-separated grids (default: by tile count)")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--python", action="store_true",
                    help="sweep the fused Python examples too (needs the ext package)")
    args = ap.parse_args(argv)
    tools = {t: os.path.join(args.build, "bin", t) for t in ("ext-opt", "ext-run")}
    names = set(filter(None, args.examples.split(",")))
    start = time.perf_counter()

    with tempfile.TemporaryDirectory(prefix="decomposition-sweep-") as tmp:
        variants = []  # (example, tiles, family, grid, attr, path, chip)
        for name, path, text in examples(names):
            counted = tile_count(tools, path, text)
            if counted is None:
                print(f"{name}: skipped (ext-apply-schedule refuses its schedule)")
                continue
            tiles, iters, chip = counted
            grids = ([int(g) for g in args.grids.split(",")] if args.grids
                     else grids_for(tiles))
            for i, (family, grid, attr) in enumerate(decompositions(grids)):
                p = os.path.join(tmp, f"{name}.{i}.mlir")
                with open(p, "w") as f:
                    f.write(with_decomposition(text, attr))
                variants.append((name, tiles, family, grid, attr, p, chip))

        refs = {}  # Python example: (entry, output indices, reference dir)
        for name, text, entry, indices in (python_examples(names) if args.python else []):
            path = os.path.join(tmp, f"{name}.mlir")
            with open(path, "w") as f:
                f.write(text)
            counted = tile_count(tools, path, "")
            ref_dir = os.path.join(tmp, f"{name}.reference")
            os.mkdir(ref_dir)
            r = subprocess.run([tools["ext-run"], "--reference", f"--entry={entry}",
                                "--random-inputs=1", f"--save-outputs={ref_dir}", path],
                               capture_output=True, text=True)
            if counted is None or r.returncode != 0:
                sys.exit(f"{name}: the reference does not run:\n{r.stderr}")
            refs[name] = (entry, indices, ref_dir)
            tiles = counted[0]
            grids = ([int(g) for g in args.grids.split(",")] if args.grids
                     else grids_for(tiles))
            for i, (family, grid, attr) in enumerate(decompositions(grids)):
                p = os.path.join(tmp, f"{name}.{i}.mlir")
                with open(p, "w") as f:
                    f.write(with_decomposition(text, attr))
                variants.append((name, tiles, family, grid, attr, p, None))

        def timed(fn, *a):
            t = time.perf_counter()
            verdict, detail = fn(*a)
            return verdict, detail, time.perf_counter() - t

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            keys = list(pool.map(lambda v: lowered_key(tools, v[5], v[6]), variants))
            # One run per distinct lowering (refusals each run: ext-run's
            # own message is the one reported).
            first_of = {}
            jobs = {}
            for i, (v, key) in enumerate(zip(variants, keys)):
                if key is not None and (v[0], key) in first_of:
                    continue
                if key is not None:
                    first_of[(v[0], key)] = i
                seed = 1 + i % 7
                if v[0] in refs:
                    entry, indices, ref_dir = refs[v[0]]
                    jobs[i] = pool.submit(timed, run_python_variant, tools, v[5], entry,
                                          indices, ref_dir, seed, args.timeout)
                else:
                    jobs[i] = pool.submit(timed, run_variant, tools, v[5], v[6], seed,
                                          args.timeout)
            results = {i: j.result() for i, j in jobs.items()}

    counts = {"right": 0, "refused": 0, "wrong": 0}
    per_example = {}
    for i, (v, key) in enumerate(zip(variants, keys)):
        name, tiles, family, grid, attr, _, chip = v
        verdict, detail, seconds = (results[i] if i in results
                                    else results[first_of[(name, key)]])
        counts[verdict] += 1
        e = per_example.setdefault(name, {"tiles": tiles, "right": 0, "refused": 0, "wrong": 0,
                                          "runs": 0, "seconds": 0.0})
        e[verdict] += 1
        if i in results:
            e["runs"] += 1
            e["seconds"] += seconds
        if verdict == "wrong" or (args.verbose and verdict == "refused"):
            print(f"{verdict.upper()}: {name} ({tiles} tiles) with {attr}: {detail}")
    for name, e in per_example.items():
        print(f"  {name:<20} {e['tiles']:>4} tiles: {e['right']} right, "
              f"{e['refused']} refused, {e['wrong']} wrong "
              f"({e['runs']} runs, {e['seconds']:.0f} s)")
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"decomposition sweep: {len(per_example)} schedules x 7 decompositions "
          f"(data_parallel, split_k S=2,3, stream_k, stream_k_dp, stream_k_2tile, persistent) "
          f"x grids = {len(variants)} variants ({len(jobs)} distinct runs): "
          f"{counts['right']} right, {counts['refused']} refused, {counts['wrong']} wrong "
          f"({time.perf_counter() - start:.0f} s, {args.jobs} jobs, "
          f"{cpu.ru_utime + cpu.ru_stime:.0f} s of CPU)")
    return 1 if counts["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
