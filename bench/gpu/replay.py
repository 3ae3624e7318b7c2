#!/usr/bin/env python3
"""Runs what bench/gpu/export.py compiled on a GPU and times it against cuBLAS.

    bench/gpu/replay.py DIR [--out results.csv] [--only REGEX] [--no-cublas]
                            [--batch-ms 25] [--batches 5]

Needs numpy and a CUDA driver (libcuda.so.1, or EXT_CUDA_DRIVER), nothing of
MLIR or LLVM. For each entry of DIR/manifest.json it loads the cubins (the
PTX where ptxas was missing), fills A and B with small random integers (exact
in f16, and their products' sums exact in f32), poisons C with NaN, replays
the host function's steps (workspace allocation, memsets, launches with
their grid, block and dynamic shared memory, and those with a thread block
cluster other than 1x1x1 through cuLaunchKernelEx with the cluster
dimension attribute; memrefs passed as MLIR's descriptors: allocated and
aligned pointers, offset, sizes, strides), and
compares C with a numpy reference: any difference fails the entry, an
element left NaN too. It checks again after the timed launches, so that a
decomposition whose result depends on timing (a race in a fixup) shows.
Timing: CUDA events around batches of launches of about --batch-ms each;
the median of --batches batches. Memsets of workspaces are part of each
call, as they are of ext's host code. cuBLAS (GemmEx: f16 inputs, f32
output and accumulation, as ext's kernels; Sgemm for f32) is timed the same
way on the same operands. Prints a table, writes a CSV, exits 1 when a
check failed.
"""

import argparse
import csv
import ctypes
import glob
import json
import os
import re
import statistics
import sys

import numpy as np

c_u64, c_void_p = ctypes.c_uint64, ctypes.c_void_p


# cuLaunchKernelEx's configuration (cuda.h, CUDA 12).
class ClusterDim(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class LaunchAttributeValue(ctypes.Union):
    _fields_ = [("pad", ctypes.c_char * 64), ("clusterDim", ClusterDim)]


class LaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4),
                ("value", LaunchAttributeValue)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint),
                ("gridDimZ", ctypes.c_uint), ("blockDimX", ctypes.c_uint),
                ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)), ("numAttrs", ctypes.c_uint)]


assert ctypes.sizeof(LaunchAttribute) == 72 and ctypes.sizeof(LaunchConfig) == 56
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
PORTABLE_CLUSTER_SIZE = 8  # CTAs per cluster without the non-portable opt-in


