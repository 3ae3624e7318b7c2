#!/usr/bin/env python3
"""Decode attention as ext builds it today, modeled against the HBM roofline
(issue 58 item 6; no GPU needed: SASS counts from ptxas and a model).

    PYTHONPATH=build/python_packages /usr/bin/python3 bench/decode_attention/run.py
        [--out FILE] [--ipc 0.5] [--latency-ns 1000] [--launch-us 3]

The kernel: ext.attention(B, 1, capacity, 128, heads=32, kv_heads=8
[, page_size=P]) built for sm_90a over a symbolic batch, decomposition
`auto`. One CTA is one warp holding the 16 rows of a tile (a group of 4
query heads of one KV head, padded to mma.sync's m16), key steps of 64
keys, K and V copied with cp.async 3 stages deep. At launch
ext.choose_at_launch(tiles = B x kv_heads, iters = ceil(capacity / 64),
slots, 64), slots = the CTAs an SM holds x the SMs (the schedule's
#ext.auto<sms = slots>), picks data-parallel, split-K or Stream-K (the table shows its
pick and its predicted SM utilization); partial softmax states are
combined along a binomial tree of flags (OnlineSoftmaxSplit.cpp).

What the script reads off the kernel: ptxas -v gives registers and spills
(shared memory is the kernel's own count), hence CTAs resident per SM;
../shared/tools/sass (sass_mix.py, through bench/kstep_mix.py) decodes the
cubin's loops. The key loop is a loop holding HMMA with no such loop
inside; the loops inside it are the K/V copy loops, whose trip count
follows from the cp.async count a step must issue (2 x keys x head x 2 B
over 32 lanes of 16 B); a key loop nested in a loop that stores (STG) is
the split path's (Stream-K/split-K units, that loop being one work unit),
the other one the data-parallel path's. Dynamic instructions per warp per
step = the key loop's own plus its copy loops' x trips.

The model, per CTA (every number a stated assumption, printed again in
results.md):
- time per key step = max of
  * issue: instructions per step / IPC (`--ipc`, 0.5 for a lone warp on
    its scheduler: one warp cannot hide its own ldmatrix/HMMA/ALU
    latencies; 1.0 is the hardware's ceiling and is shown at the must-show
    point); a paged kernel adds one exposed L2 latency per step for its
    block-table loads (the copies' addresses wait on them);
  * tensor: HMMA m16n8k16 at half the sm_90 dense f16 peak (mma.sync, as
    bench/decode assumes), a quarter of the SM's per warp (one sub-partition);
  * memory: the step's K and V bytes at the CTA's share of HBM bandwidth
    (bandwidth / CTAs running at once);
  * MLP (Little's law): bytes in flight per CTA = (stages - 1) x step bytes
    (the loop waits on cp.async.wait_group(stages - 2), so stages - 1
    steps are in flight while one is consumed) over a loaded HBM latency
    (`--latency-ns`, 1000 ns); per SM it is that x resident CTAs, i.e. the
    same per CTA.
- per work unit (a split CTA runs its range's whole tiles and up to two
  partial ones): a prologue (one loaded latency before the first step's
  data, plus the unit's own instructions outside the key and fixup loops
  at the IPC: Q, the first stages' copies, the epilogue's stores);
- the fixup (split plans): the tree has ceil(log2(CTAs per tile)) levels,
  each one flag hand-off (2 L2 latencies), one partial read (1 L2
  latency) and the combine loop's instructions at the IPC; a partial
  state is 16 x 128 f32 plus max and sum per row (8.3 KB), written once;
- waves: CTAs running at once = min(grid, SMs x resident); a plan with
  more CTAs runs in waves;
- launch: `--launch-us` (3 us) for a launch on its own, shown apart
  (back-to-back launches in a stream or a CUDA graph hide most of it).

Bytes (the roofline's): K and V read once, 2 x len x kv_heads x head x 2 B
per sequence, plus Q and out (heads x head x 2 B each). The modeled
shape has every sequence at the cache's capacity: the kernel's key loop
runs capacity / 64 steps and its copies are guarded by the capacity, not
kv_lens (the lengths mask scores), so a ragged batch moves its capacity.
"""

import argparse
import importlib.util
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import kstep_mix  # noqa: E402  (bench/kstep_mix.py: ptxas and the sass tool's paths)

import ext  # noqa: E402

