#!/usr/bin/env python3
"""Static against dynamic bank conflicts, per access site.

For each kernel file given: ext-gpu-bank-conflicts' worst case (after
ext-schedule-to-gpu, per source location: the largest n-way of the accesses
there) against `ext-run --bank-conflicts` (the largest wavefronts of one
phase of any request the emulator executed there). Prints one line per site
and exits 1 if any site differs or was seen by only one side.

Usage: compare.py --ext-opt BIN --ext-run BIN FILE...
"""

import argparse
import re
import subprocess
import sys


def static_sites(ext_opt, path):
    p = subprocess.run([ext_opt, path, "--ext-schedule-to-gpu",
                        "--ext-gpu-bank-conflicts=summary=true",
                        "--mlir-print-op-on-diagnostic=false", "-o", "/dev/null"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare: ext-opt failed on {path}:\n{p.stderr[-2000:]}")
    sites = {}
    for line in p.stderr.splitlines():
        # "  n-way wavefronts padding B  access  name... file:line:col"
        m = re.match(r"\s+(\d+|unknown)\s+(\d+|-)\s+\d+\s+\S+\s+(.*?)\s*(\S+:\d+:\d+)$", line)
        if not m:
            continue
        key = (m.group(4), m.group(3))
        way = -1 if m.group(1) == "unknown" else int(m.group(1))
        sites[key] = max(sites.get(key, 0), way)
    return sites


def dynamic_sites(ext_run, path):
    p = subprocess.run([ext_run, "--bank-conflicts", path], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"compare: ext-run failed on {path}:\n{p.stderr[-2000:]}")
    sites = {}
    for line in p.stderr.splitlines():
        m = re.match(r"ext-emu: bank conflicts:\s+(\d+) requests\s+(\d+) wavefronts\s+ratio\s+"
                     r"([\d.]+)\s+worst\s+(\d+)-way\s+at (\S+?:\d+:\d+)(?: \((.*)\))?$", line)
        if not m:
            continue
        file_line = m.group(5).split("/")[-1]
        key = (file_line, m.group(6) or "")
        sites[key] = max(sites.get(key, 0), int(m.group(4)))
    return sites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext-opt", required=True)
    ap.add_argument("--ext-run", required=True)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    bad = 0
    for path in args.files:
        st = static_sites(args.ext_opt, path)
        dy = dynamic_sites(args.ext_run, path)
        for key in sorted(set(st) | set(dy)):
            s, d = st.get(key), dy.get(key)
            ok = s is not None and d is not None and s == d
            bad += not ok
            print(f"{'agree' if ok else 'DIFFER'}: {key[0]} ({key[1]}): static "
                  f"{'-' if s is None else str(s) + '-way'}, dynamic "
                  f"{'-' if d is None else str(d) + '-way'}")
    print(f"compare: {'all sites agree' if bad == 0 else str(bad) + ' sites differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
