#!/usr/bin/env python3
"""GPU benchmark of amp-mlir: the pipeline against cuBLAS, copy bandwidth,
fp32 and PyTorch, on one device in one run.

    /usr/bin/python3 bench/gpu/run.py [--json FILE]      # after `make`
    /usr/bin/python3 bench/gpu/run.py --compile-only     # no GPU needed
    /usr/bin/python3 bench/gpu/run.py --static           # no GPU needed
    /usr/bin/python3 bench/gpu/run.py --self-check       # no GPU needed

Sections (--only picks some):

gemm    C = A B (M = N = K = each of --gemm-sizes, f32 result) three ways:
        `amp-run --target=gpu --level=O2` on an f32 function (the pipeline
        converts A and B on the device, then calls cuBLAS); `--level=O0` on
        a function that takes f16/bf16 arguments (the cuBLAS call alone);
        and `ampGpuGemm` called directly through ctypes on device buffers.
        TFLOP/s and ratios.
chain   bias add + tanh-GELU + scale over --chain-shape at O2 (one fused
        kernel) against a device-to-device copy of the same bytes
        (mgpuMemcpy): effective GB/s = (bytes read + bytes written) / time.
models  an MLP and --blocks transformer blocks at fp32 (O0), O1 and O2,
        timed by `amp-run --compare --repeat` with its relative L2 error.
torch   PyTorch eager (fp32 without TF32, autocast f16/bf16) on the same
        shapes and the same weights, when torch with CUDA is importable.
train   the whole training step with dynamic loss scaling: 300 steps of
        examples/mlp_training.mlir (@train: forward, backward, unscale and
        check, scaler update, Adam on fp32 masters) at fp32, O1 and O2,
        timed by `amp-run --compare --repeat`; time per step and the final
        loss against fp32.

Timing. amp-run reports the median of --repeat calls after a warm-up, each
call synchronized. The ctypes measurements do the same after a warm-up:
"back-to-back" is a loop of calls timed with time.perf_counter and closed
by one ampGpuSynchronize() (per call: loop time / calls); "synced" waits
after each call. Variants alternate within each of --rounds rounds, and a
figure is the median of its rounds. Ratios compare figures of this run.

Without a GPU (ampGpuAvailable() == 0, or amp-run --target=gpu fails) the
script prints `bench/gpu: no GPU: <reason>` and exits with status 2.
--compile-only lowers every benchmark module with `amp-opt --lower-to-gpu`
instead and reports kernels and library calls; --self-check runs small
versions on the CPU with amp-run and compares them with NumPy.

--static prints one row per model (--static-only picks some: the GEMM,
chain, MLP and transformer above at the shape options given, bench/generate.py's
transformer, ResNet and TOSA transformer at one block, the TOSA classifier
and convnet examples, at fp32 (O0) and O2; examples/mlp_training.mlir's @train
at O2). Each is lowered with `amp-opt --lower-to-gpu="format=isa
chip=<--chip, default sm_90>"`; each kernel's PTX goes through `ptxas -v` (registers,
spills, shared memory) and its threads per block come from the host's
launch sizes (else the kernel's .maxntid); `amp-run --target=gpu-sim`
runs one call for the launches, library calls and host synchronizations
per call (amp-run's own synchronizations, after the uploads, after the
call and per result, taken off). The GPU simulator runs every thread on
the CPU: give small shapes. Parsing: gpustatic.py.
"""

import argparse
import concurrent.futures
import ctypes
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "scripts"))
import doctables  # noqa: E402
import gpustatic  # noqa: E402
import models  # noqa: E402

SECTIONS = ("gemm", "chain", "models", "torch", "train")
# Modules of --static (--static-only picks some): the benchmark's own, the
# generated bench models at one block, and the examples.
STATIC_MODELS = ("gemm", "chain", "mlp", "transformer", "gen-transformer",
                 "gen-resnet", "gen-tosa", "tosa-mlp", "convnet", "train")
TRAIN_EXAMPLE = os.path.join(REPO, "examples", "mlp_training.mlir")
TRAIN_STEPS = 300
NO_TORCH = "PyTorch: not installed"


def fail(message, status=1):
    print(f"bench/gpu: {message}", file=sys.stderr)
    sys.exit(status)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return str(value)
    return f"{value:.{digits}f}"


def fmt_ms(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:.4g}"


def fmt_err(value):
    if value is None:
        return "-"
    return "0" if value == 0 else f"{value:.3e}"


class Table(list):
    """A Markdown table printed as it fills, so that a run cut short still
    shows the rows it finished."""

    def __init__(self, header):
        super().__init__()
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" if i == 0 else "---:"
                             for i in range(len(header))) + "|", flush=True)

    def append(self, row):
        super().append(row)
        print("| " + " | ".join(str(c) for c in row) + " |", flush=True)

    def end(self):
        print(flush=True)


def table(header, rows):
    t = Table(header)
    for row in rows:
        t.append(row)
    t.end()


VERBOSE = False


def progress(message):
    if VERBOSE:
        print(f"bench/gpu: {message}", file=sys.stderr, flush=True)


# Benchmark modules ---------------------------------------------------------


class Variant:
    """One way to run a module: the AMP level (O0 = the module as written)
    and the low-precision type."""

    def __init__(self, level, dtype=None):
        self.level, self.dtype = level, dtype

    def label(self):
        return self.level if not self.dtype else f"{self.level} {self.dtype}"

    def amp_opt_flags(self):
        if self.level == "O0":
            return []
        return [f"--amp-{self.level.lower()}=dtype={self.dtype}"]

    def amp_run_flags(self):
        flags = [f"--level={self.level}"]
        if self.dtype:
            flags.append(f"--dtype={self.dtype}")
        return flags


class Bench:
    """A generated module and the variants the benchmark runs it in."""

    def __init__(self, section, name, args_label, text, args, variants):
        self.section, self.name, self.args_label = section, name, args_label
        self.text, self.args, self.variants = text, args, variants
        self.path = None

    def write(self, out_dir):
        slug = re.sub(r"[^A-Za-z0-9]+", "-", f"{self.name}-{self.args_label}").strip("-")
        self.path = os.path.join(out_dir, f"{slug}.mlir")
        with open(self.path, "w") as f:
            f.write(self.text)
        return self.path


def parse_shape(text):
    try:
        return tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a shape: {text!r} (e.g. 8192x8192)")


def parse_ints(text):
    try:
        return [int(d) for d in text.split(",") if d]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}")


