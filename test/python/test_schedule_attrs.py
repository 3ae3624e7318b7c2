"""Schedules are made by ext's C++ core from typed values (issue 28 item 5):
their text is the IR's, the names Python offers are ODS's, bad values raise
at the user's line, attribute text stays the escape hatch, and the Python
package has no import cycle."""

import ast
import os
import re

import numpy as np
import pytest

import ext
from ext._ext import schedules
from te_helpers import line_of, matmul_te

HERE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def ints(shape):
    return np.random.default_rng(1).integers(-3, 4, size=shape).astype(np.float32)


@pytest.mark.parametrize("kwargs,text", [
    (dict(tile=(32, 32, 8)),
     '#ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [32, 32, 1]>'),
    (dict(tile=(16, 16, 8), threads=(8, 8, 1), cache="AB", decomposition="data_parallel"),
     '#ext.schedule<tile = [16, 16, 8], blocks = ["i", "j"], threads = [8, 8, 1], '
     'cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], '
     'decomposition = #ext.data_parallel>'),
    (dict(tile=(16, 16, 8), threads=(8, 8, 1), cache="AB", stages=3, vector=4, unroll=2,
          raster="col", swizzle=2),
     '#ext.schedule<tile = [16, 16, 8], blocks = ["i", "j"], threads = [8, 8, 1], '
     'cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], raster = col, '
     'swizzle = 2, vector = 4, unroll = 2, stages = 3>'),
    (dict(tile=(32, 32, 8), threads=(8, 8, 1), layout=("blocked", [4, 4])),
     '#ext.schedule<tile = [32, 32, 8], blocks = ["i", "j"], threads = [8, 8, 1], '
     'layout = #ext.blocked<thread_tile = [4, 4]>>'),
    (dict(tile=(32, 32, 16), cache="AB", mma="m16n8k16", warps=(2, 2)),
     '#ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [4, 32, 1], '
     'cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], '
     'mma = #ext.mma<m16n8k16>, warps = [2, 2]>'),
    (dict(tile=(32, 32, 16), cache="AB", mma="auto", warps=(1, 1)),
     '#ext.schedule<tile = [32, 32, 16], blocks = ["i", "j"], threads = [1, 32, 1], '
     'cache = [#ext.cache<operand = 0>, #ext.cache<operand = 1>], mma = auto, '
     'warps = [1, 1]>'),
])
def test_text_is_the_irs(kwargs, text):
    A, B, C = matmul_te(64, 64, 64)
    if "cache" in kwargs:
        kwargs["cache"] = [{"A": A, "B": B}[c] for c in kwargs["cache"]]
    s = ext.schedule(C, **kwargs)
    assert s.text() == text
    assert repr(s) == f"Schedule(C: {text})"
    # The C++ parser reads it back as the same attribute, and the built IR
    # carries it.
    assert str(schedules.parse(s.text())) == text
    assert text in ext.lower(s)[0]["computes"][0]["schedule"][0].__str__()
    if "mma" not in kwargs:
        assert text in ext.build(s).mlir()


def test_cache_fields_and_decompositions():
    A, B, C = matmul_te(45, 37, 29)
    s = ext.schedule(C, tile=(16, 16, 8), threads=(8, 8, 1),
                     cache=[(A, {"storage_align": [(0, 8, 1)]}), (B, {"swizzle": (2, 0, 2, 4)})],
                     decomposition=("split_k", {"slices": 3}))
    # The cache printer strips the storage_align's name, as in the IR.
    assert ("cache = [#ext.cache<operand = 0, align = [<dim = 0, factor = 8, "
            "offset = 1>]>, #ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 2, base = 0, "
            "shift = 2, panel = 4>>], decomposition = #ext.split_k<slices = 3>") in s.text()
    a, b = ints((45, 29)), ints((29, 37))
    np.testing.assert_array_equal(ext.build(s).run(a, b), a @ b)


