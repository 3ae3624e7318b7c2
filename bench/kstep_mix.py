"""The k-step's SASS instruction mix of a kernel, for the benchmarks that
compare kernels statically (bench/decode, bench/fusion): ptxas compiles the
PTX, ../shared/tools/sass/sass_mix.py finds the hottest loop and counts its
instructions by class."""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTXAS = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
SASS_MIX = os.path.join(ROOT, "..", "shared", "tools", "sass", "sass_mix.py")


def available():
    """Why the mix cannot be measured here, or None."""
    for path in (PTXAS, SASS_MIX):
        if not os.path.exists(path):
            return f"needs {path}"
    return None


def _math(s):
    return s["FFMA"] + s["FMUL"] + 64 * s["HMMA"] + 4096 * s["HGMMA"]


def _math_loop(cubin):
    """The analysis of the loop with the most math (then the smallest), and
    of the smallest loop around it holding a barrier, over every loop rather
    than the innermost ones: a TMA k-loop holds its mbarrier's spin-wait
    loop, which sass_mix.py takes for the hot loop."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("sass_mix", SASS_MIX)
    sm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sm)
    for _, b in sm.text(cubin).items():
        ins = sm.decode(b)
        ls = sm.loops(ins)
        body = lambda a, z: sm.summarize(sm.mix([x for x in ins if a <= x[0] <= z]))
        scored = [(_math(body(a, z)), -(z - a), a, z) for a, z in ls]
        if not scored or max(scored)[0] == 0:
            return None
        _, _, a, z = max(scored)
        hot = dict(range=[hex(a), hex(z)], **body(a, z))
        kstep = None
        for c, d in sorted([(c, d) for c, d in ls if c <= a and z <= d], key=lambda p: p[1] - p[0]):
            s = body(c, d)
            # A k-step holds the hot loop's math and no other: a wider span
            # (a spin-wait's retry branch placed after the kernel's last
            # barrier, around the peeled step too) is not one.
            if s["BAR"] and _math(s) == _math(hot):
                kstep = dict(range=[hex(c), hex(d)], **s)
                break
        return hot, kstep
    return None


def sass_mix_of(cubin):
    """sass_mix.py's analysis ({"whole", "hot", "kstep", "nloops"}) of the
    first kernel in `cubin`, or None when it fails. Where its hot loop holds
    no math (an mbarrier's spin-wait inside the k-loop), the hot loop and
    k-step are the loop with the most math and the barrier loop around it."""
    q = subprocess.run([sys.executable, SASS_MIX, cubin], capture_output=True, text=True)
    line = q.stdout.strip().splitlines()[-1] if q.stdout.strip() else ""
    try:
        analysis = next(iter(json.loads(line[line.index("{"):]).values()))
    except (ValueError, StopIteration, TypeError):
        return None
    hot, kstep = analysis.get("hot"), analysis.get("kstep")
    if hot is not None and _math(hot) == 0:
        found = _math_loop(cubin)
        if found:
            analysis["hot"], analysis["kstep"] = found
    elif hot is not None and kstep and _math(kstep) != _math(hot):
        # A barrier "loop" holding more math than the hot loop is a spin
        # wait's retry branch placed after the kernel's last barrier: the
        # k-step has no barrier (a warp-specialized consumer's).
        analysis["kstep"] = None
    return analysis


def kstep_mix(ptx, arch="sm_80"):
    """{"registers", "stack", <class>: count, ...} of the k-step of the first
    kernel in `ptx`, or None when ptxas or sass_mix fails."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        p = subprocess.run([PTXAS, f"-arch={arch}", "-v", path, "-o", path + ".cubin"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return None
        analysis = sass_mix_of(path + ".cubin")
    kstep = analysis.get("kstep") if isinstance(analysis, dict) else None
    if kstep is None:
        return None
    regs = re.search(r"Used (\d+) registers", p.stderr)
    stack = re.search(r"(\d+) bytes stack frame", p.stderr)
    mix = dict(kstep)
    mix["registers"] = int(regs.group(1)) if regs else None
    mix["stack"] = int(stack.group(1)) if stack else None
    return mix