def build_benches(args):
    """Every module of the benchmark, with its variants."""
    benches = []
    dtypes = args.dtypes
    if "gemm" in args.only:
        for s in args.gemm_sizes:
            text, a = models.gemm(s, s, s, "f32")
            benches.append(Bench("gemm", f"gemm {s}", "f32 args", text, a,
                                 [Variant("O0")] +
                                 [Variant("O2", d) for d in dtypes]))
            for d in dtypes:
                text, a = models.gemm(s, s, s, d)
                benches.append(Bench("gemm", f"gemm {s}", f"{d} args", text, a,
                                     [Variant("O0")]))
    if "chain" in args.only:
        r, c = args.chain_shape
        text, a = models.chain(r, c)
        benches.append(Bench("chain", f"chain {r}x{c}", "f32 args", text, a,
                             [Variant("O0")] + [Variant("O2", d) for d in dtypes]))
    if "models" in args.only or "torch" in args.only:
        levels = [Variant("O0")] + [Variant(l, d) for d in dtypes
                                    for l in ("O1", "O2")]
        text, a = models.mlp(args.tokens, args.mlp_dims)
        benches.append(Bench("models", "mlp", "f32 args", text, a, levels))
        text, a = models.transformer(args.batch, args.tokens // args.batch,
                                     args.hidden, args.heads, args.blocks)
        benches.append(Bench("models", "transformer", "f32 args", text, a,
                             levels))
    if "train" in args.only:
        with open(TRAIN_EXAMPLE) as f:
            text = f.read()
        benches.append(Bench("train", "mlp training", "f32 args", text, None,
                             [Variant("O0")] + [Variant(l, d) for d in dtypes
                                                for l in ("O1", "O2")]))
    return benches


def model_shape(args, name):
    if name == "mlp":
        return f"{args.tokens} x " + "-".join(str(d) for d in args.mlp_dims)
    return (f"{args.blocks} blocks, {args.batch}x{args.tokens // args.batch} "
            f"tokens, dim {args.hidden}, {args.heads} heads")


# Compile only -----------------------------------------------------------------


def lower(args, bench, variant):
    """Lowers one variant with amp-opt; returns the counts or the error."""
    gpu = f"--lower-to-gpu={args.gpu_options}" if args.gpu_options \
        else "--lower-to-gpu"
    cmd = [args.amp_opt, bench.path] + variant.amp_opt_flags() + [gpu]
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        lines = [l for l in out.stderr.splitlines() if l.strip()]
        return {"ok": False, "error": lines[0] if lines else
                f"amp-opt exited with {out.returncode}", "seconds": seconds}
    ir = out.stdout
    return {"ok": True, "seconds": seconds,
            "kernels": len(re.findall(r"\bgpu\.launch_func\b", ir)),
            "gemm": len(re.findall(r"llvm\.call @ampGpuGemm(Epilogue)?\(",
                                   ir)),
            "gemm_epilogue": len(re.findall(
                r"llvm\.call @ampGpuGemmEpilogue\(", ir)),
            "conv": len(re.findall(r"llvm\.call @ampGpuConv2d\(", ir)),
            "syncs": len(re.findall(r"llvm\.call @mgpuStreamSynchronize\(", ir)),
            "binaries": len(re.findall(r"^\s*gpu\.binary @", ir, re.M))}


def lower_all(args, benches):
    jobs = [(b, v) for b in benches for v in b.variants]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda job: lower(args, *job), jobs))
    return {(b.name, b.args_label, v.label()): r
            for (b, v), r in zip(jobs, results)}


def compile_only(args, benches):
    print("## Lowering of the benchmark modules (`amp-opt --lower-to-gpu`)\n")
    start = time.perf_counter()
    lowered = lower_all(args, benches)
    rows, failed = [], 0
    for b in benches:
        for v in b.variants:
            r = lowered[(b.name, b.args_label, v.label())]
            if r["ok"]:
                rows.append([b.name, b.args_label, v.label(), r["kernels"],
                             r["gemm"], r["gemm_epilogue"], r["conv"],
                             r["syncs"], "yes"])
            else:
                failed += 1
                rows.append([b.name, b.args_label, v.label(), "-", "-", "-", "-",
                             "-", "no: " + r["error"].replace("|", "\\|")])
    table(["module", "arguments", "level", "gpu.launch_func", "GEMM calls",
           "with epilogue", "ampGpuConv2d", "host syncs", "lowers"], rows)
    print(f"{len(rows) - failed} of {len(rows)} lowered "
          f"({time.perf_counter() - start:.1f} s)")
    results = {"compile_only": [
        dict(module=b.name, arguments=b.args_label, level=v.label(),
             **lowered[(b.name, b.args_label, v.label())])
        for b in benches for v in b.variants]}
    write_json(args, results)
    return 1 if failed else 0


# Static table -----------------------------------------------------------------


