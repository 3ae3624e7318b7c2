#!/usr/bin/env python3
"""Replays ext-fuzz's corpus through ext-opt and fails on any crash.

  fuzz/replay.py --ext-opt build/bin/ext-opt [DIR|FILE ...]   (default build/fuzz/corpus)

For every ext pass and pipeline ext-opt lists in --help (so passes added later
are replayed too), and once with no pass (parse, verify, print), ext-opt runs
over every corpus file. Diagnostics and non-zero exits are fine: most corpus
inputs are invalid on purpose; but an input ext-opt rejects must get an error
diagnostic (checked file by file without passes). A crash is not: a signal, LLVM's "Stack dump"
or "PLEASE submit a bug report", a fatal "LLVM ERROR", a sanitizer report.

To keep it fast, all files go through one ext-opt per pass as the chunks of
one --split-input-file input (each chunk is processed independently, so an
error in one does not hide another); on a crash each file is rerun alone to
name it. Prints one line per pass and "replay: N inputs x M runs, no crash".
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = "// ----- ext-fuzz-replay -----"
CRASH = re.compile(rb"Stack dump|PLEASE submit a bug report|LLVM ERROR|"
                   rb"AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                   rb"Assertion .* failed")


def ext_passes(ext_opt):
    help_text = subprocess.run([ext_opt, "--help"], capture_output=True,
                               text=True, check=True).stdout
    return sorted(set(re.findall(r"^\s+--(ext-[a-z0-9-]+)\s", help_text, re.M)))


def crashed(proc):
    return proc.returncode < 0 or proc.returncode > 128 or CRASH.search(proc.stderr)


def run(ext_opt, path, flags, split, timeout):
    cmd = [ext_opt, path, "-o", os.devnull] + flags
    if split:
        cmd.append("--split-input-file=" + MARKER)
    try:
        return subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        e.returncode = -1
        e.stderr = b"timed out after %d s" % timeout
        return e


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext-opt", default=os.path.join(ROOT, "build", "bin", "ext-opt"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("inputs", nargs="*", default=[os.path.join(ROOT, "build", "fuzz", "corpus")])
    args = ap.parse_args()

    files = []
    for item in args.inputs:
        if os.path.isdir(item):
            files += sorted(os.path.join(item, f) for f in os.listdir(item)
                            if os.path.isfile(os.path.join(item, f)))
        else:
            files.append(item)
    if not files:
        print("replay: no input")
        return 1

    runs = [("parse, verify, print", [])]
    runs += [(p, ["--" + p]) for p in ext_passes(args.ext_opt)]

    with tempfile.TemporaryDirectory() as tmp:
        joined = os.path.join(tmp, "corpus.mlir")
        with open(joined, "wb") as out:
            for k, f in enumerate(files):
                if k:
                    out.write(b"\n" + MARKER.encode() + b"\n")
                with open(f, "rb") as src:
                    out.write(src.read().replace(MARKER.encode(), b"// -"))

        crashes = []
        for name, flags in runs:
            proc = run(args.ext_opt, joined, flags, True, args.timeout)
            if not crashed(proc):
                print("replay: %-28s %d inputs, no crash" % (name, len(files)))
                continue
            # Name the inputs.
            for f in files:
                single = run(args.ext_opt, f, flags, False, args.timeout)
                if crashed(single):
                    tail = single.stderr.decode(errors="replace").strip().splitlines()[-3:]
                    crashes.append((" ".join(flags), f, single.returncode, tail))
            if not any(c[0] == " ".join(flags) for c in crashes):
                crashes.append((" ".join(flags), "(all inputs together)", proc.returncode,
                                proc.stderr.decode(errors="replace").strip().splitlines()[-3:]))

    # Parse and verify, file by file: a rejected input must say why (exit 1
    # with an error diagnostic), never just fail.
    from concurrent.futures import ThreadPoolExecutor
    def parse_alone(f):
        return f, run(args.ext_opt, f, [], False, args.timeout)
    silent = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        for f, proc in pool.map(parse_alone, files):
            if crashed(proc):
                crashes.append(("", f, proc.returncode,
                                proc.stderr.decode(errors="replace").strip().splitlines()[-3:]))
            elif proc.returncode != 0 and (proc.returncode != 1 or b"error:" not in proc.stderr):
                silent += 1
                crashes.append(("(failed without an error)", f, proc.returncode, []))
    print("replay: %-28s %d inputs, each accepted or rejected with an error"
          % ("parse alone", len(files) - silent))

    for flags, f, rc, tail in crashes:
        print("replay: CRASH: ext-opt %s %s: exit %d" % (f, flags, rc))
        for line in tail:
            print("    " + line)
    if crashes:
        print("replay: %d crashes" % len(crashes))
        return 1
    print("replay: %d inputs x %d runs, no crash" % (len(files), len(runs) + 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
