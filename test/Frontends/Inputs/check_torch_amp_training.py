"""amp-mlir's mixed-precision training against PyTorch's own AMP
(test/Frontends/torch-amp-training.test).

Four models are trained on the CPU from the same initial weights, on the
same batches in the same order, with the same optimizer and settings:

- mlp: Linear-ReLU-Linear on scikit-learn's digits (64 features), Adam;
- cnn: two convolutions, each followed by GroupNorm and ReLU, then a linear
  layer, on the digits as 1x8x8 images, Adam;
- lm: examples/torch_training/lm.py's transformer language model (two
  pre-norm blocks, causal attention; smaller) on its Markov-chain corpus,
  AdamW;
- resnet: a small ResNet (a stem and two basic blocks, one strided with a
  projection shortcut; batch norm in training mode, residual adds) on the
  digits as 1x8x8 images, SGD with momentum and weight decay. Its batch
  norms' running statistics are state of the step (buffers_of).

PyTorch trains each with torch.autocast("cpu", dtype=float16) and
torch.amp.GradScaler("cpu", ...), with autocast in bfloat16 (no scaler),
and in fp32. amp-mlir trains each through from_torch_training and Trainer
(the path of examples/torch_training/train.py) at O0, and at O1 and O2 in
float16 and in bfloat16; the float16 steps carry GradScaler's settings as
their #amp.loss_scaling attribute. A final loss is the cross-entropy of the
final fp32 parameters (and running statistics), computed by PyTorch in
fp32 in eval mode (digits: the whole dataset; lm: a held-out set).

The checks, one PASS or FAIL line each:

- O0 ends within 1e-4 of PyTorch's fp32 run;
- the float16 scales of the runs lie at least 4x from every overflow point
  (the smallest power-of-two scale at which a float16 step from the
  initial weights on batch 0 overflows, PyTorch's and amp-mlir's), so that
  no skip depends on rounding;
- each low-precision run ends within 1% of PyTorch AMP's run in the same
  type;
- each float16 run's loss scale after every step equals GradScaler's, its
  skipped steps are PyTorch's, and it grows and backs off;
- resnet: the running statistics of O0 are within 1e-4 of PyTorch fp32's,
  those of each low-precision run within 1e-2 of PyTorch AMP's (relative
  L2 norm, all together), and every run counted its steps
  (num_batches_tracked), skipped ones too, as PyTorch does;
- amp_mlir.report of each step: at least 0.9 of the level's ideal is stored
  in the low type (ideal_fraction);
- each low-precision run is at least 3x further from amp-mlir's O0 run (for
  float16: O0 with the same steps skipped) than PyTorch's fp32 run is, in
  the losses of its steps and in its parameter update (final minus initial
  parameters).

The float16 overflow points differ (the NOTE lines print them): amp-mlir
keeps a weight gradient's contraction result in f32, which the fp32
unscale and optimizer read, where autocast writes mm's result in float16,
so PyTorch's step overflows at a smaller scale. The scaler's growth and
back-off factors jump across that band, so that both sides skip the same
steps (docs/frontends.md, "Checked against PyTorch's AMP").

The arguments name the cases to run (default: mlp, cnn and lm). Prints "N
passed, M failed" last and exits 1 if a check failed.
"""

import contextlib
import copy
import importlib.util
import math
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np
import torch

import amp_mlir

ROOT = Path(__file__).resolve().parents[3]
nn = torch.nn
F = nn.functional

F16_MAX = 65504.0
# The float16 runs' scaler, GradScaler's settings on both sides: the scale
# starts at HIGH, which overflows, backs off to LOW, grows back to HIGH
# after GROWTH_INTERVAL clean steps, overflows again, ...
LOW, HIGH = 2.0 ** 15, 2.0 ** 28
GROWTH_INTERVAL = 5
SCALER = {"init_scale": HIGH, "growth_factor": HIGH / LOW,
          "backoff_factor": LOW / HIGH, "growth_interval": GROWTH_INTERVAL}
# How far (a factor) LOW and HIGH must lie from every overflow point.
MARGIN = 4.0
# The bounds.
LOSS_VS_TORCH_AMP = 0.01     # the 1%
O0_VS_TORCH_FP32 = 1e-4
STATS_VS_TORCH_AMP = 1e-2
IDEAL_FRACTION = 0.9
# A low-precision run must be this many times further from amp-mlir's O0
# (its step losses, its parameter update) than PyTorch's fp32 run is.
DIFFERS = 3.0