HEADS, KV_HEADS, HEAD = 32, 8, 128
BATCHES = (1, 4, 16, 64)
LENGTHS = (1024, 4096, 8192, 16384, 65536)
LAYOUTS = (None, 16, 128)  # dense, page 16, page 128
# Chips: HBM bytes/s, SMs, clock (both boost to 1.98 GHz), sm_90 dense f16.
CHIPS = {
    "H200": dict(hbm=4.8e12, sms=132, clock=1.98e9, f16=989.4e12),
    "H100": dict(hbm=3.35e12, sms=132, clock=1.98e9, f16=989.4e12),
}
SM_REGS, SM_SMEM, SMEM_RESERVED, SM_BLOCKS = 65536, 228 * 1024, 1024, 32
MMA_SYNC_FRACTION = 0.5
L2_LATENCY_CLK = 600  # bench/attention's L2 latency
HMMA_MACS = 16 * 8 * 16
MUST = dict(batch=1, length=8192, layout=None, min_sms=120, max_ratio=1.3)
# FlashInfer's published decode point (issue 58): batch 128, KV 16384, 16
# KV heads, head 128, page 128, 5.10 ms; "about 84% of the HBM roofline".
FLASHINFER = dict(batch=128, length=16384, kv_heads=16, heads=32, ms=5.10, frac=0.84)


def available():
    """Why the bench cannot count SASS here, or None."""
    return kstep_mix.available()


def _sass_tool():
    spec = importlib.util.spec_from_file_location("sass_mix", kstep_mix.SASS_MIX)
    sm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sm)
    return sm


def build(page_size=None, capacity=8192):
    """(workload, kernel) of the serving form over a symbolic batch, or
    (None, reason) where the paged form does not build for nvvm."""
    try:
        w = ext.attention(ext.var("B"), 1, capacity, HEAD, heads=HEADS, kv_heads=KV_HEADS,
                          page_size=page_size, chip="sm_90a")
        return w, w.build("nvvm", chip="sm_90a")
    except Exception as e:  # the paged form is work in progress elsewhere
        if page_size is None:
            raise
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"


def ptxas(ptx, tmp, name):
    """(cubin path, registers, spill bytes) from ptxas -v for sm_90a."""
    path = os.path.join(tmp, name + ".ptx")
    with open(path, "w") as f:
        f.write(ptx)
    p = subprocess.run([kstep_mix.PTXAS, "-arch=sm_90a", "-v", path, "-o", path + ".cubin"],
                       capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"ptxas failed on {name}: {p.stderr[-400:]}")
    regs = int(re.search(r"Used (\d+) registers", p.stderr).group(1))
    spills = sum(int(x) for x in re.findall(r"(\d+) bytes spill (?:stores|loads)", p.stderr))
    return path + ".cubin", regs, spills


def loop_tree(cubin):
    """The first kernel's loops: [{range, mix, children}] (children: the
    loops directly inside), from sass_mix.py's decoding."""
    sm = _sass_tool()
    ins = sm.decode(next(iter(sm.text(cubin).values())))
    ranges = sorted(set(sm.loops(ins)), key=lambda r: (r[0], -r[1]))
    nodes = [dict(range=r, mix=sm.summarize(sm.mix([x for x in ins if r[0] <= x[0] <= r[1]])),
                  children=[]) for r in ranges]
    inside = lambda c, p: (p["range"][0] <= c["range"][0] and c["range"][1] <= p["range"][1]
                           and c["range"] != p["range"])
    for n in nodes:
        parents = [p for p in nodes if inside(n, p)]
        if parents:
            min(parents, key=lambda p: p["range"][1] - p["range"][0])["children"].append(n)
        n["parents"] = parents
    return nodes


def _dynamic(node, trips, key):
    """A loop body's count of `key` per pass, its inner loops run trips(n) times."""
    own = node["mix"][key] - sum(c["mix"][key] for c in node["children"])
    return own + sum(trips(c) * _dynamic(c, trips, key) for c in node["children"])


def _is_copy(n):
    return n["mix"]["HMMA"] == 0 and n["mix"]["LDGSTS"] > 0 and not n["children"]


