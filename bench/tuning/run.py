#!/usr/bin/env python3
"""ext.tune over the issue's matrix: GEMM f32, GEMM f16 (tensor cores where
the chip has them), softmax and a convolution, each on sm_80, sm_90
(mma.sync), sm_90a (wgmma too) and gfx942. For each: the candidates generated, pruned, legal, the model's
pick, its predicted time and TFLOP/s, the emulator check, and the wall
time of the whole `ext.tune` (which must stay under 2 minutes on 2 cores).
Then a second call per row, which must come from the database.
Prints a table and writes it to --out.

    PYTHONPATH=build/python_packages /usr/bin/python3 bench/tuning/run.py \
        [--out bench/tuning/results.md] [--only gemm_f32] [--chips sm_80,...]
"""

import argparse
import os
import sys
import tempfile
import time

import ext

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WORKLOADS = {
    "gemm_f32 4096^3": lambda: ext.matmul(4096, 4096, 4096),
    "gemm_f16 4096^3": lambda: ext.matmul(4096, 4096, 4096, dtype="float16"),
    "softmax 4096x4096": lambda: ext.softmax(4096, 4096),
    "conv2d 8x64x56x56, 64 3x3": lambda: ext.conv2d(8, 64, 56, 56, 64),
}
CHIPS = ["sm_80", "sm_90", "sm_90a", "gfx942"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results.md"))
    ap.add_argument("--only", default="")
    ap.add_argument("--chips", default=",".join(CHIPS))
    ap.add_argument("--min-legal", type=int, default=100)
    args = ap.parse_args()
    rows = []
    db = os.path.join(tempfile.mkdtemp(prefix="ext-tune-"), "tuning.json")
    header = ("| workload | chip | generated | pruned | legal | pick | predicted | TFLOP/s | "
              "checked | tune s | again s |")
    print(header)
    print("|" + "---|" * 11)
    failures = 0
    for name, make in WORKLOADS.items():
        if args.only and args.only not in name:
            continue
        for chip in args.chips.split(","):
            start = time.perf_counter()
            try:
                w = ext.tune(make(), chip=chip, database=db, min_legal=args.min_legal,
                             plot=False)
            except Exception as e:  # noqa: BLE001 (a row says what failed)
                failures += 1
                line = f"| {name} | {chip} | failed: {str(e).splitlines()[0][:120]} |"
                print(line, flush=True)
                rows.append(line)
                continue
            took = time.perf_counter() - start
            start = time.perf_counter()
            again = ext.tune(make(), chip=chip, database=db, plot=False)
            again_s = time.perf_counter() - start
            assert again.tuning.from_database
            r = w.tuning
            best = r.best
            check = best.check or {}
            line = (f"| {name} | {chip} | {r.generated} | {sum(r.pruned.values())} | {r.legal} | "
                    f"`{best.candidate.short()}` | {best.prediction.seconds * 1e6:.0f} us | "
                    f"{best.prediction.tflops:.1f} | "
                    f"{'exact' if check.get('checked') and check.get('max_abs_error', 1) == 0 else ('%.1e' % check['max_abs_error'] if check.get('checked') else 'compiled only')} | "
                    f"{took:.1f} | {again_s:.2f} |")
            print(line, flush=True)
            rows.append(line)
    # The hand-written example against the model's pick, by the model.
    w = ext.matmul(4096, 4096, 4096)
    text = open(os.path.join(ROOT, "examples/kernels/gemm_f32.mlir")).read()
    from ext import tuning_space
    example = tuning_space.candidate_of(tuning_space.problem_of(w.output),
                                        text[text.index("#ext.schedule<"):])
    hand = ext.predict(w, example, "sm_90")
    fitting, _ = ext.search_space(w, "sm_90")
    best = min(fitting, key=lambda c: ext.predict(w, c, "sm_90").seconds)
    pick = ext.predict(w, best, "sm_90")
    compare = (f"gemm_f32 4096^3 on sm_90, by the model: the pick `{best.short()}` "
               f"{pick.seconds * 1e6:.0f} us ({pick.tflops:.1f} TFLOP/s); "
               f"examples/kernels/gemm_f32.mlir's schedule `{example.short()}` "
               f"{hand.seconds * 1e6:.0f} us ({hand.tflops:.1f} TFLOP/s): "
               f"{hand.seconds / pick.seconds:.2f}x the pick's time.")
    print(compare)
    with open(args.out, "w") as f:
        f.write("# ext.tune: the issue's matrix\n\n")
        f.write(f"Machine: {os.cpu_count()} cores. `predicted` is the cost model's time at the "
                "chip model's rates (docs/Tuning.md); `checked`: the pick at a reduced size on "
                "ext's emulator against the computes without a schedule; `again`: the second "
                "call, from the database.\n\n")
        f.write(header + "\n|" + "---|" * 11 + "\n" + "\n".join(rows) + "\n\n")
        f.write(compare + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