LEVELS = [("O1", "float16"), ("O2", "float16"), ("O1", "bfloat16"),
          ("O2", "bfloat16")]
TORCH_DTYPE = {"float16": torch.float16, "bfloat16": torch.bfloat16}
SHORT = {"float16": "f16", "bfloat16": "bf16"}

passed = failed = 0


def check(ok, message):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + message, flush=True)
    passed += bool(ok)
    failed += not ok


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pow2(value):
    if value == math.inf:
        return "none below 2^40"
    exponent = math.log2(value)
    return f"2^{exponent:g}" if exponent == int(exponent) else f"{value:g}"


def rel(a, b):
    return abs(a - b) / abs(b)


# --- the models --------------------------------------------------------------

def digits_case(name, make, shape, steps, lr, optimizer=None):
    train = load("train", "examples/torch_training/train.py")
    x, y = train.load_dataset("digits")
    x = x.reshape(shape)
    torch.manual_seed(0)
    model = make()
    batches = []
    for step in range(steps):
        rows = train.batch_indices(step, len(x), 64, 0)
        batches.append((x[rows].copy(), y[rows].copy()))
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)
    return types.SimpleNamespace(
        name=name, model=model, loss_fn=F.cross_entropy, batches=batches,
        optimizer=optimizer or (lambda params: torch.optim.Adam(params,
                                                                lr=lr)),
        evaluate=lambda m: float(F.cross_entropy(m(xs), ys)))


def mlp_case(steps):
    return digits_case("mlp", lambda: nn.Sequential(
        nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)), (-1, 64), steps,
        1e-3)


def cnn_case(steps):
    # GroupNorm; the resnet case has batch norm.
    return digits_case("cnn", lambda: nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU(),
        nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.GroupNorm(4, 16),
        nn.ReLU(), nn.Flatten(), nn.Linear(16 * 4 * 4, 10)),
        (-1, 1, 8, 8), steps, 2e-3)


def lm_case(steps, batch=16):
    lm = load("lm", "examples/torch_training/lm.py")
    args = types.SimpleNamespace(vocab=64, width=32, heads=4, blocks=2,
                                 context=16)
    probs = lm.make_corpus(args.vocab, 0)
    rng = np.random.default_rng([0, 2])
    data = lm.sample(probs, steps * batch, args.context + 1, rng)
    held_out = torch.from_numpy(lm.sample(probs, 256, args.context + 1, rng))
    torch.manual_seed(0)
    model = lm.build_model(torch, args)

    def loss_fn(logits, targets):
        return F.cross_entropy(logits, targets.reshape(-1))

    rows = (data[i * batch:(i + 1) * batch] for i in range(steps))
    batches = [(r[:, :-1].copy(), r[:, 1:].copy()) for r in rows]
    return types.SimpleNamespace(
        name="lm", model=model, loss_fn=loss_fn, batches=batches,
        optimizer=lambda params: torch.optim.AdamW(params, lr=3e-3,
                                                   weight_decay=0.01),
        evaluate=lambda m: float(loss_fn(m(held_out[:, :-1]),
                                         held_out[:, 1:])))


class BasicBlock(nn.Module):
    """ResNet's basic block: two 3x3 convolutions with batch norm, and a
    1x1 convolution with batch norm as the shortcut when the shape
    changes."""

    def __init__(self, inputs, outputs, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.shortcut = nn.Sequential()
        if stride != 1 or inputs != outputs:
            self.shortcut = nn.Sequential(
                nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                nn.BatchNorm2d(outputs))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


def resnet_case(steps, lr=0.01):
    # Its training is sensitive to rounding: PyTorch's own fp32 run from
    # weights perturbed by 1e-6 (relative) ends 1e-3 away after 40 steps at
    # this rate, the difference growing about 1.35x a step from step 12.
    # 20 steps keep such differences near 1e-5, so that the bounds below
    # measure the precision, not that growth. (check_resnet_100_steps.py
    # trains it for 100 steps at a smaller rate.)
    return digits_case("resnet", lambda: nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
        nn.ReLU(), BasicBlock(16, 16, 1), BasicBlock(16, 32, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)),
        (-1, 1, 8, 8), steps, lr,
        optimizer=lambda params: torch.optim.SGD(
            params, lr=lr, momentum=0.9, weight_decay=5e-4))