def test_async_keyword_changes_the_ir():
    A, B, C = matmul_te(64, 64, 64)
    assert "async_" in ext.schedule_fields()
    common = dict(tile=(32, 32, 8), threads=(8, 8, 1), cache=[A, B], stages=2)
    on = ext.schedule(C, **common)
    off = ext.schedule(C, async_=False, **common)
    assert "async" not in on.text()  # true: the default
    assert off.text().endswith("stages = 2, async = false>")
    assert "async = false" in ext.build(off).mlir()
    # sm_80 copies with cp.async unless async is off.
    assert "cp.async" in ext.build(on, target="nvvm", chip="sm_80").ptx
    assert "cp.async" not in ext.build(off, target="nvvm", chip="sm_80").ptx
    a, b = ints((64, 64)), ints((64, 64))
    np.testing.assert_array_equal(ext.build(off).run(a, b), a @ b)
    with pytest.raises(TypeError, match="schedule async takes True or False, got 'no'"):
        ext.schedule(C, async_="no", **common)
    with pytest.raises(ValueError, match="schedule field 'async' does not exist"):
        ext.schedule(C, **{"async": False})


def test_tma_keyword_loads_tiles_with_the_copy_engine():
    A, B, C = matmul_te(64, 64, 64)
    common = dict(tile=(32, 32, 8), threads=(8, 8, 1), cache=[A, B], stages=2)
    s = ext.schedule(C, tma=True, **common)
    assert s.text().endswith("stages = 2, tma = true>")
    ptx = ext.build(s, target="nvvm", chip="sm_90").ptx
    assert "cp.async.bulk.tensor" in ptx and "mbarrier.try_wait.parity" in ptx
    assert "cp.async.cg" not in ptx
    a, b = ints((64, 64)), ints((64, 64))
    np.testing.assert_array_equal(ext.build(s, chip="sm_90").run(a, b), a @ b)
    # The copy engine is sm_90's.
    with pytest.raises(Exception, match="needs an NVIDIA chip of sm_90 or later, not sm_80"):
        ext.build(s, target="nvvm", chip="sm_80")


def test_specialize_keyword_spells_warp_specialization():
    # A producer warpgroup loads by TMA, two consumer warpgroups compute on
    # wgmma: ragged 150x130x200 (TMA wants rows of a multiple of 16 bytes).
    m, n, k = 150, 130, 200
    A, B, C = matmul_te(m, n, k, "float16", acc="float32", b_transposed=True)
    sw = {"swizzle": (3, 3, 3)}
    common = dict(tile=(128, 128, 64), cache=[(A, sw), (B, sw)], mma="wgmma_k16",
                  warps=(8, 1), vector=8, stages=3)
    s = ext.schedule(C, tma=True, specialize="cooperative", **common)
    assert s.text().endswith("tma = true, specialize = cooperative>")
    kernel = ext.build(s, target="nvvm", chip="sm_90a")
    assert "setmaxnreg.dec.sync.aligned.u32" in kernel.ptx
    assert "setmaxnreg.inc.sync.aligned.u32" in kernel.ptx
    a, b = ints((m, k)).astype(np.float16), ints((n, k)).astype(np.float16)
    np.testing.assert_array_equal(kernel.run(a, b),
                                  a.astype(np.float32) @ b.astype(np.float32).T)
    # Its producer warpgroup loads with the copy engine.
    with pytest.raises(ValueError, match="specialize = cooperative needs tma = true"):
        ext.schedule(C, specialize="cooperative", **common)
    with pytest.raises(ValueError, match="specialize must be 'none', 'cooperative' or "
                                         "'pingpong', got 'zigzag'"):
        ext.schedule(C, tma=True, specialize="zigzag", **common)


