"""Decoder families other than GPT-2 trained through from_torch_training
against PyTorch's own AMP loop (test/Frontends/torch-amp-decoders.test;
issue 44, item 5).

Two families from transformers, from configurations (random weights), 2
layers of 32, called with an all-ones attention mask (without one their
masking code reads tensor values, which a traced step cannot):

- llama: LlamaForCausalLM (RMSNorm, rotary positions from a
  non-persistent inv_freq buffer, grouped-query attention with 2 key-value
  heads for 4 query heads, SwiGLU);
- opt: OPTForCausalLM with dropout 0.1 on the hidden states and the
  attention probabilities (its default 0.1, and attention_dropout 0.1),
  and learned positions from the cumsum of the attention mask (torch-mlir:
  tm_tensor.scan).

The data are check_torch_amp_training.py's lm corpus (a Markov chain),
batches of 16 sequences of 16 tokens; AdamW. PyTorch trains from the same
initial weights on the same batches in fp32 and with torch.autocast and
GradScaler in float16 and bfloat16; for opt it draws the dropout masks
amp-mlir's step draws (amp_mlir.philox.same_random_numbers with the
Trainer's seed and the step's index), so that the two runs take the same
steps. amp-mlir trains through from_torch_training and Trainer at O0 and at
O1 and O2 in float16 and bfloat16 on the CPU, and at O2 float16 in the GPU
simulator.

The checks, one PASS or FAIL line each:

- O0's loss at every step within 1e-4 of PyTorch fp32's, and its final
  loss (held out, eval mode) within 1e-3 (with dropout, the masks are the
  same: drawn with another seed, opt's losses are over 100x further);
- the float16 scales at least 4x from every overflow point;
- each low-precision run's final loss within 1% of PyTorch AMP's in the
  same type, and each float16 run's loss scale after every step
  GradScaler's;
- opt's step carries the generator's state (an amp:rng buffer), llama's
  has none; after the run it is (seed, steps);
- a run saved half way and resumed from the file (Trainer.save and load)
  takes the same steps, bit for bit, as the run that went on.

Prints "N passed, M failed" last and exits 1 if a check failed.
"""

import importlib.util
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path

import numpy as np
import torch
import transformers

import amp_mlir

STEPS = 30
BATCH = 16
CONTEXT = 16
VOCAB = 64
GROWTH_INTERVAL = 8
SEED = 5
O0_STEP_LOSSES = 1e-4
O0_FINAL_LOSS = 1e-3
OTHER_SEED = 100.0          # how much further another seed's losses are
CPU_LEVELS = [("O1", "float16"), ("O2", "float16"), ("O1", "bfloat16"),
              ("O2", "bfloat16")]
SIM_LEVELS = [("O2", "float16")]

HERE = Path(__file__).resolve()
spec = importlib.util.spec_from_file_location(
    "amp_training", HERE.with_name("check_torch_amp_training.py"))
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
cases.SCALER = dict(cases.SCALER, growth_interval=GROWTH_INTERVAL)
check, rel, SHORT = cases.check, cases.rel, cases.SHORT


def build(family):
    """The family's causal LM, whose forward(tokens) returns the logits."""
    common = {"vocab_size": VOCAB, "hidden_size": 32,
              "num_hidden_layers": 2, "num_attention_heads": 4,
              "max_position_embeddings": CONTEXT, "bos_token_id": 0,
              "eos_token_id": 0}
    if family == "llama":
        config = transformers.LlamaConfig(intermediate_size=64,
                                          num_key_value_heads=2, **common)
        base = transformers.LlamaForCausalLM
    else:
        config = transformers.OPTConfig(ffn_dim=64, word_embed_proj_dim=32,
                                        dropout=0.1, attention_dropout=0.1,
                                        **common)
        base = transformers.OPTForCausalLM
    config._attn_implementation = "eager"
    config.use_cache = False

    class Logits(base):
        def forward(self, tokens):
            return super().forward(tokens,
                                   attention_mask=torch.ones_like(tokens),
                                   use_cache=False).logits

    torch.manual_seed(0)
    return Logits(config).train()


def decoder_case(family, seed=SEED):
    lm = cases.load("lm", "examples/torch_training/lm.py")
    probs = lm.make_corpus(VOCAB, 0)
    rng = np.random.default_rng([0, 3])
    data = lm.sample(probs, STEPS * BATCH, CONTEXT + 1, rng)
    held_out = torch.from_numpy(lm.sample(probs, 256, CONTEXT + 1, rng))

    def loss_fn(logits, targets):
        return torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    rows = (data[i * BATCH:(i + 1) * BATCH] for i in range(STEPS))
    return types.SimpleNamespace(
        name=family, model=build(family), loss_fn=loss_fn,
        batches=[(r[:, :-1].copy(), r[:, 1:].copy()) for r in rows],
        seed=seed if family == "opt" else None,
        optimizer=lambda params: torch.optim.AdamW(
            params, lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1),
        evaluate=lambda m: float(loss_fn(m(held_out[:, :-1]),
                                         held_out[:, 1:])))


