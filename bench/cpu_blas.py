#!/usr/bin/env python3
"""Which CPU library computes the contractions (issue 28, item 3): GEMM
time of Debian's OpenBLAS, BLIS and oneDNN, in f32 and from f16/bf16
inputs with f32 accumulation, on this machine; then what the library calls
change in compiled code (`amp-run`, library calls against generated loops).

  AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \
      bench/cpu_blas.py [--threads 1,2] [--repeat 7] [--calls 3]
      [--models mm256,resnet18] [--runtime build/lib/libamp_runtime.so]
      [--amp-run build/bin/amp-run]
      [--json bench/results/cpu-blas.json] [--update-doc docs/performance.md]
      [--from-json FILE] [--check] [--only depthwise]

(/usr/bin/python3 with numpy is enough with --models mm256: resnet18 is
exported from torchvision through torch-mlir, as bench/compile_time.py does.)

Every (library, thread count) is measured in a subprocess of its own, with
the library's thread count set through its environment variable
(OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS, OMP_NUM_THREADS) before it loads.
Each figure is the median wall time of --repeat calls after one warm-up, on
row-major operands filled with uniform values in [-1, 1).

The rows: each library's f32 GEMM (cblas_sgemm, dnnl_sgemm); the
low-precision GEMMs the libraries have natively (oneDNN's
dnnl_gemm_bf16bf16f32; Debian's OpenBLAS 0.3.21 is built without sbgemm,
BLIS 0.9 has no f16/bf16 types, and oneDNN 2.6 has f16 only for AVX512-FP16
CPUs); and libamp_runtime's own entry point, ampCpuLibraryGemm (the path
the compiled code takes: the runtime's packed GEMM, which widens f16/bf16
operands while packing them, on x86-64 with AVX2; else f16/bf16 widened to
f32 for the library's f32 GEMM), with an f32 and a narrowed (f16/bf16)
output. A
library whose shared object is missing, or a call that reports
"unimplemented", gives "-".

The second table times convolutions (resnet18's layers at 224x224, NCHW,
batch 1) in the same subprocesses: the runtime's ampCpuLibraryConv2d (im2col
into a column buffer, widening f16/bf16, then the f32 GEMM of the library
it loads) against oneDNN's own forward convolution (convolution_auto), on
NCHW buffers as a runtime call would take them and on the blocked layouts
oneDNN prefers (the reorders into them not timed), in f32 and bf16.

The third table times one call of compiled code with `amp-run --repeat`
(median of --calls calls after a warm-up; each command also times the fp32
original, O0): a 256x256x256 `linalg.matmul` of f32 arguments and
torchvision's resnet18 (2x3x64x64), at O0 and at O2 in f16 and bf16, with
--lower-to-cpu's library calls (the default), with its convolutions as
generated loops (`--cpu-options=library-convolutions=false`, the library
calls before convolutions had one) and with generated loops only
(`--cpu-options=libraries=false`), in one run, the library on one thread
(OPENBLAS_NUM_THREADS=1: the generated code is single-threaded).

The fourth table times ampCpuLibraryConv2d's depthwise convolutions
(groups == c == f): ConvNeXt's 7x7 in three layouts and in bf16, and
EfficientNet's 3x3 at stride 2, by the runtime's direct loops and by its
per-group im2col and GEMMs (AMP_CPU_NO_DIRECT_DEPTHWISE=1, read at each
call), in one subprocess on one thread, the two paths called in turn after
a warm-up of each; each figure is the median of --repeat calls with their
range (min-max), and the subprocess checks that both paths computed the
same output. --only depthwise measures this table alone (seconds) and
keeps the rest of the run in --json, which it rewrites.

--update-doc writes the tables between the cpu-blas, cpu-conv,
cpu-depthwise and cpu-library-effect markers (scripts/doctables.py); with
--from-json and --check it fails when the document differs from the
rendering of the kept run.
"""

import argparse
import ctypes
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doctables  # noqa: E402

