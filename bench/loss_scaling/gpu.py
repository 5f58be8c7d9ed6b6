#!/usr/bin/python3
"""GPU loss-scaling benchmark of amp-mlir's runtime (libamp_runtime.so).

    /usr/bin/python3 bench/loss_scaling/gpu.py [--lib build/lib/libamp_runtime.so]
                                               [--json out.json] [--require-gpu]

Measures, through ctypes on the shared stream:

* ampGpuCheckFiniteAndUnscale on one tensor table of --mib MiB (f32, f16,
  bf16) split into many tensors (--small-tensors small ones, the rest large,
  256-byte aligned as a caching allocator gives them), against a
  device-to-device copy (mgpuMemcpy) of the same number of bytes. Both read
  and write every byte once, so the ratio unscale / copy is the fraction of
  copy bandwidth reached; the target is >= 0.85.
* ampGpuOptimizerStep (SGD and Adam/AdamW, fp32 masters, f16 gradients and
  working copies) as bytes moved per second, also against the copy.

Each figure is the median over --rounds batches of --repeat back-to-back
calls, timed on the host around ampGpuSynchronize, after a warm-up. The
unscale alternates two scalers (scale 2^16 and 2^-16) so that the values
stay 1 and 2^-16 and every call reads and writes every element.

Without a GPU it says why and exits with 0 (77 with --require-gpu). With
--lib .../libamp_runtime_gpusim.so it runs in the GPU simulator (the same
kernels on the CPU): a check of this script, not a measurement.
"""

import argparse
import ctypes
import json
import os
import random
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
F32, F16, BF16 = 0, 1, 2
DTYPES = {"f32": F32, "f16": F16, "bf16": BF16}
SIZES = {F32: 4, F16: 2, BF16: 2}
# 32-bit patterns of (pairs of) 1.0 for mgpuMemset32.
ONES = {F32: 0x3F800000, F16: 0x3C003C00, BF16: 0x3F803F80}
SGD, MOMENTUM, ADAM, ADAMW = 0, 1, 2, 3


# The runtime's structs, as the Python package declares them.
sys.path.insert(0, os.path.join(REPO, "python"))
from amp_mlir._runtime import (LossScalerConfig, OptimizerConfig,  # noqa: E402
                               OptimizerParam)


class RuntimeError_(Exception):
    pass


