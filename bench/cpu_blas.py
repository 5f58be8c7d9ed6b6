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
      [--from-json FILE] [--check]

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
CPUs); and libamp_runtime's own entry point, ampCpuLibraryGemm, which widens
f16/bf16 operands to f32 and calls the library's f32 GEMM (the path the
compiled code takes), with an f32 and a narrowed (f16/bf16) output. A
library whose shared object is missing, or a call that reports
"unimplemented", gives "-".

The second table times one call of compiled code with `amp-run --repeat`
(median of --calls calls after a warm-up; each command also times the fp32
original, O0): a 256x256x256 `linalg.matmul` of f32 arguments and
torchvision's resnet18 (2x3x64x64), at O0 and at O2 in f16 and bf16, with
--lower-to-cpu's library calls (the default) and with generated loops
(`--cpu-options=libraries=false`, what the CPU pipeline did before), in
one run, the library on one thread (OPENBLAS_NUM_THREADS=1: the generated
code is single-threaded).

--update-doc writes the tables between the cpu-blas and cpu-library-effect
markers (scripts/doctables.py); with --from-json and --check it fails when
the document differs from the rendering of the kept run.
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


def median_seconds(call, repeat):
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def measure_child(args):
    """In the subprocess: one library (or the runtime) at one thread
    count; prints {path: {shape: seconds or None}} as JSON."""
    results = {}
    for path, _ in PATHS:
        if path.split(":")[0] != args.library:
            continue
        results[path] = {}
        for name, m, n, k in SHAPES:
            call = make_call(path, args.runtime, m, n, k)
            results[path][name] = (median_seconds(call, args.repeat)
                                   if call else None)
    json.dump(results, sys.stdout)


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


def time_calls(amp_run, model, dtype, calls, libraries):
    """{label: seconds per call} of one `amp-run --repeat` command: the
    level's and the fp32 original's medians."""
    command = [amp_run, model, "--level=O2", f"--dtype={dtype}",
               f"--repeat={calls}"]
    if not libraries:
        command.append("--cpu-options=libraries=false")
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
            for libraries in (False, True):
                key = "library" if libraries else "loops"
                row = {}
                for dtype in ("f16", "bf16"):
                    times = time_calls(args.amp_run, path, dtype, args.calls,
                                       libraries)
                    row[f"O2 {dtype}"] = times[f"O2 {dtype}"]
                    # O0 (fp32) from the f16 command.
                    row.setdefault("O0 (fp32)", times["fp32"])
                    print(f"{model} {key} {dtype}: {times}", file=sys.stderr)
                rows[key] = row
            effect["models"][model] = rows
    return effect


def measure(args):
    run = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
           "repeat": args.repeat, "threads": {}}
    for threads in args.threads.split(","):
        figures = {}
        for library in ("openblas", "blis", "onednn", "runtime"):
            env = dict(os.environ)
            for _, variable in LIBRARIES.values():
                env[variable] = threads
            command = [sys.executable, os.path.abspath(__file__), "--child",
                       library, "--repeat", str(args.repeat), "--runtime",
                       args.runtime]
            out = subprocess.run(command, env=env, check=True,
                                 stdout=subprocess.PIPE, text=True).stdout
            figures.update(json.loads(out))
            print(f"measured {library} with {threads} thread(s)",
                  file=sys.stderr)
        run["threads"][threads] = figures
    if args.models:
        run["effect"] = measure_effect(args)
    return run


def render(run):
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


def render_effect(run):
    effect = run.get("effect")
    if not effect:
        return "(not measured)\n"
    lines = [f"Measured on {run['machine']}, milliseconds per call (median "
             f"of {effect['calls']} calls after a warm-up, `amp-run "
             f"--repeat`), the library on one thread; loops: "
             f"`--cpu-options=libraries=false`:", "",
             "| model | contractions | " +
             " | ".join(label for label, *_ in LEVELS) + " |",
             "|---|---|" + "---:|" * len(LEVELS)]
    for model, rows in effect["models"].items():
        for key, label in (("loops", "generated loops"),
                           ("library", "library calls")):
            cells = [f"{rows[key][level] * 1e3:.1f}"
                     for level, *_ in LEVELS]
            lines.append(f"| {MODEL_NAMES[model]} | {label} | " +
                         " | ".join(cells) + " |")
        cells = [f"{rows['loops'][level] / rows['library'][level]:.1f}x"
                 for level, *_ in LEVELS]
        lines.append(f"| {MODEL_NAMES[model]} | speed-up | " +
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
    parser.add_argument("--child", help=argparse.SUPPRESS)
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)
    if args.child:
        args.library = args.child
        return measure_child(args)
    if args.from_json:
        with open(args.from_json) as f:
            run = json.load(f)
    else:
        run = measure(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(run, f, indent=1)
            f.write("\n")
    blocks = {BLOCK: render(run), EFFECT_BLOCK: render_effect(run)}
    if args.update_doc:
        return doctables.update(args.update_doc, blocks, SCRIPT,
                                check=args.check)
    print("\n".join(blocks.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
