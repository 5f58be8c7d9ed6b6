#!/usr/bin/env python3
"""Trains a small transformer language model with mixed precision through
amp-mlir's compiled training step: token and position embeddings, two
pre-norm blocks (causal multi-head attention, a GELU MLP), a final norm and
the output projection, on a corpus the script makes (nothing is
downloaded). PyTorch gives the model, the loss and the optimizer;
amp_mlir.from_torch_training imports the forward and backward pass, and the
compiler adds the precision, the fp32 master weights, the optimizer update
and the step skip.

    lm.py --level fp8 --steps 200 --seed 0
    lm.py --levels fp32,bf16,fp8 --steps 200 --json lm.json

The corpus: sequences drawn from a seeded Markov chain over --vocab tokens
in which each token has 4 likely successors (an entropy rate well below
log(vocab), so the loss has somewhere to go); training batches and a
held-out set are drawn from it.

--level: fp32 (O0), O2 (float16, dynamic loss scaling), bf16 (O2 in
bfloat16) or fp8 (O2 in bfloat16 with the contractions' operands in FP8:
E4M3 forward, E5M2 gradients, delayed scaling). --levels runs several on
the same data and initial weights, one after the other.

The last line of each level is `<level> final_loss=<value> skipped=<n>`:
the mean cross-entropy of the final fp32 parameters on the held-out set,
evaluated in fp32 by PyTorch (the same yardstick for every level).
"""

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))

LEVELS = {"fp32": ("O0", None), "O2": ("O2", "float16"),
          "bf16": ("O2", "bfloat16"), "fp8": ("O2", "fp8")}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", choices=sorted(LEVELS), default=None)
    p.add_argument("--levels", default=None,
                   help="comma-separated levels, run one after the other")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--context", type=int, default=32)
    p.add_argument("--vocab", type=int, default=64)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--blocks", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--json", metavar="FILE",
                   help="per-level loss curves and final losses")
    args = p.parse_args(argv)
    levels = ([args.level] if args.level else []) + \
        (args.levels.split(",") if args.levels else [])
    if not levels:
        levels = ["fp8"]
    for level in levels:
        if level not in LEVELS:
            p.error(f"unknown level {level!r} (known: "
                    f"{', '.join(sorted(LEVELS))})")
    if args.width % args.heads:
        p.error("--width must be divisible by --heads")
    if min(args.steps, args.batch, args.context, args.vocab) < 1:
        p.error("--steps, --batch, --context and --vocab must be positive")
    args.levels = levels
    return args


def make_corpus(vocab, seed):
    """The transition matrix of the corpus's Markov chain: each token's 4
    likely successors take 90% of its probability."""
    rng = np.random.default_rng([seed, 1])
    probs = np.full((vocab, vocab), 0.1 / vocab)
    for token in range(vocab):
        successors = rng.choice(vocab, size=4, replace=False)
        probs[token, successors] += 0.9 * rng.dirichlet(np.ones(4))
    return probs / probs.sum(axis=1, keepdims=True)


def sample(probs, count, length, rng):
    """count sequences of length tokens from the chain."""
    vocab = probs.shape[0]
    cumulative = np.cumsum(probs, axis=1)
    tokens = np.empty((count, length), dtype=np.int64)
    tokens[:, 0] = rng.integers(0, vocab, size=count)
    for t in range(1, length):
        u = rng.random(count)[:, None]
        tokens[:, t] = np.minimum(
            (u > cumulative[tokens[:, t - 1]]).sum(axis=1), vocab - 1)
    return tokens


def entropy_rate(probs):
    """The chain's entropy per token (nats) under its stationary
    distribution: the loss a perfect model reaches."""
    values, vectors = np.linalg.eig(probs.T)
    stationary = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    stationary /= stationary.sum()
    return float(-(stationary[:, None] * probs * np.log(probs)).sum())


def build_model(torch, args):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm(args.width)
            self.qkv = nn.Linear(args.width, 3 * args.width)
            self.proj = nn.Linear(args.width, args.width)
            self.norm2 = nn.LayerNorm(args.width)
            self.up = nn.Linear(args.width, 4 * args.width)
            self.down = nn.Linear(4 * args.width, args.width)

        def forward(self, x, mask):
            b, t, d = x.shape
            h = args.heads
            q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
            q, k, v = (y.reshape(b, t, h, d // h).transpose(1, 2)
                       for y in (q, k, v))
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
            scores = scores.masked_fill(mask, float("-inf"))
            attention = torch.softmax(scores, dim=-1) @ v
            x = x + self.proj(attention.transpose(1, 2).reshape(b, t, d))
            return x + self.down(nn.functional.gelu(self.up(self.norm2(x))))

    class LanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(args.vocab, args.width)
            self.position = nn.Parameter(
                0.02 * torch.randn(args.context, args.width))
            self.blocks = nn.ModuleList(Block() for _ in range(args.blocks))
            self.norm = nn.LayerNorm(args.width)
            self.head = nn.Linear(args.width, args.vocab)
            # Causal: position i attends to positions <= i (a constant).
            self.register_buffer("mask", torch.triu(torch.ones(
                args.context, args.context, dtype=torch.bool), diagonal=1),
                persistent=False)

        def forward(self, tokens):
            x = self.embed(tokens) + self.position
            for block in self.blocks:
                x = block(x, self.mask)
            return self.head(self.norm(x)).reshape(-1, args.vocab)

    return LanguageModel()


def main(argv=None):
    args = parse_args(argv)
    import torch
    import amp_mlir

    probs = make_corpus(args.vocab, args.seed)
    rng = np.random.default_rng([args.seed, 2])
    # Inputs are the first context tokens, targets the next ones.
    train = sample(probs, args.steps * args.batch, args.context + 1, rng)
    held_out = sample(probs, 256, args.context + 1, rng)

    def loss_fn(logits, targets):
        return torch.nn.functional.cross_entropy(logits, targets.reshape(-1))

    torch.manual_seed(args.seed)
    model = build_model(torch, args)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    example = (torch.zeros(args.batch, args.context, dtype=torch.int64),
               torch.zeros(args.batch, args.context, dtype=torch.int64))
    forward_backward = amp_mlir.from_torch_training(
        model, loss_fn, {"kind": "adamw", "lr": args.lr,
                         "weight_decay": 0.01}, *example)

    results = {"entropy_rate": entropy_rate(probs), "levels": {}}
    for level_name in args.levels:
        level, dtype = LEVELS[level_name]
        model.load_state_dict(initial)
        trainer = amp_mlir.Trainer(forward_backward,
                                   amp_mlir.parameters_of(model),
                                   level=level, dtype=dtype)
        curve = []
        for step in range(args.steps):
            rows = train[step * args.batch:(step + 1) * args.batch]
            loss, _ = trainer.step(rows[:, :-1].copy(), rows[:, 1:].copy())
            curve.append(loss)
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(torch.from_numpy(trainer.params[name]))
            tokens = torch.from_numpy(held_out)
            final = float(loss_fn(model(tokens[:, :-1]), tokens[:, 1:]))
        results["levels"][level_name] = {
            "final_loss": final, "skipped": trainer.skipped, "curve": curve}
        print(f"{level_name} final_loss={final!r} skipped={trainer.skipped}",
              flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