def import_generate():
    spec = importlib.util.spec_from_file_location(
        "generate", os.path.join(REPO, "bench", "generate.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_static_benches(args):
    """The modules of the static table: (key, Bench, entry function)."""
    d = args.dtypes[0]
    both = [Variant("O0"), Variant("O2", d)]
    out = []

    def add(key, name, text, variants=both, entry=None):
        if key in args.static_only:
            out.append((key, Bench("static", name, "", text, None, variants),
                        entry))
    if "gemm" in args.static_only:
        for s in args.gemm_sizes:
            add("gemm", f"gemm {s}", models.gemm(s, s, s, "f32")[0])
    r, c = args.chain_shape
    add("chain", f"chain {r}x{c}", models.chain(r, c)[0])
    add("mlp", "mlp " + "-".join(map(str, args.mlp_dims)),
        models.mlp(args.tokens, args.mlp_dims)[0])
    add("transformer", f"transformer {args.blocks} block"
        + ("s" if args.blocks != 1 else ""),
        models.transformer(args.batch, args.tokens // args.batch,
                           args.hidden, args.heads, args.blocks)[0])
    gen = import_generate()
    add("gen-transformer", "generate.py transformer 1 block",
        gen.linalg_transformer(1))
    add("gen-resnet", "generate.py resnet 1 block", gen.linalg_resnet(1))
    add("gen-tosa", "generate.py transformer --dialect tosa 1 block",
        gen.tosa_transformer(1))
    for key, name in (("tosa-mlp", "tosa_mlp_classifier.mlir"),
                      ("convnet", "linalg_convnet.mlir")):
        if key in args.static_only:
            with open(os.path.join(REPO, "examples", name)) as f:
                add(key, name, f.read())
    if "train" in args.static_only:
        with open(TRAIN_EXAMPLE) as f:
            add("train", "mlp_training.mlir @train (300 steps)", f.read(),
                [Variant("O2", d)], entry="train")
    return out


def static_one(args, bench, variant, entry):
    """Lowers one variant to PTX, runs ptxas -v on every kernel and the GPU
    simulator on the module; returns the summary (or an error)."""
    gpu = f"--lower-to-gpu=format=isa chip={args.chip}"
    if args.gpu_options:
        gpu += " " + args.gpu_options
    cmd = [args.amp_opt, bench.path] + variant.amp_opt_flags() + [gpu]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        lines = [l for l in out.stderr.splitlines() if l.strip()]
        return {"ok": False, "error": lines[0] if lines else
                f"amp-opt exited with {out.returncode}"}
    ir = out.stdout
    kernels = gpustatic.extract_kernels(ir)
    launches = gpustatic.host_launches(ir)
    blocks = {name: gpustatic.ptx_block_size(ptx) for name, ptx in kernels}
    stats, per_kernel = {}, []
    if args.ptxas:
        base = os.path.splitext(bench.path)[0] + "-" + \
            re.sub(r"[^A-Za-z0-9]+", "-", variant.label())
        for name, ptx in kernels:
            path = f"{base}-{name}.ptx"
            with open(path, "w") as f:
                f.write(ptx)
            ok, text = gpustatic.run_ptxas(args.ptxas, path, args.chip)
            if not ok:
                return {"ok": False, "error": f"ptxas failed on {name}: "
                        + (text.strip().splitlines() or ["?"])[0]}
            stats[name] = gpustatic.kernel_stats(gpustatic.parse_ptxas(text))
            per_kernel.append(dict(kernel=name, threads=blocks[name],
                                   **stats[name]))
    sim, sim_error = None, None
    if not args.no_sim:
        cmd = [args.amp_run, bench.path, "--target=gpu-sim"] + \
            variant.amp_run_flags() + (["--entry", entry] if entry else [])
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=args.timeout)
            sim = gpustatic.parse_gpu_sim(r.stdout + "\n" + r.stderr)
            if r.returncode != 0 or sim is None:
                lines = [l for l in r.stderr.splitlines() if l.strip()]
                sim_error = lines[0] if lines else f"amp-run exited with {r.returncode}"
                sim = None
        except subprocess.TimeoutExpired:
            sim_error = f"amp-run took over {args.timeout:g} s"
    row = gpustatic.summarize(launches, blocks, stats,
                              gpustatic.library_calls(ir), sim,
                              gpustatic.entry_results(bench.text, entry),
                              gpustatic.host_syncs(ir))
    if not args.ptxas:
        row["kernels"] = len(kernels)
    # 16-byte (vector) accesses among the global loads and stores.
    accesses = [gpustatic.global_accesses(ptx) for _, ptx in kernels]
    row["vector_accesses"] = sum(v for v, _ in accesses)
    row["global_accesses"] = sum(t for _, t in accesses)
    return dict(ok=True, sim_error=sim_error, per_kernel=per_kernel, **row)


STATIC_BLOCK = "gpu-static"
STATIC_HEADER = ["model", "level", "kernels", "launches/call",
                 "library calls", "library calls/call",
                 "threads/block min / median / max", "1-thread kernels",
                 "max registers", "spill bytes", "syncs/call",
                 "vector / all global accesses"]


def static_rows(run):
    """The table's rows of a --static run (its JSON): one per model and
    level; and how many failed."""
    rows, failed = [], 0
    n = lambda v: "-" if v is None else (f"{v:g}" if isinstance(v, float)
                                         else str(v))
    for r in run["static"]:
        if not r["ok"]:
            failed += 1
            rows.append([r["model"], r["level"],
                         "no: " + r["error"].replace("|", "\\|")]
                        + ["-"] * 10)
            continue
        if r["sim_error"]:
            failed += 1
        threads = "-" if r["threads_min"] is None else \
            f"{r['threads_min']} / {n(r['threads_median'])} / {r['threads_max']}"
        if r["dynamic_block_sizes"]:
            threads += f" ({r['dynamic_block_sizes']} dynamic)"
        rows.append([r["model"], r["level"], r["kernels"],
                     n(r["launches_per_call"]), r["library_calls"],
                     n(r["library_calls_per_call"]), threads,
                     r["one_thread_launches"], n(r["registers_max"]),
                     n(r["spill_bytes"] if run["ptxas"] else None),
                     n(r["syncs_per_call"]),
                     f"{r['vector_accesses']} / {r['global_accesses']}"])
    return rows, failed


def render_static(run):
    """The markdown table of a --static run, as docs/performance.md keeps
    it."""
    rows, _ = static_rows(run)
    lines = ["| " + " | ".join(STATIC_HEADER) + " |",
             "|" + "|".join("---" if i == 0 else "---:"
                            for i in range(len(STATIC_HEADER))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def static_table(args):
    if args.from_json:
        with open(args.from_json) as f:
            run = json.load(f)
        return doctables.publish(args, {STATIC_BLOCK: render_static(run)},
                                 "bench/gpu/run.py --static")
    print(f"## Static view of the GPU pipeline's output ({args.chip}, "
          "`--lower-to-gpu=\"format=isa\"`, `ptxas -v`, `amp-run "
          "--target=gpu-sim`)\n")
    start = time.perf_counter()
    benches = build_static_benches(args)
    jobs = []
    for key, b, entry in benches:
        b.write(args.out_dir)
        jobs += [(b, v, entry) for v in b.variants]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda j: static_one(args, *j), jobs))
    for (b, v, _), r in zip(jobs, results):
        if r["ok"] and r["sim_error"]:
            progress(f"gpu-sim failed on {b.name} {v.label()}: {r['sim_error']}")
    run = {"static": [dict(model=b.name, level=v.label(), entry=e, **r)
                      for (b, v, e), r in zip(jobs, results)],
           "chip": args.chip, "ptxas": args.ptxas}
    rows, failed = static_rows(run)
    table(STATIC_HEADER, rows)
    print(f"{len(rows) - failed} of {len(rows)} complete "
          f"({time.perf_counter() - start:.1f} s)")
    write_json(args, run)
    if args.update_doc and not failed:
        doctables.update(args.update_doc, {STATIC_BLOCK: render_static(run)},
                         "bench/gpu/run.py --static")
    return 1 if failed else 0


# amp-run ----------------------------------------------------------------------

TIME_ROW = re.compile(r"^\s+(\S.*?)\s{2,}([0-9.]+(?:[eE][-+]?\d+)?) (s|ms|us|ns)\s*$")
SPEEDUP_ROW = re.compile(r"^\s+speed-up\s+([0-9.]+(?:[eE][-+]?\d+)?|inf|nan)x\s*$")
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def to_float(text):
    try:
        return float(text)
    except ValueError:
        return None


def parse_amp_run(text):
    """The figures of amp-run's report: {'label', 'times': {label: s},
    'level_s', 'fp32_s', 'speedup', 'outputs': [{'rel_l2', ...}]}."""
    result = {"label": None, "times": {}, "speedup": None, "outputs": []}
    section = None
    for line in text.splitlines():
        m = re.match(r"^amp-run: @(\S+) in .*, (.+) on (cpu|gpu)\s*$", line)
        if m:
            result["label"] = m.group(2)
            continue
        if line.startswith("outputs:"):
            section = "compare" if line.rstrip().endswith("vs fp32") else "outputs"
            continue
        if line.startswith("time:"):
            section = "time"
            continue
        if not line.startswith(" "):
            section = None
            continue
        if section == "compare":
            cells = re.split(r"\s{2,}", line.strip())
            if cells[0] == "#" or len(cells) < 5 or not cells[0].isdigit():
                continue
            result["outputs"].append({
                "type": cells[1], "max_abs": to_float(cells[2]),
                "max_rel": to_float(cells[3]), "rel_l2": to_float(cells[4]),
                "notes": cells[5:]})
        elif section == "time":
            m = SPEEDUP_ROW.match(line)
            if m:
                result["speedup"] = to_float(m.group(1))
                continue
            m = TIME_ROW.match(line)
            if m:
                result["times"][m.group(1)] = float(m.group(2)) * UNITS[m.group(3)]
    label = result["label"]
    result["level_s"] = result["times"].get(label)
    result["fp32_s"] = result["times"].get("fp32")
    if result["outputs"]:
        errs = [o["rel_l2"] for o in result["outputs"]]
        result["rel_l2"] = None if None in errs else max(errs)
        result["notes"] = [n for o in result["outputs"] for n in o["notes"]]
    return result


def amp_run(args, path, variant, extra=(), target="gpu", log=None):
    cmd = [args.amp_run, path, f"--target={target}"] + variant.amp_run_flags() \
        + list(extra)
    if target == "gpu":
        cmd.append(f"--runtime-lib={args.runtime_lib}")
        if args.gpu_options:
            cmd.append(f"--gpu-options={args.gpu_options}")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=args.timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{' '.join(cmd)}: no answer in {args.timeout} s "
                           f"(--timeout)")
    if log:
        with open(log, "a") as f:
            f.write("$ " + " ".join(cmd) + "\n" + out.stdout + out.stderr + "\n")
    if out.returncode != 0:
        lines = [l for l in (out.stderr + out.stdout).splitlines()
                 if "error" in l] or out.stderr.splitlines() or ["(no output)"]
        raise RuntimeError(f"{' '.join(cmd)}: {lines[0]}")
    parsed = parse_amp_run(out.stdout)
    if "--repeat" in extra and parsed["level_s"] is None:
        raise RuntimeError(f"{' '.join(cmd)}: no time in amp-run's output:\n"
                           + out.stdout)
    return parsed


