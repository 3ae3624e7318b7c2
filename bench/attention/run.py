#!/usr/bin/env python3
"""Static model of ext.attention on an H200 (no GPU needed).

    PYTHONPATH=build/python_packages /usr/bin/python3 bench/attention/run.py [--out FILE]

For head dims 64 and 128, causal and not, it builds ext.attention for
sm_90a (wgmma for both GEMMs) and reads off the PTX of the key loop what one
key step of one block does: tensor-core multiply-adds (the wgmma shapes),
exp (ex2), shared-memory bytes (ld/st.shared widths, the copies' stores and
the wgmma operands), barriers and the instructions it issues; ptxas gives
registers and shared memory, hence blocks per SM. The model then gives
each sequence length (1k to 16k, FlashAttention's benchmark shape: 16k
tokens per batch, 2048 hidden, so 2048 / head_dim heads) a time and a
TFLOP/s against the H200's dense f16 peak. Assumptions (stated again in
the table's header):

- Per SM and clock: 1893 f16 multiply-adds on wgmma (989.4 TFLOP/s,
  quoted at 1.83 GHz, over 132 SMs at the model's 1.98 GHz), 16 ex2
  (FlashAttention-3: 3.9 TFLOP/s of special functions), 128 bytes of
  shared memory (wgmma's operands included), 4 warp instructions issued.
- The units of one SM overlap across its resident blocks: a key step of
  all of them takes the slowest unit's total (throughput bound), or a
  block's own chain of phases divided by the blocks (latency bound) if
  longer. A block's chain is its phases back to back, each at the SM's
  full rate: the GEMMs (the slower of the tensor cores and their operand
  reads from shared memory, which run together), the softmax (the slowest
  of instructions issued, ex2 and the threads' shared loads and stores,
  pipelined across the block's warps), a synchronous K/V copy's
  `--l2-latency` clocks (600; copies issued a step ahead with cp.async
  expose none, and write shared memory in the background), 30 clocks per
  barrier and 100 per wgmma wait (drain). The warps of a block do not
  overlap their phases (they meet at barriers).
- K and V come from L2 at `--l2-tbps` (5.5 TB/s) for every query tile.
- Causal: the key loop stops at the diagonal (half the work, counted as
  half the FLOPs, FlashAttention's convention); the diagonal tiles run
  whole.
- Every loop nested in the key loop (the row reductions, a thread walking
  its keys) runs keys / (the reductions' threads on the keys) times.
"""

import argparse
import importlib.util
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "roofline", os.path.join(ROOT, "bench", "roofline", "run.py"))
roofline = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(roofline)

import ext  # noqa: E402

H200 = dict(sms=132, clock=1.98e9, tensor_tflops=989.4, ex2_per_clk=16,
            smem_bytes_per_clk=128, issue_per_clk=4, regs=65536, smem=228 * 1024,
            max_threads=2048)
TOKENS, HIDDEN = 16384, 2048


def key_threads(kernel):
    """Threads on the keys of the row reductions (their tile computes'
    second thread count, in the kernel after ext-apply-schedule)."""
    text = kernel.mlir("ext-apply-schedule")
    m = re.search(r"ext\.tile_compute \[[^\]]*reduce[^\]]*\] threads \[\d+, (\d+)\][^\n]*"
                  r"combiner\(max\)", text)
    return int(m.group(1)) if m else 32