CASES = {"mlp": (mlp_case, 40), "cnn": (cnn_case, 40), "lm": (lm_case, 30),
         "resnet": (resnet_case, 20)}


def evaluate(case, model):
    """The case's loss of `model` in eval mode (running statistics)."""
    model.eval()
    with torch.no_grad():
        return case.evaluate(model)


# --- PyTorch -----------------------------------------------------------------

def torch_step(model, optimizer, scaler, case, batch, dtype, index=0):
    """Step `index` of PyTorch's AMP loop (dtype None: fp32). Returns the
    loss, the largest scaled gradient of a parameter (before the unscale)
    and whether the optimizer skipped the step. A case with a `seed`
    (a model with dropout) draws the random numbers amp-mlir's step
    `index` draws (Trainer(..., seed=case.seed))."""
    xb, yb = (torch.from_numpy(b) for b in batch)
    optimizer.zero_grad(set_to_none=True)
    draws = (amp_mlir.philox.same_random_numbers(case.seed, index)
             if getattr(case, "seed", None) is not None
             else contextlib.nullcontext())
    with draws, torch.autocast("cpu", dtype=dtype or torch.float32,
                               enabled=dtype is not None):
        loss = case.loss_fn(model(xb), yb)
    scaler.scale(loss).backward()
    largest = max(float(p.grad.abs().max()) for p in model.parameters())
    scale = scaler.get_scale()
    scaler.step(optimizer)
    scaler.update()
    # GradScaler backs off exactly when it found an inf and skipped.
    return float(loss.detach()), largest, scaler.get_scale() < scale


def torch_train(case, dtype):
    """PyTorch's run: the final loss, and the loss, scale after, largest
    scaled gradient and skipped flag of each step, the final parameters."""
    model = copy.deepcopy(case.model)
    optimizer = case.optimizer(model.parameters())
    scaler = torch.amp.GradScaler("cpu", **SCALER,
                                  enabled=dtype == torch.float16)
    run = types.SimpleNamespace(losses=[], scales=[], largest=[],
                                skipped=[])
    for index, batch in enumerate(case.batches):
        loss, largest, skipped = torch_step(model, optimizer, scaler, case,
                                            batch, dtype, index)
        run.losses.append(loss)
        run.largest.append(largest)
        run.skipped.append(skipped)
        run.scales.append(scaler.get_scale())
    run.params = {name: p.detach().numpy().copy()
                  for name, p in model.named_parameters()}
    run.buffers = amp_mlir.buffers_of(model)
    run.final = evaluate(case, model)
    return run


def torch_amp_runs(case):
    """PyTorch's AMP runs in float16 and bfloat16 ({dtype: run}), and the
    steps its float16 run skipped."""
    runs = {dtype: torch_train(case, TORCH_DTYPE[dtype])
            for dtype in ("float16", "bfloat16")}
    return runs, [index for index, skipped in
                  enumerate(runs["float16"].skipped) if skipped]


def torch_overflow_point(case):
    """The smallest power-of-two scale, from LOW up, at which PyTorch's
    float16 step from the initial weights on batch 0 overflows (inf: none
    below 2^40)."""
    for exponent in range(int(math.log2(LOW)), 40):
        scale = 2.0 ** exponent
        model = copy.deepcopy(case.model)
        scaler = torch.amp.GradScaler("cpu", init_scale=scale)
        _, _, skipped = torch_step(model, case.optimizer(model.parameters()),
                                   scaler, case, case.batches[0],
                                   torch.float16)
        if skipped:
            return scale
    return math.inf  # the margin check fails


# --- amp-mlir ----------------------------------------------------------------

def with_scaler(text):
    """The forward-backward function with SCALER as its amp.loss_scaling
    attribute, which amp-training takes instead of the Trainer's preset."""
    attribute = ("amp.loss_scaling = #amp.loss_scaling<preset = "
                 f"\"pytorch\", init_scale = {SCALER['init_scale']!r}, "
                 f"growth_factor = {SCALER['growth_factor']!r}, "
                 f"backoff_factor = {SCALER['backoff_factor']!r}, "
                 f"growth_interval = {SCALER['growth_interval']}>, ")
    marker = "attributes {amp.optimizer"
    if text.count(marker) != 1:
        raise RuntimeError(f"from_torch_training's text has "
                           f"{text.count(marker)} '{marker}', expected one")
    return text.replace(marker, "attributes {" + attribute + "amp.optimizer")