# The runtime through ctypes -----------------------------------------------


class GpuError(Exception):
    """A runtime failure reported through the error handler."""


class Runtime:
    F32, F16, BF16 = 0, 1, 2

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        vp, i32, i64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64
        lib.ampLastError.restype = ctypes.c_char_p
        lib.ampGpuAvailable.restype = ctypes.c_int
        if hasattr(lib, "ampGpuDeviceName"):
            lib.ampGpuDeviceName.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        lib.mgpuStreamCreate.restype = vp
        lib.mgpuMemAlloc.restype = vp
        lib.mgpuMemAlloc.argtypes = [ctypes.c_uint64, vp, ctypes.c_bool]
        lib.mgpuMemFree.argtypes = [vp, vp]
        lib.mgpuMemcpy.argtypes = [vp, vp, ctypes.c_size_t, vp]
        lib.mgpuStreamSynchronize.argtypes = [vp]
        for name in ("ampGpuGemm", "ampCpuGemm"):
            if not hasattr(lib, name):  # ampCpuGemm: self-check only
                continue
            gemm = getattr(lib, name)
            gemm.restype = None
            gemm.argtypes = [i32, i32, i64, i64, i64, i64,
                             vp, i32, i64, i64, vp, i32, i64, i64,
                             vp, i32, i64, i64, ctypes.c_float]
        # Failures are recorded, not aborting (the default handler aborts).
        self.errors = []
        handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
        self._handler = handler_type(
            lambda message: self.errors.append(message.decode(errors="replace")))
        lib.ampSetErrorHandler.restype = vp
        lib.ampSetErrorHandler.argtypes = [vp]
        lib.ampSetErrorHandler(ctypes.cast(self._handler, vp))
        self.stream = None

    def available(self):
        return self.lib.ampGpuAvailable() == 1

    def last_error(self):
        return (self.lib.ampLastError() or b"").decode(errors="replace")

    def start(self):
        self.stream = self.lib.mgpuStreamCreate()
        self.check("mgpuStreamCreate")

    def device_name(self):
        buf = ctypes.create_string_buffer(256)
        try:
            ok = self.lib.ampGpuDeviceName(buf, 256) == 0
        except AttributeError:  # a test double without it
            ok = False
        return buf.value.decode(errors="replace") if ok else "unknown device"

    def check(self, what):
        if self.errors:
            errors, self.errors = self.errors, []
            raise GpuError(f"{what}: {errors[0]}")

    def alloc(self, nbytes):
        p = self.lib.mgpuMemAlloc(nbytes, self.stream, False)
        self.check(f"mgpuMemAlloc({nbytes})")
        return p

    def free(self, p):
        self.lib.mgpuMemFree(p, self.stream)
        self.check("mgpuMemFree")

    def upload(self, array):
        """A device copy of a NumPy array."""
        p = self.alloc(array.nbytes)
        self.lib.mgpuMemcpy(p, array.ctypes.data, array.nbytes, self.stream)
        self.sync()
        return p

    def memcpy(self, dst, src, nbytes):
        self.lib.mgpuMemcpy(dst, src, nbytes, self.stream)

    def sync(self):
        self.lib.ampGpuSynchronize()
        self.check("ampGpuSynchronize")

    def gemm(self, m, n, k, a, b, c, dtype, cpu=False):
        """C (m x n, f32) = A (m x k) B (k x n), row-major, A and B of
        `dtype`: ampGpuGemm on device pointers, or ampCpuGemm (the same
        signature) on host pointers."""
        t = {"f16": self.F16, "bf16": self.BF16, "f32": self.F32}[dtype]
        fn = self.lib.ampCpuGemm if cpu else self.lib.ampGpuGemm
        fn(0, 0, 1, m, n, k, a, t, k, 0, b, t, n, 0, c, self.F32, n, 0, 0.0)



def bf16_bits(array):
    """float32 -> bfloat16 bits, round to nearest even (finite values)."""
    import numpy as np
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
    bits = bits + (np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1)))
    return (bits >> 16).astype(np.uint16)


def time_calls(call, sync, repeat, min_sample_s=0.02, max_calls=1000):
    """(back-to-back seconds per call, synced seconds per call), each the
    median of `repeat` samples after a warm-up."""
    for _ in range(3):
        call()
    sync()
    synced = []
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        call()
        sync()
        synced.append(time.perf_counter() - start)
    per_call = statistics.median(synced)
    calls = max(1, min(max_calls, int(math.ceil(min_sample_s / max(per_call, 1e-7)))))
    loops = []
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        sync()
        loops.append((time.perf_counter() - start) / calls)
    return statistics.median(loops), per_call


# No-GPU check -----------------------------------------------------------------


def check_gpu(args):
    """Returns the Runtime, or exits with status 2 and the reason."""
    if not os.path.exists(args.runtime_lib):
        fail(f"no GPU: the runtime library '{args.runtime_lib}' does not exist "
             f"(build it, or name it with --runtime-lib)", 2)
    try:
        rt = Runtime(args.runtime_lib)
    except (OSError, AttributeError) as e:
        fail(f"no GPU: cannot load the runtime library: {e}", 2)
    if not rt.available():
        fail(f"no GPU: {rt.last_error()}", 2)
    # The whole path once, on a small module: amp-run must run on the GPU.
    text, _ = models.gemm(64, 64, 64)
    path = os.path.join(args.out_dir, "preflight.mlir")
    with open(path, "w") as f:
        f.write(text)
    try:
        amp_run(args, path, Variant("O2", "f16"), ["--repeat", "1"])
    except RuntimeError as e:
        fail(f"no GPU: amp-run --target=gpu failed: {e}", 2)
    rt.start()
    return rt