def check_o0(case, plain, initial, fp32):
    """O0 against PyTorch fp32, step by step; with dropout, against a run
    that draws with another seed too."""
    name = case.name
    o0 = cases.amp_train(case, amp_mlir.Trainer(plain, initial, level="O0",
                                                seed=SEED))
    steps = max(rel(a, b) for a, b in zip(o0.losses, fp32.losses))
    final = rel(o0.final, fp32.final)
    check(steps <= O0_STEP_LOSSES and final <= O0_FINAL_LOSS and
          not any(o0.skipped),
          f"{name} O0 step losses within {steps:.1e} <= {O0_STEP_LOSSES:g}"
          f" of PyTorch fp32's, final loss {o0.final:.6f} vs "
          f"{fp32.final:.6f}: rel {final:.1e} <= {O0_FINAL_LOSS:g}, "
          f"{len(o0.losses)} steps")
    if case.seed is None:
        return
    other = cases.amp_train(case, amp_mlir.Trainer(
        plain, initial, level="O0", seed=SEED + 1))
    apart = max(rel(a, b) for a, b in zip(other.losses, fp32.losses))
    check(apart >= OTHER_SEED * max(steps, 1e-7),
          f"{name} O0 with seed {SEED + 1}: step losses up to {apart:.1e} "
          f"from PyTorch's (drawn with seed {SEED}), over {OTHER_SEED:g}x "
          f"the same seed's {steps:.1e}")


def check_generator(case, trainer, steps):
    state = trainer.buffers.get(amp_mlir.philox.RNG_BUFFER)
    if case.seed is None:
        check(state is None, f"{case.name} step draws no random numbers: "
              f"buffers {sorted(trainer.buffers)}")
        return
    check(state is not None and state.dtype == np.int64 and
          state.tolist() == [case.seed, steps],
          f"{case.name} generator state after {steps} steps "
          f"{None if state is None else state.tolist()} == "
          f"[{case.seed}, {steps}]")


def check_resume(case, trainer, label):
    """From the trainer's initial state: the run saved after half the
    steps and resumed from the file against the run that went on."""
    half = len(case.batches) // 2
    initial = trainer.state_dict()
    straight = [trainer.step(*batch)[0] for batch in case.batches]
    trainer.load_state_dict(initial)
    resumed = [trainer.step(*batch)[0] for batch in case.batches[:half]]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state.npz"
        trainer.save(path)
        trainer.load_state_dict(initial)
        trainer.load(path)
    resumed += [trainer.step(*batch)[0] for batch in case.batches[half:]]
    same = resumed == straight
    check(same, f"{label} saved after {half} steps and resumed: the same "
          f"{len(straight)} step losses, bit for bit"
          + ("" if same else f" ({resumed} vs {straight})"))


def run_family(family):
    start = time.monotonic()
    case = decoder_case(family)
    xb, yb = (torch.from_numpy(b) for b in case.batches[0])
    model = case.model
    plain = amp_mlir.from_torch_training(
        model, case.loss_fn, case.optimizer(model.parameters()), xb, yb)
    initial = amp_mlir.parameters_of(model)

    fp32 = cases.torch_train(case, None)
    torch_runs, torch_skipped = cases.torch_amp_runs(case)
    print(f"NOTE {family} {STEPS} steps: PyTorch fp32 final loss "
          f"{fp32.final:.4f}; AMP "
          + ", ".join(f"{SHORT[d]} {r.final:.4f} (skipped "
                      f"{sum(r.skipped)})" for d, r in torch_runs.items()),
          flush=True)
    check_o0(case, plain, initial, fp32)

    trainers = cases.make_trainers(
        plain, initial, {"cpu": CPU_LEVELS, "gpu-sim": SIM_LEVELS}, seed=SEED)
    cases.check_overflow_margins(
        family, case, {f"{target} {level}": trainer
                       for (target, level, dtype), trainer in
                       trainers.items() if dtype == "float16"})
    cases.train_and_check(family, case, trainers, torch_runs, torch_skipped)
    check_generator(case, trainers["cpu", "O2", "float16"], STEPS)
    fresh = amp_mlir.Trainer(cases.with_scaler(plain), initial, level="O2",
                             dtype="float16", seed=SEED)
    check_resume(case, fresh, f"{family} cpu O2 f16")
    print(f"NOTE {family}: {time.monotonic() - start:.1f} s", flush=True)


def main():
    torch.set_num_threads(1)
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    for family in sys.argv[1:] or ("llama", "opt"):
        run_family(family)
    print(f"{cases.passed} passed, {cases.failed} failed")
    return 1 if cases.failed else 0


if __name__ == "__main__":
    sys.exit(main())