def amp_train(case, trainer, skip=()):
    """Trains from the trainer's current state, leaving out the steps in
    `skip` (as a skipped step leaves everything as it was). Returns the
    final loss, and the loss, scale after and skipped flag of each step
    taken, the final parameters."""
    run = types.SimpleNamespace(losses=[], scales=[], skipped=[])
    for index, batch in enumerate(case.batches):
        if index in skip:
            continue
        loss, found = trainer.step(*batch)
        run.losses.append(loss)
        run.scales.append(trainer.scale)
        run.skipped.append(found)
    run.params, run.buffers = trainer.params, trainer.buffers
    model = copy.deepcopy(case.model)
    with torch.no_grad():
        for name, value in (*model.named_parameters(),
                            *model.named_buffers()):
            source = {**run.params, **run.buffers}.get(name)
            if source is not None:
                value.copy_(torch.from_numpy(source))
    run.final = evaluate(case, model)
    return run


def make_trainers(plain, initial, targets, **options):
    """{(target, level, dtype): Trainer} for `targets` ({target: [(level,
    dtype)]}), float16 from the step with SCALER (with_scaler);
    `options` go to every Trainer (buffers, seed)."""
    scaled = with_scaler(plain)
    return {(target, level, dtype): amp_mlir.Trainer(
                scaled if dtype == "float16" else plain, initial,
                level=level, dtype=dtype, target=target, **options)
            for target, levels in targets.items()
            for level, dtype in levels}


def amp_overflow_point(trainer, batch):
    """The smallest power-of-two scale, from LOW up, at which the trainer's
    step from its initial state on `batch` overflows (inf: none below 2^40;
    the state is restored afterwards)."""
    initial = trainer.state_dict()
    try:
        for exponent in range(int(math.log2(LOW)), 40):
            state = dict(initial)
            state["scaler:scale"] = np.array(
                2.0 ** exponent, dtype=initial["scaler:scale"].dtype)
            trainer.load_state_dict(state)
            _, found = trainer.step(*batch)
            if found:
                return 2.0 ** exponent
        return math.inf  # the margin check fails
    finally:
        trainer.load_state_dict(initial)


def statistics_difference(run, reference):
    """The running means and variances of `run` against `reference`'s: the
    L2 norm of the difference over the reference's, all together."""
    names = [n for n in reference.buffers if "running_" in n]
    a = np.concatenate([run.buffers[n].ravel() for n in names])
    b = np.concatenate([reference.buffers[n].ravel() for n in names])
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def check_loss_scale(label, run, reference, torch_skipped, steps, low):
    """Checks that a float16 run's loss scale after every step is
    GradScaler's (from SCALER's initial scale), that it skipped PyTorch's
    steps (`torch_skipped`), and that it grew and backed off; the line
    also says how far below overflow PyTorch's gradients were at `low`."""
    used = [SCALER["init_scale"]] + run.scales[:-1]
    growths = sum(b > a for a, b in zip(used, run.scales))
    backoffs = sum(b < a for a, b in zip(used, run.scales))
    skipped = [i for i, s in enumerate(run.skipped) if s]
    torch_used = [SCALER["init_scale"]] + reference.scales[:-1]
    largest = max(g for g, s in zip(reference.largest, torch_used)
                  if s == low)
    check(run.scales == reference.scales and skipped == torch_skipped and
          growths and backoffs,
          f"{label} loss scale after each of {steps} steps equals "
          f"GradScaler's: {growths} growths, {backoffs} back-offs, "
          f"skipped steps {skipped}; PyTorch's largest scaled gradient at "
          f"{pow2(low)} {largest / F16_MAX:.2f} of f16's max")


def check_overflow_margins(name, case, trainers):
    """Prints where float16 overflows at the initial weights on batch 0
    (PyTorch's step and each of `trainers`, {label: Trainer}) and checks
    that LOW and HIGH lie at least MARGIN from every such point."""
    points = {"PyTorch": torch_overflow_point(case)}
    for label, trainer in trainers.items():
        points[f"amp-mlir {label}"] = amp_overflow_point(trainer,
                                                         case.batches[0])
    print(f"NOTE {name} f16 overflow at the initial weights (batch 0) from "
          + ", ".join(f"{who} {pow2(s)}" for who, s in points.items()),
          flush=True)
    check(LOW * MARGIN <= min(points.values()) and
          max(points.values()) * MARGIN <= HIGH,
          f"{name} f16 scales {pow2(LOW)} and {pow2(HIGH)} at least "
          f"{MARGIN:g}x from every overflow point")