# Sections ---------------------------------------------------------------------


def gemm_section(args, rt, benches, results):
    import numpy as np
    print("## GEMM: pipeline vs cuBLAS (TFLOP/s, f32 result)\n")
    print("`pipeline O2`: amp-run --level=O2 on an f32 function (device "
          "conversions of A and B, then cuBLAS); `16-bit args`: amp-run "
          "--level=O0 on a function with f16/bf16 arguments (the cuBLAS call "
          "alone); `cuBLAS`: ampGpuGemm through ctypes, back-to-back and "
          "synchronized after each call; `fp32`: the f32 function at O0 "
          "(cuBLAS, no TF32). Ratios: pipeline / cuBLAS back-to-back.\n",
          flush=True)
    header = ["M=N=K", "type", "pipeline O2", "16-bit args", "cuBLAS",
              "cuBLAS synced", "O2 / cuBLAS", "16-bit args / cuBLAS",
              "pipeline fp32"]
    rows = Table(header)
    rng = np.random.default_rng(args.seed)
    log = os.path.join(args.out_dir, "amp-run.log")
    by_name = {}
    for b in benches:
        by_name.setdefault(b.name, {})[b.args_label] = b
    for s in args.gemm_sizes:
        f32 = by_name[f"gemm {s}"]["f32 args"]
        host = rng.uniform(-1, 1, (2, s, s)).astype(np.float32)
        for d in args.dtypes:
            progress(f"gemm {s} {d}")
            low = by_name[f"gemm {s}"][f"{d} args"]
            if d == "f16":
                a_host, b_host = host[0].astype(np.float16), host[1].astype(np.float16)
            else:
                a_host, b_host = bf16_bits(host[0]), bf16_bits(host[1])
            a, b = rt.upload(a_host), rt.upload(b_host)
            c = rt.alloc(s * s * 4)
            flop = 2.0 * s * s * s
            o2, o2_fp32, lo, cub, cub_sync = [], [], [], [], []
            try:
                for _ in range(args.rounds):
                    r = amp_run(args, f32.path, Variant("O2", d),
                                ["--repeat", str(args.repeat)], log=log)
                    o2.append(r["level_s"])
                    o2_fp32.append(r["fp32_s"])
                    r = amp_run(args, low.path, Variant("O0"),
                                ["--repeat", str(args.repeat)], log=log)
                    lo.append(r["level_s"])
                    bb, sy = time_calls(lambda: rt.gemm(s, s, s, a, b, c, d),
                                        rt.sync, args.repeat)
                    rt.check("ampGpuGemm")
                    cub.append(bb)
                    cub_sync.append(sy)
            finally:
                for p in (a, b, c):
                    rt.free(p)
                rt.sync()
            t = {k: median(v) for k, v in dict(o2=o2, o2_fp32=o2_fp32, lo=lo,
                                                cub=cub, cub_sync=cub_sync).items()}
            tf = {k: (flop / v / 1e12 if v else None) for k, v in t.items()}
            results["gemm"].append({"size": s, "dtype": d, "seconds": t,
                                    "tflops": tf, "rounds": dict(
                                        o2=o2, o2_fp32=o2_fp32, lo=lo, cub=cub,
                                        cub_sync=cub_sync)})
            rows.append([s, d, fmt(tf["o2"], 1), fmt(tf["lo"], 1),
                         fmt(tf["cub"], 1), fmt(tf["cub_sync"], 1),
                         fmt(t["cub"] / t["o2"], 2), fmt(t["cub"] / t["lo"], 2),
                         fmt(tf["o2_fp32"], 1)])
    rows.end()


def chain_section(args, rt, benches, results):
    print("## Fused elementwise chain vs device copy (GB/s)\n")
    r_, c_ = args.chain_shape
    n = r_ * c_
    moved = 4 * n + 4 * c_ + 4 * n  # read x and bias, write y (f32)
    print(f"y = 1.25 * gelu_tanh(x + bias), x {r_}x{c_} f32 ({n / 2**20:g} Mi "
          f"elements): effective GB/s = (bytes read + bytes written) / time = "
          f"{moved / 1e6:.1f} MB per call; the copy moves the {4 * n / 1e6:.1f} MB "
          f"of x device to device (read + write counted). Ratio: chain / copy "
          f"back-to-back.\n", flush=True)
    bench = next(b for b in benches if b.section == "chain")
    log = os.path.join(args.out_dir, "amp-run.log")
    src, dst = rt.alloc(4 * n), rt.alloc(4 * n)
    times = {d: [] for d in args.dtypes}
    fp32, copy, copy_sync = [], [], []
    try:
        for _ in range(args.rounds):
            for d in args.dtypes:
                progress(f"chain {d}")
                r = amp_run(args, bench.path, Variant("O2", d),
                            ["--repeat", str(args.repeat)], log=log)
                times[d].append(r["level_s"])
                fp32.append(r["fp32_s"])
            bb, sy = time_calls(lambda: rt.memcpy(dst, src, 4 * n), rt.sync,
                                args.repeat)
            rt.check("mgpuMemcpy")
            copy.append(bb)
            copy_sync.append(sy)
    finally:
        rt.free(src)
        rt.free(dst)
        rt.sync()
    copy_gbs = 2 * 4 * n / median(copy) / 1e9
    rows = []
    entry = {"shape": [r_, c_], "bytes": moved, "copy_bytes": 4 * n,
             "seconds": {}, "gbs": {}}

    def row(label, seconds, bytes_):
        gbs = bytes_ / seconds / 1e9
        entry["seconds"][label], entry["gbs"][label] = seconds, gbs
        rows.append([label, fmt_ms(seconds), fmt(gbs, 0),
                     fmt(gbs / copy_gbs, 2)])

    row("chain fp32 (O0)", median(fp32), moved)
    for d in args.dtypes:
        row(f"chain O2 {d}", median(times[d]), moved)
    row("copy, back-to-back", median(copy), 2 * 4 * n)
    row("copy, synced per call", median(copy_sync), 2 * 4 * n)
    results["chain"].append(entry)
    table(["variant", "time (ms)", "GB/s", "/ copy"], rows)


def write_inputs(args, bench):
    """Seeded .npy inputs for a model (weights scaled by 1/sqrt(fan_in), so
    the activations stay O(1)); returns the paths and the arrays."""
    import numpy as np
    rng = np.random.default_rng(args.seed)
    paths, arrays = [], []
    slug = bench.name
    for a in bench.args:
        v = rng.uniform(-a.scale, a.scale, a.shape)
        if a.init == "ones":
            v += 1.0
        v = v.astype(np.float32)
        path = os.path.join(args.out_dir, f"{slug}.{a.name}.npy")
        np.save(path, v)
        paths.append(path)
        arrays.append(v)
    return paths, arrays


