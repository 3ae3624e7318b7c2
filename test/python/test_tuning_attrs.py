"""The tuner and the bench scripts make typed `#ext.schedule` attributes
through ext's bindings (`ext._ext.schedules`), never schedule text of their
own: what they print is the attribute's own printer, and it parses back to
the same attribute. And the tuner finds the CUDA device through ext's
runner (`ext.tuning.cuda_device()`), which on a machine without one says so
instead of raising."""

import json
import os
import subprocess
import sys

import pytest

import ext
from ext import tuning, tuning_space
from ext._ext import schedules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_CUDA = os.path.join(ROOT, "build", "lib", "fake-cuda", "libcuda.so.1")


def _round_trips(attr):
    """`attr` is a typed schedule whose text parses back to it, and whose
    fields make it again."""
    assert isinstance(attr, schedules.Attribute) and attr.name == "ext.schedule"
    assert schedules.parse(str(attr)) == attr
    assert schedules.schedule(**attr.fields()) == attr
    assert hash(schedules.parse(str(attr))) == hash(attr)


def test_mlir_candidates_are_typed_attributes_equal_to_python_ones():
    # The MLIR path of the tuner (ext-tune, tune_module) and the Python one
    # make the same attribute for the same candidate, as attributes.
    cases = [(ext.matmul(300, 200, 100, dtype="float16"), "kernel", 0, "sm_90a", 97),
             (ext.matmul(256, 256, 64), "kernel", 0, "gfx942", 211),
             (ext.softmax(64, 1000), "kernel", 3, "sm_80", 13)]
    for w, function, index, chip, step in cases:
        subject = tuning._MlirSubject(ext.Module.parse(str(w.module())), function, index)
        te_problem = tuning_space.problem_of(w.output)
        fitting, _ = ext.search_space(w, chip)
        assert all(isinstance(c, tuning_space.Candidate) for c in fitting)  # plain data
        for c in fitting[::step]:
            attr = subject.attr(c)
            _round_trips(attr)
            assert attr == tuning_space.schedule_of(te_problem, c).attr
            # Set on the module as it is: the module prints the same text.
            scheduled = subject.scheduled(c).computes()[subject.index]["schedule"]
            assert scheduled == str(attr)
            # Read back from the attribute (or its text), the candidate makes
            # the same attribute (a field at its default reads as None).
            again = tuning_space.candidate_of(te_problem, attr)
            assert subject.attr(again) == attr and again.tile == c.tile
            assert tuning_space.candidate_of(te_problem, str(attr)) == again


def test_candidate_of_reads_a_schedule_in_a_file():
    # Text that runs on into the rest of the file, as bench/tuning reads it.
    w = ext.matmul(4096, 4096, 4096)
    text = open(os.path.join(ROOT, "examples/kernels/gemm_f32.mlir")).read()
    c = tuning_space.candidate_of(tuning_space.problem_of(w.output),
                                  text[text.index("#ext.schedule<"):])
    assert c.short() == "tile=128x128x8 threads=16x16x1 tt=4x4 v4 s3 cache=0,1,2 g2"
    streamk = open(os.path.join(ROOT, "examples/kernels/gemm_streamk.mlir")).read()
    s = tuning_space.candidate_of(tuning_space.problem_of(w.output),
                                  streamk[streamk.index("#ext.schedule<"):])
    assert s.decomposition == ("stream_k", (("grid", 5),))


def test_fields_of_the_parts():
    sw = schedules.swizzle(bits=3, base=3, shift=3, panel=64)
    assert sw.fields() == {"bits": 3, "base": 3, "shift": 3, "panel": 64}
    assert schedules.swizzle(**sw.fields()) == sw and sw != schedules.swizzle(bits=3, base=3,
                                                                              shift=3)
    d = schedules.decomposition("split_k", slices=4, mode="parallel")
    assert d.name == "ext.split_k" and d.fields() == {"slices": 4, "mode": "parallel"}
    assert schedules.decomposition("split_k", **d.fields()) == d
    assert schedules.cyclic().fields() == {}
    with pytest.raises(ValueError, match="fields\\(\\) reads ext's"):
        schedules.parse("#ext.axis<\"i\", spatial, 4>").fields()
    assert {schedules.parse("#ext.mma<m16n8k16>"), schedules.mma(shape="m16n8k16")} == \
        {schedules.mma(shape="m16n8k16")}


