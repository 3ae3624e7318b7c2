"""Checks an SVG written by --ext-report-svg / Kernel.plot: it parses as XML
(SVG 1.1), and it shows every CTA (data-cta 0..N-1, each with its units) or
every buffer (data-buffer 0..N-1), with the counts given.

    check-svg.py FILE [--ctas N] [--fixups N] [--buffers N] [--total B]
                      [--unpacked B]
Prints "ok: ..." or exits 1 with what is wrong."""
import argparse
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--ctas", type=int)
    p.add_argument("--fixups", type=int)
    p.add_argument("--buffers", type=int)
    p.add_argument("--total", type=int)
    p.add_argument("--unpacked", type=int)
    a = p.parse_args()
    root = ET.parse(a.file).getroot()
    problems = []
    if root.tag != SVG + "svg" or root.get("version") != "1.1":
        problems.append(f"root is {root.tag} version {root.get('version')}")
    groups = list(root.iter(SVG + "g"))
    ctas = [g for g in groups if g.get("class") == "cta"]
    buffers = [g for g in groups if g.get("class") == "buffer"]
    if a.ctas is not None:
        ids = sorted(int(g.get("data-cta")) for g in ctas)
        if ids != list(range(a.ctas)):
            problems.append(f"CTAs {ids}, expected 0..{a.ctas - 1}")
        empty = [g.get("data-cta") for g in ctas if not g.findall(SVG + "rect")]
        if empty:
            problems.append(f"CTAs without units: {empty}")
    if a.fixups is not None:
        lines = [l for l in root.iter(SVG + "line") if l.get("class") == "fixup"]
        if len(lines) != a.fixups:
            problems.append(f"{len(lines)} fixup arrows, expected {a.fixups}")
    if a.buffers is not None:
        ids = sorted(int(g.get("data-buffer")) for g in buffers)
        if ids != list(range(a.buffers)):
            problems.append(f"buffers {ids}, expected 0..{a.buffers - 1}")
    text = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    for flag, what in ((a.total, "packed into"), (a.unpacked, "B,")):
        if flag is not None and f"{what} {flag} B" not in text and f"{flag} B unpacked" not in text:
            problems.append(f"'{what} {flag} B' not in the text")
    if problems:
        print(f"{a.file}: " + "; ".join(problems))
        return 1
    print(f"ok: {len(ctas)} CTAs, {len(buffers)} buffers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