BLOCK = "cpu-blas"
CONV_BLOCK = "cpu-conv"
DEPTHWISE_BLOCK = "cpu-depthwise"
EFFECT_BLOCK = "cpu-library-effect"
MODELS = ("mm256", "resnet18")
MODEL_NAMES = {
    "mm256": "linalg.matmul 256x256x256 (f32 arguments)",
    "resnet18": "torchvision resnet18, 2x3x64x64",
}
# (column label, level, dtype) of the effect table.
LEVELS = (("O0 (fp32)", "O0", None), ("O2 f16", "O2", "f16"),
          ("O2 bf16", "O2", "bf16"))
SCRIPT = "bench/cpu_blas.py"
LIBDIR = "/usr/lib/x86_64-linux-gnu"
LIBRARIES = {
    "openblas": (os.path.join(LIBDIR, "libopenblas.so.0"),
                 "OPENBLAS_NUM_THREADS"),
    "blis": (os.path.join(LIBDIR, "libblis.so.4"), "BLIS_NUM_THREADS"),
    "onednn": (os.path.join(LIBDIR, "libdnnl.so.2"), "OMP_NUM_THREADS"),
}
# (name, m, n, k): C[m,n] = A[m,k] B[k,n].
SHAPES = (
    ("256^3", 256, 256, 256),
    ("1024^3", 1024, 1024, 1024),
    ("transformer FFN 128x3072x768", 128, 3072, 768),
    ("resnet18 3x3 conv 64->64 at 56x56 (im2col)", 3136, 64, 576),
)
# The columns: (key, label).
PATHS = (
    ("openblas:f32", "OpenBLAS sgemm, f32"),
    ("blis:f32", "BLIS sgemm, f32"),
    ("onednn:f32", "oneDNN sgemm, f32"),
    ("onednn:bf16", "oneDNN gemm_bf16bf16f32, bf16 in"),
    ("runtime:f16", "amp runtime, f16 in, f32 out"),
    ("runtime:bf16", "amp runtime, bf16 in, f32 out"),
    ("runtime:f16>f16", "amp runtime, f16 in, f16 out"),
    ("runtime:bf16>bf16", "amp runtime, bf16 in, bf16 out"),
)
DTYPE_CODE = {"f32": 0, "f16": 1, "bf16": 2}
# The convolution table: (name, n, c, h, w, f, k, stride, pad), NCHW/FCHW,
# k x k windows; resnet18's layers at 224x224.
CONV_SHAPES = (
    ("stem 7x7/2 3->64 at 224", 1, 3, 224, 224, 64, 7, 2, 3),
    ("3x3 64->64 at 56", 1, 64, 56, 56, 64, 3, 1, 1),
    ("3x3/2 128->256 at 28", 1, 128, 28, 28, 256, 3, 2, 1),
    ("1x1/2 64->128 at 56", 1, 64, 56, 56, 128, 1, 2, 0),
)
CONV_PATHS = (
    ("runtime:f32", "amp runtime (im2col + sgemm), f32"),
    ("runtime:f16>f16", "amp runtime, f16 in, f16 out"),
    ("runtime:bf16>bf16", "amp runtime, bf16 in, bf16 out"),
    ("onednn:f32", "oneDNN convolution, f32, NCHW"),
    ("onednn:f32:any", "oneDNN convolution, f32, its blocked layouts"),
    ("onednn:bf16:any", "oneDNN convolution, bf16, its blocked layouts"),
)
# The depthwise table: (name, layout, n, c, h, w, k, stride, pad, kind),
# k x k windows, groups == c == f (a channel multiplier of 1); kind as
# CONV_PATHS' ("f32", "bf16>bf16"). ConvNeXt's 7x7 and EfficientNet-B0's
# 3x3 at stride 2 (its second stage: 16 channels expanded 6 times).
LAYOUT_CODE = {"NCHW/FCHW": 0, "NHWC/HWCF": 1, "NHWC/FHWC": 2}
DEPTHWISE_SHAPES = (
    ("ConvNeXt 7x7, NCHW/FCHW, f32", "NCHW/FCHW", 8, 96, 56, 56, 7, 1, 3,
     "f32"),
    ("ConvNeXt 7x7, NCHW/FCHW, bf16 in and out", "NCHW/FCHW", 8, 96, 56, 56,
     7, 1, 3, "bf16>bf16"),
    ("ConvNeXt 7x7, NHWC/HWCF, f32", "NHWC/HWCF", 8, 96, 56, 56, 7, 1, 3,
     "f32"),
    ("ConvNeXt 7x7, NHWC/FHWC, f32", "NHWC/FHWC", 8, 96, 56, 56, 7, 1, 3,
     "f32"),
    ("EfficientNet 3x3/2, NCHW/FCHW, f32", "NCHW/FCHW", 8, 96, 112, 112, 3, 2,
     1, "f32"),
)
# The columns: (key, label, AMP_CPU_NO_DIRECT_DEPTHWISE or None).
DEPTHWISE_PATHS = (
    ("direct", "direct loops", None),
    ("per-group", "per-group im2col + GEMM", "1"),
)
# oneDNN 2.6's C API (libdnnl.so.2; values and sizes from its headers).
DNNL = {"f16": 1, "bf16": 2, "f32": 3, "any": 1, "nchw": 5, "cpu": 1,
        "in_order": 1, "forward_inference": 96, "convolution_auto": 3,
        "src_md": 129, "weights_md": 131, "dst_md": 133, "arg_src": 1,
        "arg_dst": 17, "arg_weights": 33, "memory_desc_size": 696,
        "convolution_desc_size": 5976}


