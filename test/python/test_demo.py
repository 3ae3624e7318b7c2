"""The main job: `scripts/demo.sh --no-build` (the demo without its setup and
build) prints every report line of every kernel it reports, runs
examples/kernels/matmul.mlir against numpy, and exits 0; scripts/report.py
reads ptxas whatever it leaves out, reports without ptxas, and fails with a
message, not a traceback; README.md's report blocks are the report's
output."""

import importlib.util
import os
import re
import subprocess

import pytest

import ext

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(ext.__file__))))
REPORT = os.path.join(ROOT, "scripts", "report.py")
PYTHON = "/usr/bin/python3"  # demo.sh's

# The lines every report has, in order, and those of the kernels that have
# a decomposition or a workspace.
LINES = ["kernel", "tiles", "launch", "decomposition", "utilization", "schedule", "mainloop",
         "workspace", "shared memory", "bank conflicts", "kernels", "global bytes", "PTX",
         "HSACO", "CPU emulator"]
KERNELS = {
    "gemm_f32.mlir": [line for line in LINES if line != "workspace"],
    "gemm_streamk.mlir": LINES,
    "softmax.mlir": [line for line in LINES if line != "workspace"],
}


def _label(line):
    return next((label for label in LINES if line.startswith(label + " ")), None)


def _sections(stdout):
    """{kernel: its report's lines} from demo.sh's output."""
    sections = {}
    for m in re.finditer(r"^== report: (\S+)\n(.*?)(?=^== |\Z)", stdout, re.M | re.S):
        sections[m.group(1)] = [line for line in m.group(2).splitlines() if line]
    return sections


def _report_module():
    spec = importlib.util.spec_from_file_location("report", REPORT)
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    return report


def _tools_built():
    if not os.path.exists(os.path.join(BUILD, "bin", "ext-run")):
        pytest.skip(f"no ext tools in {BUILD}/bin")


@pytest.fixture(scope="module")
def demo():
    _tools_built()
    env = dict(os.environ, EXT_BUILD_DIR=BUILD)
    return subprocess.run(["bash", os.path.join(ROOT, "scripts", "demo.sh"), "--no-build"],
                          capture_output=True, text=True, env=env, timeout=600)


def test_demo_runs(demo):
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert "Traceback" not in demo.stderr, demo.stderr
    assert list(_sections(demo.stdout)) == list(KERNELS)
    assert "== ext-run examples/kernels/matmul.mlir" in demo.stdout
    assert re.search(r"^reference: .* -> MATCH$", demo.stdout, re.M), demo.stdout[-2000:]


@pytest.mark.parametrize("kernel", KERNELS)
def test_demo_report_lines(demo, kernel):
    lines = _sections(demo.stdout).get(kernel, [])
    labels = [_label(line) for line in lines]
    assert None not in labels, f"unlabelled report lines of {kernel}: {lines}"
    assert [label for i, label in enumerate(labels) if label not in labels[:i]] == KERNELS[kernel], \
        f"{kernel}'s report lines:\n" + "\n".join(lines) + "\n" + demo.stderr[-2000:]
    assert lines[0] == f"kernel        {kernel}"
    ptx = [line for line in lines if line.startswith("PTX")]
    assert all(re.search(r": \d+ lines(; ptxas: \d+ registers, \d+ B static smem|"
                         r" \(ptxas not found: not assembled\))", line) for line in ptx), ptx
    assert re.search(r"max \|kernel - reference\| = \S+ \(", lines[-1]), lines[-1]


def test_dynamic_shared_memory_is_the_launch(demo):
    """The f32 GEMM's 64 KB are dynamic (above 48 KB): ptxas counts no static
    bytes and the report gives the launch's."""
    ptx = next(line for line in _sections(demo.stdout)["gemm_f32.mlir"] if line.startswith("PTX"))
    assert "; launch: 65536 B dynamic smem" in ptx, ptx
    if "ptxas:" in ptx:
        assert " 0 B static smem" in ptx, ptx