def models_section(args, rt, benches, results, lowered):
    """Writes the models' inputs (PyTorch uses them too) and, unless only
    the torch section runs, times the models."""
    if "models" in args.only:
        print("## Models: fp32, O1 and O2 through the pipeline\n")
        print("amp-run --compare --repeat: the time of each level and of the "
              "fp32 module (O0) in the same process; speed-up = fp32 / level; "
              "rel L2 err of the output against fp32 (max over outputs). "
              "Kernels and GEMMs: gpu.launch_func and ampGpuGemm(Epilogue) "
              "calls after lowering.\n", flush=True)
    log = os.path.join(args.out_dir, "amp-run.log")
    rows = None
    inputs = {}
    for bench in (b for b in benches if b.section == "models"):
        paths, arrays = write_inputs(args, bench)
        inputs[bench.name] = (paths, arrays)
        if "models" not in args.only:
            continue
        variants = [v for v in bench.variants if v.level != "O0"]
        runs = {v.label(): [] for v in variants}
        for rnd in range(args.rounds):
            for v in variants:
                progress(f"{bench.name} {v.label()} (round {rnd + 1})")
                extra = ["--inputs", ",".join(paths), "--compare",
                         "--repeat", str(args.repeat)]
                if rnd == 0 and v is variants[0]:
                    extra += ["--output-dir",
                              os.path.join(args.out_dir, f"{bench.name}-out")]
                runs[v.label()].append(amp_run(args, bench.path, v, extra,
                                               log=log))
        fp32 = median([r["fp32_s"] for rs in runs.values() for r in rs])
        shape = model_shape(args, bench.name)

        def counts(label):
            c = lowered.get((bench.name, bench.args_label, label))
            return (c["kernels"], c["gemm"]) if c and c["ok"] else ("-", "-")

        k, g = counts("O0")
        if rows is None:
            rows = Table(["model", "shape", "level", "time (ms)", "speed-up",
                          "rel L2 err", "kernels", "GEMMs"])
        rows.append([bench.name, shape, "fp32 (O0)", fmt_ms(fp32), "1.00",
                     "0", k, g])
        entry = {"model": bench.name, "shape": shape, "fp32_s": fp32,
                 "levels": {}}
        for v in variants:
            rs = runs[v.label()]
            t = median([r["level_s"] for r in rs])
            speedup = median([r["speedup"] for r in rs])
            err = max((r.get("rel_l2") for r in rs if r.get("rel_l2") is not None),
                      default=None)
            notes = sorted({n for r in rs for n in r.get("notes", [])})
            k, g = counts(v.label())
            rows.append([bench.name, shape, v.label(), fmt_ms(t),
                         fmt(speedup, 2),
                         fmt_err(err) + (f" ({'; '.join(notes)})" if notes else ""),
                         k, g])
            entry["levels"][v.label()] = {
                "seconds": t, "speedup": speedup, "rel_l2": err, "notes": notes,
                "rounds": [{"level_s": r["level_s"], "fp32_s": r["fp32_s"],
                            "speedup": r["speedup"], "rel_l2": r.get("rel_l2")}
                           for r in rs]}
        results["models"].append(entry)
    if rows is not None:
        rows.end()
    return inputs


def train_section(args, benches, results):
    """The whole training step (examples/mlp_training.mlir) per level."""
    import numpy as np
    bench = next(b for b in benches if b.section == "train")
    print("## Training step with dynamic loss scaling\n")
    print(f"amp-run --entry train --compare --repeat: {TRAIN_STEPS} steps of "
          "examples/mlp_training.mlir; time per step = call time / steps; "
          "final loss relative to fp32's.\n", flush=True)
    data = os.path.join(args.out_dir, "train-data")
    subprocess.run([sys.executable,
                    os.path.join(REPO, "examples", "mlp_training_data.py"),
                    data], check=True)
    names = ["x", "y", "w1", "b1", "w2", "b2", "inject"]
    paths = [os.path.join(data, n + ".npy") for n in names]
    log = os.path.join(args.out_dir, "amp-run.log")
    table_rows = Table(["level", "ms per step", "speed-up", "final loss",
                        "vs fp32"])
    fp32_row = None
    for v in (v for v in bench.variants if v.level != "O0"):
        progress(f"train {v.label()}")
        out = os.path.join(args.out_dir, "train-" + v.label().replace(" ", "-"))
        r = amp_run(args, bench.path, v,
                    ["--entry", "train", "--inputs", ",".join(paths),
                     "--compare", "--repeat", str(args.repeat),
                     "--output-dir", out], log=log)
        loss = float(np.load(os.path.join(out, "out0.npy"))[-1])
        loss32 = float(np.load(os.path.join(out, "fp32_out0.npy"))[-1])
        if fp32_row is None:
            fp32_row = ["fp32 (O0)", fmt(r["fp32_s"] / TRAIN_STEPS * 1e3, 3),
                        "1.00", fmt(loss32, 5), "0"]
            table_rows.append(fp32_row)
        rel = (loss - loss32) / loss32
        table_rows.append([v.label(), fmt(r["level_s"] / TRAIN_STEPS * 1e3, 3),
                           fmt(r["speedup"], 2), fmt(loss, 5), f"{rel:+.3%}"])
        results["train"].append({"level": v.label(),
                                 "step_s": r["level_s"] / TRAIN_STEPS,
                                 "fp32_step_s": r["fp32_s"] / TRAIN_STEPS,
                                 "speedup": r["speedup"], "final_loss": loss,
                                 "fp32_final_loss": loss32})
    table_rows.end()


def import_torch():
    try:
        import torch
    except ImportError:
        return None, NO_TORCH
    if not torch.cuda.is_available():
        return None, "PyTorch: no CUDA device"
    return torch, None