def key_steps(nodes, need_ldgsts):
    """Per path ("split", "dp"): what one key step of one warp issues, and
    the split path's per-unit and per-fixup-level instructions."""
    keys = [n for n in nodes if n["mix"]["HMMA"] and
            not any(c["mix"]["HMMA"] for c in n["children"])]
    out = {}
    for k in keys:
        copies = [c for c in k["children"] if _is_copy(c)]
        outside = k["mix"]["LDGSTS"] - sum(c["mix"]["LDGSTS"] for c in copies)
        per_trip = sum(c["mix"]["LDGSTS"] for c in copies)
        t = (need_ldgsts - outside) / per_trip if per_trip else 0
        trips = lambda c, t=t: t if _is_copy(c) else 0
        step = {m: _dynamic(k, trips, m) for m in ("total", "HMMA", "MUFU", "LDG", "LDGSTS")}
        step.update(copy_trips=t, static=k["mix"]["total"], range=[hex(x) for x in k["range"]],
                    copy_instrs=sum(t * c["mix"]["total"] for c in copies),
                    copy_ldgsts=t * per_trip)
        unit = [p for p in k["parents"] if p["mix"]["STG"]]
        if unit:
            u = min(unit, key=lambda p: p["range"][1] - p["range"][0])
            fix = [c for c in u["children"] if c is not k and c["mix"]["LDG"] >= 16 and
                   not c["mix"]["HMMA"] and not c["mix"]["LDGSTS"]]
            step["unit"] = _dynamic(u, lambda c: t if _is_copy(c) else 0, "total")
            step["fixup_level"] = (_dynamic(fix[0], lambda c: 0, "total") if fix else 0)
            out.setdefault("split", step)
        else:
            out.setdefault("dp", step)
    if "split" in out:
        out.setdefault("dp", dict(out["split"]))
        out["dp"].setdefault("unit", out["split"]["unit"])
    return out