def to_bf16_bits(values):
    import numpy as np
    bits = values.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def operands(m, n, k, dtype):
    import numpy as np
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    if dtype == "f16":
        return a.astype(np.float16).view(np.uint16), \
            b.astype(np.float16).view(np.uint16)
    if dtype == "bf16":
        return to_bf16_bits(a), to_bf16_bits(b)
    return a, b


def uniform(count, dtype):
    """COUNT values uniform in [-1, 1) (seeded), as DTYPE's bits."""
    a, _ = operands(count, 1, 1, dtype)
    return a.reshape(-1)


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def median_seconds(call, repeat):
    call()
    return statistics.median(seconds(call) for _ in range(repeat))


def make_call(path, runtime, m, n, k):
    """A no-argument function computing one GEMM of the shape by PATH, or
    None when the library cannot."""
    import numpy as np
    library, kind = path.split(":")
    ptr = ctypes.c_void_p
    i64 = ctypes.c_int64
    if library == "runtime":
        lib = ctypes.CDLL(runtime)
        if not hasattr(lib, "ampCpuLibraryGemm"):
            return None
        fn = lib.ampCpuLibraryGemm
        fn.restype = None
        i32 = ctypes.c_int32
        fn.argtypes = [i32, i32, i64, i64, i64, i64, ptr, i32, i64, i64, ptr,
                       i32, i64, i64, ptr, i32, i64, i64, ctypes.c_float]
        inType, _, outType = kind.partition(">")
        outType = outType or "f32"
        a, b = operands(m, n, k, inType)
        c = np.zeros((m, n), np.float32 if outType == "f32" else np.uint16)
        code, out = DTYPE_CODE[inType], DTYPE_CODE[outType]
        return lambda: fn(0, 0, 1, m, n, k, a.ctypes.data, code, k, 0,
                          b.ctypes.data, code, n, 0, c.ctypes.data, out, n, 0,
                          0.0)
    so, _ = LIBRARIES[library]
    if not os.path.exists(so):
        return None
    lib = ctypes.CDLL(so)
    a, b = operands(m, n, k, kind)
    c = np.zeros((m, n), np.float32)
    if library in ("openblas", "blis"):
        fn = lib.cblas_sgemm
        fn.restype = None
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_int, ctypes.c_int, ctypes.c_float, ptr,
                       ctypes.c_int, ptr, ctypes.c_int, ctypes.c_float, ptr,
                       ctypes.c_int]
        # CblasRowMajor = 101, CblasNoTrans = 111.
        return lambda: fn(101, 111, 111, m, n, k, 1.0, a.ctypes.data, k,
                          b.ctypes.data, n, 0.0, c.ctypes.data, n)
    # oneDNN's GEMMs are row-major; they return a dnnl_status_t (0: success,
    # 3: unimplemented).
    fn = lib.dnnl_sgemm if kind == "f32" else lib.dnnl_gemm_bf16bf16f32
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char, ctypes.c_char, i64, i64, i64,
                   ctypes.c_float, ptr, i64, ptr, i64, ctypes.c_float, ptr,
                   i64]

    def call():
        status = fn(b"N", b"N", m, n, k, 1.0, a.ctypes.data, k, b.ctypes.data,
                    n, 0.0, c.ctypes.data, n)
        if status != 0:
            raise RuntimeError(f"dnnl status {status}")
    try:
        call()
    except RuntimeError:
        return None
    return call