def check_final_loss(label, run, reference, steps):
    """A low-precision run's final loss within LOSS_VS_TORCH_AMP of
    PyTorch AMP's run in the same type."""
    r = rel(run.final, reference.final)
    check(r <= LOSS_VS_TORCH_AMP,
          f"{label} final loss {run.final:.6f} vs PyTorch AMP "
          f"{reference.final:.6f}: rel {r:.1e} <= "
          f"{LOSS_VS_TORCH_AMP:g}, skipped {sum(run.skipped)} of "
          f"{steps}")


def train_and_check(name, case, trainers, torch_runs, torch_skipped,
                    extra=None):
    """Trains each of `trainers` ({(target, level, dtype): Trainer}) on the
    case's batches and checks its final loss against PyTorch AMP's run in
    the same type (`torch_runs`), and for float16 its loss scale and skips
    (`torch_skipped`); `extra(label, dtype, run, reference)` checks more.
    Then notes how far each simulator run is from the CPU's run at its
    level. Returns {(target, level, dtype): run}."""
    steps, runs = len(case.batches), {}
    for (target, level, dtype), trainer in trainers.items():
        label = f"{name} {target} {level} {SHORT[dtype]}"
        began = time.monotonic()
        run = runs[target, level, dtype] = amp_train(case, trainer)
        seconds = time.monotonic() - began
        reference = torch_runs[dtype]
        check_final_loss(label, run, reference, steps)
        if dtype == "float16":
            check_loss_scale(label, run, reference, torch_skipped, steps,
                             LOW)
        if extra:
            extra(label, dtype, run, reference)
        print(f"NOTE {label}: {steps} steps in {seconds:.1f} s", flush=True)
    for target, level, dtype in trainers:
        if target == "cpu" or ("cpu", level, dtype) not in runs:
            continue
        sim, cpu = runs[target, level, dtype], runs["cpu", level, dtype]
        losses = max(rel(a, b) for a, b in zip(sim.losses, cpu.losses))
        statistics = (f", running statistics "
                      f"{statistics_difference(sim, cpu):.1e}"
                      if any("running_" in n for n in cpu.buffers)
                      else "")
        print(f"NOTE {name} {level} {SHORT[dtype]} gpu-sim against the CPU "
              f"after {steps} steps: step losses within {losses:.1e}, final "
              f"loss {rel(sim.final, cpu.final):.1e}{statistics}",
              flush=True)
    return runs


def check_statistics(label, run, reference, bound):
    """The running statistics of `run` against `reference`'s, and the step
    counts of both (skipped steps count)."""
    if not reference.buffers:
        return
    r = statistics_difference(run, reference)
    counts = {int(v) for n, v in run.buffers.items()
              if n.endswith("num_batches_tracked")}
    torch_counts = {int(v) for n, v in reference.buffers.items()
                    if n.endswith("num_batches_tracked")}
    steps = len(run.losses)
    check(r <= bound and counts == torch_counts == {steps},
          f"{label} running statistics vs PyTorch's: rel {r:.1e} <= "
          f"{bound:g}; num_batches_tracked {sorted(counts)} (PyTorch "
          f"{sorted(torch_counts)}) after {steps} steps")


def update_difference(run, reference, initial):
    """How far the update (final minus initial parameters) of `run` is from
    `reference`'s: the L2 norm of the difference over that of the
    reference's update, all parameters together."""
    a = np.concatenate([(run.params[k] - initial[k]).ravel()
                        for k in initial])
    b = np.concatenate([(reference.params[k] - initial[k]).ravel()
                        for k in initial])
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def curve_difference(run, reference, skip=()):
    """The largest relative difference between the losses of the steps
    `reference` took and `run`'s at the same steps (`run` took the steps in
    `skip` too)."""
    losses = [loss for index, loss in enumerate(run.losses)
              if index not in skip]
    if len(losses) != len(reference.losses):
        raise RuntimeError(f"{len(losses)} step losses against "
                           f"{len(reference.losses)}")
    return max(rel(a, b) for a, b in zip(losses, reference.losses))


# --- the checks --------------------------------------------------------------