def torch_section(args, benches, results, inputs):
    import numpy as np
    print("## PyTorch eager on the same shapes\n")
    print("fp32 without TF32; autocast f16/bf16 (weights stay f32, as at O1/O2 "
          "with f32 arguments). Each call synchronized, median of --repeat "
          "after a warm-up, like amp-run. GEMM: torch.matmul on 16-bit "
          "tensors (16-bit result), back-to-back. Chain: F.gelu(x + bias, "
          "approximate='tanh') * 1.25. rel L2 err: against PyTorch fp32; "
          "`fp32 vs pipeline`: PyTorch fp32 against the pipeline's fp32 "
          "output.\n", flush=True)
    torch, why = import_torch()
    header = ["benchmark", "variant", "time (ms)", "figure", "speed-up",
              "rel L2 err"]
    if torch is None:
        rows = [[name, why, "-", "-", "-", "-"] for name in
                ["gemm", "chain", "mlp", "transformer"]]
        results["torch"] = {"available": False, "reason": why}
        table(header, rows)
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    sync = torch.cuda.synchronize
    rows, out = Table(header), {"available": True, "version": torch.__version__,
                     "gemm": [], "chain": [], "models": []}
    dt = {"f16": torch.float16, "bf16": torch.bfloat16}

    def per_call(fn):
        for _ in range(3):
            fn()
        sync()
        samples = []
        for _ in range(max(args.repeat, 1)):
            start = time.perf_counter()
            fn()
            sync()
            samples.append(time.perf_counter() - start)
        return statistics.median(samples)

    for s in args.gemm_sizes:
        for d in args.dtypes:
            progress(f"torch gemm {s} {d}")
            a = torch.empty(s, s, dtype=dt[d], device=dev).uniform_(-1, 1)
            b = torch.empty(s, s, dtype=dt[d], device=dev).uniform_(-1, 1)
            ts = [time_calls(lambda: torch.matmul(a, b), sync, args.repeat)[0]
                  for _ in range(args.rounds)]
            t = median(ts)
            tf = 2.0 * s ** 3 / t / 1e12
            out["gemm"].append({"size": s, "dtype": d, "seconds": t,
                                "tflops": tf})
            rows.append([f"gemm {s}", f"matmul {d}", fmt_ms(t),
                         f"{tf:.1f} TFLOP/s", "-", "-"])
            a = b = None  # free before the next size
    r_, c_ = args.chain_shape
    progress("torch chain")
    x = torch.empty(r_, c_, device=dev).uniform_(-1, 1)
    bias = torch.empty(c_, device=dev).uniform_(-0.1, 0.1)
    f = torch.nn.functional.gelu
    t = median([per_call(lambda: f(x + bias, approximate="tanh") * 1.25)
                for _ in range(args.rounds)])
    gbs = (8 * r_ * c_ + 4 * c_) / t / 1e9
    out["chain"].append({"shape": [r_, c_], "seconds": t, "gbs": gbs})
    rows.append([f"chain {r_}x{c_}", "eager fp32", fmt_ms(t),
                 f"{gbs:.0f} GB/s", "-", "-"])
    x = bias = None
    ops = models.TorchOps(torch)
    for bench in (b for b in benches if b.section == "models"):
        paths, arrays = inputs[bench.name]
        progress(f"torch {bench.name}")
        tensors = [torch.from_numpy(a).to(dev) for a in arrays]
        if bench.name == "mlp":
            fwd = lambda: models.mlp_forward(ops, *tensors)
        else:
            fwd = lambda: models.transformer_forward(
                ops, *tensors, batch=args.batch, seq=args.tokens // args.batch,
                heads=args.heads)
        with torch.no_grad():
            ref = fwd().float()
            pipeline = os.path.join(args.out_dir, f"{bench.name}-out",
                                    "fp32_out0.npy")
            vs_pipeline = None
            if os.path.exists(pipeline):
                p = torch.from_numpy(np.load(pipeline)).to(dev)
                vs_pipeline = (torch.linalg.norm(ref - p) /
                               torch.linalg.norm(p)).item()
            t32 = median([per_call(fwd) for _ in range(args.rounds)])
            entry = {"model": bench.name, "fp32_s": t32,
                     "fp32_vs_pipeline_rel_l2": vs_pipeline, "autocast": {}}
            rows.append([bench.name, "fp32", fmt_ms(t32), "-", "1.00",
                         f"fp32 vs pipeline: {fmt_err(vs_pipeline)}"])
            for d in args.dtypes:
                def amp_fwd():
                    with torch.autocast("cuda", dtype=dt[d]):
                        return fwd()
                y = amp_fwd().float()
                err = (torch.linalg.norm(y - ref) / torch.linalg.norm(ref)).item()
                t = median([per_call(amp_fwd) for _ in range(args.rounds)])
                entry["autocast"][d] = {"seconds": t, "speedup": t32 / t,
                                        "rel_l2": err}
                rows.append([bench.name, f"autocast {d}", fmt_ms(t), "-",
                             fmt(t32 / t, 2), fmt_err(err)])
        out["models"].append(entry)
        tensors = None
        torch.cuda.empty_cache()
    results["torch"] = out
    rows.end()


# Self-check (CPU) -------------------------------------------------------------


def self_check(args):
    """Small versions of every module on the CPU: amp-run at O0 against the
    NumPy reference, and amp-run's report parsed at O2."""
    import numpy as np
    ops = models.NumpyOps()
    rng = np.random.default_rng(args.seed)
    cases = [("gemm", models.gemm(8, 12, 16), lambda a, b: a @ b),
             ("chain", models.chain(8, 16),
              lambda *xs: models.chain_forward(ops, *xs)),
             ("mlp", models.mlp(8, [16, 32, 24, 8]),
              lambda *xs: models.mlp_forward(ops, *xs)),
             ("transformer", models.transformer(2, 8, 16, 2, 2),
              lambda *xs: models.transformer_forward(ops, *xs, batch=2, seq=8,
                                                     heads=2))]
    print("## Self-check on the CPU: generated modules vs NumPy\n")
    rows, bad = [], 0
    for name, (text, margs), ref in cases:
        path = os.path.join(args.out_dir, f"selfcheck-{name}.mlir")
        with open(path, "w") as f:
            f.write(text)
        files, arrays = [], []
        for a in margs:
            v = rng.uniform(-a.scale, a.scale, a.shape) + (a.init == "ones")
            v = v.astype(np.float32)
            files.append(os.path.join(args.out_dir, f"selfcheck-{name}.{a.name}.npy"))
            np.save(files[-1], v)
            arrays.append(v)
        out = os.path.join(args.out_dir, f"selfcheck-{name}.out.npy")
        amp_run(args, path, Variant("O0"), ["--inputs", ",".join(files),
                                            "--outputs", out], target="cpu")
        got = np.load(out).astype(np.float64)
        want = ref(*[a.astype(np.float64) for a in arrays])
        err = float(np.linalg.norm(got - want) / np.linalg.norm(want))
        r = amp_run(args, path, Variant("O2", "f16"),
                    ["--inputs", ",".join(files), "--compare", "--repeat", "2"],
                    target="cpu")
        ok = err < 1e-5 and r["level_s"] is not None and r["fp32_s"] is not None \
            and r["speedup"] is not None and r.get("rel_l2") is not None
        bad += not ok
        rows.append([name, "x".join(map(str, got.shape)), fmt_err(err),
                     r["label"], fmt_err(r.get("rel_l2")),
                     "yes" if ok else "NO"])
    table(["module", "output", "O0 vs NumPy (rel L2)", "parsed level",
           "parsed O2 rel L2", "ok"], rows)

    # The ctypes call of the GEMM benchmark, through ampCpuGemm (the same
    # signature as ampGpuGemm) on host buffers.
    rt = Runtime(args.runtime_lib)
    m, n, k = 24, 40, 56
    a32 = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b32 = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    rows = []
    for d in args.dtypes:
        if d == "f16":
            a, b = a32.astype(np.float16), b32.astype(np.float16)
            want = a.astype(np.float64) @ b.astype(np.float64)
        else:
            a, b = bf16_bits(a32), bf16_bits(b32)
            widen = lambda x: (x.astype(np.uint32) << 16).view(np.float32)
            want = widen(a).astype(np.float64) @ widen(b).astype(np.float64)
        c = np.full((m, n), np.nan, dtype=np.float32)
        rt.gemm(m, n, k, a.ctypes.data, b.ctypes.data, c.ctypes.data, d, cpu=True)
        rt.check("ampCpuGemm")
        err = float(np.linalg.norm(c - want) / np.linalg.norm(want))
        ok = err < 1e-6
        bad += not ok
        rows.append([f"{m}x{k} . {k}x{n}", d, fmt_err(err), "yes" if ok else "NO"])
    table(["ampCpuGemm", "type", "vs NumPy (rel L2)", "ok"], rows)
    return 1 if bad else 0


