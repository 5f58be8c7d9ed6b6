"""A small ResNet's training step on the GPU pipeline
(test/Frontends/gpu-sim-resnet-training.test).

The model is check_torch_amp_training.py's resnet case: a stem and two
basic blocks (one strided, with a 1x1 projection shortcut), batch norm in
training mode, residual adds, SGD with momentum and weight decay, on the
digits as 1x8x8 images.

Checks, one PASS or FAIL line each:

- at O0, and at O1 and O2 in float16 and bfloat16, every 2-D convolution
  of the imported step is a cuDNN call of the GPU lowering: each forward
  convolution an ampGpuConv2d, each input gradient an
  ampGpuConv2dBackwardData and each weight gradient an
  ampGpuConv2dBackwardFilter (amp-raise-convolution-gradients), and no
  remark says that a convolution was kept as loops; and so with a
  dynamic batch (dynamic_dims=0) at O2 float16 and O1 bfloat16;
- the dynamic-batch step trained for STEPS steps in the GPU simulator (target
  "gpu-sim", the GPU pipeline's output run on the CPU) at O2 float16 and
  O1 bfloat16, on batches of three sizes, matches the CPU pipeline's: the same skipped steps, each
  step's loss, the parameters and the running statistics within BOUND
  (relative; the simulator's library calls and kernels round in another
  order than the CPU's).

Prints "N passed, M failed" last and exits 1 if a check failed.
"""

import copy
import importlib.util
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import torch

import amp_mlir

STEPS = 5
# The small ResNet's convolutions: 6 forward (the stem, two per block, the
# projection shortcut), their 6 weight gradients and 5 input gradients
# (none for the stem's input, the batch).
FORWARD, DATA, FILTER = 6, 5, 6
BOUND = 1e-3
LEVELS = [("O0", None), ("O1", "float16"), ("O2", "float16"),
          ("O1", "bfloat16"), ("O2", "bfloat16")]
# The levels trained in the simulator, with a dynamic batch: each step's
# batch is the case's less CUT[step % len(CUT)] samples.
SIM_LEVELS = [("O2", "float16"), ("O1", "bfloat16")]
# --lower-to-gpu's channels-last (amp-channels-last: NHWC, filters KRSC).
CHANNELS_LAST = {"channels-last": True}
# The simulator's runs: the levels above, and O2 float16 in NHWC.
SIM_RUNS = [(level, dtype, None) for level, dtype in SIM_LEVELS] + [
    ("O2", "float16", CHANNELS_LAST)]
CUT = [0, 3, 1]

passed = failed = 0


def check(ok, message):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + message, flush=True)
    passed += bool(ok)
    failed += not ok


def rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def together(values):
    return np.concatenate([np.asarray(v, np.float64).ravel()
                           for v in values])


def call_layouts(lowered):
    """The layouts (AmpConvLayout) that the convolution calls of the lowered
    (LLVM dialect) module pass."""
    constants = dict(re.findall(r"(%\w+) = llvm\.mlir\.constant\((\d+) : i32\)",
                                lowered))
    return {int(constants.get(first, -1)) for first in
            re.findall(r"call @ampGpuConv2d\w*\((%\w+),", lowered)}