def test_report_without_ptxas():
    _tools_built()
    env = dict(os.environ, EXT_PTXAS="none")
    r = subprocess.run([PYTHON, REPORT, os.path.join(ROOT, "examples", "kernels", "softmax.mlir"),
                        "--build", BUILD], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^PTX sm_90 +@softmax_kernel: \d+ lines \(ptxas not found: not assembled\)$",
                     r.stdout, re.M), r.stdout


@pytest.mark.parametrize("out,words", [
    # ptxas 13 on a kernel with only dynamic shared memory: no "bytes smem"
    ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
     "ptxas info    : Function properties for k\n"
     "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
     "ptxas info    : Used 166 registers, used 1 barriers\n",
     "166 registers, 0 B static smem, 0 B spills, 1 barrier"),
    ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
     "    8 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
     "ptxas info    : Used 255 registers, used 0 barriers, 16384 bytes smem, 400 bytes cmem[0]\n",
     "255 registers, 16384 B static smem, 12 B spill stores, 16 B spill loads, 0 barriers"),
    # an older ptxas: no barriers, no function properties
    ("ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
     "ptxas info    : Used 1 registers, 4 bytes smem\n",
     "1 register, 4 B static smem, spills not reported, barriers not reported"),
    ("ptxas info    : Compiling entry function 'a' for 'sm_90'\n"
     "ptxas info    : Used 8 registers, used 1 barriers\n"
     "ptxas info    : Compiling entry function 'b' for 'sm_90'\n"
     "ptxas info    : Used 4 registers\n",
     "a: 8 registers, 0 B static smem, spills not reported, 1 barrier; "
     "b: 4 registers, 0 B static smem, spills not reported, barriers not reported"),
    ("ptxas info    : 0 bytes gmem\n", "no entry function in its output"),
])
def test_ptxas_usage(out, words):
    assert _report_module().ptxas_usage(out) == words


def test_report_fails_with_a_message(tmp_path):
    """A kernel with no schedule, and a build with no tools: exit status 1
    and what went wrong, no traceback."""
    plain = tmp_path / "plain.mlir"
    plain.write_text("func.func @f() {\n  return\n}\n")
    for kernel, build, message in [(plain, BUILD, "made no ext.kernel of plain.mlir"),
                                   (os.path.join(ROOT, "examples", "kernels", "softmax.mlir"),
                                    str(tmp_path), "cannot run")]:
        if build == BUILD:
            _tools_built()
        r = subprocess.run([PYTHON, REPORT, str(kernel), "--build", build], capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr, r.stderr


# Report lines README.md shows as they are: all but the ones that depend on
# ptxas's version, the PTX's exact text and the clock (whose labels must
# still be there). A PTX line number in "global bytes" is left out too.
STABLE = ["kernel", "tiles", "launch", "decomposition", "utilization", "schedule", "mainloop",
          "workspace", "shared memory", "bank conflicts", "kernels", "global bytes"]


def _readme_reports():
    text = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"^```\n(kernel +(\S+)\n.*?)^```$", text, re.M | re.S)
    return {name: block.splitlines() for block, name in blocks}


def _stable(lines):
    return [re.sub(r"\(PTX line \d+\)", "(PTX line N)", line) if _label(line) in STABLE else _label(line)
            for line in lines]


def test_readme_report_blocks_are_current(demo):
    readme = _readme_reports()
    assert list(readme) == list(KERNELS), list(readme)
    fresh = _sections(demo.stdout)
    for kernel, lines in readme.items():
        assert _stable(lines) == _stable(fresh.get(kernel, [])), (
            f"README.md's report of {kernel} is not today's: paste the output of "
            f"`/usr/bin/python3 scripts/report.py examples/kernels/{kernel}`:\n"
            + "\n".join(fresh.get(kernel, [])))
