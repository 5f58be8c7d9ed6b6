"""The small ResNet trained for 100 steps against PyTorch's own AMP loop, on
the CPU and in the GPU simulator
(test/Frontends/torch-amp-resnet-100-steps.test).

The model, data and optimizer are check_torch_amp_training.py's resnet case
(a stem and two basic blocks, one strided with a projection shortcut; batch
norm in training mode; scikit-learn's digits as 1x8x8 images, batches of
64; SGD with momentum 0.9 and weight decay 5e-4), at a learning rate of
0.003 instead of 0.01: at 0.01 its 100-step training is chaotic (PyTorch's
own fp32 run from weights perturbed by 1e-6 ends about 2% away in loss, and
amp-mlir's O0 about 3.5% from PyTorch's fp32), so that no bound of 1% would
measure the precision; at 0.003 the same perturbation moves the final loss
by a few 1e-4 and the model still trains.

PyTorch trains it from the same initial weights on the same batches with
torch.autocast("cpu", float16) and torch.amp.GradScaler, with autocast in
bfloat16, and in fp32. The float16 runs' scaler (GradScaler's settings on
both sides, the step's #amp.loss_scaling attribute) is the 20-step test's
jump between 2^28 and 2^15, with a growth interval of GROWTH_INTERVAL
steps: a few skipped steps, each on both sides, none depending on rounding.
amp-mlir trains through from_torch_training and Trainer at O0, at O1 and O2
in float16 and bfloat16 on the CPU, and at O2 float16 in the GPU simulator
(target "gpu-sim": the GPU pipeline's output, its library calls and
kernels, run on the CPU). A final loss is the cross-entropy of the final
fp32 parameters and running statistics on the whole dataset, computed by
PyTorch in fp32 in eval mode.

The checks, one PASS or FAIL line each:

- O0's final loss within 1% of PyTorch fp32's;
- the float16 scales at least 4x from every overflow point at the initial
  weights (PyTorch's and amp-mlir's);
- each low-precision run's final loss within 1% of PyTorch AMP's in the
  same type (issue 43's criterion);
- each float16 run's loss scale after every step equals GradScaler's, and
  it skips PyTorch's steps;
- each low-precision run's batch-norm running statistics against PyTorch
  AMP's: the L2 norm of the difference of all running means and variances
  together over that of PyTorch AMP's. Issue 43 asks for 1e-3; the line
  says whether it is met. It is not reachable after 100 steps: the run
  turns a relative perturbation of 1e-6 of the initial weights into about
  1e-3 in the final parameters and 3e-3 in the running statistics, and
  the NOTE lines print that spread and fp32 against fp32 (amp-mlir's O0
  against PyTorch's), both above 1e-3. The bound checked is STATS_FACTOR
  times how far PyTorch AMP's running statistics are from PyTorch fp32's
  (for float16: fp32 with the same steps skipped): a run no further from
  fp32 than PyTorch AMP is lies within twice that of PyTorch AMP (the
  triangle inequality). Every run's num_batches_tracked is 100, skipped
  steps included.

Prints "N passed, M failed" last and exits 1 if a check failed.
"""

import copy
import importlib.util
import sys
import time
import types
import warnings
from pathlib import Path

import torch

import amp_mlir

STEPS = 100
LR = 0.003
GROWTH_INTERVAL = 25
LOSS_VS_TORCH_AMP = 0.01   # issue 43's 1%
STATS_CRITERION = 1e-3     # issue 43's; reported, not reachable (above)
STATS_FACTOR = 2.0
PERTURBATION = 1e-6
# On the CPU: every level in float16 and bfloat16; in the simulator: O2
# float16 (about 0.85 s a step on one core).
CPU_LEVELS = [("O1", "float16"), ("O2", "float16"), ("O1", "bfloat16"),
              ("O2", "bfloat16")]
SIM_LEVELS = [("O2", "float16")]

path = Path(__file__).with_name("check_torch_amp_training.py")
spec = importlib.util.spec_from_file_location("amp_training", path)
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
# The 20-step test's scaler, growing back after GROWTH_INTERVAL clean steps
# (cases.torch_train and cases.with_scaler read it).
cases.SCALER = dict(cases.SCALER, growth_interval=GROWTH_INTERVAL)
check = cases.check
rel = cases.rel
SHORT = cases.SHORT


def statistics_difference(run, reference):
    return cases.statistics_difference(run, reference)


def torch_fp32_skipping(case, skip):
    """PyTorch's fp32 run that leaves out the optimizer step at the steps
    in `skip` (the forward still updates the running statistics, as in a
    skipped AMP step): the yardstick of the float16 runs."""
    model = copy.deepcopy(case.model)
    optimizer = case.optimizer(model.parameters())
    for index, batch in enumerate(case.batches):
        xb, yb = (torch.from_numpy(b) for b in batch)
        model.train()
        optimizer.zero_grad(set_to_none=True)
        case.loss_fn(model(xb), yb).backward()
        if index not in skip:
            optimizer.step()
    run = types.SimpleNamespace(buffers=amp_mlir.buffers_of(model))
    run.final = cases.evaluate(case, model)
    return run