def conv_output(h, k, stride, pad):
    return (h + 2 * pad - k) // stride + 1


def make_runtime_conv(runtime, kind, n, c, h, w, f, k, stride, pad,
                      layout=0, groups=1):
    """ampCpuLibraryConv2d of the shape (NCHW/FCHW unless LAYOUT, an
    AmpConvLayout; a filter of f x c/groups x k x k in the layout's
    order); with `.y`, its output."""
    import numpy as np
    lib = ctypes.CDLL(runtime)
    if not hasattr(lib, "ampCpuLibraryConv2d"):
        return None
    fn = lib.ampCpuLibraryConv2d
    fn.restype = None
    i32, i64, ptr = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    # layout, then n ... dilW and groups (16 int64), then the operands.
    fn.argtypes = [i32] + [i64] * 16 + [ptr, i32, ptr, i32, ptr, i32,
                                         ctypes.c_float]
    inType, _, outType = kind.partition(">")
    outType = outType or "f32"
    x = uniform(n * c * h * w, inType)
    wt = uniform(f * c // groups * k * k, inType)
    oh, ow = conv_output(h, k, stride, pad), conv_output(w, k, stride, pad)
    y = np.zeros(n * f * oh * ow,
                 np.float32 if outType == "f32" else np.uint16)
    code, out = DTYPE_CODE[inType], DTYPE_CODE[outType]

    def call():
        fn(layout, n, c, h, w, f, k, k, oh, ow, pad, pad, stride, stride, 1,
           1, groups, x.ctypes.data, code, wt.ctypes.data, code,
           y.ctypes.data, out, 0.0)
    call.y = y
    return call


def make_onednn_conv(kind, n, c, h, w, f, k, stride, pad):
    """oneDNN's forward convolution of the shape (convolution_auto: it
    picks the implementation), on NCHW/OIHW buffers or, with `:any`, on the
    layouts it prefers (the reorders into them not timed); None when it
    has no implementation here."""
    so, _ = LIBRARIES["onednn"]
    if not os.path.exists(so):
        return None
    lib = ctypes.CDLL(so)
    dtype, _, layout = kind.partition(":")
    tag = DNNL["any" if layout == "any" else "nchw"]
    ptr, i64 = ctypes.c_void_p, ctypes.c_int64
    lib.dnnl_primitive_desc_query_md.restype = ptr
    lib.dnnl_memory_desc_get_size.restype = ctypes.c_size_t
    lib.dnnl_memory_desc_get_size.argtypes = [ptr]
    keep = []  # Objects the call needs alive.

    def check(status, what):
        if status != 0:
            raise RuntimeError(f"{what}: dnnl status {status}")

    def dims(*values):
        return (i64 * 12)(*values)

    def desc(shape, data_type):
        md = ctypes.create_string_buffer(DNNL["memory_desc_size"])
        check(lib.dnnl_memory_desc_init_by_tag(md, len(shape), dims(*shape),
                                               DNNL[data_type], tag),
              "memory desc")
        return md
    engine, stream = ptr(), ptr()
    check(lib.dnnl_engine_create(ctypes.byref(engine), DNNL["cpu"], 0),
          "engine")
    check(lib.dnnl_stream_create(ctypes.byref(stream), engine,
                                 DNNL["in_order"]), "stream")
    oh, ow = conv_output(h, k, stride, pad), conv_output(w, k, stride, pad)
    conv = ctypes.create_string_buffer(DNNL["convolution_desc_size"])
    check(lib.dnnl_convolution_forward_desc_init(
        conv, DNNL["forward_inference"], DNNL["convolution_auto"],
        desc((n, c, h, w), dtype), desc((f, c, k, k), dtype), None,
        desc((n, f, oh, ow), dtype), dims(stride, stride), dims(pad, pad),
        dims(pad, pad)), "convolution desc")
    pd, primitive = ptr(), ptr()
    if lib.dnnl_primitive_desc_create(ctypes.byref(pd), conv, None, engine,
                                      None) != 0:
        return None  # unimplemented (no bf16 kernels without AVX-512)
    check(lib.dnnl_primitive_create(ctypes.byref(primitive), pd), "primitive")

    class ExecArg(ctypes.Structure):
        _fields_ = [("arg", ctypes.c_int), ("memory", ptr)]
    args = (ExecArg * 3)()
    for i, (arg, query) in enumerate((("arg_src", "src_md"),
                                      ("arg_weights", "weights_md"),
                                      ("arg_dst", "dst_md"))):
        md = ptr(lib.dnnl_primitive_desc_query_md(pd, DNNL[query], 0))
        size = lib.dnnl_memory_desc_get_size(md)
        data = ctypes.create_string_buffer(size)
        # Bytes 0x3c: 0.0115 in f32, 0.0114 in bf16: normal numbers.
        ctypes.memset(data, 0x3C, size)
        memory = ptr()
        check(lib.dnnl_memory_create(ctypes.byref(memory), md, engine, data),
              "memory")
        keep.append(data)
        args[i] = ExecArg(DNNL[arg], memory)

    def call():
        check(lib.dnnl_primitive_execute(primitive, stream, 3, args),
              "execute")
        check(lib.dnnl_stream_wait(stream), "wait")
    call.keep = keep
    return call


def measure_child(args):
    """In the subprocess: one library (or the runtime) at one thread
    count; prints {"gemm": {path: {shape: seconds or None}}, "conv": ...}
    as JSON."""
    results = {"gemm": {}, "conv": {}}
    for path, _ in PATHS:
        if path.split(":")[0] != args.library:
            continue
        results["gemm"][path] = {}
        for name, m, n, k in SHAPES:
            call = make_call(path, args.runtime, m, n, k)
            results["gemm"][path][name] = (median_seconds(call, args.repeat)
                                           if call else None)
    for path, _ in CONV_PATHS:
        library, _, kind = path.partition(":")
        if library != args.library:
            continue
        results["conv"][path] = {}
        for name, *shape in CONV_SHAPES:
            call = (make_runtime_conv(args.runtime, kind, *shape)
                    if library == "runtime"
                    else make_onednn_conv(kind, *shape))
            results["conv"][path][name] = (median_seconds(call, args.repeat)
                                           if call else None)
    json.dump(results, sys.stdout)


def as_f32(values, kind):
    """The f32 values of an output of KIND (f32, or bf16 bits)."""
    import numpy as np
    if kind.endswith("bf16"):
        return (values.astype(np.uint32) << 16).view(np.float32)
    return values


def measure_depthwise_child(args):
    """In the subprocess (one thread): each depthwise shape's direct loops
    and per-group GEMMs, called in turn (AMP_CPU_NO_DIRECT_DEPTHWISE is
    read at each call) after a warm-up of each, so that the load of this
    shared machine falls on both; prints {"rows": {name: {path: [seconds
    of each call]}}, "gemm_kernel": ...} as JSON."""
    import numpy as np
    variable = "AMP_CPU_NO_DIRECT_DEPTHWISE"
    os.environ.pop(variable, None)

    def run(call, value):
        if value is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = value
        try:
            return seconds(call)
        finally:
            os.environ.pop(variable, None)
    rows = {}
    for name, layout, n, c, h, w, k, stride, pad, kind in DEPTHWISE_SHAPES:
        calls = {key: make_runtime_conv(args.runtime, kind, n, c, h, w, c, k,
                                        stride, pad, LAYOUT_CODE[layout], c)
                 for key, *_ in DEPTHWISE_PATHS}
        times = {key: [] for key in calls}
        for key, _, value in DEPTHWISE_PATHS:
            run(calls[key], value)
        for _ in range(args.repeat):
            for key, _, value in DEPTHWISE_PATHS:
                times[key].append(run(calls[key], value))
        # Both paths computed the same convolution (in another summation
        # order; a bf16 output rounded once from each).
        first, *others = (as_f32(calls[key].y, kind) for key in calls)
        tolerance = 2.0 ** -7 if kind.endswith("bf16") else 1e-4
        for other in others:
            if not np.allclose(first, other, rtol=tolerance, atol=tolerance):
                raise SystemExit(f"{name}: the paths differ by up to "
                                 f"{np.max(np.abs(first - other))}")
        rows[name] = times
        print(f"measured {name}", file=sys.stderr)
    lib = ctypes.CDLL(args.runtime)
    lib.ampCpuGemmKernel.restype = ctypes.c_char_p
    json.dump({"rows": rows, "gemm_kernel": lib.ampCpuGemmKernel().decode()},
              sys.stdout)


def measure_depthwise(args):
    """The depthwise table's run: one subprocess on one thread."""
    env = dict(os.environ)
    for _, variable in LIBRARIES.values():
        env[variable] = "1"
    env.pop("AMP_CPU_NO_DIRECT_DEPTHWISE", None)
    command = [sys.executable, os.path.abspath(__file__), "--child",
               "depthwise", "--repeat", str(args.repeat), "--runtime",
               args.runtime]
    load = os.getloadavg()[0]
    child = json.loads(subprocess.run(command, env=env, check=True,
                                      stdout=subprocess.PIPE,
                                      text=True).stdout)
    # The 1-minute load averages before and after: this machine is shared.
    return {"date": time.strftime("%Y-%m-%d"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                       f"{doctables.machine()}",
            "loadavg": [load, os.getloadavg()[0]], "repeat": args.repeat,
            "threads": 1, **child}


MM256 = """func.func @matmul(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
"""
def write_model(name, path):
    if name == "mm256":
        with open(path, "w") as f:
            f.write(MM256)
        return
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import compile_time
    compile_time.write_model(name, path)


# The effect table's rows: (key, label, --cpu-options or None).
EFFECT_ROWS = (
    ("loops", "generated loops", "libraries=false"),
    ("gemm", "library GEMMs, convolutions as loops",
     "library-convolutions=false"),
    ("library", "library calls", None),
)
# The models whose rows include "gemm" (they have convolutions).
CONV_MODELS = ("resnet18",)


def time_calls(amp_run, model, dtype, calls, options):
    """{label: seconds per call} of one `amp-run --repeat` command: the
    level's and the fp32 original's medians."""
    command = [amp_run, model, "--level=O2", f"--dtype={dtype}",
               f"--repeat={calls}"]
    if options:
        command.append(f"--cpu-options={options}")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(command, capture_output=True, text=True, check=True,
                         env=env).stdout
    times = {}
    for line in out.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == 2 and cells[0] in (f"O2 {dtype}", "fp32"):
            times[cells[0]] = doctables.to_seconds(cells[1])
    return times


def measure_effect(args):
    effect = {"calls": args.calls, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            path = os.path.join(tmp, f"{model}.mlir")
            write_model(model, path)
            rows = {}
            for key, _, options in EFFECT_ROWS:
                if key == "gemm" and model not in CONV_MODELS:
                    continue
                row = {}
                for dtype in ("f16", "bf16"):
                    times = time_calls(args.amp_run, path, dtype, args.calls,
                                       options)
                    row[f"O2 {dtype}"] = times[f"O2 {dtype}"]
                    # O0 (fp32) from the f16 command.
                    row.setdefault("O0 (fp32)", times["fp32"])
                    print(f"{model} {key} {dtype}: {times}", file=sys.stderr)
                rows[key] = row
            effect["models"][model] = rows
    return effect


def measure(args):
    run = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
           "repeat": args.repeat, "threads": {}, "conv": {}}
    for threads in args.threads.split(","):
        figures, conv = {}, {}
        for library in ("openblas", "blis", "onednn", "runtime"):
            env = dict(os.environ)
            for _, variable in LIBRARIES.values():
                env[variable] = threads
            command = [sys.executable, os.path.abspath(__file__), "--child",
                       library, "--repeat", str(args.repeat), "--runtime",
                       args.runtime]
            out = subprocess.run(command, env=env, check=True,
                                 stdout=subprocess.PIPE, text=True).stdout
            child = json.loads(out)
            figures.update(child["gemm"])
            conv.update(child["conv"])
            print(f"measured {library} with {threads} thread(s)",
                  file=sys.stderr)
        run["threads"][threads] = figures
        run["conv"][threads] = conv
    if args.models:
        run["effect"] = measure_effect(args)
    run["depthwise"] = measure_depthwise(args)
    return run


def measure_only(args):
    """The run kept in --json with the --only part re-measured."""
    run = {}
    if os.path.exists(args.json):
        with open(args.json) as f:
            run = json.load(f)
    run[args.only] = measure_depthwise(args)
    return run


def render(run):
    if not run.get("threads"):
        return "(not measured)\n"
    lines = [f"Measured on {run['machine']}, milliseconds per GEMM (median "
             f"of {run['repeat']} calls after a warm-up; GFLOP/s in "
             f"parentheses); \"-\": the library has no such GEMM here:", ""]
    for threads, figures in run["threads"].items():
        lines.append(f"{threads} thread{'s' if threads != '1' else ''}:")
        lines.append("")
        lines.append("| GEMM | " + " | ".join(n for n, *_ in SHAPES) + " |")
        lines.append("|---|" + "---:|" * len(SHAPES))
        for path, label in PATHS:
            cells = []
            for name, m, n, k in SHAPES:
                seconds = figures.get(path, {}).get(name)
                if seconds is None:
                    cells.append("-")
                    continue
                gflops = 2 * m * n * k / seconds / 1e9
                cells.append(f"{seconds * 1e3:.2f} ({gflops:.0f})")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def render_conv(run):
    if not run.get("conv"):
        return "(not measured)\n"
    lines = [f"Measured on {run['machine']}, milliseconds per convolution "
             f"(NCHW, batch 1, median of {run['repeat']} calls after a "
             f"warm-up; GFLOP/s in parentheses); \"-\": no such "
             f"convolution here:", ""]
    for threads, figures in run["conv"].items():
        lines.append(f"{threads} thread{'s' if threads != '1' else ''}:")
        lines.append("")
        lines.append("| convolution | " +
                     " | ".join(n for n, *_ in CONV_SHAPES) + " |")
        lines.append("|---|" + "---:|" * len(CONV_SHAPES))
        for path, label in CONV_PATHS:
            cells = []
            for name, n, c, h, w, f, k, stride, pad in CONV_SHAPES:
                seconds = figures.get(path, {}).get(name)
                if seconds is None:
                    cells.append("-")
                    continue
                outputs = (n * f * conv_output(h, k, stride, pad) *
                           conv_output(w, k, stride, pad))
                gflops = 2 * outputs * c * k * k / seconds / 1e9
                cells.append(f"{seconds * 1e3:.2f} ({gflops:.0f})")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def render_depthwise(run):
    part = run.get("depthwise")
    if not part:
        return "(not measured)\n"

    def cell(times):
        return (f"{statistics.median(times) * 1e3:.1f} "
                f"({min(times) * 1e3:.1f}–{max(times) * 1e3:.1f})")
    shapes = {}
    for name, _, n, c, h, w, _, _, pad, _ in DEPTHWISE_SHAPES:
        shapes.setdefault(name.split(",")[0],
                          f"n={n}, c={c}, {h}x{w}, padding {pad}")
    lines = [f"Measured by `{SCRIPT}` on {part['date']} ({part['machine']}; "
             f"the runtime's GEMM: {part['gemm_kernel']}), one thread, "
             f"milliseconds per call: the median of {part['repeat']} calls "
             f"after a warm-up, in parentheses their range (min–max), the "
             f"two paths called in turn; groups == c == f; " +
             "; ".join(f"{model}: {shape}" for model, shape in shapes.items())
             + ":", "",
             "| depthwise convolution | " +
             " | ".join(label for _, label, _ in DEPTHWISE_PATHS) +
             " | per-group / direct (medians) |",
             "|---|" + "---:|" * (len(DEPTHWISE_PATHS) + 1)]
    for name, *_ in DEPTHWISE_SHAPES:
        times = part["rows"].get(name)
        if not times:
            continue
        direct, grouped = (statistics.median(times[key])
                           for key, *_ in DEPTHWISE_PATHS)
        lines.append(f"| {name} | " +
                     " | ".join(cell(times[key])
                                for key, *_ in DEPTHWISE_PATHS) +
                     f" | {grouped / direct:.1f}x |")
    return "\n".join(lines) + "\n"


def render_effect(run):
    effect = run.get("effect")
    if not effect:
        return "(not measured)\n"
    lines = [f"Measured on {run['machine']}, milliseconds per call (median "
             f"of {effect['calls']} calls after a warm-up, `amp-run "
             f"--repeat`), the library on one thread; loops: "
             f"`--cpu-options=libraries=false`; convolutions as loops: "
             f"`--cpu-options=library-convolutions=false` (the library calls "
             f"before convolutions had one):", "",
             "| model | contractions | " +
             " | ".join(label for label, *_ in LEVELS) + " |",
             "|---|---|" + "---:|" * len(LEVELS)]
    for model, rows in effect["models"].items():
        for key, label, _ in EFFECT_ROWS:
            if key not in rows:
                continue
            cells = [f"{rows[key][level] * 1e3:.1f}"
                     for level, *_ in LEVELS]
            lines.append(f"| {MODEL_NAMES[model]} | {label} | " +
                         " | ".join(cells) + " |")
        speedups = [("loops", "speed-up over the loops")]
        if "gemm" in rows:
            speedups.append(("gemm", "speed-up of the convolution calls"))
        for key, label in speedups:
            cells = [f"{rows[key][level] / rows['library'][level]:.1f}x"
                     for level, *_ in LEVELS]
            lines.append(f"| {MODEL_NAMES[model]} | {label} | " +
                         " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default="1,2",
                        help="thread counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--runtime", default=os.path.join(
        ROOT, "build", "lib", "libamp_runtime.so"))
    parser.add_argument("--amp-run", default=os.path.join(
        ROOT, "build", "bin", "amp-run"))
    parser.add_argument("--models", default=",".join(MODELS),
                        help="models of the second table (empty: none)")
    parser.add_argument("--calls", type=int, default=3,
                        help="timed calls per amp-run command")
    parser.add_argument("--only", choices=("depthwise",),
                        help="measure this part only, the rest of the run "
                        "kept from --json (which it rewrites)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)
    if args.only and (not args.json or args.from_json):
        parser.error("--only needs --json (and no --from-json)")
    if args.child == "depthwise":
        return measure_depthwise_child(args)
    if args.child:
        args.library = args.child
        return measure_child(args)
    run = doctables.load_or_measure(
        args, lambda: measure_only(args) if args.only else measure(args))
    return doctables.publish(
        args, {BLOCK: render(run), CONV_BLOCK: render_conv(run),
               DEPTHWISE_BLOCK: render_depthwise(run),
               EFFECT_BLOCK: render_effect(run)}, SCRIPT)


if __name__ == "__main__":
    sys.exit(main())
