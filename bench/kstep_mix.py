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


def sass_mix_of(cubin):
    """sass_mix.py's analysis ({"whole", "hot", "kstep", "nloops"}) of the
    first kernel in `cubin`, or None when it fails."""
    q = subprocess.run([sys.executable, SASS_MIX, cubin], capture_output=True, text=True)
    line = q.stdout.strip().splitlines()[-1] if q.stdout.strip() else ""
    try:
        return next(iter(json.loads(line[line.index("{"):]).values()))
    except (ValueError, StopIteration, TypeError):
        return None


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
