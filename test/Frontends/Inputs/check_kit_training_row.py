"""A GPU kit training row against PyTorch's own training step, on the CPU
(test/Frontends/resnet50-training-gpu.test): the contract that the GPU
machine relies on, checked here.

    check_kit_training_row.py MODELS_DIR NAME

MODELS_DIR/NAME.json is what export_models.py wrote for a training row
(resnet50_train_small). Its seeded arguments are drawn as the kit's runner
draws them; amp-mlir's step (the row's module, compiled for the CPU at O0)
runs on them once; PyTorch builds the row's model from the same arrays by
name (baselines.Setup: the parameters, the running statistics; the
optimizer's and scaler's state are amp-mlir's own) and takes one step of
its own (baselines.train_parts at fp32: the loss, backward, SGD with
momentum and weight decay). Checks, one PASS or FAIL line each:

- the step's loss equals PyTorch's reference loss (baselines.Setup.
  reference, the row's "torch" reference on the GPU) within 1e-5;
- the parameter update (new minus initial, all parameters together) is
  within 2e-5 of PyTorch's, relative L2 (a weight decay left out would
  be 2.5e-4 away);
- the running statistics within 1e-5, and every num_batches_tracked 1;
- the optimizer's step count is 1 and the loss scale is unchanged (no
  overflow at GradScaler's initial scale).

Prints "N passed, M failed" last; exits 1 on a failure.
"""

import json
import os
import sys

import numpy as np
import torch

import amp_mlir
from amp_mlir import trainer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "scripts", "gpu-kit"))
import baselines  # noqa: E402
from seeded import seeded_inputs  # noqa: E402

RESULTS = {"passed": 0, "failed": 0}


def check(ok, text):
    RESULTS["passed" if ok else "failed"] += 1
    print(f"{'PASS' if ok else 'FAIL'} {text}")


def rel_l2(a, b):
    a = np.concatenate([np.ravel(x).astype(np.float64) for x in a])
    b = np.concatenate([np.ravel(x).astype(np.float64) for x in b])
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def main():
    folder, name = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, f"{name}.json")) as f:
        info = json.load(f)
    with open(os.path.join(folder, info["module"])) as f:
        text = f.read()
    specs = info["arguments"]
    arrays = seeded_inputs(specs)
    step = amp_mlir.compile(text, level="O0", target="cpu")[info["entry"]]
    outputs = step(*arrays)
    _, results = trainer._signature(text, info["entry"])
    amp = {}
    for (role, label), value in zip(results, outputs):
        amp[(role, label)] = np.asarray(value)

    case = {"seeded_inputs": specs, "torch": info["torch"]}
    setup = baselines.Setup(case, arrays, "cpu")
    reference_loss = float(setup.reference()[0])
    initial = {n: p.detach().clone().numpy()
               for n, p in setup.module.named_parameters()}
    body, _, _, facts = baselines.train_parts(setup, "fp32")
    torch_loss = float(body())
    loss = float(amp[("loss", None)])
    check(abs(loss - reference_loss) <= 1e-5 * abs(reference_loss) and
          abs(torch_loss - reference_loss) <= 1e-6 * abs(reference_loss),
          f"{name} loss {loss:.6f} vs PyTorch's reference {reference_loss:.6f}"
          f" (its step's {torch_loss:.6f})")

    names = [label for role, label in results if role == "param"]
    params = dict(setup.module.named_parameters())
    ours = [amp[("param", n)] - initial[n] for n in names]
    theirs = [params[n].detach().numpy() - initial[n] for n in names]
    error = rel_l2(ours, theirs)
    check(error <= 2e-5, f"{name} update of {len(names)} parameters vs "
          f"PyTorch's {facts['optimizer']} step: rel {error:.2e} <= 2e-5")

    buffers = dict(setup.module.named_buffers())
    floating = [label for role, label in results if role == "buffer" and
                not label.endswith("num_batches_tracked")]
    error = rel_l2([amp[("buffer", n)] for n in floating],
                   [buffers[n].numpy() for n in floating])
    counts = sorted({int(amp[("buffer", label)]) for role, label in results
                     if role == "buffer" and
                     label.endswith("num_batches_tracked")})
    check(error <= 1e-5 and counts == [1],
          f"{name} running statistics vs PyTorch's: rel {error:.2e} <= 1e-5;"
          f" num_batches_tracked {counts}")

    steps = int(amp[("optimizer_state", "step")])
    scale = float(amp[("scaler", "scale")])
    initial_scale = next(s["value"] for s in specs
                         if s["name"] == "scaler:scale")
    check(steps == 1 and scale == initial_scale and
          not bool(amp[("found_inf", None)]),
          f"{name} step {steps}, scale {scale:g} (from {initial_scale:g}), "
          f"no overflow")
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    torch.manual_seed(0)
    sys.exit(main())