class Driver:
    """The few CUDA driver calls replay needs, each checked."""

    def __init__(self):
        self.lib = ctypes.CDLL(os.environ.get("EXT_CUDA_DRIVER", "libcuda.so.1"))
        self.check("cuInit", 0)
        dev = ctypes.c_int()
        self.check("cuDeviceGet", ctypes.byref(dev), 0)
        name = ctypes.create_string_buffer(256)
        self.check("cuDeviceGetName", name, 256, dev)
        self.name = name.value.decode()
        sms = ctypes.c_int()
        self.check("cuDeviceGetAttribute", ctypes.byref(sms), 16, dev)  # MULTIPROCESSOR_COUNT
        self.sms = sms.value
        ctx = c_void_p()
        self.check("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
        self.check("cuCtxSetCurrent", ctx)

    def check(self, fn, *args):
        rc = getattr(self.lib, fn)(*args)
        if rc != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorName(rc, ctypes.byref(text))
            raise RuntimeError(f"{fn} failed: {rc} ({(text.value or b'?').decode()})")

    def alloc(self, size):
        p = c_u64()
        self.check("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(max(size, 4)))
        return p.value

    def free(self, p):
        self.check("cuMemFree_v2", c_u64(p))

    def upload(self, ptr, array):
        self.check("cuMemcpyAsync", c_u64(ptr), c_u64(array.ctypes.data),
                   ctypes.c_size_t(array.nbytes), None)
        self.sync()

    def download(self, array, ptr):
        self.check("cuMemcpyAsync", c_u64(array.ctypes.data), c_u64(ptr),
                   ctypes.c_size_t(array.nbytes), None)
        self.sync()

    def memset32(self, ptr, value, count):
        self.check("cuMemsetD32Async", c_u64(ptr), ctypes.c_uint(value & 0xFFFFFFFF),
                   ctypes.c_size_t(count), None)

    def sync(self):
        self.check("cuCtxSynchronize")

    def load(self, root, files):
        """The module from its cubin, or from its PTX (which the driver
        compiles) where there is no cubin or the driver refuses it."""
        module, error = c_void_p(), None
        for kind in ("cubin", "ptx"):
            if kind not in files:
                continue
            data = open(os.path.join(root, files[kind]), "rb").read() + b"\0"
            try:
                self.check("cuModuleLoadData", ctypes.byref(module), ctypes.c_char_p(data))
                return module
            except RuntimeError as e:
                error = e
                print(f"{files[kind]}: {e}", flush=True)
        raise error

    def function(self, module, name, shared_bytes, cluster_size=1):
        f = c_void_p()
        self.check("cuModuleGetFunction", ctypes.byref(f), module, name.encode())
        if shared_bytes > 48 * 1024:  # the opt-in above 48 KB
            self.check("cuFuncSetAttribute", f, 8, shared_bytes)  # MAX_DYNAMIC_SHARED_SIZE_BYTES
        if cluster_size > PORTABLE_CLUSTER_SIZE:  # the opt-in above 8 CTAs (16 on sm_90)
            self.check("cuFuncSetAttribute", f,
                       CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
        return f

    # CUtensorMap's enums (cuda.h).
    TMA_DTYPES = {"f16": 6, "f32": 7, "bf16": 9}
    TMA_SWIZZLES = {"none": 0, "swizzle_32b": 1, "swizzle_64b": 2, "swizzle_128b": 3}
    TMA_L2 = {"none": 0, "l2promo_64b": 1, "l2promo_128b": 2, "l2promo_256b": 3}

    def tensor_map(self, address, tm):
        """The device address of a tensor map over `address` (export.py's
        `tensor_map` argument), built by cuTensorMapEncodeTiled on the host
        and copied to the device, as the kernel takes it by pointer."""
        rank = len(tm["shape"])
        dims = (c_u64 * rank)(*reversed(tm["shape"]))  # innermost first
        strides = (c_u64 * max(rank - 1, 1))(
            *[s * tm["elem_bytes"] for s in reversed(tm["strides"][:-1])])
        box = (ctypes.c_uint * rank)(*reversed(tm["box"]))
        ones = (ctypes.c_uint * rank)(*([1] * rank))
        host = (ctypes.c_ubyte * 128)()
        self.check("cuTensorMapEncodeTiled", host, self.TMA_DTYPES[tm["elem"]],
                   ctypes.c_uint(rank), c_void_p(address), dims, strides, box, ones,
                   0, self.TMA_SWIZZLES[tm["swizzle"]], self.TMA_L2[tm["l2promo"]],
                   0 if tm["oob"] == "zero" else 1)
        dev = self.alloc(128)
        self.check("cuMemcpyAsync", c_u64(dev), c_u64(ctypes.addressof(host)),
                   ctypes.c_size_t(128), None)
        self.sync()
        return dev

    def launch(self, f, grid, block, shared_bytes, values, cluster=(1, 1, 1)):
        """cuLaunchKernel, or cuLaunchKernelEx with the cluster dimension
        attribute for a thread block cluster other than 1x1x1."""
        slots = (c_u64 * len(values))(*values)
        params = (c_void_p * len(values))(
            *[ctypes.addressof(slots) + 8 * i for i in range(len(values))])
        if list(cluster) == [1, 1, 1]:
            self.check("cuLaunchKernel", f, *[ctypes.c_uint(x) for x in grid],
                       *[ctypes.c_uint(x) for x in block], ctypes.c_uint(shared_bytes), None,
                       params, None)
            return
        attr = LaunchAttribute(id=CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
        attr.value.clusterDim = ClusterDim(*cluster)
        config = LaunchConfig(*grid, *block, shared_bytes, None, ctypes.pointer(attr), 1)
        self.check("cuLaunchKernelEx", ctypes.byref(config), f, params, None)

    def time_ms(self, call, batches, batch_ms):
        """Median milliseconds per call over `batches` event-timed batches."""
        start, stop = c_void_p(), c_void_p()
        self.check("cuEventCreate", ctypes.byref(start), 0)
        self.check("cuEventCreate", ctypes.byref(stop), 0)

        def batch(n):
            self.check("cuEventRecord", start, None)
            for _ in range(n):
                call()
            self.check("cuEventRecord", stop, None)
            self.check("cuEventSynchronize", stop)
            ms = ctypes.c_float()
            self.check("cuEventElapsedTime", ctypes.byref(ms), start, stop)
            return ms.value / n

        once = batch(1)
        reps = max(2, min(1000, int(batch_ms / max(once, 1e-3))))
        times = [batch(reps) for _ in range(batches)]
        self.check("cuEventDestroy_v2", start)
        self.check("cuEventDestroy_v2", stop)
        return statistics.median(times)


def descriptor(ptr, arg):
    """MLIR's memref descriptor, flattened: allocated, aligned, offset,
    sizes, strides (every kernel parameter is 8 bytes)."""
    aligned = ptr + arg["byte_offset"]
    return [aligned, aligned, arg["offset"], *arg["shape"], *arg["strides"]]


class Entry:
    """One compiled GEMM, ready to replay on given operands."""

    def __init__(self, drv, root, entry):
        self.drv, self.entry = drv, entry
        self.modules = {m: drv.load(root, files) for m, files in entry["modules"].items()}
        self.functions = {}
        self.buffers = {}
        self.maps = {}
        for s in entry["steps"]:
            if s["op"] == "launch":
                key = (s["module"], s["kernel"])
                if key not in self.functions:
                    clusters = [x.get("cluster", [1, 1, 1]) for x in entry["steps"]
                                if x["op"] == "launch" and (x["module"], x["kernel"]) == key]
                    self.functions[key] = drv.function(
                        self.modules[s["module"]], s["kernel"], s["shared_bytes"],
                        max(c[0] * c[1] * c[2] for c in clusters))
            elif s["op"] == "alloc":  # once, not per call: the memsets reset it
                self.buffers[s["buffer"]] = drv.alloc(s["bytes"])

    def __call__(self, operands):
        for s in self.entry["steps"]:
            if s["op"] == "memset32":
                self.drv.memset32(self.buffers[s["buffer"]] + s["byte_offset"], s["value"],
                                  s["count"])
            elif s["op"] == "launch":
                values = []
                for a in s["args"]:
                    if "tensor_map" in a:
                        values.append(self.map_for(a["tensor_map"], operands))
                        continue
                    base = operands[a["operand"]] if "operand" in a else self.buffers[a["buffer"]]
                    values += descriptor(base, a)
                self.drv.launch(self.functions[(s["module"], s["kernel"])], s["grid"],
                                s["block"], s["shared_bytes"], values,
                                s.get("cluster", [1, 1, 1]))

    def map_for(self, tm, operands):
        """The tensor map over this call's operand, built once per address."""
        base = operands[tm["operand"]] if "operand" in tm else self.buffers[tm["buffer"]]
        address = base + tm["byte_offset"] + tm["offset"] * tm["elem_bytes"]
        key = (id(tm), address)
        if key not in self.maps:
            self.maps[key] = self.drv.tensor_map(address, tm)
        return self.maps[key]

    def release(self):
        for p in self.buffers.values():
            self.drv.free(p)
        for p in self.maps.values():
            self.drv.free(p)
        for m in self.modules.values():
            self.drv.check("cuModuleUnload", m)


class Cublas:
    """cuBLAS through ctypes: GemmEx (f16 in, f32 out) and Sgemm, row-major."""

    def __init__(self):
        candidates = [os.environ.get("EXT_CUBLAS", "")]
        for pattern in ("/usr/local/cuda/lib64/libcublas.so*",
                        "/usr/local/lib/python3*/dist-packages/nvidia/cu*/lib/libcublas.so*",
                        "/opt/*/.venv/lib/python3*/site-packages/nvidia/cu*/lib/libcublas.so*",
                        "/usr/lib/python3*/site-packages/nvidia/cu*/lib/libcublas.so*"):
            candidates += sorted(glob.glob(pattern))
        candidates += ["libcublas.so", "libcublas.so.13", "libcublas.so.12"]
        self.lib, errors = None, []
        for c in candidates:
            if not c:
                continue
            try:
                self.lib = ctypes.CDLL(c)
                self.path = c
                break
            except OSError as e:
                errors.append(str(e))
        if not self.lib:
            raise RuntimeError("no libcublas: " + "; ".join(errors[-2:]))
        self.handle = c_void_p()
        if self.lib.cublasCreate_v2(ctypes.byref(self.handle)) != 0:
            raise RuntimeError("cublasCreate failed")
        self.one, self.zero = ctypes.c_float(1.0), ctypes.c_float(0.0)

    def gemm(self, elem, m, n, k, a, b, c, nk=False):
        # Row-major C = A B is column-major C^T = B^T A^T: B's column-major
        # view (ld N) untransposed; a B stored [N][K] is the column-major
        # K x N matrix B^T (ld K), transposed (CUBLAS_OP_T = 1).
        by = ctypes.byref
        op_b, ld_b = (1, k) if nk else (0, n)
        if elem == "f32":
            rc = self.lib.cublasSgemm_v2(self.handle, op_b, 0, n, m, k, by(self.one), c_u64(b),
                                         ld_b, c_u64(a), k, by(self.zero), c_u64(c), n)
        else:
            R16F, R32F, COMPUTE_32F, DEFAULT = 2, 0, 68, -1
            rc = self.lib.cublasGemmEx(self.handle, op_b, 0, n, m, k, by(self.one), c_u64(b),
                                       R16F, ld_b, c_u64(a), R16F, k, by(self.zero), c_u64(c),
                                       R32F, n, COMPUTE_32F, DEFAULT)
        if rc != 0:
            raise RuntimeError(f"cuBLAS gemm failed: {rc}")


def device_elements(x, elem):
    """The f32 array x (small integers) as `elem`: f16, bf16 (the high half
    of each f32, exact for them) or f32 (also the tf32 kernels' input)."""
    if elem == "f16":
        return x.astype(np.float16)
    if elem == "bf16":
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    return x


def compare(drv, c_ptr, reference):
    out = np.empty_like(reference)
    drv.download(out, c_ptr)
    unwritten = int(np.isnan(out).sum())
    diff = float(np.nanmax(np.abs(out - reference))) if unwritten < out.size else 0.0
    if unwritten:
        return f"WRONG ({unwritten} unwritten)"
    return "ok" if diff == 0 else f"WRONG (max diff {diff:g})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--out", default="results.csv")
    ap.add_argument("--only", default="", help="replay entries whose name matches this regex")
    ap.add_argument("--no-cublas", action="store_true")
    ap.add_argument("--batch-ms", type=float, default=25.0)
    ap.add_argument("--batches", type=int, default=5)
    args = ap.parse_args()
    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    try:
        drv = Driver()
    except (OSError, RuntimeError, AttributeError) as e:
        print(f"bench/gpu/replay: no GPU here ({e}); nothing run.")
        return 0
    print(f"bench/gpu/replay: {drv.name}, {drv.sms} SMs; chip {manifest['chip']}", flush=True)
    blas = None
    if not args.no_cublas:
        try:
            blas = Cublas()
            print(f"cuBLAS: {blas.path}")
        except RuntimeError as e:
            print(f"cuBLAS: {e}")
    rng = np.random.default_rng(2026)
    problems = {}  # (elem, m, n, k) -> device operands and the reference
    rows, failures, blas_ms = [], 0, {}
    # One problem's operands and reference at a time: entries grouped by
    # problem, in the order the problems first appear.
    first = {}
    for i, e in enumerate(manifest["entries"]):
        first.setdefault((e.get("elem"), *e["shape"]), i)
    entries = sorted(manifest["entries"], key=lambda e: first[(e.get("elem"), *e["shape"])])
    out = open(args.out, "w", newline="")
    table = csv.writer(out)
    table.writerow(["kernel", "M", "N", "K", "ext_ms", "ext_tflops", "cublas_tflops", "ratio",
                    "check"])

    def record(row):
        rows.append(row)
        table.writerow(row)
        out.flush()

    for e in entries:
        m, n, k = e["shape"]
        label = f"{e['name']} {m}x{n}x{k}"
        if args.only and not re.search(args.only, e["name"]):
            continue
        if "error" in e:
            print(f"{label}: not compiled: {e['error']}")
            record((e["name"], m, n, k, "", "", "", "", "not compiled"))
            failures += 1
            continue
        nk = e.get("b_nk", False)
        key = (e["elem"], m, n, k, nk)
        if key not in problems:
            for p in problems.values():  # one problem's operands on the device at a time
                for ptr in p[0]:
                    drv.free(ptr)
            problems.clear()
            ai = rng.integers(-3, 4, (m, k)).astype(np.float32)
            bi = rng.integers(-3, 4, (n, k) if nk else (k, n)).astype(np.float32)
            ref = ai @ (bi.T if nk else bi)  # exact: small integers
            a, b = (device_elements(x, e["elem"]) for x in (ai, bi))
            ptrs = [drv.alloc(a.nbytes), drv.alloc(b.nbytes), drv.alloc(ref.nbytes)]
            drv.upload(ptrs[0], a)
            drv.upload(ptrs[1], b)
            problems[key] = (ptrs, ref)
        ptrs, ref = problems[key]
        flops = 2.0 * m * n * k
        try:
            run = Entry(drv, args.dir, e)
            drv.memset32(ptrs[2], 0x7FC00000, m * n)  # NaN: every element must be written
            run(ptrs)
            drv.sync()
            check = compare(drv, ptrs[2], ref)
            ms = drv.time_ms(lambda: run(ptrs), args.batches, args.batch_ms)
            drv.memset32(ptrs[2], 0x7FC00000, m * n)
            run(ptrs)
            drv.sync()
            again = compare(drv, ptrs[2], ref)
            if again != check:
                check = f"{check}, then {again}"
            run.release()
        except RuntimeError as err:
            print(f"{label}: {err}", flush=True)
            record((e["name"], m, n, k, "", "", "", "", f"failed: {err}"))
            failures += 1
            continue
        failures += check != "ok"
        b_ms = None
        if blas and not e["name"].startswith("wgmma-probe"):  # probes: correctness only
            if key not in blas_ms:
                try:
                    blas_ms[key] = drv.time_ms(
                        lambda: blas.gemm(e["elem"], m, n, k, ptrs[0], ptrs[1], ptrs[2], nk),
                        args.batches, args.batch_ms)
                    drv.sync()
                    # The harness's own check: cuBLAS must agree with the reference.
                    print(f"cuBLAS {e['elem']} {m}x{n}x{k}: {compare(drv, ptrs[2], ref)}")
                except RuntimeError as err:
                    print(f"cuBLAS {m}x{n}x{k}: {err}")
                    blas_ms[key] = None
            b_ms = blas_ms[key]
        tf = flops / ms / 1e9
        btf = flops / b_ms / 1e9 if b_ms else None
        row = (e["name"], m, n, k, f"{ms:.4f}", f"{tf:.1f}", f"{btf:.1f}" if btf else "",
               f"{tf / btf:.3f}" if btf else "", check)
        record(row)
        print(f"{row[0]:34} {f'{m}x{n}x{k}':>16} {row[4]:>9} ms {row[5]:>7} TFLOP/s "
              f"cuBLAS {row[6]:>7}  ratio {row[7]:>6}  {check}   [{'; '.join(e['ptxas'])}]",
              flush=True)
    print()
    print(f"{'kernel':34} {'M x N x K':>16} {'ext TFLOP/s':>12} {'cuBLAS':>8} {'ratio':>7}  check")
    for r in rows:
        print(f"{r[0]:34} {f'{r[1]}x{r[2]}x{r[3]}':>16} {r[5]:>12} {r[6]:>8} {r[7]:>7}  {r[8]}")
    out.close()
    print(f"{len(rows)} runs, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
