"""A 2-layer GPT-2 trained for 100 steps against PyTorch's own AMP loop, on
the CPU and in the GPU simulator (test/Frontends/torch-amp-gpt2-100-steps.test;
issue 44's accuracy criterion).

The model is transformers' GPT2LMHeadModel (2 layers of 32, 4 heads, 16
positions, a vocabulary of 64, no dropout), called as the GPU kit's
GPT-2 training rows call it (export_models.build_gpt2_logits: the logits,
an all-ones attention mask). The data are check_torch_amp_training.py's lm
corpus (examples/torch_training/lm.py's Markov chain), batches of 16
sequences of 16 tokens, every position's next-token cross-entropy; AdamW
with GPT-2's betas (0.9, 0.95) and weight decay 0.1.

PyTorch trains it from the same initial weights on the same batches with
torch.autocast("cpu", float16) and torch.amp.GradScaler (the 20-step test's
scaler: a jump between 2^28 and 2^15, growing back after GROWTH_INTERVAL
clean steps, so that every skip lies far from rounding), with autocast in
bfloat16, and in fp32. amp-mlir trains through from_torch_training and
Trainer at O0, at O1 and O2 in float16 and bfloat16 on the CPU, and at O2
in float16 in the GPU simulator (target "gpu-sim", whose Trainer keeps the
state on the device). A final loss is the cross-entropy
of the final fp32 parameters on a held-out set, computed by PyTorch in
fp32.

The checks, one PASS or FAIL line each:

- O0's final loss within 1% of PyTorch fp32's;
- the float16 scales at least 4x from every overflow point at the initial
  weights (PyTorch's and amp-mlir's);
- each low-precision run's final loss within 1% of PyTorch AMP's in the
  same type (issue 44's criterion);
- each float16 run's loss scale after every step equals GradScaler's, and
  it skips PyTorch's steps.

Prints "N passed, M failed" last and exits 1 if a check failed.
"""

import importlib.util
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np
import torch

import amp_mlir

STEPS = 100
BATCH = 16
GROWTH_INTERVAL = 25
LOSS_VS_TORCH_AMP = 0.01   # issue 44's 1%
CPU_LEVELS = [("O1", "float16"), ("O2", "float16"), ("O1", "bfloat16"),
              ("O2", "bfloat16")]
# In the simulator, O2 float16 (about a second a step on one core; bfloat16
# in the simulator is the GPU kit's gpt2_train_small row, one step against
# the CPU).
SIM_LEVELS = [("O2", "float16")]
CONFIG = {"n_layer": 2, "n_embd": 32, "n_head": 4, "n_positions": 16,
          "vocab_size": 64, "resid_pdrop": 0.0, "embd_pdrop": 0.0,
          "attn_pdrop": 0.0, "bos_token_id": 0, "eos_token_id": 0}

HERE = Path(__file__).resolve()
path = HERE.with_name("check_torch_amp_training.py")
spec = importlib.util.spec_from_file_location("amp_training", path)
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
cases.SCALER = dict(cases.SCALER, growth_interval=GROWTH_INTERVAL)
check, rel, SHORT = cases.check, cases.rel, cases.SHORT
sys.path.insert(0, str(HERE.parents[3] / "scripts" / "gpu-kit"))
import export_models  # noqa: E402  (the kit's GPT-2)


def gpt2_case(steps):
    """The case (check_torch_amp_training.py's form): model, loss, batches,
    optimizer, evaluate."""
    lm = cases.load("lm", "examples/torch_training/lm.py")
    context = CONFIG["n_positions"]
    probs = lm.make_corpus(CONFIG["vocab_size"], 0)
    rng = np.random.default_rng([0, 2])
    data = lm.sample(probs, steps * BATCH, context + 1, rng)
    held_out = torch.from_numpy(lm.sample(probs, 256, context + 1, rng))
    model = export_models.build_gpt2_logits(CONFIG)

    def loss_fn(logits, targets):
        return torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    rows = (data[i * BATCH:(i + 1) * BATCH] for i in range(steps))
    batches = [(r[:, :-1].copy(), r[:, 1:].copy()) for r in rows]
    return types.SimpleNamespace(
        name="gpt2", model=model, loss_fn=loss_fn, batches=batches,
        optimizer=lambda params: torch.optim.AdamW(
            params, lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1),
        evaluate=lambda m: float(loss_fn(m(held_out[:, :-1]),
                                         held_out[:, 1:])))


def main():
    torch.set_num_threads(1)
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    start = time.monotonic()
    case = gpt2_case(STEPS)
    xb, yb = (torch.from_numpy(b) for b in case.batches[0])
    model = case.model.train()
    plain = amp_mlir.from_torch_training(
        model, case.loss_fn, case.optimizer(model.parameters()), xb, yb)
    initial = amp_mlir.parameters_of(case.model)
    initial_loss = cases.evaluate(case, export_models.build_gpt2_logits(
        CONFIG))

    fp32 = cases.torch_train(case, None)
    torch_runs, torch_skipped = cases.torch_amp_runs(case)
    print(f"NOTE gpt2 {STEPS} steps: PyTorch fp32 final loss {fp32.final:.4f}"
          f" (initial {initial_loss:.4f})", flush=True)
    for dtype, run in torch_runs.items():
        print(f"NOTE gpt2 PyTorch AMP {SHORT[dtype]} final loss "
              f"{run.final:.4f}, skipped {sum(run.skipped)} of {STEPS}",
              flush=True)

    o0 = cases.amp_train(case, amp_mlir.Trainer(plain, initial, level="O0"))
    r = rel(o0.final, fp32.final)
    check(r <= LOSS_VS_TORCH_AMP and not any(o0.skipped),
          f"gpt2 O0 final loss {o0.final:.6f} vs PyTorch fp32 "
          f"{fp32.final:.6f}: rel {r:.1e} <= {LOSS_VS_TORCH_AMP:g}, "
          f"{len(o0.losses)} steps")

    trainers = cases.make_trainers(
        plain, initial, {"cpu": CPU_LEVELS, "gpu-sim": SIM_LEVELS})

    cases.check_overflow_margins(
        "gpt2", case, {f"{target} {level}": trainer
                       for (target, level, dtype), trainer in
                       trainers.items() if dtype == "float16"})
    cases.train_and_check("gpt2", case, trainers, torch_runs, torch_skipped)
    print(f"NOTE gpt2: {time.monotonic() - start:.1f} s", flush=True)
    print(f"{cases.passed} passed, {cases.failed} failed")
    return 1 if cases.failed else 0


if __name__ == "__main__":
    sys.exit(main())
