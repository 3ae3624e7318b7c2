"""`ext-tune`: ext.tune for MLIR files.

    ext-tune kernel.mlir --chip sm_90a [-o tuned.mlir] [--function F]
             [--compute NAME] [--trials N] [--min-legal N]
             [--database PATH | --no-database] [--no-check] [--quiet]

Reads a module of ext.computes (or of linalg ops, imported first with
ext-from-linalg), finds a schedule for each compute without one that no
other compute reads (or the one named), fusing its named producers (an
element-wise consumer of a GEMM, such as a bias + ReLU linalg.generic after
a linalg.matmul, tunes the GEMM with it fused as the epilogue), and writes
the module with the schedules attached (stdout unless -o). The sweep of each is reported on stderr. The database is the
one `ext.tune` uses ($EXT_TUNING_DB or ~/.cache/ext/tuning.json), so a
second run of the same computes compiles nothing.
"""

import argparse
import sys

from .chips import DEFAULT_CHIP
from .tuning import TuningReport, tune_module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="ext-tune", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="an MLIR file of ext.computes ('-': stdin)")
    ap.add_argument("--chip", default=DEFAULT_CHIP,
                    help=f"sm_NN[a] or gfxNNN (default {DEFAULT_CHIP})")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--function", help="tune this function only")
    ap.add_argument("--compute", help="tune this compute (its name or index) only")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--min-legal", type=int, default=100)
    ap.add_argument("--database", help="the tuning database file")
    ap.add_argument("--no-database", action="store_true")
    ap.add_argument("--no-check", action="store_true",
                    help="compile the best candidates but do not run them on the emulator")
    ap.add_argument("--quiet", action="store_true", help="no report on stderr")
    args = ap.parse_args(argv)
    text = sys.stdin.read() if args.input == "-" else open(args.input).read()
    compute = args.compute
    if compute is not None and compute.isdigit():
        compute = int(compute)
    try:
        module, results = tune_module(
            text, chip=args.chip, function=args.function, compute=compute,
            trials=args.trials, min_legal=args.min_legal, check=not args.no_check,
            database=False if args.no_database else args.database, progress=False)
    except (ValueError, RuntimeError) as e:
        print(f"ext-tune: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        for function, index, report in results:
            if isinstance(report, TuningReport):
                print(f"@{function} compute #{index}:\n{report.report(5)}", file=sys.stderr)
            else:
                print(f"@{function} compute #{index}: skipped: {report}", file=sys.stderr)
    out = str(module)
    if args.output == "-":
        sys.stdout.write(out)
    else:
        with open(args.output, "w") as f:
            f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
