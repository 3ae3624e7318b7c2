"""Kernel.plot: SVGs of the decomposition plan and the shared-memory packing
(what `ext-opt --ext-report-svg=DIR` writes), valid SVG showing every CTA and
every buffer."""
import xml.etree.ElementTree as ET

import ext

SVG = "{http://www.w3.org/2000/svg}"


def groups(path, cls):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg" and root.get("version") == "1.1"
    return [g for g in root.iter(SVG + "g") if g.get("class") == cls]


def test_stream_k_plan_and_packing(tmp_path):
    # 300x200 over 64x64 tiles: 5 x 4 = 20 tiles of 9 k-steps on 13 CTAs.
    w = ext.matmul(300, 200, 130, tile=(64, 64, 16), threads=(16, 16, 1), cache=[0, 1],
                   decomposition="stream_k", grid=13)
    kernel = w.build("nvvm", chip="sm_90")
    paths = kernel.plot(tmp_path / "plots")
    plans = [p for p in paths if p.endswith(".decomposition.svg")]
    packings = [p for p in paths if p.endswith(".smem.svg")]
    assert len(plans) == 1 and len(packings) == 1, paths
    ctas = groups(plans[0], "cta")
    assert sorted(int(g.get("data-cta")) for g in ctas) == list(range(13))
    # Every CTA's units together cover every tile's 9 iterations once.
    covered = {}
    for g in ctas:
        for r in g.iter(SVG + "rect"):
            t = int(r.get("data-tile"))
            covered[t] = covered.get(t, 0) + int(r.get("data-k-end")) - int(r.get("data-k-begin"))
    assert covered == {t: 9 for t in range(20)}
    buffers = groups(packings[0], "buffer")
    # A's and B's shared tiles.
    assert len(buffers) == 2
    assert kernel.shared_memory_bytes > 0


def test_plot_on_the_cpu_target_and_a_kernel_without_split(tmp_path):
    w = ext.matmul(64, 64, 32, tile=(32, 32, 8), threads=(8, 8, 1), cache=[0, 1])
    paths = w.build("cpu").plot(tmp_path)
    plan = [p for p in paths if p.endswith(".decomposition.svg")]
    # Data-parallel: 4 tiles, one CTA each, no fixup.
    assert len(groups(plan[0], "cta")) == 4
    root = ET.parse(plan[0]).getroot()
    assert not [l for l in root.iter(SVG + "line") if l.get("class") == "fixup"]
