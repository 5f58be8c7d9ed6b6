#!/usr/bin/env python3
"""Static bounds of the GPU kit's models, from the GPU simulator (no GPU).

    /usr/bin/python3 bench/gpu/sim_bounds.py [--build build] [--models a,b]
      [--json FILE] [--from-json FILE] [--update-doc docs/performance.md]
      [--check] [--compare FILE]

For each model of the GPU kit (scripts/gpu-kit/build_kit.py), at a small
size with the kit's structure, and each level: the module is compiled by
amp-compile --target=gpu-sim and called twice in the simulator
(libamp_runtime_gpusim.so) on seeded inputs; the second call is the step
measured (the first uploads the constants once). Per step:

  kernel launches, library calls (cuBLAS/cuBLASLt/cuDNN calls as the
  simulator serves them), host synchronizations, device allocations,
  device memory bytes moved (kernels' checked accesses, library calls'
  operands from their shapes, copies) against the ideal (every device
  buffer that is read, read once, and every one written, written once;
  AmpSimStats::idealBytes), FLOPs, and the roofline estimate for an H100
  SXM and an H200 (ampSimEstimate, AmpGpuSim.h; docs/gpu.md says what it
  models and what it ignores).

The counts include what the harness does in a step, as the kit's runner
does it: uploading the inputs, downloading the results (each download
synchronizes).

A contraction or convolution of a model that the GPU lowering keeps as a
generated kernel (amp-opt's remark "kept as a generated kernel, not a
library call", at the row's level) fails the run, unless the model states
why (MODELS' `reason`); the table shows the count and the reason.

--update-doc writes the table between the gpu-sim-bounds markers of
docs/performance.md (scripts/doctables.py); --from-json renders a kept run
(bench/results/gpu-sim-bounds.json), --check compares the document with it.
--compare FILE measures the models named and compares every count with the
kept run's exactly, the estimates within a relative 1e-6.

resnet18 (the kit's frontend model: torchvision's, weights as arguments,
exported with a dynamic batch) needs the frontend environment
(.venv-frontends, or --torch-python); without it its rows are left out of
a fresh run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "scripts"))
import doctables  # noqa: E402
import models  # noqa: E402  bench/gpu/models.py
from amp_mlir import aot  # noqa: E402  numpy + ctypes only
sys.path.insert(0, str(REPO / "scripts" / "gpu-kit"))
from seeded import random_arguments  # noqa: E402

SCRIPT = "bench/gpu/sim_bounds.py"
BLOCK = "gpu-sim-bounds"
CHIPS = ("h100-sxm", "h200")
O0_O2 = [("O0", None), ("O2", "f16"), ("O2", "bf16")]
O0_O2_F16 = [("O0", None), ("O2", "f16")]


class Model:
    """A kit model: `source` is a path, module text, or a callable(work
    dir, torch python, build, batch) that writes the module at that batch
    and returns its path; `reason` says why contractions of it may be
    generated kernels.

    `extrapolate` (a batch size B > 3): the model is simulated at batch 2
    and 3 in count-only mode (library calls counted, not computed) and
    each launch's bytes and FLOPs are extrapolated linearly to B, which is
    exact for a static-shape module whose buffers are either independent
    of the batch or proportional to it (the same launches at every batch).
    Batch 1 is not a base: the compiler folds unit dimensions, and its
    launches differ.
    `check_at` (a batch): the module is also simulated there in full (not
    count-only), and every launch's extrapolated counts must equal the
    measured ones exactly.
    `kit`: the kit row (export_models.py's name) the estimate is for;
    `count_only` (default: with `extrapolate` or `kit`) runs it in
    count-only mode."""

    def __init__(self, name, size, source, entry, levels, reason=None,
                 batch=1, frontend=False, extrapolate=None, check_at=None,
                 kit=None, count_only=None):
        self.name, self.size, self.source, self.entry = (name, size, source,
                                                         entry)
        self.levels, self.reason, self.batch = levels, reason, batch
        self.frontend = frontend
        # Count-only mode (gpu.md): for the models too large to compute
        # here, and those extrapolated.
        self.count_only = bool(extrapolate or kit) if count_only is None \
            else count_only
        self.extrapolate, self.check_at, self.kit = (extrapolate, check_at,
                                                     kit)


def _text(generated):
    return generated[0]


def module_of(out):
    """The module export_models.py wrote for OUT.mlir's row: OUT.mlir, or
    the one its OUT.json names (a training step, shared by batch sizes)."""
    info = json.loads(out.with_suffix(".json").read_text())
    return out.parent / info.get("module", out.name)


def export_kit_model(name, **overrides):
    """A source that exports export_models.py's KIT_MODELS[name] with
    `overrides` (image, config, seq) at the batch asked, with the frontend
    environment's Python: the kit's module at another size."""

    def export(work, torch_python, build, batch):
        settings = dict(overrides, batch=batch)
        tag = name + "".join(f"_{key}{value}" for key, value in sorted(
            settings.items()) if key != "config")
        out = Path(work) / f"{tag}.mlir"
        if out.with_suffix(".json").exists():
            return module_of(out)
        code = f"""
import json, sys
sys.path.insert(0, {str(REPO / 'python')!r})
sys.path.insert(0, {str(REPO / 'scripts' / 'gpu-kit')!r})
import export_models
spec = dict(export_models.KIT_MODELS[{name!r}])
spec.update(json.loads({json.dumps(settings)!r}))
export_models.export_one({tag!r}, spec, {str(work)!r})
"""
        subprocess.run([torch_python, "-c", code], check=True,
                       capture_output=True, text=True,
                       env=dict(os.environ, AMP_MLIR_ROOT=str(build)))
        return module_of(out)

    return export


_SMALL_GPT2 = "2 layers of 64, 4 heads"
_TRAIN_SMALL = "batch 2, 64x64, SGD step"
_FROM = " (from 2 and 3)"
_GPT2 = "12 layers of 768, 12 heads"
ALL_LEVELS = [("O0", None), ("O1", "f16"), ("O1", "bf16"), ("O2", "f16"),
              ("O2", "bf16")]


MODELS = [
    Model("gemm", "256x256x256", _text(models.gemm(256, 256, 256)), "gemm",
          O0_O2),
    Model("chain", "256x512", _text(models.chain(256, 512)), "chain",
          O0_O2_F16),
    Model("mlp", "64 tokens, 64-256-256-64", _text(models.mlp(
        64, [64, 256, 256, 64])), "mlp", O0_O2),
    Model("transformer", "2x16 tokens, dim 64, 4 heads, 1 block",
          _text(models.transformer(2, 16, 64, 4, 1)), "transformer", O0_O2),
    Model("tosa_mlp_classifier", "examples/",
          REPO / "examples" / "tosa_mlp_classifier.mlir", "classifier_loss",
          O0_O2_F16),
    Model("convnet", "examples/", REPO / "examples" / "linalg_convnet.mlir",
          "convnet", O0_O2_F16),
    Model("mlp_train_step", "examples/, one step",
          REPO / "examples" / "mlp_training.mlir", "train_step", O0_O2_F16),
    # The kit's frontend models (scripts/gpu-kit/export_models.py) at their
    # kit size: static shapes, weights as arguments.
    Model("resnet18", "batch 8, 64x64", export_kit_model("resnet18",
                                                         image=64),
          "main", ALL_LEVELS, frontend=True, batch=8, kit="resnet18"),
    Model("resnet50", "batch 2, 32x32", export_kit_model("resnet50_small",
                                                         image=32),
          "main", O0_O2, frontend=True, batch=2, kit="resnet50_small"),
    Model("gpt2", f"batch 2 x 64 tokens, {_SMALL_GPT2}",
          export_kit_model("gpt2_small", seq=64), "main", O0_O2,
          frontend=True, batch=2, kit="gpt2_small"),
    # ResNet-50's training step (forward, backward, unscale and check, SGD
    # with momentum, the scale update; a dynamic batch) at the kit's small
    # size.
    Model("resnet50_train", _TRAIN_SMALL,
          export_kit_model("resnet50_train_small"), "forward_backward",
          O0_O2_F16, frontend=True, batch=2, kit="resnet50_train_small"),
    # The structure of the real-size rows, and the check of the
    # extrapolation they use: batch 5 predicted from 2 and 3, and measured.
    Model("resnet50", f"batch 5{_FROM}, 32x32",
          export_kit_model("resnet50_small", image=32), "main",
          [("O0", None), ("O2", "f16")], frontend=True, extrapolate=5,
          check_at=5),
    Model("gpt2", f"batch 5{_FROM} x 64 tokens, {_SMALL_GPT2}",
          export_kit_model("gpt2_small", seq=64), "main",
          [("O0", None), ("O2", "f16")], frontend=True, extrapolate=5,
          check_at=5),
    # The kit's small PyTorch models at their kit size, every level (their
    # kit rows get these estimates): test/Frontends' MLP (batch 64) and
    # transformer classifier (batch 32 x 12 tokens), with a dynamic batch
    # and their weights as constants, and the imported Adam training step.
    Model("torch_mlp", "batch 64 (dynamic), 64-128-64-10",
          export_kit_model("mlp"), "main", ALL_LEVELS, frontend=True,
          batch=64, kit="mlp", count_only=False),
    Model("torch_transformer", "batch 32 (dynamic) x 12 tokens, 1 block",
          export_kit_model("transformer"), "main", ALL_LEVELS,
          frontend=True, batch=32, kit="transformer", count_only=False),
    Model("torch_mlp_train", "batch 64, Adam step",
          export_kit_model("mlp_train"), "forward_backward", O0_O2,
          frontend=True, batch=64, kit="mlp_train", count_only=False),
]
# The kit's real-size rows (make gpu-kit), extrapolated from batch 2 and 3
# at their image size and sequence length (batch 1 measured); minutes of
# simulation each, so not in the default run (--models names them;
# --kit-size adds them all).
KIT_SIZE = [
    Model("resnet50", f"batch {batch}{_FROM if batch > 1 else ''}, 224x224",
          export_kit_model("resnet50_b1", image=224), "main", ALL_LEVELS,
          frontend=True, batch=1 if batch == 1 else None,
          extrapolate=batch if batch > 1 else None, kit=f"resnet50_b{batch}")
    for batch in (1, 32, 256)] + [
    Model("gpt2", f"batch {batch}{_FROM if batch > 1 else ''} x 1024 "
                  f"tokens, {_GPT2}",
          export_kit_model("gpt2_b1", seq=1024), "main", ALL_LEVELS,
          frontend=True, batch=1 if batch == 1 else None,
          extrapolate=batch if batch > 1 else None, kit=f"gpt2_b{batch}")
    for batch in (1, 8)] + [
    # ResNet-50's training step at batch 256 (the issue's estimate), at the
    # levels of its performance goals.
    Model("resnet50_train", f"batch 256{_FROM}, 224x224, SGD step",
          export_kit_model("resnet50_train_b256"), "forward_backward",
          [("O0", None), ("O1", "f16"), ("O2", "f16")], frontend=True,
          extrapolate=256, kit="resnet50_train_b256"),
    # GPT-2 124M's training step (AdamW) at the kit's batch (issue 44's
    # estimate), at the levels of its performance goals.
    Model("gpt2_train", f"batch 8{_FROM} x 1024 tokens, {_GPT2}, AdamW "
                        f"step",
          export_kit_model("gpt2_train_b8"), "forward_backward",
          [("O0", None), ("O1", "f16"), ("O2", "f16")], frontend=True,
          extrapolate=8, kit="gpt2_train_b8")]
# Names for --models: a model's name, or its kit row's where the name is
# taken (the real-size rows, the small ResNet-50 and GPT-2 of the kit).
for _model in MODELS + KIT_SIZE:
    _model.key = _model.name
for _model in KIT_SIZE + [m for m in MODELS
                          if m.kit in ("resnet50_small", "gpt2_small",
                                       "resnet50_train_small")]:
    _model.key = _model.kit
BY_NAME = {m.key: m for m in MODELS + KIT_SIZE}


def label(level, dtype):
    return level if level == "O0" else f"{level} {dtype}"


def module_path(model, work, torch_python, build, batch=None):
    if callable(model.source):
        return Path(model.source(work, torch_python, build,
                                 batch or model.batch or 1))
    if isinstance(model.source, Path):
        return model.source
    path = Path(work) / f"{model.name}.mlir"
    path.write_text(model.source)
    return path


GENERATED_MARKER = "kept as a generated kernel, not a library call: "
ONE_THREAD_MARKER = "amp: this loop runs on one GPU thread ("


def lowering_remarks(amp_opt, path, level, dtype, gpu_options=()):
    """What amp-opt's GPU lowering (with `gpu_options`, 'name=value' each)
    says of the module at this level: {"contractions": the reason for each
    contraction or convolution kept as a generated kernel, "one_thread":
    each loop that runs on one GPU thread, as "N iterations" or "a dynamic
    number of iterations"}."""
    command = [str(amp_opt), str(path)]
    if level != "O0":
        command.append(f"--amp-{level.lower()}=dtype={dtype}")
    command += [f"--lower-to-gpu={' '.join(['simulate=true', *gpu_options])}",
                "-o", os.devnull]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr}")
    lines = result.stderr.splitlines()
    return {
        "contractions": [line.split(GENERATED_MARKER, 1)[1].strip()
                         for line in lines if GENERATED_MARKER in line],
        "one_thread": [line.split(ONE_THREAD_MARKER, 1)[1].split(")", 1)[0]
                       for line in lines if ONE_THREAD_MARKER in line],
    }


def generated_contractions(amp_opt, path, level, dtype, gpu_options=()):
    """The reasons amp-opt gives for each contraction or convolution that
    the GPU lowering (with `gpu_options`, 'name=value' each) keeps as a
    generated kernel at this level."""
    return lowering_remarks(amp_opt, path, level, dtype,
                            gpu_options)["contractions"]


def make_inputs(function, batch, seed):
    return random_arguments(function, batch, np.random.default_rng(seed))


def simulate(model, level, dtype, path, build, work, count_only, batch=None,
             gpu_options=()):
    """One step of the module at `path` in the simulator, after a warm-up
    call: (stats, launches, estimates by chip, the loaded library). A
    dynamic dimension is `batch` (default: the model's); a module shared
    by several batches (a training step) is compiled once per level (and
    set of `gpu_options`, --lower-to-gpu's 'name=value' each)."""
    tag = Path(path).stem + f".{level}" + (f"-{dtype}" if dtype else "") + \
        "".join(f"-{option}" for option in gpu_options)
    library = Path(work) / f"{tag}.so"
    command = [str(build / "bin" / "amp-compile"), str(path), "-o",
               str(library), f"--level={level}", "--target=gpu-sim",
               f"--entry={model.entry}"]
    if dtype:
        command.append(f"--dtype={dtype}")
    if gpu_options:
        command.append(f"--gpu-options={' '.join(gpu_options)}")
    if not (library.exists() and library.stat().st_mtime >=
            Path(path).stat().st_mtime):
        subprocess.run(command, check=True, capture_output=True, text=True)
    loaded = aot.load(str(library), runtime_dir=str(build / "lib"))
    function = loaded[model.entry]
    inputs = make_inputs(function, batch or model.batch or 1,
                         seed=len(model.name))
    loaded.count_only(count_only)
    try:
        function(*inputs)  # warm-up: constants are uploaded once
        loaded.reset_simulator()
        function(*inputs)
    finally:
        loaded.count_only(False)
    return (loaded.simulator_stats(), loaded.launches(),
            {chip: loaded.estimate(chip) for chip in CHIPS}, loaded)


def _signature(launch):
    """What must match between the two runs, launch by launch: the kind,
    the compute peak, library or not. Not a kernel's name: the compiler
    merges kernels whose bodies are equal, and a batch size that equals
    another constant of the module makes two bodies equal (GPT-2 at O1:
    launch #222 is main_kernel_71 at batch 2 and main_kernel at batch 3)."""
    return (launch["kind"], launch["peak"], launch["library"])


# The batches an extrapolation starts from (consecutive: the step is exact
# in integers).
BASES = (2, 3)


def extrapolate(one, two, batch, bases=BASES):
    """The launches of batch `batch` from those of the batches `bases`
    (consecutive): each count c1 + (batch - bases[0]) * (c2 - c1). The two
    runs must make the same launches (kind, peak, library or not, in
    order). ValueError otherwise, or for a negative count."""
    low, high = bases
    if len(one) != len(two):
        raise ValueError(f"batch {low} makes {len(one)} launches and batch "
                         f"{high} {len(two)}: not extrapolable")
    result = []
    for index, (a, b) in enumerate(zip(one, two)):
        if _signature(a) != _signature(b):
            raise ValueError(f"launch #{index} differs between batch {low} "
                             f"({_signature(a)}) and {high} "
                             f"({_signature(b)})")
        launch = dict(a)
        for key in aot.LAUNCH_COUNTS:
            launch[key] = a[key] + (batch - low) * (b[key] - a[key])
            if launch[key] < 0:
                raise ValueError(f"launch #{index}: {key} extrapolates to "
                                 f"{launch[key]}")
        result.append(launch)
    return result


def check_extrapolation(predicted, measured):
    """The launches where an extrapolation differs from the measurement
    ('#index key: predicted vs measured'); empty when exact."""
    if len(predicted) != len(measured):
        return [f"{len(predicted)} launches predicted, {len(measured)} "
                f"measured"]
    return [f"#{index} {key}: {p[key]} predicted, {m[key]} measured"
            for index, (p, m) in enumerate(zip(predicted, measured))
            for key in aot.LAUNCH_COUNTS if p[key] != m[key]]


def measure_row(model, level, dtype, path, build, work, torch_python=None,
                gpu_options=()):
    count_only = model.count_only
    if model.extrapolate:
        path = module_path(model, work, torch_python, build, batch=BASES[0])
    stats, launches, estimates, loaded = simulate(
        model, level, dtype, path, build, work, count_only,
        batch=BASES[0] if model.extrapolate else None,
        gpu_options=gpu_options)
    h100 = estimates[CHIPS[0]]
    records = h100["records"]
    row_extra = {}
    if model.extrapolate:
        path2 = module_path(model, work, torch_python, build,
                            batch=BASES[1])
        stats2, launches2, _, _ = simulate(model, level, dtype, path2, build,
                                           work, count_only, batch=BASES[1],
                                           gpu_options=gpu_options)
        launches = extrapolate(launches, launches2, model.extrapolate)
        if model.check_at:
            path3 = module_path(model, work, torch_python, build,
                                batch=model.check_at)
            # Simulated in full (every block, every library call computed):
            # the check covers count-only mode's sampling too.
            _, measured, _, _ = simulate(model, level, dtype, path3, build,
                                         work, count_only=False,
                                         batch=model.check_at,
                                         gpu_options=gpu_options)
            problems = check_extrapolation(launches, measured)
            if problems:
                raise RuntimeError(
                    f"{model.name} {label(level, dtype)}: the extrapolation "
                    f"to batch {model.check_at} differs from the "
                    f"simulation: {'; '.join(problems[:5])}")
            row_extra["extrapolation_checked"] = len(launches)
        stats = dict(stats, idealBytes=stats["idealBytes"] + (
            model.extrapolate - BASES[0]) * (stats2["idealBytes"] -
                                             stats["idealBytes"]))
        estimates = {chip: loaded.estimate_launches(launches, chip)
                     for chip in CHIPS}
        # The batch-B module is the one checked for generated kernels.
        path = module_path(model, work, torch_python, build,
                           batch=model.extrapolate)
        flops = sum(launch["flops"] for launch in launches)
        # The top records by their launches' estimate, as the records give
        # it for a simulated step.
        by_record = {}
        for launch in launches:
            by_record.setdefault(launch["record"], []).append(launch)
        seconds = {index: loaded.estimate_launches(group, CHIPS[0])["seconds"]
                   for index, group in by_record.items()}
        top = [{"name": records[index]["name"],
                "kind": records[index]["kind"],
                "us": round(seconds[index] * 1e6, 6), "bound": None}
               for index in sorted(seconds, key=lambda i: -seconds[i])[:3]]
    else:
        flops = stats["kernelFlops"] + stats["libraryFlops"]
        top = [{"name": r["name"], "kind": r["kind"],
                "us": round(r["seconds"] * 1e6, 6), "bound": r["bound"]}
               for r in sorted(records, key=lambda r: -r["seconds"])[:3]]
    kernels = sum(1 for record in records if record["kind"] == "kernel")
    gpu_launches = sum(1 for launch in launches if launch["kind"] != "copy")
    moved = sum(launch["bytes_read"] + launch["bytes_written"]
                for launch in launches)
    row = {
        "model": model.name, "size": model.size,
        "level": label(level, dtype) + "".join(
            f" {option.split('=')[0]}" for option in gpu_options),
        "kernels": kernels, "launches": stats["launches"],
        "library_calls": stats["libraryCalls"],
        "gpu_launches": gpu_launches,
        "syncs": stats["synchronizations"],
        "allocations": stats["allocations"],
        "bytes_moved": moved, "ideal_bytes": stats["idealBytes"],
        "flops": flops,
        "generated_contractions": generated_contractions(
            build / "bin" / "amp-opt", path, level, dtype, gpu_options),
        "reason": model.reason,
        "estimate_us": {chip: round(e["seconds"] * 1e6, 6)
                        for chip, e in estimates.items()},
        "estimate_parts_us": {chip: {
            "kernels": round(e["kernel_seconds"] * 1e6, 6),
            "library": round(e["library_seconds"] * 1e6, 6),
            "copies": round(e["copy_seconds"] * 1e6, 6)}
            for chip, e in estimates.items()},
        "top_h100": top,
    }
    if model.kit:
        row["kit"] = model.kit
    if model.extrapolate:
        row["extrapolated_from"] = list(BASES)
    row.update(row_extra)
    return row


def failures(run):
    """Rows whose contractions became generated kernels without a stated
    reason."""
    return [f"{r['model']} {r['level']}: {len(r['generated_contractions'])} "
            f"contraction(s)/convolution(s) are generated kernels "
            f"({'; '.join(sorted(set(r['generated_contractions'])))}) and "
            f"the model states no reason"
            for r in run["rows"]
            if r["generated_contractions"] and not r.get("reason")]


def _mb(nbytes):
    return f"{nbytes / 1e6:.3f}"


def estimate(row, chip):
    """"total (kernels + library calls)", in µs."""
    parts = row["estimate_parts_us"][chip]
    return (f"{row['estimate_us'][chip]:.1f} "
            f"({parts['kernels'] + parts['library']:.1f})")


def training_summary(rows):
    """The figures the prose reads of the ResNet-50 training step at batch
    256: bytes against the ideal at O2, and O2's estimated speed against O0
    and O1 (H100)."""
    step = {r["level"]: r for r in rows if r["model"] == "resnet50_train"
            and r["size"].startswith("batch 256 ")}
    o2 = step.get("O2 f16")
    if not o2 or "O0" not in step:
        return []
    time = lambda r: r["estimate_us"]["h100-sxm"]  # noqa: E731
    line = (f"The ResNet-50 training step at batch 256, O2: "
            f"{o2['bytes_moved'] / o2['ideal_bytes']:.2f} times the ideal "
            f"bytes; estimated {time(step['O0']) / time(o2):.2f} times O0's "
            f"speed")
    if "O1 f16" in step:
        line += f" and {time(step['O1 f16']) / time(o2):.2f} times O1's"
    return ["", line + " (H100)."]


def render(run):
    lines = [
        f"Measured by `{SCRIPT}` on {run['date']} ({run['machine']}, no "
        f"GPU): one step of each model in the GPU simulator, after a "
        f"warm-up call. Launches, syncs and allocations are per step; MB "
        f"moved is device memory traffic (kernels' accesses as requested, "
        f"library calls' operands, copies) against the ideal (each buffer "
        f"read once and written once); the estimates are the simulator's "
        f"roofline (uncalibrated: see [gpu.md](gpu.md#the-roofline-estimate"
        f"-of-the-simulator)) of the whole step, and in parentheses of its "
        f"kernels and library calls alone (without the step's uploads and "
        f"downloads).",
        "",
        "| model | size | level | kernels / launches | library calls | "
        "syncs | allocations | MB moved / ideal | MFLOP | H100 SXM est. "
        "(µs) | H200 est. (µs) | contractions as kernels |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in run["rows"]:
        gen = len(r["generated_contractions"])
        note = "0" if not gen else f"{gen}: {r['reason']}" if r.get(
            "reason") else f"{gen} (no reason: fails)"
        ratio = r["bytes_moved"] / r["ideal_bytes"] if r["ideal_bytes"] else 0
        lines.append(
            f"| {r['model']} | {r['size']} | {r['level']} | {r['kernels']} "
            f"/ {r['launches']} | {r['library_calls']} | {r['syncs']} | "
            f"{r['allocations']} | {_mb(r['bytes_moved'])} / "
            f"{_mb(r['ideal_bytes'])} ({ratio:.2f}×) | "
            f"{r['flops'] / 1e6:.3f} | {estimate(r, 'h100-sxm')} | "
            f"{estimate(r, 'h200')} | {note} |")
    lines += training_summary(run["rows"])
    if run.get("left_out"):
        lines += ["", "Left out of this run: " + "; ".join(run["left_out"])
                  + "."]
    kept = run.get("kept_from")
    if kept:
        lines += ["", f"{kept['rows']} rows are kept from the run of "
                  f"{kept['date']} (`--keep-from`), those this run did not "
                  f"measure: {'; '.join(kept['models'])}."]
    return "\n".join(lines) + "\n"


def keep_rows(run, kept):
    """Adds to `run` the rows of `kept` it did not measure (by model, size
    and level), in `kept`'s order (a re-measured row takes its old row's
    place; new rows go last), and records where they come from."""
    fresh = {(r["model"], r["size"], r["level"]): r for r in run["rows"]}
    rows, used, models, count = [], set(), [], 0
    for old in kept["rows"]:
        key = (old["model"], old["size"], old["level"])
        if key in fresh:
            rows.append(fresh[key])
            used.add(key)
            continue
        rows.append(old)
        count += 1
        label = f"{old['model']} {old['size']}"
        if label not in models:
            models.append(label)
    rows += [r for key, r in fresh.items() if key not in used]
    run["rows"] = rows
    if count:
        run["kept_from"] = {"date": kept["date"], "machine": kept["machine"],
                            "rows": count, "models": models}


# Counts compared exactly with a kept run; estimates within this relative
# tolerance (computed in double from the counts: the same on any CPU up to
# the order of a few additions).
EXACT = ("kernels", "launches", "library_calls", "gpu_launches", "syncs",
         "allocations", "bytes_moved", "ideal_bytes", "flops",
         "generated_contractions")
ESTIMATE_TOLERANCE = 1e-6


def compare(fresh, kept):
    kept_rows = {(r["model"], r["size"], r["level"]): r
                 for r in kept["rows"]}
    problems, compared = [], 0
    for row in fresh["rows"]:
        old = kept_rows.get((row["model"], row["size"], row["level"]))
        if old is None:
            problems.append(f"{row['model']} {row['level']}: not in the "
                            f"kept run")
            continue
        compared += 1
        for key in EXACT:
            if row[key] != old[key]:
                problems.append(f"{row['model']} {row['level']}: {key} "
                                f"{row[key]} (kept: {old[key]})")
        for chip in CHIPS:
            a, b = row["estimate_us"][chip], old["estimate_us"][chip]
            if abs(a - b) > ESTIMATE_TOLERANCE * max(abs(b), 1e-12):
                problems.append(f"{row['model']} {row['level']}: {chip} "
                                f"estimate {a} us (kept: {b})")
    return compared, problems


def find_torch_python(explicit):
    for candidate in ([explicit] if explicit else []) + [
            os.environ.get("AMP_FRONTENDS_PYTHON"),
            str(REPO / ".venv-frontends" / "bin" / "python")]:
        if candidate and Path(candidate).exists():
            return candidate
    return None


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=str(REPO / "build"))
    parser.add_argument("--models", default=",".join(m.key for m in MODELS),
                        help="comma-separated: the small models by name, "
                             "the kit-size rows by their kit name "
                             f"({', '.join(m.key for m in KIT_SIZE)})")
    parser.add_argument("--kit-size", action="store_true",
                        help="add the kit's real-size rows (ResNet-50 at "
                             "224x224, GPT-2 124M at 1024 tokens; minutes)")
    parser.add_argument("--torch-python", default=None,
                        help="a Python with torch and torchvision, for "
                             "resnet18 (default: .venv-frontends)")
    parser.add_argument("--module", metavar="FILE",
                        help="measure this module instead of the kit's "
                             "models (with --entry, at O0)")
    parser.add_argument("--entry", default="main",
                        help="--module's function (default: main)")
    parser.add_argument("--gpu-options", default="", metavar="TEXT",
                        help="--lower-to-gpu options of every row "
                             "('channels-last=true'); each row's level "
                             "names them")
    parser.add_argument("--compare", metavar="FILE",
                        help="compare the fresh run's counts with a kept run")
    parser.add_argument("--keep-from", metavar="FILE",
                        help="a kept run whose rows this run does not "
                             "measure (by model, size and level) are kept, "
                             "in its order (to re-measure some models "
                             "without the minutes of the others; with "
                             "--from-json, to complete that run); the table "
                             "says which")
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)
    build = Path(args.build).resolve()

    def measure_run():
        run = {"date": time.strftime("%Y-%m-%d"),
               "machine": doctables.machine(), "chips": list(CHIPS),
               "rows": [], "left_out": []}
        torch_python = find_torch_python(args.torch_python)
        chosen = [Model(Path(args.module).stem, "--module",
                        Path(args.module).resolve(), args.entry,
                        [("O0", None)])] if args.module else None
        with tempfile.TemporaryDirectory() as work:
            names = args.models.split(",") + (
                [m.key for m in KIT_SIZE] if args.kit_size else [])
            for name in (names if chosen is None else [chosen[0].name]):
                model = chosen[0] if chosen else BY_NAME.get(name)
                if model is None:
                    parser.error(f"--models: unknown model '{name}' (known: "
                                 f"{', '.join(BY_NAME)})")
                if model.frontend and not torch_python:
                    run["left_out"].append(
                        f"{name} (no Python with torch and torchvision: "
                        f"make frontends, or --torch-python)")
                    continue
                path = module_path(model, work, torch_python, build)
                for level, dtype in model.levels:
                    start = time.time()
                    row = measure_row(model, level, dtype, path, build, work,
                                      torch_python,
                                      tuple(args.gpu_options.split()))
                    print(f"{SCRIPT}: {name} {row['level']} in "
                          f"{time.time() - start:.1f} s", file=sys.stderr)
                    run["rows"].append(row)
        return run

    def measure_and_keep():
        run = measure_run()
        if args.keep_from:
            with open(args.keep_from) as f:
                keep_rows(run, json.load(f))
        return run

    if args.from_json and args.keep_from:
        # A kept run of some models completed with another's other rows.
        with open(args.from_json) as f:
            run = json.load(f)
        with open(args.keep_from) as f:
            keep_rows(run, json.load(f))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(run, f, indent=1)
                f.write("\n")
    else:
        run = doctables.load_or_measure(args, measure_and_keep)
    status = doctables.publish(args, {BLOCK: render(run)}, SCRIPT)
    if args.compare:
        with open(args.compare) as f:
            compared, problems = compare(run, json.load(f))
        for problem in problems:
            print(f"{SCRIPT}: differs from {args.compare}: {problem}")
        print(f"{SCRIPT}: {compared} rows compared with {args.compare}, "
              f"{len(problems)} differences")
        status = status or (1 if problems else 0)
    bad = failures(run)
    for line in bad:
        print(f"{SCRIPT}: FAIL: {line}")
    return status or (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main())