class Runtime:
    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        vp, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
        sigs = {
            "ampLastError": (ctypes.c_char_p, []),
            "ampGpuAvailable": (ctypes.c_int, []),
            "ampGpuDeviceName": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t]),
            "ampGpuSynchronize": (None, []),
            "mgpuMemAlloc": (vp, [ctypes.c_uint64, vp, ctypes.c_bool]),
            "mgpuMemFree": (None, [vp, vp]),
            "mgpuMemcpy": (None, [vp, vp, ctypes.c_size_t, vp]),
            "mgpuMemset32": (None, [vp, ctypes.c_uint32, ctypes.c_size_t, vp]),
            "ampLossScalerConfigPreset": (ctypes.c_int, [ctypes.c_char_p, vp]),
            "ampGpuLossScalerCreate": (vp, [vp]),
            "ampGpuLossScalerDestroy": (None, [vp]),
            "ampGpuLossScalerBeginStep": (ctypes.c_int, [vp]),
            "ampGpuLossScalerFoundInfPtr": (vp, [vp]),
            "ampGpuLossScalerInvScalePtr": (vp, [vp]),
            "ampGpuTensorTableCreate": (vp, [vp, vp, i64, i32]),
            "ampGpuTensorTableDestroy": (None, [vp]),
            "ampGpuCheckFiniteAndUnscale": (ctypes.c_int, [vp, vp]),
            "ampOptimizerConfigDefault": (ctypes.c_int, [i32, vp]),
            "ampGpuOptimizerCreate": (vp, [vp, vp, i64]),
            "ampGpuOptimizerDestroy": (None, [vp]),
            "ampGpuOptimizerStep": (ctypes.c_int, [vp, vp, vp]),
            "ampGpuOptimizerGetStep": (i64, [vp]),
        }
        for name, (restype, argtypes) in sigs.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        # mgpu* failures go to the error handler (default: abort); record.
        self.errors = []
        handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
        self._handler = handler_type(
            lambda m: self.errors.append(m.decode(errors="replace")))
        lib.ampSetErrorHandler.restype = vp
        lib.ampSetErrorHandler.argtypes = [vp]
        lib.ampSetErrorHandler(ctypes.cast(self._handler, vp))

    def last_error(self):
        return (self.lib.ampLastError() or b"").decode(errors="replace")

    def check(self, ok, what):
        if self.errors:
            raise RuntimeError_(f"{what}: {self.errors[0]}")
        if not ok:
            raise RuntimeError_(f"{what}: {self.last_error()}")

    def device_name(self):
        buf = ctypes.create_string_buffer(256)
        return (buf.value.decode(errors="replace")
                if self.lib.ampGpuDeviceName(buf, 256) == 0 else "unknown")

    def alloc(self, nbytes):
        ptr = self.lib.mgpuMemAlloc(nbytes, None, False)
        self.check(ptr, f"mgpuMemAlloc({nbytes})")
        return ptr

    def fill(self, ptr, nbytes, word):
        self.lib.mgpuMemset32(ptr, word, nbytes // 4, None)
        self.check(True, "mgpuMemset32")

    def sync(self):
        self.lib.ampGpuSynchronize()
        self.check(True, "ampGpuSynchronize")

    def scaler(self, scale):
        cfg = LossScalerConfig()
        self.check(self.lib.ampLossScalerConfigPreset(b"pytorch",
                                                      ctypes.byref(cfg)) == 0,
                   "ampLossScalerConfigPreset")
        cfg.init_scale, cfg.dynamic = scale, 0
        s = self.lib.ampGpuLossScalerCreate(ctypes.byref(cfg))
        self.check(s, "ampGpuLossScalerCreate")
        return s


def time_op(rt, op, repeat, rounds, warmup=3):
    """Median seconds per call over `rounds` batches of `repeat` calls."""
    for _ in range(warmup):
        op()
    rt.sync()
    per_call = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            op()
        rt.sync()
        per_call.append((time.perf_counter() - start) / repeat)
    return statistics.median(per_call)


def tensor_sizes(total_elems, small, rng):
    """`small` tensors of 1K..64K elements (together at most a quarter of
    the total), the rest split into large ones (1..8 M elements), summing to
    `total_elems`."""
    cap = max(1 << 10, min(1 << 16, total_elems // max(1, 4 * small)))
    sizes = [rng.randint(min(1 << 10, cap), cap) for _ in range(small)]
    left = total_elems - sum(sizes)
    while left > 0:
        n = min(left, rng.randint(1 << 20, 8 << 20))
        sizes.append(n)
        left -= n
    rng.shuffle(sizes)
    return sizes


def layout(sizes, esize, align=256):
    offsets, at = [], 0
    for n in sizes:
        offsets.append(at)
        at += (n * esize + align - 1) // align * align
    return offsets, at


def bench_unscale(rt, args, copy_src, copy_dst):
    rows = []
    up, down = rt.scaler(65536.0), rt.scaler(2.0 ** -16)
    try:
        for name in args.dtypes:
            dtype = DTYPES[name]
            esize = SIZES[dtype]
            rng = random.Random(args.seed)
            sizes = tensor_sizes(args.mib * (1 << 20) // esize,
                                 args.small_tensors, rng)
            offsets, arena_bytes = layout(sizes, esize)
            arena = rt.alloc(arena_bytes)
            try:
                rt.fill(arena, arena_bytes, ONES[dtype])
                ptrs = (ctypes.c_void_p * len(sizes))(
                    *[arena + o for o in offsets])
                numels = (ctypes.c_int64 * len(sizes))(*sizes)
                table = rt.lib.ampGpuTensorTableCreate(ptrs, numels,
                                                       len(sizes), dtype)
                rt.check(table, "ampGpuTensorTableCreate")
                data_bytes = sum(sizes) * esize
                state = {"flip": False}

                # found_inf stays 0 (the data is finite): no BeginStep in
                # the timed loop.
                for s in (up, down):
                    rt.check(rt.lib.ampGpuLossScalerBeginStep(s) == 0,
                             "ampGpuLossScalerBeginStep")

                def unscale():
                    state["flip"] = not state["flip"]
                    s = up if state["flip"] else down
                    rc = rt.lib.ampGpuCheckFiniteAndUnscale(s, table)
                    if rc:
                        raise RuntimeError_(rt.last_error())

                def copy():
                    rt.lib.mgpuMemcpy(copy_dst, copy_src, data_bytes, None)

                # Alternate the two, twice, and keep the best median of each.
                t_unscale, t_copy = [], []
                for _ in range(2):
                    t_unscale.append(time_op(rt, unscale, args.repeat, args.rounds))
                    t_copy.append(time_op(rt, copy, args.repeat, args.rounds))
                tu, tc = min(t_unscale), min(t_copy)
                found = ctypes.c_float()
                rt.lib.mgpuMemcpy(ctypes.addressof(found),
                                  rt.lib.ampGpuLossScalerFoundInfPtr(down), 4, None)
                rt.sync()
                rows.append({
                    "dtype": name, "tensors": len(sizes), "bytes": data_bytes,
                    "unscale_us": tu * 1e6, "copy_us": tc * 1e6,
                    "unscale_gbps": 2 * data_bytes / tu / 1e9,
                    "copy_gbps": 2 * data_bytes / tc / 1e9,
                    "ratio": tc / tu, "found_inf": found.value})
                rt.lib.ampGpuTensorTableDestroy(table)
            finally:
                rt.lib.mgpuMemFree(arena, None)
    finally:
        rt.lib.ampGpuLossScalerDestroy(up)
        rt.lib.ampGpuLossScalerDestroy(down)
    return rows


def bench_optimizers(rt, args, copy_src, copy_dst):
    rows = []
    scaler = rt.scaler(1024.0)
    found = rt.lib.ampGpuLossScalerFoundInfPtr(scaler)
    inv = rt.lib.ampGpuLossScalerInvScalePtr(scaler)
    rt.lib.ampGpuLossScalerBeginStep(scaler)
    rng = random.Random(args.seed + 1)
    # Elements such that master + m + v + f16 grad + f16 lowp ~ --mib MiB.
    sizes = tensor_sizes(args.mib * (1 << 20) // 16, args.small_tensors, rng)
    total = sum(sizes)
    buffers = []
    try:
        specs = []
        for n in sizes:
            ptrs = {}
            for role, esize in (("master", 4), ("lowp", 2), ("grad", 2),
                                ("state0", 4), ("state1", 4)):
                nbytes = (n * esize + 255) // 256 * 256
                ptrs[role] = rt.alloc(nbytes)
                buffers.append(ptrs[role])
                rt.fill(ptrs[role], nbytes,
                        0 if role.startswith("state") else
                        (0x3F800000 if esize == 4 else 0x3C003C00))
            specs.append((n, ptrs))
        params = (OptimizerParam * len(specs))()
        for p, (n, ptrs) in zip(params, specs):
            p.master, p.lowp, p.lowp_type = ptrs["master"], ptrs["lowp"], F16
            p.grad, p.grad_type = ptrs["grad"], F16
            p.state0, p.state1, p.numel = ptrs["state0"], ptrs["state1"], n
        for kind, name, per_elem in ((SGD, "sgd", 12), (ADAM, "adam", 28),
                                     (ADAMW, "adamw", 28)):
            cfg = OptimizerConfig()
            rt.check(rt.lib.ampOptimizerConfigDefault(kind, ctypes.byref(cfg)) == 0,
                     "ampOptimizerConfigDefault")
            cfg.lr = 1e-6
            opt = rt.lib.ampGpuOptimizerCreate(ctypes.byref(cfg), params,
                                               len(specs))
            rt.check(opt, "ampGpuOptimizerCreate")
            moved = per_elem * total

            def step():
                if rt.lib.ampGpuOptimizerStep(opt, found, inv):
                    raise RuntimeError_(rt.last_error())

            # The copy of the same number of bytes: half read, half written.
            copy_bytes = min(moved // 2, args.copy_bytes)

            def copy():
                rt.lib.mgpuMemcpy(copy_dst, copy_src, copy_bytes, None)

            t_step = time_op(rt, step, args.repeat, args.rounds)
            t_copy = time_op(rt, copy, args.repeat, args.rounds)
            steps = rt.lib.ampGpuOptimizerGetStep(opt)
            rows.append({
                "optimizer": name, "tensors": len(specs), "elements": total,
                "bytes_moved": moved, "step_us": t_step * 1e6,
                "step_gbps": moved / t_step / 1e9,
                "copy_gbps": 2 * copy_bytes / t_copy / 1e9,
                "ratio": (moved / t_step) / (2 * copy_bytes / t_copy),
                "steps_counted": steps})
            rt.lib.ampGpuOptimizerDestroy(opt)
    finally:
        for ptr in buffers:
            rt.lib.mgpuMemFree(ptr, None)
        rt.lib.ampGpuLossScalerDestroy(scaler)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", default=os.environ.get(
        "AMP_RUNTIME_LIB", os.path.join(REPO, "build", "lib", "libamp_runtime.so")),
        help="libamp_runtime.so (default: $AMP_RUNTIME_LIB or "
             "build/lib/libamp_runtime.so)")
    p.add_argument("--json", help="write the raw figures to this file")
    p.add_argument("--require-gpu", action="store_true",
                   help="exit with 77 (skipped) instead of 0 without a GPU")
    p.add_argument("--mib", type=int, default=256,
                   help="MiB of gradients per table (default 256)")
    p.add_argument("--small-tensors", type=int, default=1000,
                   help="small tensors among the large ones (default 1000)")
    p.add_argument("--dtypes", default="f32,f16,bf16")
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-optimizers", action="store_true")
    args = p.parse_args()
    args.dtypes = [d for d in args.dtypes.split(",") if d]
    if any(d not in DTYPES for d in args.dtypes):
        p.error("--dtypes takes f32, f16 and/or bf16")

    if not os.path.exists(args.lib):
        print(f"bench/loss_scaling/gpu: {args.lib} not found (pass --lib)",
              file=sys.stderr)
        return 2
    try:
        rt = Runtime(args.lib)
    except (OSError, AttributeError) as e:
        print(f"bench/loss_scaling/gpu: cannot use {args.lib}: {e} (rebuild "
              "libamp_runtime.so or pass --lib)", file=sys.stderr)
        return 2
    if rt.lib.ampGpuAvailable() != 1:
        print(f"bench/loss_scaling/gpu: no GPU: {rt.last_error()}")
        return 77 if args.require_gpu else 0

    name = rt.device_name()
    print(f"# GPU loss scaling on {name}\n")
    copy_bytes = args.mib * (1 << 20) + (16 << 20)
    args.copy_bytes = copy_bytes
    copy_src, copy_dst = rt.alloc(copy_bytes), rt.alloc(copy_bytes)
    rt.fill(copy_src, copy_bytes, 0x3F800000)
    rt.fill(copy_dst, copy_bytes, 0)
    results = {"device": name, "config": {
        k: v for k, v in vars(args).items() if k != "json"}}
    try:
        results["unscale"] = bench_unscale(rt, args, copy_src, copy_dst)
        print("| dtype | tensors | MiB | unscale us | copy us | unscale GB/s "
              "| copy GB/s | unscale/copy |")
        print("|---|---|---|---|---|---|---|---|")
        for r in results["unscale"]:
            print(f"| {r['dtype']} | {r['tensors']} | {r['bytes'] / 2**20:.0f} "
                  f"| {r['unscale_us']:.1f} | {r['copy_us']:.1f} "
                  f"| {r['unscale_gbps']:.0f} | {r['copy_gbps']:.0f} "
                  f"| {r['ratio']:.3f} |")
        print("\n(GB/s count every byte read and written; target ratio >= 0.85)\n")
        if not args.skip_optimizers:
            results["optimizers"] = bench_optimizers(rt, args, copy_src, copy_dst)
            print("| optimizer | tensors | elements | step us | GB/s moved "
                  "| copy GB/s | step/copy |")
            print("|---|---|---|---|---|---|---|")
            for r in results["optimizers"]:
                print(f"| {r['optimizer']} | {r['tensors']} | {r['elements']} "
                      f"| {r['step_us']:.1f} | {r['step_gbps']:.0f} "
                      f"| {r['copy_gbps']:.0f} | {r['ratio']:.3f} |")
            print("\n(f32 master/m/v, f16 grad and working copy: SGD moves 12 "
                  "bytes per element, Adam/AdamW 28)")
    finally:
        rt.lib.mgpuMemFree(copy_src, None)
        rt.lib.mgpuMemFree(copy_dst, None)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
