#!/usr/bin/python3
"""CPU check-finite-and-unscale benchmark of libamp_runtime.so.

    /usr/bin/python3 bench/loss_scaling/run.py [--lib build/lib/libamp_runtime.so]
        [--size-mib 64] [--tensors 8] [--repeat 15] [--json out.json]
    /usr/bin/python3 bench/loss_scaling/run.py --self-check
    /usr/bin/python3 bench/loss_scaling/run.py --repeat 9 \\
        --json bench/results/loss-scaling-cpu.json \\
        --update-doc docs/performance.md
    /usr/bin/python3 bench/loss_scaling/run.py \\
        --from-json bench/results/loss-scaling-cpu.json \\
        --update-doc docs/performance.md --check

Measures, in one run, ampCheckFiniteAndUnscale{F32,F16,BF16} in place on
`--tensors` tensors totalling `--size-mib` MiB against ctypes.memmove of the
same bytes between two buffers (memcpy: one read and one write of every
byte, like the in-place unscale). The two are interleaved, each repeat
timing one memcpy pass and one unscale pass; the medians are reported as
GB/s (10^9 bytes of tensor data per second) with the ratio unscale/memcpy
(the target is >= 0.8: the pass is memory-bandwidth bound). The unscale
alternates the scales 2^10 and 2^-10 so that repeated passes keep the data
in the same range (no drift into subnormals).

--update-doc writes the table between the loss-scaling-cpu markers
(scripts/doctables.py) from this run, or from the kept run --from-json;
with --check it fails when the document is not that run's rendering.

--self-check runs tiny cases of every entry point against numpy (f32
multiply, float16 casts, bf16 round-to-nearest-even on the bits) and exits
non-zero on a mismatch; it takes well under a second.
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "scripts"))
import doctables  # noqa: E402

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_LIB = "build/lib/libamp_runtime.so"
# Tried in order when --lib is not given and the default does not exist:
# standalone builds of runtime/ (cmake -S runtime -B <dir>).
FALLBACK_LIBS = ["build-rt/libamp_runtime.so"]

AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16 = 0, 1, 2
TYPES = {"f32": AMP_DTYPE_F32, "f16": AMP_DTYPE_F16, "bf16": AMP_DTYPE_BF16}


# ---------------------------------------------------------------------------
# Library
# ---------------------------------------------------------------------------

def find_lib(path):
    if path:
        candidates = [path]
    else:
        candidates = [DEFAULT_LIB] + FALLBACK_LIBS
    for candidate in candidates:
        full = candidate if os.path.isabs(candidate) else os.path.join(ROOT, candidate)
        if os.path.exists(full):
            return full
    sys.exit("error: libamp_runtime.so not found (tried %s); pass --lib"
             % ", ".join(candidates))


class Runtime:
    def __init__(self, path):
        self.path = path
        lib = ctypes.CDLL(path)
        ptrs = ctypes.POINTER(ctypes.c_void_p)
        i64s = ctypes.POINTER(ctypes.c_int64)
        self.inplace = {}
        for name, fn in (("f32", lib.ampCheckFiniteAndUnscaleF32),
                         ("f16", lib.ampCheckFiniteAndUnscaleF16),
                         ("bf16", lib.ampCheckFiniteAndUnscaleBF16)):
            fn.argtypes = [ptrs, i64s, ctypes.c_int64, ctypes.c_float]
            fn.restype = ctypes.c_int
            self.inplace[name] = fn
        self.to_f32 = lib.ampCheckFiniteAndUnscaleToF32
        self.to_f32.argtypes = [ptrs, ctypes.c_int32, ptrs, i64s,
                                ctypes.c_int64, ctypes.c_float]
        self.to_f32.restype = ctypes.c_int
        self.last_error = lib.ampLastError
        self.last_error.restype = ctypes.c_char_p

    def error(self):
        return self.last_error().decode(errors="replace")


class Table:
    """Pointer and size arrays for a list of numpy arrays (kept alive)."""

    def __init__(self, arrays):
        self.arrays = arrays
        n = len(arrays)
        self.ptrs = (ctypes.c_void_p * max(n, 1))(
            *[a.ctypes.data if a.size else None for a in arrays])
        self.numels = (ctypes.c_int64 * max(n, 1))(*[a.size for a in arrays])
        self.count = n


def unscale(rt, kind, arrays, scale):
    t = Table(arrays)
    return rt.inplace[kind](t.ptrs, t.numels, t.count, scale)


def unscale_to_f32(rt, kind, src, dst, scale):
    s, d = Table(src), Table(dst)
    return rt.to_f32(s.ptrs, TYPES[kind], d.ptrs, s.numels, s.count, scale)


# ---------------------------------------------------------------------------
# Numpy references
# ---------------------------------------------------------------------------

def inv_of(scale):
    return np.float32(1.0 / float(np.float32(scale)))


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(values):
    u = values.astype(np.float32).view(np.uint32)
    rounded = ((u + np.uint32(0x7FFF) + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = ((u >> 16) | 0x40).astype(np.uint16)
    return np.where(np.isnan(values), nan, rounded)


def widen(kind, a):
    if kind == "f32":
        return a
    if kind == "f16":
        return a.view(np.float16).astype(np.float32)
    return bf16_to_f32(a)


def narrow(kind, values):
    if kind == "f32":
        return values
    if kind == "f16":
        return values.astype(np.float16).view(np.uint16)
    return f32_to_bf16(values)


def same(kind, got, expected):
    """Bitwise equality, except that any NaN matches any NaN."""
    if kind == "f32" or got.dtype == np.float32:
        g, e = got.view(np.float32), expected.view(np.float32)
        return bool(np.all((g.view(np.uint32) == e.view(np.uint32)) |
                           (np.isnan(g) & np.isnan(e))))
    gw, ew = widen(kind, got), widen(kind, expected)
    return bool(np.all((got == expected) | (np.isnan(gw) & np.isnan(ew))))


def random_bits(kind, rng, n, special):
    """Finite values over the whole exponent range, subnormals included,
    plus Inf/NaN when `special`."""
    if kind == "f32":
        a = (rng.standard_normal(n) * 2.0 ** rng.integers(-140, 60, n)).astype(np.float32)
    elif kind == "f16":
        a = rng.integers(0, 0x7C00, n, dtype=np.uint16) | (
            rng.integers(0, 2, n, dtype=np.uint16) << 15)
    else:
        a = rng.integers(0, 0x7F80, n, dtype=np.uint16) | (
            rng.integers(0, 2, n, dtype=np.uint16) << 15)
    if special and n:
        bad = {"f32": [np.inf, -np.inf, np.nan],
               "f16": [0x7C00, 0xFC00, 0x7E00],
               "bf16": [0x7F80, 0xFF80, 0x7FC0]}[kind]
        a[rng.integers(0, n)] = bad[rng.integers(0, len(bad))]
    return a


def self_check(rt):
    with np.errstate(all="ignore"):
        return _self_check(rt)


def _self_check(rt):
    rng = np.random.default_rng(1234)
    failures = []
    sizes = [0, 1, 7, 8, 15, 16, 17, 31, 33, 100, 257]
    for kind in ("f32", "f16", "bf16"):
        for scale in (65536.0, 3.0, 0.7, 1.0, 2.0 ** -20, 1e6):
            for special_at in (None, 0, len(sizes) // 2, len(sizes) - 1):
                src = [random_bits(kind, rng, n, i == special_at)
                       for i, n in enumerate(sizes)]
                inv = inv_of(scale)
                with np.errstate(over="ignore", invalid="ignore"):
                    wide = [widen(kind, a) * inv for a in src]

                # The flag covers every value read or written: a finite
                # input whose result overflows is reported too.
                def bad(arrays):
                    return any(not np.all(np.isfinite(a)) for a in arrays)
                read_bad = bad(widen(kind, a) for a in src)
                expected_flag = int(read_bad or bad(
                    widen(kind, narrow(kind, w)) for w in wide))
                expected_wide_flag = int(read_bad or bad(
                    w.astype(np.float32) for w in wide))
                what = "%s scale %g special %s" % (kind, scale, special_at)
                # In place.
                data = [a.copy() for a in src]
                flag = unscale(rt, kind, data, scale)
                if flag != expected_flag:
                    failures.append("%s: returned %d, expected %d (%s)"
                                    % (what, flag, expected_flag, rt.error()))
                for i, (a, w) in enumerate(zip(data, wide)):
                    # Scale 1 only checks: the data is left as it was.
                    expected = src[i] if scale == 1.0 else narrow(kind, w)
                    if not same(kind, a, expected):
                        failures.append("%s: tensor %d differs" % (what, i))
                # Into fp32 buffers.
                dst = [np.full(a.size, -1.0, np.float32) for a in src]
                flag = unscale_to_f32(rt, kind, src, dst, scale)
                if flag != expected_wide_flag:
                    failures.append("%s ToF32: returned %d, expected %d (%s)"
                                    % (what, flag, expected_wide_flag,
                                       rt.error()))
                for i, (d, w) in enumerate(zip(dst, wide)):
                    if not same("f32", d, w.astype(np.float32)):
                        failures.append("%s ToF32: tensor %d differs" % (what, i))
    # Invalid arguments: -1 and a message, nothing written.
    a = np.ones(4, np.float32)
    if unscale(rt, "f32", [a], 0.0) != -1 or "scale" not in rt.error():
        failures.append("scale 0 not rejected: %r" % rt.error())
    if not np.all(a == 1.0):
        failures.append("a rejected call wrote data")
    for line in failures[:20]:
        print("FAIL:", line)
    if failures:
        print("self-check: %d failure(s)" % len(failures))
        return 1
    print("self-check: ok (%s)" % rt.path)
    return 0


# ---------------------------------------------------------------------------
# Benchmark
# ---------------------------------------------------------------------------

def split(total_elems, tensors):
    base = total_elems // tensors
    sizes = [base] * tensors
    sizes[-1] += total_elems - base * tensors
    return sizes


def make_tensors(kind, sizes, rng):
    out = []
    for n in sizes:
        x = rng.uniform(-8.0, 8.0, n).astype(np.float32)
        if kind == "f32":
            out.append(x)
        elif kind == "f16":
            out.append(x.astype(np.float16).view(np.uint16))
        else:
            out.append(f32_to_bf16(x))
    return out


def bench_kind(rt, kind, size_bytes, tensors, repeat, rng):
    itemsize = 4 if kind == "f32" else 2
    sizes = split(size_bytes // itemsize, tensors)
    data = make_tensors(kind, sizes, rng)
    src = make_tensors(kind, sizes, rng)
    dst = [np.empty_like(a) for a in src]
    for d in dst:
        d.fill(1)  # Touch every page before timing.
    table = Table(data)
    fn = rt.inplace[kind]
    nbytes = [a.nbytes for a in src]
    pairs = [(d.ctypes.data, s.ctypes.data, n) for d, s, n in zip(dst, src, nbytes)]
    total = sum(nbytes)

    def run_memcpy():
        t0 = time.perf_counter_ns()
        for d, s, n in pairs:
            ctypes.memmove(d, s, n)
        return time.perf_counter_ns() - t0

    scales = (1024.0, 1.0 / 1024.0)

    def run_unscale(i):
        t0 = time.perf_counter_ns()
        flag = fn(table.ptrs, table.numels, table.count, scales[i % 2])
        elapsed = time.perf_counter_ns() - t0
        if flag != 0:
            sys.exit("error: unscale returned %d (%s)" % (flag, rt.error()))
        return elapsed

    # Warm-up (page faults, caches, frequency).
    run_memcpy()
    run_unscale(0)
    run_unscale(1)
    memcpy_ns, unscale_ns = [], []
    for i in range(repeat):
        memcpy_ns.append(run_memcpy())
        unscale_ns.append(run_unscale(i))
    t_memcpy = statistics.median(memcpy_ns)
    t_unscale = statistics.median(unscale_ns)
    return {
        "type": kind,
        "tensors": tensors,
        "bytes": total,
        "memcpy_ns": memcpy_ns,
        "unscale_ns": unscale_ns,
        "memcpy_gbps": total / t_memcpy,
        "unscale_gbps": total / t_unscale,
        "ratio": t_memcpy / t_unscale,
    }


def render(run):
    """The doc table of a kept run: medians, and the range of the ratio
    over the interleaved passes."""
    simd = run.get("simd_env") or ""
    lines = ["Measured by `bench/loss_scaling/run.py` on %s (%.0f MiB per "
             "type in %d tensors; median of %d interleaved passes, the "
             "ratio's range over the passes in brackets%s):"
             % (run["cpu"], run["size_mib"], run["tensors"], run["repeat"],
                ", AMP_RUNTIME_CPU_SIMD=" + simd if simd else ""),
             "",
             "| type | unscale GB/s | memcpy GB/s | unscale / memcpy | "
             "target |",
             "|---|---:|---:|---:|---|"]
    for r in run["results"]:
        ratios = [m / u for m, u in zip(r["memcpy_ns"], r["unscale_ns"])]
        lines.append("| %s | %.1f | %.1f | %.2f (%.2f–%.2f) | >= 0.8: %s |"
                     % (r["type"], r["unscale_gbps"], r["memcpy_gbps"],
                        r["ratio"], min(ratios), max(ratios),
                        "met" if r["ratio"] >= 0.8 else "not met"))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lib", default=None,
                        help="libamp_runtime.so (default: %s, else %s)"
                        % (DEFAULT_LIB, ", ".join(FALLBACK_LIBS)))
    parser.add_argument("--size-mib", type=float, default=64.0,
                        help="bytes of gradient data per type (MiB)")
    parser.add_argument("--tensors", type=int, default=8,
                        help="number of tensors the data is split into")
    parser.add_argument("--repeat", type=int, default=15,
                        help="timed passes (the median is reported)")
    parser.add_argument("--types", default="f32,f16,bf16")
    parser.add_argument("--self-check", action="store_true",
                        help="check results against numpy on tiny sizes")
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)
    if args.from_json:
        with open(args.from_json) as f:
            run = json.load(f)
        return doctables.publish(args, {"loss-scaling-cpu": render(run)},
                                 "bench/loss_scaling/run.py")

    rt = Runtime(find_lib(args.lib))
    if args.self_check:
        return self_check(rt)

    size_bytes = int(args.size_mib * 1024 * 1024)
    rng = np.random.default_rng(0)
    results = [bench_kind(rt, kind, size_bytes, max(1, args.tensors),
                          max(1, args.repeat), rng)
               for kind in args.types.split(",")]
    simd = os.environ.get("AMP_RUNTIME_CPU_SIMD", "")
    print("CPU check-finite-and-unscale vs memcpy: %s, %.0f MiB per type in "
          "%d tensors, median of %d%s"
          % (doctables.machine(), args.size_mib, args.tensors, args.repeat,
             ", AMP_RUNTIME_CPU_SIMD=" + simd if simd else ""))
    print("library: %s" % rt.path)
    print()
    print("| type | unscale GB/s | memcpy GB/s | unscale/memcpy | >= 0.8 |")
    print("|---|---:|---:|---:|---|")
    for r in results:
        print("| %s | %.2f | %.2f | %.2f | %s |"
              % (r["type"], r["unscale_gbps"], r["memcpy_gbps"], r["ratio"],
                 "yes" if r["ratio"] >= 0.8 else "NO"))
    run = {"cpu": doctables.machine(), "library": rt.path,
           "size_mib": args.size_mib, "tensors": args.tensors,
           "repeat": args.repeat, "simd_env": simd, "results": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(run, f, indent=2)
    if args.update_doc:
        return doctables.update(args.update_doc,
                                {"loss-scaling-cpu": render(run)},
                                "bench/loss_scaling/run.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
