#!/usr/bin/env python3
"""Regenerates ext-fuzz's seed corpus in fuzz/corpus/.

Seeds, each a small file:
  src-*   every `// -----` split of every .mlir file under test/ and
          examples/, without its RUN/CHECK lines;
  lvl-*   the tile and GPU levels of the scheduled seeds (the output of
          ext-apply-schedule and ext-kernel-to-gpu), so the tile-op
          verifiers and later passes get inputs too;
  gen-*   generic-form ext ops ("ext.compute"() ...) derived from those with
          a property or attribute missing, extra or mistyped, an operand or
          a region missing or extra, a block argument retyped: the generic
          form reaches verifier paths the custom syntax guards.
Findings' regression files (test/Fuzz/) are seeds through the src- rule.
Files named by a SHA-1 are inputs a fuzz run found new coverage with: they
cannot be derived, so they live in git as one archive, fuzz/merged-inputs.tar.xz,
and are unpacked beside the seeds.

The corpus is generated, not tracked: the build makes it in build/fuzz/corpus
(target ext-fuzz-corpus, which ext-test-depends builds):

  fuzz/make-corpus.py --ext-opt build/bin/ext-opt --out build/fuzz/corpus

After a fuzz run, merge its new inputs and keep them in the archive:

  build-fuzz/bin/ext-fuzz -merge=1 build/fuzz/corpus RUN/corpus
  fuzz/make-corpus.py --pack-merged build/fuzz/corpus
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MERGED = os.path.join(ROOT, "fuzz", "merged-inputs.tar.xz")
SHA1 = re.compile(r"^[0-9a-f]{40}$")
SPLIT = re.compile(r"^// -----\s*$", re.M)
DROP_LINE = re.compile(r"^\s*//\s*(RUN|CHECK|[A-Z0-9_-]+:|REQUIRES|UNSUPPORTED|XFAIL)")


def sources():
    for top in ("test", "examples"):
        for dirpath, _, files in sorted(os.walk(os.path.join(ROOT, top))):
            for f in sorted(files):
                if f.endswith(".mlir"):
                    yield os.path.join(dirpath, f)


def strip(chunk):
    lines = [l for l in chunk.splitlines() if not DROP_LINE.match(l)]
    return "\n".join(lines).strip() + "\n"


def run_opt(ext_opt, text, *args):
    p = subprocess.run([ext_opt, "-", "-o", "-", *args], input=text,
                       capture_output=True, text=True, timeout=60)
    return p.stdout if p.returncode == 0 else None


# --- a small matcher over MLIR text: brackets outside string literals ------

PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def match_close(text, i):
    """Index just past the bracket that closes text[i]."""
    stack = []
    j = i
    while j < len(text):
        c = text[j]
        if c == '"':
            j += 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
        elif c in PAIRS:
            # '<' only opens after an identifier or '#...' (attr/type params).
            if c != "<" or (j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_.\"")):
                stack.append(PAIRS[c])
        elif c == "-" and text[j:j + 2] == "->":
            j += 1
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
        j += 1
    return None


def split_top(text, sep=","):
    """Splits text at top-level separators."""
    parts, depth, start, j = [], 0, 0, 0
    while j < len(text):
        c = text[j]
        if c == '"':
            j += 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
        elif c in "([{" or (c == "<" and j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_.\"")):
            depth += 1
        elif c == "-" and text[j:j + 2] == "->":
            j += 1
        elif c in ")]}>":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:j])
            start = j + 1
        j += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


class GenericOp:
    """One generic-form ext op in a file: "ext.x"(operands) <{props}> ({regions}) {attrs} : type."""

    def __init__(self, text, start):
        self.text = text
        self.start = start
        m = re.compile(r'"(ext\.[a-z_]+)"\(').match(text, start)
        self.name = m.group(1)
        self.ops_lo = m.end() - 1
        self.ops_hi = match_close(text, self.ops_lo)
        j = self.ops_hi
        self.props = self.regions = self.attrs = None
        while text[j] == " ":
            j += 1
        if text.startswith("<{", j):
            self.props = (j, match_close(text, j + 1) + 1)
            j = self.props[1]
            while text[j] == " ":
                j += 1
        if text.startswith("({", j):
            self.regions = (j, match_close(text, j))
            j = self.regions[1]
            while text[j] == " ":
                j += 1
        if text[j] == "{":
            self.attrs = (j, match_close(text, j))
            j = self.attrs[1]
            while text[j] == " ":
                j += 1
        assert text[j] == ":", (self.name, text[j:j + 40])
        j += 1
        while text[j] == " ":
            j += 1
        self.type_lo = j
        self.type_hi = match_close(text, j)

    def edit(self, lo, hi, new):
        return self.text[:lo] + new + self.text[hi:]

    def mutants(self):
        t = self.text
        out = []
        # Properties: each one dropped, mistyped; one extra; all dropped.
        if self.props:
            lo, hi = self.props
            entries = split_top(t[lo + 2:hi - 2])
            def props(es):
                return "<{" + ", ".join(es) + "}>" if es else ""
            for k, e in enumerate(entries):
                name = e.split("=")[0].strip()
                rest = entries[:k] + entries[k + 1:]
                out.append(("drop-" + name, self.edit(lo, hi, props(rest))))
                for tag, bad in (("str", '"x"'), ("int", "7 : i64"), ("arr", "[]"),
                                 ("unit", "unit"), ("neg", "-1 : i32"),
                                 ("i32arr", "array<i32: 1>"),
                                 ("axis", '[#ext.axis<"i", spatial, 0>]')):
                    val = entries[:k] + [name + " = " + bad] + entries[k + 1:]
                    out.append(("type-%s-%s" % (name, tag), self.edit(lo, hi, props(val))))
            out.append(("extra-prop", self.edit(lo, hi, props(entries + ["fuzz_extra = 1 : i64"]))))
            out.append(("no-props", self.edit(lo, hi, "")))
            # Segment sizes that disagree with the operands.
            for k, e in enumerate(entries):
                if e.startswith("operandSegmentSizes"):
                    for seg in ("array<i32: 0, 1>", "array<i32: 1>", "array<i32: 9, 9>",
                                "array<i32: -1, 2>"):
                        val = entries[:k] + ["operandSegmentSizes = " + seg] + entries[k + 1:]
                        out.append(("segments-" + seg[11:].replace(", ", "-"),
                                    self.edit(lo, hi, props(val))))
        # Discardable attributes: extra, mistyped schedule.
        if self.attrs:
            lo, hi = self.attrs
            out.append(("attrs-dropped", self.edit(lo, hi, "")))
        at = self.attrs[0] if self.attrs else self.type_lo
        for tag, a in (("extra-attr", "{fuzz_extra}"), ("sched-str", '{schedule = "s"}'),
                       ("sched-empty", "{schedule = #ext.schedule<tile = []>}")):
            if not self.attrs:
                out.append((tag, t[:at] + a + " " + t[at:]))
        # Operands: the last one dropped (with its type), the first doubled.
        operands = split_top(t[self.ops_lo + 1:self.ops_hi - 1])
        ty = t[self.type_lo:self.type_hi]
        if ty.startswith("("):
            close = match_close(ty, 0)
            types = split_top(ty[1:close - 1])
            tail = ty[close:]
            if operands and len(types) == len(operands):
                t2 = (t[:self.ops_lo] + "(" + ", ".join(operands[:-1]) + ")" +
                      t[self.ops_hi:self.type_lo] + "(" + ", ".join(types[:-1]) + ")" +
                      tail + t[self.type_hi:])
                out.append(("drop-operand", t2))
                t3 = (t[:self.ops_lo] + "(" + ", ".join(operands + operands[:1]) + ")" +
                      t[self.ops_hi:self.type_lo] + "(" + ", ".join(types + types[:1]) + ")" +
                      tail + t[self.type_hi:])
                out.append(("extra-operand", t3))
                # A mistyped operand type (the SSA value keeps its own).
                t4 = t[:self.type_lo] + "(" + ", ".join(["i32"] + types[1:]) + ")" + tail + t[self.type_hi:]
                out.append(("operand-type", t4))
        # Regions: each dropped, one extra, bodies emptied, block args retyped.
        if self.regions:
            lo, hi = self.regions
            regions = split_top(t[lo + 1:hi - 1])
            for k in range(len(regions)):
                rest = regions[:k] + regions[k + 1:]
                out.append(("drop-region-%d" % k,
                            self.edit(lo, hi, "(" + ", ".join(rest) + ")" if rest else "")))
            out.append(("extra-region", self.edit(lo, hi, "(" + ", ".join(regions + ["{\n}"]) + ")")))
            out.append(("empty-regions", self.edit(lo, hi, "(" + ", ".join("{\n}" for _ in regions) + ")")))
            body = t[lo:hi]
            m = re.search(r"\^bb0\(([^)]*)\)", body)
            if m:
                args = m.group(1)
                retyped = re.sub(r":\s*[a-z0-9]+", ": i1", args, count=1)
                if retyped != args:
                    out.append(("block-arg-type", t[:lo + m.start(1)] + retyped + t[lo + m.end(1):]))
                out.append(("no-block-args", t[:lo + m.start()] + "^bb0:" + t[lo + m.end():]))
            m = re.search(r'"ext\.(kernel_)?yield"\(([^)]*)\)', body)
            if m and m.group(2):
                y = lo + m.start(2)
                ye = lo + m.end(2)
                # Drop the yielded values (and their types).
                tm = re.compile(r"\) : \(([^)]*)\) -> \(\)").match(t, ye)
                if tm:
                    out.append(("yield-nothing", t[:y] + t[ye:tm.start(1)] + t[tm.end(1):]))
        return out


def generic_mutants(text):
    out = []
    for m in re.finditer(r'"ext\.[a-z_]+"\(', text):
        try:
            op = GenericOp(text, m.start())
        except (AssertionError, TypeError, IndexError):
            continue
        for tag, mutant in op.mutants():
            out.append((op.name[4:] + "-" + tag, mutant))
    return out


def pack_merged(corpus, archive):
    """Writes the SHA-1-named inputs of `corpus` to `archive`, the same bytes
    for the same inputs (sorted, no owners or times)."""
    names = sorted(f for f in os.listdir(corpus) if SHA1.match(f))
    with tarfile.open(archive, "w:xz", format=tarfile.USTAR_FORMAT) as tar:
        for name in names:
            info = tar.gettarinfo(os.path.join(corpus, name), arcname=name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            info.mode = 0o644
            with open(os.path.join(corpus, name), "rb") as f:
                tar.addfile(info, f)
    print("make-corpus: %d merged inputs in %s" % (len(names), archive))


def unpack_merged(archive, out):
    with tarfile.open(archive, "r:xz") as tar:
        members = [m for m in tar.getmembers() if m.isfile() and SHA1.match(m.name)]
        for m in members:
            with open(os.path.join(out, m.name), "wb") as f:
                f.write(tar.extractfile(m).read())
    return len(members)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ext-opt", default=os.path.join(ROOT, "build", "bin", "ext-opt"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz", "corpus"))
    ap.add_argument("--merged", default=MERGED,
                    help="archive of the merged inputs to unpack into --out")
    ap.add_argument("--pack-merged", metavar="CORPUS",
                    help="only write CORPUS's SHA-1-named inputs to --merged")
    args = ap.parse_args()
    if args.pack_merged:
        pack_merged(args.pack_merged, args.merged)
        return 0

    seeds = {}  # name -> text
    def add(name, text):
        seeds[name] = text

    parsed = []
    for path in sources():
        rel = os.path.relpath(path, ROOT)
        base = re.sub(r"[^A-Za-z0-9]+", "-", rel[:-5]).strip("-")
        with open(path) as f:
            chunks = SPLIT.split(f.read())
        for k, chunk in enumerate(chunks):
            text = strip(chunk)
            if not text.strip():
                continue
            name = "src-%s-%d" % (base, k)
            add(name, text)
            generic = run_opt(args.ext_opt, text, "--mlir-print-op-generic")
            if generic is not None and '"ext.' in generic:
                parsed.append((name, generic))

    levels = []
    for name, generic in parsed:
        if "schedule" not in generic:
            continue
        for tag, pipe in (("tile", "--ext-apply-schedule"),
                          ("gpu", "--pass-pipeline=builtin.module(ext-apply-schedule,ext-kernel-to-gpu)")):
            out = run_opt(args.ext_opt, generic, pipe, "--mlir-print-op-generic")
            if out is not None:
                add("lvl-%s-%s" % (tag, name[4:]), out)
                levels.append(("%s-%s" % (tag, name[4:]), out))

    # Generic mutants: for each (op, mutation) the one from the smallest
    # seed, so the corpus stays a few hundred small files.
    best = {}
    for name, generic in parsed + levels:
        for tag, mutant in generic_mutants(generic):
            if tag not in best or len(mutant) < len(best[tag]):
                best[tag] = mutant
    for tag, mutant in best.items():
        add("gen-" + tag, mutant)

    # The whole corpus is rewritten: no stale seed of a deleted test stays.
    os.makedirs(args.out, exist_ok=True)
    for f in os.listdir(args.out):
        os.remove(os.path.join(args.out, f))
    merged = unpack_merged(args.merged, args.out)
    digests = set()
    written = 0
    for name in sorted(seeds):
        text = seeds[name]
        d = hashlib.sha1(text.encode()).hexdigest()
        if d in digests:
            continue
        digests.add(d)
        with open(os.path.join(args.out, name + ".mlir"), "w") as f:
            f.write(text)
        written += 1
    print("make-corpus: %d seeds and %d merged inputs in %s (%d parsed sources, %d levels, "
          "%d generic mutants)" % (written, merged, args.out, len(parsed), len(levels), len(best)))
    # A corpus without seeds replays nothing: fail rather than make one.
    if not written or not parsed:
        print("make-corpus: no seeds (is %s working?)" % args.ext_opt, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