def kernel_counts(page_size, tmp):
    """Everything the model needs from one built kernel, or a reason."""
    w, kernel = build(page_size)
    if w is None:
        return dict(error=kernel)
    tile = list(w._schedule.tile)
    rows, head, keys = tile[2], tile[3], tile[4]
    stages = int(re.search(r"stages = (\d+)", str(w._schedule.attr)).group(1))
    # The CTA slots `auto` plans over (#ext.auto<sms = N>: the CTAs an SM
    # holds times the SMs), else one per SM.
    slots = re.search(r"#ext.auto<sms = (\d+)>", str(w._schedule.attr))
    threads = math.prod(w._schedule.threads)
    cubin, regs, spills = ptxas(kernel.ptx, tmp, f"p{page_size or 0}")
    need = 2 * keys * head * 2 // (threads * 16)
    steps = key_steps(loop_tree(cubin), need)
    return dict(page_size=page_size, rows=rows, head=head, keys=keys, stages=stages,
                threads=threads, regs=regs, spills=spills, smem=kernel.shared_memory_bytes,
                steps=steps, need_ldgsts=need,
                slots_per_sm=int(slots.group(1)) // 132 if slots else 1)


def resident(c):
    """CTAs per SM by registers (allocated 256 a warp), shared memory and
    the block limit."""
    warps = -(-c["threads"] // 32)
    by_regs = SM_REGS // (warps * -(-c["regs"] * 32 // 256) * 256)
    by_smem = SM_SMEM // (c["smem"] + SMEM_RESERVED)
    return max(1, min(by_regs, by_smem, SM_BLOCKS))


def problem_bytes(batch, length, kv_heads=KV_HEADS, heads=HEADS, head=HEAD):
    return batch * (2 * length * kv_heads * head * 2 + 2 * heads * head * 2)


def model(c, chip, batch, length, ipc, latency_ns, launch_us, kv_heads=KV_HEADS, heads=HEADS):
    """The model's time for one launch; see the module's docstring."""
    m = CHIPS[chip]
    clk = m["clock"]
    keys, head, stages = c["keys"], c["head"], c["stages"]
    tiles, iters = batch * kv_heads, -(-length // keys)
    slots = m["sms"] * c.get("slots_per_sm", 1)
    pick, pred = ext.choose_at_launch(tiles, iters, slots, keys)
    split = pick != "data_parallel"
    s = c["steps"]["split" if split else "dp"]
    per_sm = resident(c)
    grid = pred["grid"] if split else tiles
    running = min(grid, m["sms"] * per_sm)
    waves = -(-grid // running)
    steps = pred["max_iters_per_cta"] if split else iters
    step_bytes = 2 * keys * head * 2
    latency = latency_ns * 1e-9 * clk
    hmma_clk = HMMA_MACS / (m["f16"] / 2 * MMA_SYNC_FRACTION / (m["sms"] * clk) / 4)
    terms = {
        "issue": s["total"] / ipc + (L2_LATENCY_CLK if c["page_size"] and s["LDG"] else 0),
        "tensor": s["HMMA"] * hmma_clk,
        "memory": step_bytes / (m["hbm"] / running / clk),
        "MLP": step_bytes / ((stages - 1) * step_bytes / latency),
    }
    step = max(terms.values())
    binds = max(terms, key=terms.get)
    # A split CTA runs its range of tiles' steps: whole tiles and at most
    # two partial ones (units); a tile's steps are spread over this many
    # CTAs (one more where the ranges do not align with its start).
    avg = tiles * iters / grid
    units = min(-(-steps // iters) + 1, steps) if split else 1
    spread = math.ceil(iters / avg - 1e-9)
    ctas_per_tile = min(grid, spread + (1 if split and (iters / avg) % 1 else 0)) if split else 1
    prologue = units * (latency + s["unit"] / ipc)
    levels = math.ceil(math.log2(ctas_per_tile)) if ctas_per_tile > 1 else 0
    level = 3 * L2_LATENCY_CLK + s.get("fixup_level", 0) / ipc
    fixup = levels * level
    device = waves * (prologue + steps * step) + fixup
    device_us = device / clk * 1e6
    roof_us = problem_bytes(batch, length, kv_heads, heads) / m["hbm"] * 1e6
    # Busy SMs: the share of the planned CTA slots that run, times the SMs.
    return dict(pick=pick, util=pred["utilization"], busy=pred["utilization"] * m["sms"],
                grid=grid, running=running, waves=waves, steps=steps, units=units, terms=terms,
                binds=binds,
                step_us=step / clk * 1e6, prologue_us=prologue / clk * 1e6,
                fixup_us=fixup / clk * 1e6, levels=levels, device_us=device_us,
                launch_us=launch_us, total_us=device_us + launch_us, roof_us=roof_us,
                ratio=device_us / roof_us, ratio_launch=(device_us + launch_us) / roof_us,
                tbps=problem_bytes(batch, length, kv_heads, heads) / device_us / 1e6)


def _layout(p):
    return "dense" if p is None else f"page {p}"


def row(c, chip, batch, length, args, label=None, **kw):
    r = model(c, chip, batch, length, args.ipc, args.latency_ns, args.launch_us, **kw)
    t = r["terms"]
    return r, (f"| {chip} | {label or _layout(c['page_size'])} | {batch} | {length} | "
               f"{r['pick']} | "
               f"{r['util']:.3f} / {r['busy']:.0f} | {r['steps']} | "
               f"{t['issue']:.0f} / {t['tensor']:.0f} / {t['memory']:.0f} / {t['MLP']:.0f} | "
               f"{r['binds']} | {r['prologue_us']:.1f} | {r['fixup_us']:.1f} ({r['levels']}) | "
               f"{r['device_us']:.1f} | {r['roof_us']:.1f} | {r['ratio']:.2f} | "
               f"{r['ratio_launch']:.2f} | {r['tbps']:.2f} |")


HEAD_ROW = ("| chip | cache | batch | KV len | auto picks | utilization / SMs busy (pred.) | "
            "steps per CTA | clocks per step: issue / tensor / memory / MLP | binds | "
            "prologue us | fixup us (levels) | device us | roofline us | device / roofline | "
            "with launch / roofline | TB/s |")
HEAD_SEP = "|" + "---|" * 16


def describe(c):
    if "error" in c:
        return None
    s, d = c["steps"]["split"], c["steps"]["dp"]
    return (f"- {_layout(c['page_size'])}: tile {c['rows']} rows x {c['head']} x {c['keys']} keys, "
            f"{c['threads']} threads, {c['stages']} stages, {c['regs']} registers, spills "
            f"{c['spills']} B, {c['smem']} B shared memory, {resident(c)} CTA(s) per SM by "
            f"registers/shared memory. Per key step per warp ({c['need_ldgsts']} cp.async of "
            f"16 B): split path {s['total']:.0f} instructions ({s['HMMA']:.0f} HMMA, "
            f"{s['MUFU']:.0f} MUFU, {s['LDGSTS']:.0f} LDGSTS, {s['LDG']:.0f} LDG; key loop "
            f"{s['static']} static, copy loops x {s['copy_trips']:g}), data-parallel path "
            f"{d['total']:.0f}; a split unit's own instructions {s['unit']:.0f}, a fixup "
            f"level's {s.get('fixup_level', 0):.0f}")


def what_ifs(counts, args):
    """(label, counts, args) of the must-show point's what-if rows: the
    hardware's IPC ceiling for one warp; the dense key step at the page-16
    kernel's instruction count (its 64 copies unrolled, no copy loops);
    and a floor with the issue of the step, the unit's instructions and the
    fixup's free (the memory share, Little's law and the first latency
    left)."""
    dense = counts[None]
    ipc1 = argparse.Namespace(**dict(vars(args), ipc=1.0))
    out = [("dense, IPC 1.0", dense, ipc1)]
    p16 = counts.get(16)
    n = p16["steps"]["split"]["total"] if p16 and "error" not in p16 else None
    if n is not None and n < dense["steps"]["split"]["total"]:
        unrolled = dict(dense, steps={k: dict(v, total=n) for k, v in dense["steps"].items()})
        out += [(f"dense, step at {n:.0f} instructions (copies unrolled)", unrolled, args),
                (f"dense, step at {n:.0f} instructions, IPC 1.0", unrolled, ipc1)]
    floor = dict(dense, steps={k: dict(v, total=0, HMMA=0, unit=0, fixup_level=0) for k, v
                               in dense["steps"].items()})
    out.append(("dense, floor: no issue, no fixup instructions", floor,
                argparse.Namespace(**dict(vars(args), ipc=1.0))))
    return out


def assumptions(args):
    return (f"Assumptions: H200 4.8 TB/s, H100 SXM 3.35 TB/s, 132 SMs at 1.98 GHz; a warp "
            f"issues {args.ipc} instructions per clock (a lone warp on its scheduler); HMMA "
            f"m16n8k16 at {MMA_SYNC_FRACTION} of the 989.4 TFLOP/s dense f16 peak, a quarter of an "
            f"SM's per warp; a CTA's share of HBM = bandwidth / CTAs running; Little's law with "
            f"(stages - 1) steps in flight per CTA over {args.latency_ns:.0f} ns of loaded HBM "
            f"latency; L2 latency {L2_LATENCY_CLK} clocks (a paged step exposes one for its "
            f"block-table loads; a fixup level = 2 for the flag + 1 for the partial + its "
            f"instructions); prologue = one loaded latency + a unit's own instructions (every "
            f"branch of its code counted: an upper bound, since a unit stores either a partial "
            f"or the output), per unit (a split CTA's whole and partial tiles); launch "
            f"{args.launch_us} us, shown apart (the 'with launch' column). Every sequence at the "
            f"cache's capacity (the kernel reads its capacity whatever kv_lens says). Bytes = K "
            f"and V once + Q + out; roofline = bytes / HBM bandwidth.")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "results.md"))
    ap.add_argument("--ipc", type=float, default=0.5)
    ap.add_argument("--latency-ns", type=float, default=1000.0)
    ap.add_argument("--launch-us", type=float, default=3.0)
    args = ap.parse_args(argv)
    why = available()
    if why:
        sys.exit(f"bench/decode_attention: {why}")
    with tempfile.TemporaryDirectory() as tmp:
        counts = {p: kernel_counts(p, tmp) for p in LAYOUTS}
    dense = counts[None]
    lines = ["# bench/decode_attention: ext.attention's decode kernel against the HBM roofline",
             "", f"{HEADS} query heads over {KV_HEADS} KV heads, head {HEAD}, f16, one query per "
             "sequence; ext.attention(B, 1, capacity, 128, heads=32, kv_heads=8[, page_size=P]) "
             "built once over a symbolic batch for sm_90a, decomposition auto. Model only "
             "(no GPU): "
             "counts from ptxas and ../shared/tools/sass.", "", assumptions(args), "",
             "## Kernels (SASS per key step)", ""]
    for p in LAYOUTS:
        c = counts[p]
        if "error" in c:
            lines.append(f"- {_layout(p)}: does not build for nvvm ({c['error']}); its rows use "
                         f"the dense kernel's counts plus the block-table load (one L2 latency "
                         f"per step)")
            counts[p] = dict(dense, page_size=p, steps={k: dict(v, LDG=v["LDG"] + 1) for k, v
                                                         in dense["steps"].items()})
        else:
            lines.append(describe(c) + ("" if p is None else
                         " (the paged copies as this build makes them: work in progress)"))
    must = {}
    lines += ["", "## Must-show point: batch 1, KV 8192, dense", "", HEAD_ROW, HEAD_SEP]
    for chip in CHIPS:
        must[chip], text = row(dense, chip, MUST["batch"], MUST["length"], args)
        lines.append(text)
    for label, c, a in what_ifs(counts, args):
        for chip in CHIPS:
            lines.append(row(c, chip, MUST["batch"], MUST["length"], a, label=label)[1])
    lines.append("")
    for chip, r in must.items():
        ok = r["busy"] >= MUST["min_sms"], r["ratio"] <= MUST["max_ratio"]
        lines.append(f"- {chip}: {r['busy']:.1f} SMs busy (>= {MUST['min_sms']}: "
                     f"{'yes' if ok[0] else 'NO'}); device time {r['device_us']:.1f} us against "
                     f"the roofline's {r['roof_us']:.1f} us = {r['ratio']:.2f}x (<= "
                     f"{MUST['max_ratio']}x: {'yes' if ok[1] else 'NO'}), bound by "
                     f"{r['binds']} per step ({r['step_us']:.2f} us a step x {r['steps']} steps, "
                     f"prologue {r['prologue_us']:.1f} us, fixup {r['fixup_us']:.1f} us over "
                     f"{r['levels']} levels); with the launch {r['ratio_launch']:.2f}x")
    s = dense["steps"]["split"]
    r = must["H200"]
    lines += ["", f"What binds at batch 1, KV 8k: a key step issues {s['total']:.0f} instructions "
              f"from one warp, {s['copy_instrs']:.0f} of them in the K/V copy loops "
              f"({s['copy_instrs'] / max(s['copy_ldgsts'], 1):.1f} per 16 B cp.async they issue, "
              f"64-bit address "
              f"arithmetic and the capacity guard); at IPC {args.ipc} that is "
              f"{r['terms']['issue'] / r['terms']['memory']:.2f}x the step's memory time at an "
              f"SM's HBM share. Around the {r['steps']} steps: {r['units']} unit prologue(s) "
              f"({r['prologue_us']:.1f} us) and a {r['levels']}-level flag tree for the "
              f"{r['grid'] // (MUST['batch'] * KV_HEADS)}+ CTAs of each tile "
              f"({r['fixup_us']:.1f} us). The floor row shows that even with free instructions "
              f"the serial fixup levels and first latencies keep batch 1 near 2x: the 1.3x bar "
              f"needs a flat (one-level, wide) combine and the next unit's copies issued before "
              f"the current unit ends, as well as fewer instructions per step (the copy loops "
              f"unrolled as the page-16 kernel's are; more warps per CTA, or two CTAs per SM "
              f"in the Stream-K grid, to raise the IPC per SM)."]
    fi = FLASHINFER
    fbytes = problem_bytes(fi["batch"], fi["length"], fi["kv_heads"], fi["heads"])
    achieved = fbytes / (fi["ms"] * 1e-3)
    lines += ["", "## FlashInfer's published point", "",
              f"Batch {fi['batch']}, KV {fi['length']}, {fi['kv_heads']} KV heads, head 128, page "
              f"128: {fi['ms']} ms for {fbytes / 1e9:.1f} GB of cache = "
              f"{achieved / 1e12:.2f} TB/s. "
              f"At {fi['frac']:.0%} of the roofline as the issue states it, the bandwidth implied "
              f"is {achieved / fi['frac'] / 1e12:.2f} TB/s: more than an H100 SXM's 3.35 (it would "
              f"be {achieved / 3.35e12:.0%}), {achieved / 4.8e12:.0%} of an H200's 4.8; 4.0 TB/s "
              f"is a GH200's 96 GB HBM3 (H100 NVL: 3.9). ext's model at that shape (page-128 "
              f"kernel, {fi['heads']} query heads assumed for Q and out):", "", HEAD_ROW, HEAD_SEP]
    for chip in CHIPS:
        lines.append(row(counts[128], chip, fi["batch"], fi["length"], args,
                         kv_heads=fi["kv_heads"], heads=fi["heads"])[1])
    lines += ["", f"## Sweep: batch {BATCHES}, KV {LENGTHS}", "", HEAD_ROW, HEAD_SEP]
    for chip in CHIPS:
        for p in (LAYOUTS if chip == "H200" else (None,)):
            for b in BATCHES:
                for n in LENGTHS:
                    lines.append(row(counts[p], chip, b, n, args)[1])
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.out, "w") as f:
        f.write(text)
    return must


if __name__ == "__main__":
    main()