# Main -------------------------------------------------------------------------


def write_json(args, results):
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--amp-opt", default=os.path.join(REPO, "build", "bin", "amp-opt"))
    p.add_argument("--amp-run", default=os.path.join(REPO, "build", "bin", "amp-run"))
    p.add_argument("--runtime-lib", help="default: <dir of amp-run>/../lib/"
                   "libamp_runtime.so, as amp-run's own default")
    p.add_argument("--out-dir", default=os.path.join(REPO, "build", "bench-gpu"),
                   help="generated modules, .npy inputs, amp-run.log")
    p.add_argument("--json", help="write the raw figures to this file")
    p.add_argument("--only", default=",".join(SECTIONS),
                   help="comma-separated sections: " + ", ".join(SECTIONS))
    p.add_argument("--compile-only", action="store_true",
                   help="lower every module with amp-opt; needs no GPU")
    p.add_argument("--static", action="store_true",
                   help="one row per model: kernels, launches and syncs per "
                   "call (GPU simulator), threads per block, registers and "
                   "spills (ptxas -v); needs no GPU")
    p.add_argument("--from-json", metavar="FILE",
                   help="--static: render the table of a kept run (its "
                   "--json) instead of measuring")
    p.add_argument("--update-doc", metavar="DOC",
                   help="--static: write the table between its markers "
                   f"({STATIC_BLOCK}) in DOC")
    p.add_argument("--check", action="store_true",
                   help="with --from-json and --update-doc: fail when DOC's "
                   "table is not FILE's rendering")
    p.add_argument("--static-only", default=",".join(STATIC_MODELS),
                   help="--static: comma-separated models: "
                   + ", ".join(STATIC_MODELS))
    p.add_argument("--chip", default="sm_90", help="--static: PTX target")
    p.add_argument("--ptxas", default=None, help="--static: ptxas (default: "
                   "$CUDA_HOME/bin/ptxas or /usr/local/cuda/bin/ptxas; "
                   "'none' skips registers and spills)")
    p.add_argument("--no-sim", action="store_true",
                   help="--static: no GPU simulator run (no per-call figures)")
    p.add_argument("--self-check", action="store_true",
                   help="run small modules on the CPU against NumPy")
    p.add_argument("--repeat", type=int, default=20,
                   help="timed calls per measurement (after a warm-up)")
    p.add_argument("--rounds", type=int, default=2,
                   help="alternating rounds; a figure is the median of its rounds")
    p.add_argument("--dtypes", default="f16,bf16")
    p.add_argument("--gemm-sizes", type=parse_ints, default=[1024, 4096, 8192])
    p.add_argument("--chain-shape", type=parse_shape, default=(8192, 8192))
    p.add_argument("--tokens", type=int, default=4096, help="batch * seq")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--blocks", type=int, default=2)
    p.add_argument("--mlp-dims", type=parse_ints, default=[1024, 4096, 4096, 1024])
    p.add_argument("--gpu-options", default="",
                   help="options of --lower-to-gpu, e.g. 'chip=sm_80'")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=600,
                   help="seconds one amp-run may take")
    p.add_argument("--verbose", action="store_true",
                   help="say on stderr what runs")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="parallel amp-opt runs (compile-only, kernel counts)")
    args = p.parse_args()
    global VERBOSE
    VERBOSE = args.verbose

    args.dtypes = [d for d in args.dtypes.split(",") if d]
    if not args.dtypes or any(d not in ("f16", "bf16") for d in args.dtypes):
        p.error("--dtypes takes f16 and/or bf16")
    args.only = [s for s in args.only.split(",") if s]
    for s in args.only:
        if s not in SECTIONS:
            p.error(f"unknown section {s!r} in --only (sections: "
                    f"{', '.join(SECTIONS)})")
    if args.tokens % args.batch or args.hidden % args.heads:
        p.error("--tokens must be a multiple of --batch, --hidden of --heads")
    if args.runtime_lib is None:
        args.runtime_lib = os.path.normpath(os.path.join(
            os.path.dirname(os.path.realpath(args.amp_run)), "..", "lib",
            "libamp_runtime.so"))
    os.makedirs(args.out_dir, exist_ok=True)

    if args.self_check:
        return self_check(args)
    if args.static:
        args.static_only = [m for m in args.static_only.split(",") if m]
        for m in args.static_only:
            if m not in STATIC_MODELS:
                p.error(f"unknown model {m!r} in --static-only (models: "
                        f"{', '.join(STATIC_MODELS)})")
        if args.ptxas is None:
            args.ptxas = os.path.join(os.environ.get("CUDA_HOME",
                                                     "/usr/local/cuda"),
                                      "bin", "ptxas")
            if not os.path.exists(args.ptxas):
                args.ptxas = None
        elif args.ptxas == "none":
            args.ptxas = None
        return static_table(args)
    benches = build_benches(args)
    for b in benches:
        b.write(args.out_dir)
    if args.compile_only:
        return compile_only(args, benches)

    rt = check_gpu(args)
    if importlib.util.find_spec("numpy") is None:
        fail(f"NumPy is needed: {sys.executable} has none (use /usr/bin/python3)")
    name = rt.device_name()
    print(f"# amp-mlir GPU benchmark on {name}\n")
    print(f"repeat {args.repeat}, rounds {args.rounds}, types "
          f"{', '.join(args.dtypes)}, gpu-options '{args.gpu_options}'\n",
          flush=True)
    results = {"device": name, "config": {
        k: v for k, v in vars(args).items() if k not in ("json",)},
        "gemm": [], "chain": [], "models": [], "torch": None, "train": []}
    lowered = {}
    if any(b.section == "models" for b in benches):
        progress("lowering the models for their kernel counts")
        lowered = lower_all(args, [b for b in benches if b.section == "models"])
    try:
        if "gemm" in args.only:
            gemm_section(args, rt, benches, results)
            write_json(args, results)
        if "chain" in args.only:
            chain_section(args, rt, benches, results)
            write_json(args, results)
        inputs = {}
        if "models" in args.only or "torch" in args.only:
            inputs = models_section(args, rt, benches, results, lowered)
            write_json(args, results)
        if "torch" in args.only:
            torch_section(args, benches, results, inputs)
            write_json(args, results)
        if "train" in args.only:
            train_section(args, benches, results)
            write_json(args, results)
    except (RuntimeError, GpuError) as e:
        write_json(args, results)
        fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