def check_calls(text, level, dtype, label, gpu_options=None):
    """Checks that every convolution of the step `text` at `level` is a
    cuDNN call of the GPU lowering, none kept as loops (with
    channels-last: every call in NHWC/FHWC, layout 2)."""
    convolutions = len(re.findall(r"= linalg\.conv_2d", text))
    step = amp_mlir.make_training_step(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", amp_mlir.AmpRemark)
        lowered = amp_mlir.transform(step, level=level, dtype=dtype,
                                     lower="gpu", gpu_options=gpu_options)
    calls = {kind: len(re.findall(rf"call @ampGpuConv2d{kind}\(", lowered))
             for kind in ("", "BackwardData", "BackwardFilter")}
    kept = [str(w.message) for w in caught
            if "conv" in str(w.message) and "not a library call"
            in str(w.message)]
    layouts = call_layouts(lowered)
    want = {2} if gpu_options else {0}
    check(sum(calls.values()) == convolutions and
          calls == {"": FORWARD, "BackwardData": DATA,
                    "BackwardFilter": FILTER} and not kept and
          layouts == want,
          f"{label}: {sum(calls.values())} cuDNN calls for the "
          f"{convolutions} convolutions of the step: {calls['']} "
          f"forward, {calls['BackwardData']} backward data, "
          f"{calls['BackwardFilter']} backward filter, layouts "
          f"{sorted(layouts)}; {len(kept)} "
          f"kept as loops" + (f": {kept[0]}" if kept else ""))


def main():
    torch.set_num_threads(1)
    # The remarks of the lowering (bounds checks the device drops) are
    # expected; the convolutions' are collected by check_calls.
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    path = Path(__file__).with_name("check_torch_amp_training.py")
    spec = importlib.util.spec_from_file_location("amp_training", path)
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    case = cases.resnet_case(STEPS)
    xb, yb = (torch.from_numpy(b) for b in case.batches[0])

    def step_text(dynamic_dims):
        return amp_mlir.from_torch_training(
            case.model, case.loss_fn,
            case.optimizer(copy.deepcopy(case.model).parameters()), xb, yb,
            dynamic_dims=dynamic_dims)

    text = step_text(None)
    for level, dtype in LEVELS:
        check_calls(text, level, dtype,
                    f"{level}{' ' + dtype if dtype else ''}")
    # A dynamic batch: the same calls, the batch read when they run; the
    # steps below train on batches of several sizes.
    text = step_text(0)
    for level, dtype in SIM_LEVELS:
        check_calls(text, level, dtype, f"dynamic batch, {level} {dtype}")
    check_calls(text, "O2", "float16", "channels-last, O2 float16",
                CHANNELS_LAST)
    batches = [(x[:len(x) - CUT[i % len(CUT)]], y[:len(y) - CUT[i % len(CUT)]])
               for i, (x, y) in enumerate(case.batches)]
    sizes = sorted({len(x) for x, _ in batches})

    initial = amp_mlir.parameters_of(case.model)
    buffers = amp_mlir.buffers_of(case.model)
    for level, dtype, options in SIM_RUNS:
        label = f"{level} {dtype}" + (", channels-last" if options else "")
        runs = {}
        for target in ("cpu", "gpu-sim"):
            extra = {"gpu_options": options} if target != "cpu" and options \
                else {}
            trainer = amp_mlir.Trainer(text, initial, level=level,
                                       dtype=dtype, target=target,
                                       buffers=buffers, **extra)
            results = [trainer.step(*batch) for batch in batches]
            runs[target] = (results, trainer.params, trainer.buffers)
        (cpu, cpu_params, cpu_buffers) = runs["cpu"]
        (sim, sim_params, sim_buffers) = runs["gpu-sim"]
        losses = max(abs(a[0] - b[0]) / abs(a[0]) for a, b in zip(cpu, sim))
        params = rel(together(sim_params.values()),
                     together(cpu_params.values()))
        stats = [n for n in cpu_buffers if "running_" in n]
        statistics = rel(together(sim_buffers[n] for n in stats),
                         together(cpu_buffers[n] for n in stats))
        counts = {int(v) for n, v in sim_buffers.items()
                  if n.endswith("num_batches_tracked")}
        skips = [bool(s) for _, s in sim]
        check([bool(s) for _, s in cpu] == skips and
              all(v <= BOUND for v in (losses, params, statistics)) and
              counts == {STEPS},
              f"{label}: gpu-sim against the CPU over {STEPS} steps "
              f"(batches of {', '.join(map(str, sizes))}): step "
              f"losses within {losses:.1e}, parameters {params:.1e}, "
              f"running statistics {statistics:.1e} (<= {BOUND:g}); "
              f"skipped {sum(skips)}; num_batches_tracked {sorted(counts)}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