def test_tune_module_writes_the_tuned_attribute(tmp_path):
    text = str(ext.matmul(256, 192, 64).module())
    tuned, results = ext.tune_module(text, chip="sm_80", function="kernel", compute=0,
                                     database=str(tmp_path / "db.json"), min_legal=4,
                                     trials=1, check=False, plot=False)
    (_, _, rep), = results
    subject = tuning._MlirSubject(ext.Module.parse(text), "kernel", 0)
    attr = subject.attr(rep.best.candidate)
    _round_trips(attr)
    assert tuned.computes()[0]["schedule"] == str(attr)
    assert "schedule = " + str(attr) in str(tuned)
    if not tuning.cuda_device()["available"]:
        assert "not timed: no CUDA device here" in rep.report()


def test_cuda_probe_without_a_device_says_so():
    device = tuning.cuda_device()
    assert set(device) == {"available", "name", "chip", "error"}
    if device["available"]:
        pytest.skip(f"this machine has {device['name']}")
    assert device["error"] and not device["name"]
    timer, words = tuning._gpu_timer()
    assert timer is None and words.startswith("not timed: no CUDA device here (")


def _probe(env, code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, **env), check=True).stdout


def test_cuda_probe_through_the_runner_finds_the_driver_it_is_given():
    # The runner's loader, not a ctypes handle of the tuner's own: the
    # driver ext-run would use ($EXT_CUDA_DRIVER), here missing or the test
    # suite's fake one (an sm_80 device, or none).
    code = "import json, ext; print(json.dumps(ext.tuning.cuda_device()))"
    missing = json.loads(_probe({"EXT_CUDA_DRIVER": "/nonexistent/libcuda.so.1"}, code))
    assert not missing["available"] and "/nonexistent/libcuda.so.1" in missing["error"]
    if not os.path.exists(FAKE_CUDA):
        pytest.skip("the fake CUDA driver is not built")
    fake = json.loads(_probe({"EXT_CUDA_DRIVER": FAKE_CUDA}, code))
    assert fake["available"] and fake["chip"].startswith("sm_") and fake["name"]
    none = json.loads(_probe({"EXT_CUDA_DRIVER": FAKE_CUDA, "FAKE_CUDA_NO_DEVICE": "1"}, code))
    assert not none["available"] and none["error"]
    # bench/gpu/run.py asks the same runner.
    bench = ("import sys; sys.path.insert(0, 'bench/gpu'); import run; "
             "print(run.gpu_present())")
    out = subprocess.run([sys.executable, "-c", bench], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, EXT_CUDA_DRIVER=FAKE_CUDA), check=True)
    assert out.stdout.startswith("(True, ") and fake["chip"] in out.stdout


def test_bench_gpu_schedules_are_typed():
    sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
    try:
        import export
        import run
    finally:
        sys.path.pop(0)
    names = [name for name, _, _ in run.variants()]
    assert "gemm_f16_mma_large" in names and "gemm_f16_mfma" not in names
    for name, elem, schedule in run.variants() + run.variants(nk=True, tma=True):
        _round_trips(schedule)
    # gemm_f16_wgmma's B is [N][K]: TMA and its cluster kept for export.py,
    # dropped for the runner.
    wgmma = dict((n, s) for n, _, s in run.variants(nk=True, tma=True))["gemm_f16_wgmma"]
    assert wgmma.fields()["tma"] and wgmma.fields()["cluster"] == [2, 2]
    plain = dict((n, s) for n, _, s in run.variants(nk=True))["gemm_f16_wgmma"]
    assert not plain.fields()["tma"] and plain.fields()["cluster"] == []
    assert plain.fields()["specialize"] == "none" and plain.fields()["stages"] == 4
    decs = run.decomposition_variants([(896, 1280, 1024)])
    assert [n for n, _, _, _ in decs][:4] == ["mma_large+data_parallel", "mma_large+persistent",
                                                "mma_large+split_k", "mma_large+split_k_par"]
    for _, _, schedule, _ in decs:
        _round_trips(schedule)
    assert str(decs[3][2].fields()["decomposition"]) == \
        "#ext.split_k<slices = 2, mode = parallel>"
    sweep = export.sweep_schedule((128, 256, 32), (2, 4), 3)
    wg = export.wgmma_schedule((128, 256, 64), 3, False)
    for s in (sweep, wg):
        _round_trips(s)
    assert str(wg.fields()["cache"][1]) == \
        "#ext.cache<operand = 1, swizzle = #ext.swizzle<bits = 3, base = 3, shift = 3, panel = 64>>"
    text = export.gemm_function("f16", wg, 256, 512, 128)
    (d,) = ext.Module.parse(text).computes()
    assert d["schedule"] == str(wg)
