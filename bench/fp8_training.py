#!/usr/bin/env python3
"""The FP8 training figures of docs/policies.md, from a kept run:

- the MLP of examples/torch_training/train.py (Adam, --mlp-steps steps,
  seed 0) at fp32 and fp8 on scikit-learn's four bundled datasets, the
  final loss of each;
- the small transformer language model of examples/torch_training/lm.py,
  trained from the same weights on the same batches at fp32, bf16 and fp8
  (--steps steps of batch 16), the held-out losses and their distances.

    AMP_MLIR_ROOT=build .venv-frontends/bin/python bench/fp8_training.py \\
        --json bench/results/fp8-training.json --update-doc docs/policies.md
    /usr/bin/python3 bench/fp8_training.py \\
        --from-json bench/results/fp8-training.json \\
        --update-doc docs/policies.md --check

Measuring runs the examples with this Python (the frontend environment);
the rendering needs nothing but the kept JSON. The text goes between the
mlp-fp8-training and lm-training markers of the document
(scripts/doctables.py).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doctables  # noqa: E402

SCRIPT = "bench/fp8_training.py"
DATASETS = ("digits", "breast_cancer", "iris", "wine")
LEVELS = ("fp32", "bf16", "fp8")


def measure_mlp(steps, seed):
    """{dataset: {level: final loss}} of train.py's MLP."""
    out = {}
    for dataset in DATASETS:
        out[dataset] = {}
        for level in ("fp32", "fp8"):
            log = subprocess.run(
                [sys.executable, "-W", "ignore",
                 os.path.join(ROOT, "examples", "torch_training",
                              "train.py"),
                 "--level", level, "--dataset", dataset, "--steps",
                 str(steps), "--seed", str(seed), "--optimizer", "adam"],
                check=True, capture_output=True, text=True).stdout
            last = log.strip().splitlines()[-1]
            fields = dict(f.split("=") for f in last.split())
            out[dataset][level] = {"final_loss": float(fields["final_loss"]),
                                   "skipped": int(fields["skipped"])}
    return out


def measure_lm(steps, batch, seed):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "lm.json")
        subprocess.run([sys.executable, "-W", "ignore",
                        os.path.join(ROOT, "examples", "torch_training",
                                     "lm.py"),
                        "--levels", ",".join(LEVELS), "--steps", str(steps),
                        "--batch", str(batch), "--seed", str(seed),
                        "--json", out], check=True)
        with open(out) as f:
            lm = json.load(f)
    return {"steps": steps, "batch": batch,
            "seed": seed, "entropy_rate": lm["entropy_rate"],
            "levels": {name: {"final_loss": level["final_loss"],
                              "skipped": level["skipped"]}
                       for name, level in lm["levels"].items()}}


def percent(a, b):
    """|a - b| / b in percent, two significant digits."""
    return f"{abs(a - b) / b * 100:.2g}%"


def render_mlp(run):
    mlp = run["mlp"]
    worst = max(abs(d["fp8"]["final_loss"] - d["fp32"]["final_loss"]) /
                d["fp32"]["final_loss"] for d in mlp["datasets"].values())
    pairs = ", ".join(f"{name} {d['fp8']['final_loss']:.4f} vs "
                      f"{d['fp32']['final_loss']:.4f}"
                      for name, d in mlp["datasets"].items())
    skipped = sum(d[level]["skipped"] for d in mlp["datasets"].values()
                  for level in ("fp32", "fp8"))
    return (f"On the MLP of `examples/torch_training/train.py` "
            f"({mlp['steps']} steps, Adam, seed {mlp['seed']}), the final "
            f"loss of fp8 against fp32 is within {worst * 100:.2g}% on all "
            f"four bundled datasets ({pairs}; {skipped} skipped steps; "
            f"`{SCRIPT}`, kept in `bench/results/fp8-training.json`).\n")


def render_lm(run):
    run = run["lm"]
    loss = {name: run["levels"][name]["final_loss"] for name in LEVELS}
    skipped = sum(run["levels"][name]["skipped"] for name in LEVELS)
    return (f"From the same weights and batches, {run['steps']} steps of "
            f"batch {run['batch']} (seed {run['seed']}), the held-out loss "
            f"is {loss['fp32']:.5f} at fp32, {loss['bf16']:.5f} at bf16 and "
            f"{loss['fp8']:.5f} at fp8, with {skipped} skipped steps: bf16 "
            f"within {percent(loss['bf16'], loss['fp32'])} of fp32, fp8 "
            f"within {percent(loss['fp8'], loss['bf16'])} of bf16 (the "
            f"corpus's entropy rate is {run['entropy_rate']:.3f} nats; "
            f"`{SCRIPT}`, kept in `bench/results/fp8-training.json`).\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300,
                        help="the language model's steps")
    parser.add_argument("--mlp-steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)

    def measure():
        return {"machine": doctables.machine(),
                "mlp": {"steps": args.mlp_steps, "seed": args.seed,
                        "datasets": measure_mlp(args.mlp_steps, args.seed)},
                "lm": measure_lm(args.steps, args.batch, args.seed)}
    run = doctables.load_or_measure(args, measure)
    return doctables.publish(args, {"mlp-fp8-training": render_mlp(run),
                                    "lm-training": render_lm(run)}, SCRIPT)


if __name__ == "__main__":
    sys.exit(main())
