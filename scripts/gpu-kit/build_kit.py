#!/usr/bin/env python3
"""Builds the GPU kit (make gpu-kit): everything needed to check amp-mlir's
GPU path on a bare CUDA machine, without LLVM/MLIR there.

    /usr/bin/python3 scripts/gpu-kit/build_kit.py --build build --out build/gpu-kit

The kit holds:

  lib/    libamp_runtime.so and one library per case compiled ahead of time
          by amp-compile --target=gpu (each finds the runtime through $ORIGIN)
  sim/    libamp_runtime_gpusim.so and the small cases compiled for the
          simulator (amp-compile --target=gpu-sim), for run.sh --sim
  bin/    the runtime's test binaries (AmpRuntimeTests, AmpRuntimeGpuTests,
          AmpGpuContractTests, AmpGpuSimTests)
  data/   inputs and CPU reference outputs (.npy) of the checked cases: the
          same module compiled here with amp-compile --target=cpu and run on
          the same inputs
  manifest.json, run.sh, run.py, amp_aot.py (the loader, numpy + ctypes
  only), models.py (bench/gpu's formulas, for the PyTorch baselines),
  baselines.py (the model rows' PyTorch side)

Cases: the GPU execution tests (test/amp-run/gpu-execution.test's functions
and examples), bench/gpu's modules (small, checked against the CPU; large,
timed and checked against NumPy's fp32 on the GPU machine, inputs drawn
there from a seed), the training loop of examples/mlp_training.mlir, and
with --frontends the imported PyTorch models.

Compiled libraries and references are cached in <out>-work/ by a hash of
the module text, the options and amp-compile itself, so that a rebuild
only compiles what changed.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "bench" / "gpu"))
sys.path.insert(0, str(REPO / "python"))
import models  # noqa: E402  bench/gpu/models.py
import sim_bounds  # noqa: E402  bench/gpu/sim_bounds.py
from amp_mlir import aot  # noqa: E402  numpy + ctypes only
sys.path.insert(0, str(HERE))
from seeded import random_arguments, seeded_inputs  # noqa: E402

SIZE_LIMIT = 48 * 1024 * 1024

# The groups whose contractions and convolutions must be library calls on
# the GPU (amp-opt's remark "kept as a generated kernel, not a library
# call" fails the build unless the row states why) and whose loops must be
# mapped to blocks and threads (its remark "this loop runs on one GPU
# thread" fails the build): the models and the bench modules. The test
# group holds cases made to exercise generated kernels.
CHECKED_GROUPS = ("model", "bench", "bench-small")

# Tolerances on the relative L2 error against the CPU at the same level:
# the same roundings, other accumulation orders (gpu-execution.test's).
# FP8 (E4M3, 3 mantissa bits) against NumPy fp32: a few 1e-2 on its own.
TOLERANCE = {"O0": 1e-5, "f16": 5e-3, "bf16": 3e-2, "fp8": 8e-2}


def tolerance(level, dtype, scale=1.0):
    return scale * TOLERANCE["O0" if level == "O0" else dtype]


class Case:
    """One function at one level, compiled for the GPU (and the simulator
    where `sim`), checked against `reference`:

    - 'cpu': the CPU pipeline's result here, carried as .npy with the
      inputs;
    - 'numpy:<model>': bench/gpu's NumPy formula in fp32, computed on the
      GPU machine on inputs drawn there from the seeded specs (too large to
      carry or to run on the CPU here)."""

    def __init__(self, name, group, source, entry, level, dtype=None,
                 quick=True, sim=True, reference="cpu", args=None,
                 tol_scale=1.0, torch=None, dynamic=4, repeat=20,
                 rounding=None, cost_model=None, channels_last=False,
                 kernel_options=()):
        self.name, self.group, self.source, self.entry = (name, group,
                                                          source, entry)
        self.level, self.dtype = level, dtype
        self.quick, self.sim, self.reference = quick, sim, reference
        self.args = args  # seeded specs (models.Arg) for numpy references
        self.tol = tolerance(level, dtype or "f16", tol_scale)
        self.torch = torch
        self.dynamic = dynamic
        self.repeat = repeat
        self.rounding = rounding
        # dtype=fp8's fp8-cost-model (h100: contractions the roofline does
        # not estimate faster in FP8 stay bf16).
        self.cost_model = cost_model
        # --lower-to-gpu's channels-last (amp-channels-last: convolutions
        # and the work between them in NHWC), beside the NCHW row.
        self.channels_last = channels_last
        # Further --lower-to-gpu options of the generated kernels, beside
        # the default row (the vectorised kernels' form before block shares
        # loops: one vector per thread, no limit on the grid).
        self.kernel_options = tuple(kernel_options)
        if self.kernel_options and dtype is None:
            # The label is the row's level ("O2 f16 ..."), which run.py
            # reads as level and dtype.
            raise ValueError(f"{name} {level}: kernel options need a level "
                             "with a dtype")
        # A row the kit lists without a library: why it is not built.
        self.not_built = None
        # Why a contraction or convolution of it may stay a generated
        # kernel (else the build fails when one does).
        self.reason = None
        # Model rows: {"unit": "images"|"tokens", "per_call": N}, the size
        # in words, and the simulator's estimate (kept_estimates).
        self.items = self.size = self.estimate = None
        # A training step: its CPU reference keeps its small outputs, and
        # each output is compared on its own (run.py).
        self.train = False
        # The name of its library in the kit: cases of one module at one
        # level (rows that differ in batch only) share it.
        self.library_name = None

    @property
    def label(self):
        options = "".join(f" {o}" for o in self.kernel_options)
        if self.dtype is None:  # O0, or a training row not built
            return self.level
        suffix = f" cost-model={self.cost_model}" if self.cost_model else ""
        if self.channels_last:
            suffix += " channels-last"
        return f"{self.level} {self.dtype}{suffix}{options}"

    @property
    def id(self):
        tag = self.level + (f"-{self.dtype}" if self.dtype else "")
        if self.cost_model:
            tag += f"-{self.cost_model}"
        if self.channels_last:
            tag += "-channels-last"
        for option in self.kernel_options:
            tag += "-" + option.replace("=", "")
        return f"{self.group}.{self.name}.{tag}"

    def text(self):
        return self.source if isinstance(self.source, str) and \
            "func.func" in self.source else Path(self.source).read_text()

    chip = "sm_90"

    def compile_args(self, target):
        args = [f"--level={self.level}", f"--target={target}",
                f"--entry={self.entry}"]
        gpu_options = self.gpu_options()
        if target == "gpu" and self.chip != "sm_90":
            gpu_options.insert(0, f"chip={self.chip}")
        if gpu_options:
            args.append(f"--gpu-options={' '.join(gpu_options)}")
        if self.dtype and self.level != "O0":
            args.append(f"--dtype={self.dtype}")
        if self.rounding:
            args.append(f"--rounding={self.rounding}")
        if self.cost_model:
            args.append(f"--amp-options=fp8-cost-model={self.cost_model}")
        return args


    def gpu_options(self):
        """The --lower-to-gpu options of the case (the simulator's and the
        GPU's lowering alike), but for the chip."""
        return (["channels-last=true"] if self.channels_last else []) + \
            list(self.kernel_options)


def levels(name, group, source, entry, variants, **kw):
    """One case per variant: (level, dtype), (level, dtype, cost model),
    (level, dtype, cost model, channels-last) or (level, dtype, cost model,
    channels-last, kernel options)."""
    return [Case(name, group, source, entry, variant[0], variant[1],
                 cost_model=variant[2] if len(variant) > 2 else None,
                 channels_last=len(variant) > 3 and variant[3],
                 kernel_options=variant[4] if len(variant) > 4 else (), **kw)
            for variant in variants]


ALL = [("O0", None), ("O1", "f16"), ("O1", "bf16"), ("O2", "f16"),
       ("O2", "bf16")]
O0_O2 = [("O0", None), ("O2", "f16"), ("O2", "bf16")]
# FP8 contractions (dtype=fp8) beside their bf16 level: the GPU
# figure is the ratio of the two rows.
BF16_FP8 = [("O2", "bf16"), ("O2", "fp8")]
# And with fp8-cost-model=h100: the smaller GEMM stays bf16 (no slower than
# the bf16 row), the larger goes FP8.
BF16_FP8_COST = BF16_FP8 + [("O2", "fp8", "h100")]
# A conv net's O2 f16 row again in NHWC (channels-last), to be timed beside
# the NCHW one: the option stays off until a GPU run says which is faster.
CHANNELS_LAST = [("O2", "f16", None, True)]
# The elementwise chain's kernels as they were before block shares loops
# (one 16-byte vector per thread, as many blocks as that takes), beside
# the default rows: the GPU run says which is nearer the copy rate.
ONE_VECTOR = ("vectors-per-thread=1", "sm-count=1000000")
CHAIN_ONE_VECTOR = [("O2", "f16", None, False, ONE_VECTOR)]


SIM_BOUNDS = REPO / "bench" / "results" / "gpu-sim-bounds.json"


def kept_estimates(path=SIM_BOUNDS):
    """(kit row, level) -> {"h100-sxm": us, "h200": us}: the simulator's
    roofline estimate of the kernels and library calls of one call
    (bench/gpu/sim_bounds.py's kept run; uploads and downloads are not
    timed on the GPU either), for the rows that name a kit row."""
    if not Path(path).exists():
        return {}
    run = json.loads(Path(path).read_text())
    return {(row["kit"], row["level"]): {
        chip: round(parts["kernels"] + parts["library"], 3)
        for chip, parts in row["estimate_parts_us"].items()}
        for row in run["rows"] if row.get("kit")}


def seeded(args):
    return [{"name": a.name, "shape": list(a.shape), "dtype": a.dtype,
             "init": a.init, "scale": a.scale} for a in args]


def collect_cases(with_large, frontend_dir=None):
    cases = []
    ops = REPO / "test" / "amp-run" / "Inputs" / "gpu-ops.mlir"
    for entry in ("gemm", "batch_transposed", "conv_nchw", "conv_nhwc",
                  "softmax_sum"):
        cases += levels(entry, "test", str(ops), entry, O0_O2)
    # FP8: cuBLASLt's GEMM (TN, k and n multiples of 16), a batch matmul
    # that it refuses and a convolution (both cuBLAS/cuDNN in bf16 on the
    # exactly widened FP8 operands), against the CPU's FP8.
    for entry in ("gemm", "batch_transposed", "conv_nchw"):
        cases += levels(entry, "test", str(ops), entry, [("O2", "fp8")])
    # cuBLASLt's scale pointer (the dequantization factor), its bf16 D and
    # its D amax: a linear layer stored in bf16 (one call, no epilogue
    # kernel), one with a bias and a ReLU (the call scales, a kernel adds
    # and clamps), one in f32 (the call writes the output), and two layers
    # (the first call's D amax is the second's amax of its input).
    linear = REPO / "test" / "amp-run" / "Inputs" / "fp8-linear.mlir"
    for entry in ("linear_bf16", "linear_relu", "linear_f32", "linear_chain"):
        cases += levels(entry, "test", str(linear), entry, [("O2", "fp8")])
    # A reduction epilogue (amp-map-loops-to-gpu): the mean pool's f32 sum,
    # divided and narrowed, is one kernel that writes f16.
    cases += levels("mean_pool", "test",
                    str(REPO / "test" / "amp-run" / "Inputs" / "mean-pool.mlir"),
                    "mean_pool", [("O0", None)])
    ex = REPO / "examples"
    cases += levels("tosa_mlp_classifier", "test",
                    str(ex / "tosa_mlp_classifier.mlir"), "classifier_loss",
                    O0_O2)
    cases += levels("convnet", "test", str(ex / "linalg_convnet.mlir"),
                    "convnet", ALL)
    cases += levels("mlp_train_step", "test", str(ex / "mlp_training.mlir"),
                    "train_step", O0_O2, tol_scale=2.0)
    # 300 steps: errors compound; the loss curves are compared.
    # (Not in the simulator: 300 steps take minutes there.) Rounding per-op,
    # so that the GPU and the CPU round the same values: rounding once, the
    # GPU stores the matmuls' f16 outputs (cuBLAS writes them) where the
    # CPU's fused epilogues keep the gradients in f32, and at the largest
    # loss scales a step overflows on one and not the other (the first H100
    # run: the scale trajectories differed, rel L2 0.83).
    cases += levels("mlp_train_300", "train", str(ex / "mlp_training.mlir"),
                    "train", O0_O2, tol_scale=4.0, repeat=5, sim=False,
                    rounding="per-op")

    # bench/gpu's modules, small enough to check against the CPU here (and
    # to run in the simulator).
    small = {
        "gemm256": models.gemm(256, 256, 256),
        "chain": models.chain(256, 512),
        "mlp": models.mlp(64, [64, 256, 256, 64]),
        "transformer": models.transformer(2, 16, 64, 4, 1),
    }
    for name, (text, args) in small.items():
        cases += levels(name, "bench-small", text, text.split("@")[1]
                        .split("(")[0], O0_O2)
    if with_large:
        large = {
            "gemm4096": (models.gemm(4096, 4096, 4096), "gemm", {}),
            "chain8192": (models.chain(8192, 8192), "chain", {}),
            "mlp4096": (models.mlp(4096, [1024, 4096, 4096, 1024]), "mlp",
                        {}),
            "transformer2x1024": (models.transformer(4, 1024, 1024, 16, 2),
                                  "transformer",
                                  {"batch": 4, "seq": 1024, "heads": 16}),
            # The FP8 GEMM against bf16 (issue 29), M, K, N = 4096, 8192,
            # 16384 and 1024, 2048, 1024 (models.gemm takes m, n, k).
            "gemm4096x8192x16384": (models.gemm(4096, 16384, 8192), "gemm",
                                    {}),
            "gemm1024x2048x1024": (models.gemm(1024, 1024, 2048), "gemm", {}),
        }
        for name, ((text, args), model, extra) in large.items():
            variants = (BF16_FP8_COST if name.startswith("gemm") and
                        name != "gemm4096" else
                        ALL if model == "mlp" else
                        O0_O2 + CHAIN_ONE_VECTOR if model == "chain" else
                        O0_O2)
            for case in levels(name, "bench", text, model, variants,
                               sim=False, reference=f"numpy:{model}",
                               ):
                case.args = seeded(args)
                case.torch = {"model": model, **extra}
                cases.append(case)
    # The frontend models (export_models.py): the small ones against the
    # CPU here, the real-size ones (ResNet-50, GPT-2) against PyTorch fp32
    # on the GPU machine, on weights drawn there from the same seeds.
    if frontend_dir:
        estimates = kept_estimates()
        for info_path in sorted(Path(frontend_dir).glob("*.json")):
            info = json.loads(info_path.read_text())
            name = info["name"]
            if info.get("not_built"):
                case = Case(name, "model", None, "main", "train",
                            sim=False, reference="torch")
                case.not_built = info["not_built"]
                case.torch = info.get("torch")
                cases.append(case)
                continue
            # A training step (mlp_train) has static shapes, its own entry
            # and, like mlp_train_step, twice the tolerance. The rows of a
            # shared module (ResNet-50's training step at two batches)
            # share its libraries.
            variants = O0_O2 if info.get("variants") == "O0_O2" else ALL
            if info.get("channels_last"):
                variants = variants + CHANNELS_LAST
            real = bool(info.get("real"))
            module = info_path.parent / info.get("module", f"{name}.mlir")
            for case in levels(name, "model", str(module),
                               info.get("entry", "main"), variants,
                    dynamic=info.get("batch", 4), sim=not real,
                    quick=True, repeat=20 if real else 10,
                    reference="torch" if real else "cpu",
                    tol_scale=info.get("tol_scale", 1.0)):
                if info.get("arguments"):
                    case.args = info["arguments"]
                    # PyTorch gets the same seeded weights by name.
                    case.torch = info["torch"]
                weights = info_path.with_suffix(".weights.npz")
                if weights.exists():
                    case.torch = {"model": "frontend", "name": name,
                                  "weights": f"data/models/{weights.name}",
                                  "source": str(weights)}
                case.train = bool(info.get("train"))
                if "module" in info:
                    case.library_name = case.id.replace(
                        f".{name}.", f".{module.stem}.")
                case.items = info.get("items")
                case.reason = info.get("reason")
                case.size = info.get("size")
                case.estimate = estimates.get((name, case.label))
                cases.append(case)
    return cases


#===----------------------------------------------------------------------===#
# Building
#===----------------------------------------------------------------------===#


def digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


class Builder:
    def __init__(self, args):
        self.build = Path(args.build).resolve()
        self.out = Path(args.out).resolve()
        self.work = Path(str(self.out) + "-work")
        self.amp_compile = self.build / "bin" / "amp-compile"
        self.libdir = Path(args.runtime_lib_dir or self.build / "lib")
        self.testdir = Path(args.runtime_tests_dir or
                            self.build / "unittests" / "Runtime")
        self.tool_hash = None
        if not args.runtime_only:
            self.tool_hash = digest(self.amp_compile.read_bytes(),
                                    (self.build / "lib" /
                                     "libamp_aot_support.a").read_bytes())
        self.jobs = args.jobs
        self.log = []
        self.locks, self.locks_guard = {}, threading.Lock()

    def compile(self, case, target):
        """The library of `case` for `target`, from the cache or made now
        (once for cases of the same module and options)."""
        key = digest(case.text(), case.compile_args(target), self.tool_hash)
        path = self.work / "cache" / f"{key}.{target}.so"
        with self.locks_guard:
            lock = self.locks.setdefault(path, threading.Lock())
        with lock:
            return self._compile(case, target, path)

    def _compile(self, case, target, path):
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            staging = path.with_suffix(".tmp.so")
            command = [str(self.amp_compile), "-", "-o", str(staging),
                       *case.compile_args(target)]
            start = time.time()
            result = subprocess.run(command, input=case.text(),
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(f"{case.id} ({target}): amp-compile "
                                   f"failed:\n{result.stderr.strip()}")
            os.replace(staging, path)
            staging.with_suffix(".h").replace(path.with_suffix(".h"))
            self.log.append(f"compiled {case.id} for {target} in "
                            f"{time.time() - start:.1f} s")
        return path

    def lowering_remarks(self, case):
        """amp-opt's remarks on `case`'s GPU lowering (cached like the
        libraries): the reasons for each contraction or convolution kept as
        a generated kernel, and the loops that run on one GPU thread
        (sim_bounds.lowering_remarks)."""
        key = digest(case.text(), case.compile_args("gpu"), self.tool_hash,
                     "remarks")
        path = self.work / "cache" / f"{case.id}.remarks.{key}.json"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
                f.write(case.text())
                f.flush()
                found = sim_bounds.lowering_remarks(
                    self.build / "bin" / "amp-opt", f.name, case.level,
                    case.dtype if case.level != "O0" else None,
                    case.gpu_options())
            path.write_text(json.dumps(found))
        return json.loads(path.read_text())

    def inputs(self, case, function):
        rng = np.random.default_rng(int(digest(case.name)[:8], 16))
        return random_arguments(function, case.dynamic, rng)

    def reference(self, case):
        """Inputs and the CPU pipeline's outputs for `case` (cached). A
        training step keeps the outputs of at most SMALL_OUTPUT elements
        (ResNet-50's weights and momenta would not fit in the kit): the
        loss, the norms' parameters and running statistics, the optimizer's
        and the scaler's state, the skip flag, and at O0 the momenta. At a
        16-bit level the momenta (one step's raw gradients) are left out:
        two valid roundings, the GPU's library calls storing 16-bit results
        and the CPU's fused epilogues keeping f32, put ResNet-50's 2% apart
        at O2 f16 (rel L2, all together) while the parameters they update
        agree to 6e-5. Their groups (reference_groups: one per role) are
        compared each as a whole."""
        cpu = self.compile(case, "cpu")
        folder = self.work / "refs" / (
            f"{cpu.stem}.{digest(case.name, json.dumps(case.args))}")
        done = folder / "done"
        if not done.exists():
            folder.mkdir(parents=True, exist_ok=True)
            library = aot.load(str(cpu), runtime_dir=str(self.build / "lib"))
            function = library[case.entry]
            inputs = seeded_inputs(case.args) if case.args else \
                self.inputs(case, function)
            outputs = function(*inputs)
            if not isinstance(outputs, tuple):
                outputs = (outputs,)
            for i, array in enumerate(inputs):
                if not case.args:  # seeded inputs are drawn there again
                    np.save(folder / f"in{i}.npy", array)
            roles = training_roles(case, len(outputs))
            for i, array in enumerate(outputs):
                if roles and (np.size(array) > SMALL_OUTPUT or (
                        roles[i] == "optimizer_state" and case.level != "O0")):
                    continue
                np.save(folder / f"ref{i}.npy", _savable(array))
            done.write_text("ok\n")
        return folder


# The largest output of a training step that its CPU reference keeps.
SMALL_OUTPUT = 1 << 12


def training_roles(case, count):
    """The role of each result of a training case's step (loss, param,
    buffer, optimizer_state, scaler, found_inf), or None for other cases."""
    if not case.train:
        return None
    from amp_mlir import trainer
    _, results = trainer._signature(case.text(), case.entry)
    if len(results) < count:
        raise RuntimeError(f"{case.id}: {count} results, {len(results)} "
                           f"roles")
    return [role for role, _ in results]


def _savable(array):
    """bf16 results as float32 (exact) for files any numpy reads."""
    if array.dtype.kind not in "fiub" or array.dtype.name == "bfloat16" or \
            str(array.dtype) == "bfloat16":
        return array.astype(np.float32)
    return array


def copy_binary(source, destination):
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, destination)


# Files over this size in lib/, sim/ and data/ travel xz-compressed (the
# case libraries are mostly their fatbin, which packs about 8:1); run.py
# unpacks them next to themselves before it loads anything. The runtime's
# own libraries and the test binaries stay as they are.
PACK_OVER = 64 * 1024


def pack(out):
    """Compresses the large case files of the kit at `out` in place
    (NAME -> NAME.xz); returns the bytes before and after."""
    import lzma
    before = after = 0
    for sub in ("lib", "sim", "data"):
        for path in sorted((out / sub).rglob("*")):
            if not path.is_file() or path.name.startswith("libamp_runtime") \
                    or path.stat().st_size <= PACK_OVER:
                continue
            data = path.read_bytes()
            packed = lzma.compress(data, preset=6)
            path.with_name(path.name + ".xz").write_bytes(packed)
            path.unlink()
            before += len(data)
            after += len(packed)
    return before, after


def folder_size(folder):
    return sum(p.stat().st_size for p in Path(folder).rglob("*")
               if p.is_file())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=
                                     argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=str(REPO / "build"))
    parser.add_argument("--out", default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-large", action="store_true",
                        help="leave out the large bench/gpu modules")
    parser.add_argument("--only", default=None,
                        help="comma-separated substrings of case ids")
    parser.add_argument("--chip", default="sm_90",
                        help="GPU architecture of the fatbins (cubin + PTX; "
                             "newer GPUs JIT the PTX)")
    parser.add_argument("--frontend-models", default=None,
                        help="a folder export_models.py wrote: adds the "
                             "imported PyTorch models at every level")
    parser.add_argument("--runtime-only", action="store_true",
                        help="no compiled cases: the runtime, its tests and "
                             "run.sh (needs no amp-compile)")
    parser.add_argument("--runtime-lib-dir", default=None,
                        help="where libamp_runtime*.so are (default: "
                             "<build>/lib; a standalone runtime build works)")
    parser.add_argument("--runtime-tests-dir", default=None,
                        help="where the runtime's test binaries are "
                             "(default: <build>/unittests/Runtime)")
    args = parser.parse_args()
    args.out = args.out or str(Path(args.build) / "gpu-kit")
    start = time.time()
    Case.chip = args.chip
    builder = Builder(args)
    out = builder.out
    if out.exists():
        shutil.rmtree(out)
    for sub in ("lib", "sim", "bin", "data"):
        (out / sub).mkdir(parents=True)

    # The runtime and its tests.
    copy_binary(builder.libdir / "libamp_runtime.so",
                out / "lib" / "libamp_runtime.so")
    copy_binary(builder.libdir / "libamp_runtime_gpusim.so",
                out / "sim" / "libamp_runtime_gpusim.so")
    tests = builder.testdir
    for name in ("AmpRuntimeTests", "AmpRuntimeGpuTests",
                 "AmpGpuContractTests", "AmpGpuSimTests"):
        if not (tests / name).exists():
            sys.exit(f"build_kit: {tests / name} is missing: build it first "
                     f"(make gpu-kit does)")
        copy_binary(tests / name, out / "bin" / name)
        subprocess.run(["strip", "--strip-unneeded", str(out / "bin" / name)],
                       check=False)

    cases = [] if args.runtime_only else collect_cases(
        with_large=not args.no_large, frontend_dir=args.frontend_models)
    if args.only:
        keys = args.only.split(",")
        cases = [c for c in cases if any(k in c.id for k in keys)]

    def build_case(case):
        entry = {"id": case.id, "group": case.group, "name": case.name,
                 "function": case.entry, "level": case.label,
                 "tolerance": case.tol, "quick": case.quick,
                 "repeat": case.repeat, "reference": case.reference}
        if case.not_built:
            entry.update(not_built=case.not_built, torch=case.torch)
            return entry
        for key in ("items", "size"):
            if getattr(case, key):
                entry[key] = getattr(case, key)
        if case.estimate:
            entry["estimate_us"] = case.estimate
        if case.group in CHECKED_GROUPS:
            remarks = builder.lowering_remarks(case)
            generated = remarks["contractions"]
            # A loop on one GPU thread is as much a bug as a generated
            # contraction (it moved megabytes per thread in ResNet-50's
            # training step): no row states a reason for one.
            if remarks["one_thread"]:
                problems.append(
                    f"{case.id}: {len(remarks['one_thread'])} loop(s) run on "
                    f"one GPU thread "
                    f"({'; '.join(sorted(set(remarks['one_thread'])))})")
            if generated:
                entry["generated_contractions"] = generated
            if generated and case.reason:
                entry["generated_reason"] = case.reason
            elif generated:
                problems.append(
                    f"{case.id}: {len(generated)} contraction(s) or "
                    f"convolution(s) are generated kernels, not library "
                    f"calls ({'; '.join(sorted(set(generated)))}) and the "
                    f"row states no reason")
        library = case.library_name or case.id
        gpu = builder.compile(case, "gpu")
        shutil.copy2(gpu, out / "lib" / f"{library}.so")
        entry["library"] = f"lib/{library}.so"
        if case.sim:
            sim = builder.compile(case, "gpu-sim")
            shutil.copy2(sim, out / "sim" / f"{library}.so")
            entry["sim_library"] = f"sim/{library}.so"
        if case.reference == "cpu":
            folder = builder.reference(case)
            data = out / "data" / case.id
            data.mkdir(parents=True)
            entry["references"] = []
            if case.args:
                entry["seeded_inputs"] = case.args
            else:
                entry["inputs"] = []
            for f in sorted(folder.glob("in*.npy"), key=_index):
                shutil.copy2(f, data / f.name)
                entry["inputs"].append(f"data/{case.id}/{f.name}")
            for f in sorted(folder.glob("ref*.npy"), key=_index):
                shutil.copy2(f, data / f.name)
                entry["references"].append(f"data/{case.id}/{f.name}")
            if case.train:
                kept = [_index(f) for f in sorted(folder.glob("ref*.npy"),
                                                  key=_index)]
                roles = training_roles(case, max(kept) + 1)
                entry["reference_outputs"] = kept
                groups = {}
                for position, index in enumerate(kept):
                    groups.setdefault(roles[index], []).append(position)
                entry["reference_groups"] = groups
        else:
            entry["seeded_inputs"] = case.args
        if case.torch:
            entry["torch"] = {k: v for k, v in case.torch.items()
                              if k != "source"}
            if "source" in case.torch:
                target = out / case.torch["weights"]
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(case.torch["source"], target)
        return entry

    problems = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        entries = list(pool.map(build_case, cases))
    if problems:
        for problem in problems:
            print(f"gpu-kit: {problem}", file=sys.stderr)
        sys.exit(f"gpu-kit: {len(problems)} problem(s): a case would time a "
                 f"generated kernel where a library call belongs, or a loop "
                 f"on one GPU thread (see above)")

    for name in ("run.sh", "run.py", "README.md", "frontend_models.py",
                 "seeded.py", "baselines.py"):
        shutil.copy2(HERE / name, out / name)
    os.chmod(out / "run.sh", 0o755)
    shutil.copy2(REPO / "python" / "amp_mlir" / "aot.py", out / "amp_aot.py")
    shutil.copy2(REPO / "bench" / "gpu" / "models.py", out / "models.py")
    # models.py takes GELU_BODY from bench/generate.py.
    shutil.copy2(REPO / "bench" / "generate.py", out / "generate.py")
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short",
                             "HEAD"], capture_output=True, text=True)
    manifest = {"format": "amp-gpu-kit-1",
                "commit": commit.stdout.strip() or None,
                "built": time.strftime("%Y-%m-%d %H:%M:%S"),
                "cases": entries}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    unpacked, packed = pack(out)
    size = folder_size(out)
    for line in builder.log:
        print(f"  {line}")
    print(f"gpu-kit: {len(entries)} cases, {size / 2**20:.1f} MiB in {out} "
          f"(built in {time.time() - start:.0f} s; "
          f"{unpacked / 2**20:.1f} MiB of it packed to "
          f"{packed / 2**20:.1f} MiB)")
    if size > SIZE_LIMIT:
        sys.exit(f"gpu-kit: {size / 2**20:.1f} MiB is over the 48 MiB limit")


def _index(path):
    return int("".join(ch for ch in path.stem if ch.isdigit()) or 0)


if __name__ == "__main__":
    main()