def test_cluster_keyword_multicasts_over_a_thread_block_cluster():
    # 2 x 2 CTAs share A's tiles along a cluster row and B's along a column:
    # each loaded once from L2 and multicast into the CTAs that use it.
    # Ragged 300x200x136: tiles past the grid's edge compute zeros and store
    # nothing.
    m, n, k = 300, 200, 136
    A, B, C = matmul_te(m, n, k, "float16", acc="float32", b_transposed=True)
    sw = {"swizzle": (3, 3, 3)}
    common = dict(tile=(128, 64, 64), cache=[(A, sw), (B, sw)], mma="wgmma_k16",
                  warps=(8, 1), vector=8, stages=3, tma=True, specialize="cooperative")
    s = ext.schedule(C, cluster=(2, 2), **common)
    assert s.text().endswith("specialize = cooperative, cluster = [2, 2]>")
    kernel = ext.build(s, target="nvvm", chip="sm_90a")
    assert "multicast::cluster" in kernel.ptx
    assert "mapa.shared::cluster" in kernel.ptx
    a, b = ints((m, k)).astype(np.float16), ints((n, k)).astype(np.float16)
    np.testing.assert_array_equal(kernel.run(a, b),
                                  a.astype(np.float32) @ b.astype(np.float32).T)
    with pytest.raises(ValueError, match="schedule with cluster needs specialize = "
                                         "cooperative or pingpong"):
        ext.schedule(C, cluster=(2, 1), **dict(common, specialize="none"))


def test_bad_values_raise_at_the_users_line():
    A, B, C = matmul_te(32, 32, 32)
    with pytest.raises(ValueError, match=rf"test_schedule_attrs.py:{line_of('# bad-vector')}: "
                                         "invalid schedule: schedule vector width must be 1, "
                                         "2, 4 or 8, got 3$"):
        ext.schedule(C, vector=3)  # bad-vector
    with pytest.raises(ValueError, match=rf"test_schedule_attrs.py:{line_of('# bad-align')}: "
                                         r"invalid schedule: storage_align offset must be in "
                                         r"\[0, factor\), got 4 with factor 4"):
        ext.schedule(C, cache=[(A, [(0, 4, 4)])])  # bad-align
    with pytest.raises(ValueError, match=rf"test_schedule_attrs.py:{line_of('# bad-raster')}: "
                                         "invalid schedule: schedule raster must be 'row' or "
                                         "'col', got 'diagonal'"):
        ext.schedule(C, raster="diagonal")  # bad-raster
    with pytest.raises(TypeError, match="schedule stages takes integers, got 2.5"):
        ext.schedule(C, stages=2.5)
    with pytest.raises(ValueError, match="a cached operand takes either align"):
        ext.schedule(C, cache=[(A, {"align": (0, 4, 1), "swizzle": (2, 0, 2)})])


def test_attribute_text_is_the_escape_hatch():
    # Text is parsed by the C++ core wherever an attribute goes: how a
    # plugin's decomposition or layout reaches a schedule.
    A, B, C = matmul_te(45, 37, 29)
    s = ext.schedule(C, tile=(16, 16, 8), threads=(8, 8, 1), cache=[A, B],
                     decomposition="#ext.stream_k<grid = 7>",
                     layout="#ext.blocked<thread_tile = [2, 2]>")
    assert "decomposition = #ext.stream_k<grid = 7>" in s.text()
    a, b = ints((45, 29)), ints((29, 37))
    np.testing.assert_array_equal(ext.build(s).run(a, b), a @ b)
    assert "mma = #ext.mma<m16n8k8>" in ext.schedule(C, mma="#ext.mma<m16n8k8>",
                                                      warps=(1, 1)).text()
    with pytest.raises(ValueError, match=rf"test_schedule_attrs.py:{line_of('# unregistered-text')}: "
                                         "invalid schedule: .*created with unregistered dialect"):
        ext.schedule(C, decomposition="#nope.order<run = 3>")  # unregistered-text
    # The whole schedule as text, as a program description may give it.
    program, _, _, _ = ext.lower(s)
    program["computes"][0]["schedule"] = (s.text(), s.loc)
    assert s.text() in str(ext.Module.build(None, program))