def run_case(case):
    name, steps = case.name, len(case.batches)
    start = time.monotonic()
    xb, yb = (torch.from_numpy(b) for b in case.batches[0])
    plain = amp_mlir.from_torch_training(
        case.model, case.loss_fn,
        case.optimizer(copy.deepcopy(case.model).parameters()), xb, yb)
    scaled = with_scaler(plain)
    initial = amp_mlir.parameters_of(case.model)
    buffers = amp_mlir.buffers_of(case.model)

    # fp32: amp-mlir's O0 against PyTorch. How far apart the two are is the
    # yardstick of "differs from O0" below.
    fp32 = torch_train(case, None)
    o0 = amp_mlir.Trainer(plain, initial, level="O0", buffers=buffers)
    o0_initial = o0.state_dict()
    o0_run = amp_train(case, o0)
    r = rel(o0_run.final, fp32.final)
    noise_curve = curve_difference(o0_run, fp32)
    noise_update = update_difference(o0_run, fp32, initial)
    check(r <= O0_VS_TORCH_FP32 and not any(o0_run.skipped),
          f"{name} O0 final loss {o0_run.final:.6f} vs PyTorch fp32 "
          f"{fp32.final:.6f}: rel {r:.1e} <= {O0_VS_TORCH_FP32:g}, {steps} "
          f"steps; step losses apart by up to {noise_curve:.1e}, updates by "
          f"{noise_update:.1e}")
    check_statistics(f"{name} O0", o0_run, fp32, O0_VS_TORCH_FP32)

    trainers = {}
    for level, dtype in LEVELS:
        trainers[level, dtype] = amp_mlir.Trainer(
            scaled if dtype == "float16" else plain, initial, level=level,
            dtype=dtype, buffers=buffers)

    # Where float16 overflows at the initial weights.
    check_overflow_margins(name, case, {level: trainers[level, "float16"]
                                        for level in ("O1", "O2")})

    torch_runs, torch_skipped = torch_amp_runs(case)
    # O0 with PyTorch's float16 skips: the float16 runs' updates in fp32.
    o0.load_state_dict(o0_initial)
    o0_skip_run = amp_train(case, o0, skip=set(torch_skipped))

    for level, dtype in LEVELS:
        label = f"{name} {level} {SHORT[dtype]}"
        run = amp_train(case, trainers[level, dtype])
        reference = torch_runs[dtype]
        check_final_loss(label, run, reference, steps)
        check_statistics(label, run, reference, STATS_VS_TORCH_AMP)
        if dtype == "float16":
            check_loss_scale(label, run, reference, torch_skipped, steps, LOW)
        report = amp_mlir.report(trainers[level, dtype].step_text,
                                 level=level, dtype=dtype)
        share = report["ideal_fraction"]
        check(share >= IDEAL_FRACTION and report["low_precision_ops"] > 0,
              f"{label} report: ideal_fraction {share:.3f} >= "
              f"{IDEAL_FRACTION:g}, {report['low_precision_ops']} of "
              f"{report['float_ops']} ops and "
              f"{report['low_precision_bytes']} bytes in "
              f"{report['low_precision_type']}")
        # Against O0 with the same updates (float16: the same skips).
        if dtype == "float16":
            baseline, skip = o0_skip_run, set(torch_skipped)
        else:
            baseline, skip = o0_run, set()
        curve = curve_difference(run, baseline, skip)
        update = update_difference(run, baseline, initial)
        check(curve > DIFFERS * noise_curve and
              update > DIFFERS * noise_update,
              f"{label} differs from O0"
              f"{' with the same skips' if skip else ''} over {DIFFERS:g}x "
              f"more than PyTorch fp32 does: step losses by up to "
              f"{curve:.1e}, update by {update:.1e}; final loss "
              f"{run.final:.6f} vs {baseline.final:.6f} (rel "
              f"{rel(run.final, baseline.final):.1e})")
    print(f"NOTE {name}: {time.monotonic() - start:.1f} s", flush=True)


def main():
    # One thread: lit runs several tests at once.
    torch.set_num_threads(1)
    # The compiler's remarks (grouped convolutions kept as loops) are
    # expected.
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    names = sys.argv[1:] or ["mlp", "cnn", "lm"]
    for name in names:
        if name not in CASES:
            raise SystemExit(f"unknown case {name!r}; the cases: "
                             f"{', '.join(CASES)}")
        make, steps = CASES[name]
        run_case(make(steps))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
