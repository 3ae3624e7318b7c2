"""The clustered wgmma consumer's k-step has no MEMBAR (issue 56 item 3): a
consumer warpgroup releases a stage on the peers' empty barriers with a
remote mbarrier.arrive of PTX's default semantics (release at the CTA's
scope, CUTLASS's ClusterBarrier::arrive); `.release.cluster` made ptxas
bracket each arrive with two MEMBARs and two error barriers. Checked on
ptxas's SASS with ../shared/tools/sass (skipped where either is absent);
the MEMBAR's opcode is calibrated in the test (membar.gl must decode to
it), so the check cannot pass on a decoding that never sees one."""

import importlib.util
import os
import subprocess

import numpy as np
import pytest

import ext
from te_helpers import PTXAS, matmul_te, needs_ptxas

SASS_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "tools", "sass")
needs_sass = pytest.mark.skipif(not os.path.exists(os.path.join(SASS_DIR, "sass_mix.py")),
                                reason="needs ../shared/tools/sass")
MEMBAR = "op192"  # (sass_mix.py names the opcodes it does not know by number)

CALIBRATION = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p) {
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  membar.gl;
  st.global.u32 [%rd1], 1;
  ret;
}
"""


def sass(ptx, tmp_path, name):
    """(the decoded instructions, the loops) of `ptx`'s first kernel."""
    spec = importlib.util.spec_from_file_location("sass_mix", os.path.join(SASS_DIR,
                                                                           "sass_mix.py"))
    sm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sm)
    src, cubin = tmp_path / f"{name}.ptx", tmp_path / f"{name}.cubin"
    src.write_text(ptx)
    subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(cubin)], check=True,
                   capture_output=True)
    ins = sm.decode(next(iter(sm.text(str(cubin)).values())))
    return ins, sm.loops(ins)


@needs_ptxas
@needs_sass
@pytest.mark.parametrize("cluster", [(2, 1), (2, 2)])
def test_clustered_consumer_k_step_has_no_membar(cluster, tmp_path):
    ins, _ = sass(CALIBRATION, tmp_path, "calibration")
    assert MEMBAR in [n for _, n, _ in ins], "membar.gl no longer decodes as " + MEMBAR
    m, n, k = 256, 256, 512
    A, B, C = matmul_te(m, n, k, "float16", acc="float32", b_transposed=True)
    sw = {"swizzle": (3, 3, 3)}
    s = ext.schedule(C, tile=(128, 64, 64), cache=[(A, sw), (B, sw)], mma="wgmma_k16",
                     warps=(8, 1), vector=8, stages=3, tma=True, specialize="cooperative",
                     cluster=cluster)
    kernel = ext.build(s, target="nvvm", chip="sm_90a")
    assert "mbarrier.arrive.shared::cluster.b64" in kernel.ptx
    assert "mbarrier.arrive.release.cluster" not in kernel.ptx
    ins, loops = sass(kernel.ptx, tmp_path, "gemm")
    # The consumer's k-step: the smallest loop holding HGMMA (the loops
    # around it hold the end's cluster barrier, its spin-wait retries placed
    # after the kernel's last instruction).
    inside = lambda a, z: [x for x in ins if a <= x[0] <= z]
    a, z = min((l for l in loops if any(x[1] == "HGMMA" for x in inside(*l))),
               key=lambda l: l[1] - l[0])
    step = [x[1] for x in inside(a, z)]
    assert step.count("HGMMA") > 0
    assert MEMBAR not in step, f"MEMBAR in the consumer's k-step {hex(a)}..{hex(z)}"
    # (Outside it: the mbarrier init fence and the cluster barrier at the end.)
    assert [x[1] for x in ins].count(MEMBAR) <= 4
    # And the numbers hold on the emulator (racecheck: tests/Integration's
    # wgmma-cluster-multicast.mlir under several clusters and seeds).
    a16 = np.random.default_rng(0).integers(-3, 4, (m, k)).astype(np.float16)
    b16 = np.random.default_rng(1).integers(-3, 4, (n, k)).astype(np.float16)
    np.testing.assert_array_equal(kernel.run(a16, b16),
                                  a16.astype(np.float32) @ b16.astype(np.float32).T)