def key_step_counts(ptx, keys, threads_on_keys):
    """What one key step of one block does, read off the PTX: the key loop is
    the loop holding the wgmma instructions; the loops nested in it (the row
    reductions, each thread walking its keys) run keys / threads_on_keys
    times."""
    lines = ptx.splitlines()
    loops = roofline.ptx_loops(lines)
    scored = [(roofline.count_ptx(lines[a:b + 1]), (a, b)) for a, b in loops]
    outer, (a, b) = max(scored, key=lambda x: (x[0]["wgmma"], x[1][1] - x[1][0]))
    inner = [(c, r) for c, r in scored if a < r[0] and r[1] < b]
    trips = keys / threads_on_keys
    total = dict(outer)
    for c, _ in inner:
        for k in ("instrs", "lds", "lds_bytes", "sts", "bar"):
            total[k] += c[k] * (trips - 1)
    body = lines[a:b + 1]
    ex2 = sum("ex2.approx" in l for l in body)
    ex2 += sum(sum("ex2.approx" in l for l in lines[r[0]:r[1] + 1]) * (trips - 1)
               for _, r in inner)
    sts_bytes = 0
    for l in body:
        t = l.strip()
        if t.startswith("st.shared"):
            width = re.search(r"\.v(\d)", t)
            bits = re.search(r"\.[bfsu](\d+)\s", t + " ")
            sts_bytes += (int(width.group(1)) if width else 1) * (int(bits.group(1)) // 8 if bits else 4)
    macs = 0
    for l in body:
        m = re.search(r"wgmma\.mma_async\S*\.m(\d+)n(\d+)k(\d+)", l)
        if m:
            macs += math.prod(map(int, m.groups()))
    waits = sum("wgmma.wait_group" in l for l in body)
    return dict(instrs=total["instrs"], lds_bytes=total["lds_bytes"], sts_bytes=sts_bytes,
                bar=total["bar"], ex2=ex2, macs=macs, waits=waits,
                wgmma_bytes=outer["wgmma_bytes"] * 4, ldg_bytes=outer["ldg_bytes"],
                cp_async_bytes=outer["cp_async_bytes"])


def model(c, info, rows, keys, head_dim, threads, seq, heads, causal, m, l2_latency, l2_tbps,
          serial_phases=False):
    warps = threads // 32
    per_sm = min(m["regs"] // max(info["regs"] * threads, 1),
                 m["smem"] // max(info["smem"], 1), m["max_threads"] // threads)
    per_sm = max(per_sm, 1)
    # The peak at the model's clock (roofline's conversion): a kernel bound
    # by the tensor cores is 100% of the peak.
    tensor_per_clk = roofline.tensor_macs_per_clk(m, 1.0)
    # One block's key step, unit by unit (clocks at the SM's full rate).
    global_bytes = 2 * keys * head_dim * 2  # K and V tiles
    shared_bytes = ((c["lds_bytes"] + c["sts_bytes"] + c["cp_async_bytes"]) * threads +
                    c["wgmma_bytes"])
    # The PTX is one warpgroup's program: every warpgroup of the block runs
    # its wgmma instructions.
    warpgroups = max(threads // 128, 1)
    shared_bytes += c["wgmma_bytes"] * (warpgroups - 1)
    units = {
        "tensor": c["macs"] * warpgroups / tensor_per_clk,
        "exp": c["ex2"] * threads / m["ex2_per_clk"],
        "shared": shared_bytes / m["smem_bytes_per_clk"],
        "issue": c["instrs"] * warps / m["issue_per_clk"],
        "L2": global_bytes / (l2_tbps * 1e12 / (m["sms"] * m["clock"])),
    }
    # Copies issued a step ahead (cp.async) hide the L2 latency behind the
    # step; synchronous ones expose it.
    exposed = 0 if c["cp_async_bytes"] else l2_latency
    # A block's chain: its MMA phases (the tensor cores multiplying while
    # they read their operands from shared memory: the slower of the two),
    # then the rest (the softmax: instructions issued, ex2, the threads'
    # shared loads and stores, each pipelined across the block's warps: the
    # slowest), then the exposed latency, barriers and drains. The copies
    # issued a step ahead write shared memory in the background: they count
    # in the SM's shared-memory throughput (units), not in the chain.
    if serial_phases:
        # The bound from below: no unit overlaps another inside a block.
        mma_phase = units["tensor"] + units["shared"]
        other_phase = units["exp"] + units["issue"]
    else:
        mma_phase = max(units["tensor"],
                        c["wgmma_bytes"] * warpgroups / m["smem_bytes_per_clk"])
        threads_shared = (c["lds_bytes"] + c["sts_bytes"]) * threads / m["smem_bytes_per_clk"]
        if not c["cp_async_bytes"]:
            threads_shared += c["ldg_bytes"] * threads / m["smem_bytes_per_clk"]
        other_phase = max(units["exp"], units["issue"], threads_shared)
    chain = mma_phase + other_phase + exposed + 30 * c["bar"] + 100 * c["waits"]
    step = max(max(units.values()), chain / per_sm)  # clocks per block-step, SM-wide
    bound = max(units, key=units.get) if max(units.values()) >= chain / per_sm else "latency"
    q_tiles = math.ceil(seq / rows)
    k_tiles = math.ceil(seq / keys)
    if causal:
        steps = sum(min(k_tiles, math.ceil(((t + 1) * rows) / keys)) for t in range(q_tiles))
    else:
        steps = q_tiles * k_tiles
    batch = max(TOKENS // seq, 1)
    block_steps = batch * heads * steps
    seconds = block_steps * step / (m["sms"] * m["clock"])
    flops = 4 * batch * heads * seq * seq * head_dim * (0.5 if causal else 1.0)
    # (A block-step is `rows` queries against `keys` keys.)
    tflops = flops / seconds / 1e12
    return dict(units=units, chain=chain, per_sm=per_sm, step=step, bound=bound,
                ms=seconds * 1e3, tflops=tflops, frac=tflops / m["tensor_tflops"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "attention", "results.md"))
    ap.add_argument("--l2-latency", type=float, default=600.0)
    ap.add_argument("--l2-tbps", type=float, default=5.5)
    ap.add_argument("--rows", type=int, default=None,
                    help="query rows per block (ext.attention's default when absent)")
    ap.add_argument("--keys", type=int, default=None,
                    help="keys per step (ext.attention's default when absent)")
    ap.add_argument("--stages", type=int, default=None,
                    help="K/V stages (ext.attention's default when absent)")
    ap.add_argument("--serial-phases", action="store_true",
                    help="a block's units never overlap (the chain sums them all): "
                         "the model's pessimistic bound")
    args = ap.parse_args()
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(ptxas):
        sys.exit("bench/attention: needs ptxas (CUDA) for registers and shared memory")
    header = [
        "# ext.attention on an H200: static model (sm_90a, wgmma for both GEMMs)",
        "",
        "Assumptions: 132 SMs at 1.98 GHz; per SM and clock 1893 f16 MACs (989.4 TFLOP/s "
        "dense, the datasheet's peak, at this clock), 16 ex2, "
        "128 B of shared memory (wgmma operands included), 4 warp instructions; "
        f"L2 {args.l2_tbps} TB/s and {args.l2_latency:.0f} clocks of exposed latency per "
        "synchronous K/V copy (none when copied a step ahead); 30 clocks per barrier, "
        "100 per wgmma drain; the units of an SM overlap across its resident blocks; "
        "within a block, phases run back to back (GEMMs: the slower of tensor cores and "
        "operand reads; softmax: the slowest of issue, ex2 and the threads' shared "
        "traffic). 16k tokens per batch, 2048 hidden "
        "(2048 / d heads). Counts per key step of one block, read off the PTX. The "
        "latency column is a block's chain of phases divided by the blocks per SM."
        + (" **--serial-phases**: within a block no unit overlaps another (the chain "
           "sums tensor, shared, ex2 and issue)." if args.serial_phases else ""),
        "",
    ]
    rows_out = []
    details = []
    with tempfile.TemporaryDirectory() as tmp:
        for head_dim in (64, 128):
            # The model is of whole query tiles in waves (the shape's 2048
            # tiles fill the SMs): the kernel it reads is data-parallel.
            extra = {"decomposition": "data_parallel"}
            if args.rows or args.keys:
                rows, keys = args.rows or 64, args.keys or 64
                extra.update(tile=(1, rows, head_dim, keys), warps=(rows // 16, 1))
            if args.stages:
                extra["stages"] = args.stages
            w = ext.attention(1, 4096, 4096, head_dim, **extra)
            kernel = w.build("nvvm", chip="sm_90a")
            ptx = kernel.ptx
            path = os.path.join(tmp, f"a{head_dim}.ptx")
            open(path, "w").write(ptx)
            info = roofline.ptxas_info(ptxas, path, "sm_90a")
            sched = w._schedule
            rows, keys = sched.tile[1], sched.tile[3]
            threads = math.prod(sched.threads)
            c = key_step_counts(ptx, keys, key_threads(kernel))
            details.append(
                f"- d = {head_dim}: tile {rows} queries x {keys} keys, {threads} threads, "
                f"{info['regs']} registers, {info['smem']} B static shared memory"
                f"{' (+ dynamic)' if info['smem'] < 1024 else ''}, spills {info['spills']}; "
                f"per key step: {c['macs']} MACs on wgmma, {c['ex2']} ex2 per thread, "
                f"{c['lds_bytes']:.0f} B ld.shared, {c['sts_bytes']} B st.shared and "
                f"{c['cp_async_bytes']} B cp.async per thread, "
                f"{c['wgmma_bytes']:.0f} B of wgmma operands, {c['bar']} barriers, "
                f"{c['waits']} wgmma waits, {c['instrs']:.0f} instructions per warp")
            smem = info["smem"] if info["smem"] >= 1024 else None
            if smem is None:
                # Dynamic shared memory: the kernel's own count.
                smem = kernel.shared_memory_bytes
            info = dict(info, smem=smem)
            for causal in (False, True):
                for seq in (1024, 2048, 4096, 8192, 16384):
                    r = model(c, info, rows, keys, head_dim, threads, seq, HIDDEN // head_dim,
                              causal, H200, args.l2_latency, args.l2_tbps,
                              args.serial_phases)
                    u = r["units"]
                    rows_out.append(
                        f"| {head_dim} | {'yes' if causal else 'no'} | {seq} | {r['ms']:.2f} | "
                        f"{r['tflops']:.0f} | {100 * r['frac']:.1f}% | {r['bound']} | "
                        f"{u['tensor']:.0f} / {u['exp']:.0f} / {u['shared']:.0f} / "
                        f"{u['issue']:.0f} / {u['L2']:.0f} / {r['chain'] / r['per_sm']:.0f} | "
                        f"{r['per_sm']} |")
    table = ["| d | causal | seq | ms | TFLOP/s | of peak | bound | clocks per block-step: "
             "tensor / exp / shared / issue / L2 / latency | blocks per SM |",
             "|---|---|---|---|---|---|---|---|---|"] + rows_out
    published = [
        "",
        "Published forward-pass numbers at d = 128, f16, not causal, on an H100 SXM (the same",
        "989 TFLOP/s dense f16 peak; measured, not modeled), for comparison with the model:",
        "",
        "| kernel | TFLOP/s | of peak | source |",
        "|---|---|---|---|",
        "| FlashAttention-2 (mma.sync) | about 350 | 35% | FlashAttention-3 paper (Shah et al. 2024) |",
        "| Triton's FlashAttention tutorial (wgmma, no warp specialization), seq 4k | 458 | 46% | pytorch/benchmark PR 2391 |",
        "| FlashAttention-3 without warp specialization / without GEMM-softmax pipelining | 570 / 582 | 58% / 59% | FlashAttention-3 paper, ablation |",
        "| FlashAttention-3 in that ablation / at its best | 661 / 740 | 67% / 75% | FlashAttention-3 paper |",
    ]
    text = "\n".join(header + details + [""] + table + published) + "\n"
    print(text)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