def test_mma_names_are_the_ods_enums():
    td = os.path.join(ROOT, "include", "ext", "Dialect", "Ext", "IR", "ExtAttrs.td")
    if not os.path.exists(td):
        pytest.skip("no source tree")
    with open(td) as f:
        enum = re.search(r'def Ext_MmaShape\b.*?\[(.*?)\]', f.read(), re.S).group(1)
    cases = re.findall(r'I32EnumAttrCase<"(\w+)", \d+(?:, "(\w+)")?>', enum)
    assert ext.mma_names() == [text or name for name, text in cases]
    assert ext.mma_names()[0] == "auto" and "wgmma_k16" in ext.mma_names()
    A, B, C = matmul_te(32, 32, 32)
    for name in ext.mma_names():
        assert ext.schedule(C, mma=name, warps=(1, 1)).text()
    with pytest.raises(ValueError, match="expected ::ext::MmaShape to be one of: "
                                         + ", ".join(ext.mma_names())):
        ext.schedule(C, mma="m16n8k32", warps=(1, 1))


def test_fields_come_from_ods():
    td = os.path.join(ROOT, "include", "ext", "Dialect", "Ext", "IR", "ExtAttrs.td")
    if not os.path.exists(td):
        pytest.skip("no source tree")
    with open(td) as f:
        text = f.read()
    for attr, name in [("Schedule", "schedule"), ("Cache", "cache")]:
        body = re.search(rf'def Ext_{attr}Attr\b.*?let parameters = \(ins(.*?)\);', text,
                         re.S).group(1)
        assert schedules.fields(name) == re.findall(r':\$(\w+)', body)
    expected = {f + "_" if f == "async" else f for f in schedules.fields("schedule")}
    assert set(ext.schedule_fields()) == expected


def test_no_import_cycle():
    package = os.path.dirname(ext.__file__)
    graph = {}
    for name in os.listdir(package):
        if name.endswith(".py"):
            with open(os.path.join(package, name)) as f:
                tree = ast.parse(f.read())
            deps = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level == 1:
                    if node.module:
                        deps.add(node.module.split(".")[0])
                    else:
                        deps.update(a.name for a in node.names)
            graph[name[:-3]] = {d for d in deps if d != "_ext"}

    def visit(module, path):
        assert module not in path, f"import cycle: {' -> '.join(path + [module])}"
        for d in graph.get(module, ()):
            visit(d, path + [module])
    for module in graph:
        visit(module, [])


def test_decompositions_come_from_the_registry():
    # The names and parameters are the C++ registry's (ext's own first).
    assert ext.decomposition_names() == sorted(
        name for name, _, _ in ext._ext.schedules.decompositions())
    assert ext.decomposition_parameters("split_k") == ["slices", "mode"]
    assert ext.decomposition_parameters("stream_k") == ["grid", "sms"]
    A, B, C = matmul_te(48, 32, 64)
    s = ext.schedule(C, tile=(16, 16, 8), decomposition=("split_k", {"slices": 3}))
    assert "decomposition = #ext.split_k<slices = 3>" in s.text()
    with pytest.raises(ValueError, match=r"split_k slices must be in \[1, 2147483647\] \(the grid.s x limit\), got 0"):
        ext.schedule(C, tile=(16, 16, 8), decomposition=("split_k", {"slices": 0}))
    with pytest.raises(ValueError, match="decomposition 'stream_k': unexpected keyword "
                                         "'slices' \\(it takes grid, sms\\)"):
        ext.schedule(C, tile=(16, 16, 8), decomposition=("stream_k", {"slices": 2}))
    with pytest.raises(TypeError, match="takes an int or a name"):
        ext.schedule(C, tile=(16, 16, 8), decomposition=("split_k", {"slices": 2.5}))