def perturbed(case):
    """The case with its initial weights multiplied by 1 + PERTURBATION *
    N(0, 1), elementwise."""
    model = copy.deepcopy(case.model)
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1 + PERTURBATION * torch.randn(p.shape,
                                                  generator=generator))
    return types.SimpleNamespace(**{**vars(case), "model": model})


def counts_of(run):
    return sorted({int(v) for n, v in run.buffers.items()
                   if n.endswith("num_batches_tracked")})


def main():
    torch.set_num_threads(1)
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    start = time.monotonic()
    case = cases.resnet_case(STEPS, lr=LR)
    xb, yb = (torch.from_numpy(b) for b in case.batches[0])
    plain = amp_mlir.from_torch_training(
        case.model, case.loss_fn,
        case.optimizer(copy.deepcopy(case.model).parameters()), xb, yb)
    initial = amp_mlir.parameters_of(case.model)
    buffers = amp_mlir.buffers_of(case.model)
    initial_loss = cases.evaluate(case, copy.deepcopy(case.model))

    # PyTorch: fp32, its spread, AMP.
    fp32 = cases.torch_train(case, None)
    spread = cases.torch_train(perturbed(case), None)
    torch_runs, torch_skipped = cases.torch_amp_runs(case)
    references = {"float16": torch_fp32_skipping(case, set(torch_skipped)),
                  "bfloat16": fp32}
    print(f"NOTE resnet {STEPS} steps at lr {LR:g}: PyTorch fp32 final loss "
          f"{fp32.final:.4f} (initial {initial_loss:.4f}); from weights "
          f"perturbed by {PERTURBATION:g}: final loss apart by "
          f"{rel(spread.final, fp32.final):.1e}, running statistics by "
          f"{statistics_difference(spread, fp32):.1e}", flush=True)
    amp_distance = {}
    for dtype, run in torch_runs.items():
        amp_distance[dtype] = statistics_difference(run, references[dtype])
        print(f"NOTE resnet PyTorch AMP {SHORT[dtype]} final loss "
              f"{run.final:.4f}, skipped {sum(run.skipped)} of {STEPS}; "
              f"running statistics {amp_distance[dtype]:.1e} from PyTorch "
              f"fp32's"
              f"{' with the same steps skipped' if dtype == 'float16' else ''}"
              f" (final loss {references[dtype].final:.4f})", flush=True)

    # amp-mlir's O0 against PyTorch fp32: fp32 against fp32.
    o0 = cases.amp_train(case, amp_mlir.Trainer(plain, initial, level="O0",
                                                 buffers=buffers))
    r = rel(o0.final, fp32.final)
    check(r <= LOSS_VS_TORCH_AMP and not any(o0.skipped),
          f"resnet O0 final loss {o0.final:.6f} vs PyTorch fp32 "
          f"{fp32.final:.6f}: rel {r:.1e} <= {LOSS_VS_TORCH_AMP:g}, "
          f"{len(o0.losses)} steps")
    o0_distance = statistics_difference(o0, fp32)
    print(f"NOTE resnet O0 running statistics {o0_distance:.1e} from "
          f"PyTorch fp32's (fp32 against fp32)", flush=True)

    trainers = cases.make_trainers(
        plain, initial, {"cpu": CPU_LEVELS, "gpu-sim": SIM_LEVELS}, buffers=buffers)

    cases.check_overflow_margins(
        "resnet", case, {f"{target} {level}": trainer
                         for (target, level, dtype), trainer in
                         trainers.items() if dtype == "float16"})

    def statistics(label, dtype, run, reference):
        d = statistics_difference(run, reference)
        bound = STATS_FACTOR * amp_distance[dtype]
        counts, torch_counts = counts_of(run), counts_of(reference)
        met = "met" if d <= STATS_CRITERION else "not met"
        check(d <= bound and counts == torch_counts == [STEPS],
              f"{label} running statistics vs PyTorch AMP's: rel {d:.1e} "
              f"(issue 43's {STATS_CRITERION:g}: {met}) <= "
              f"{STATS_FACTOR:g}x PyTorch AMP's own distance from fp32 "
              f"{amp_distance[dtype]:.1e}; num_batches_tracked {counts} "
              f"(PyTorch {torch_counts})")

    cases.train_and_check("resnet", case, trainers, torch_runs,
                          torch_skipped, statistics)
    print(f"NOTE resnet: {time.monotonic() - start:.1f} s", flush=True)
    print(f"{cases.passed} passed, {cases.failed} failed")
    return 1 if cases.failed else 0


if __name__ == "__main__":
    sys.exit(main())
