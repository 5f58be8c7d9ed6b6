#!/usr/bin/env python3
"""Plots the loss curves of examples/torch_training/train.py runs.

    # with the frontend environment (torch, scikit-learn):
    for l in fp32 O1 O2 bf16; do
      .venv-frontends/bin/python examples/torch_training/train.py \\
          --level $l --dataset digits --steps 300 --json /tmp/$l.json
    done
    # with Debian's Python (matplotlib):
    /usr/bin/python3 examples/torch_training/plot.py /tmp/{fp32,O1,O2,bf16}.json \\
        --out docs/images/torch-training-loss.png

Top: the training loss per step of each run (the loss of the step's batch,
as the compiled step returns it). Bottom: each run's loss minus the first
run's (fp32) on the same batches. Skipped steps are marked with a cross.
Prints a summary line per run.
"""

import argparse
import json
import sys

COLOURS = {"fp32": "#1f4e9c", "O1": "#e08a1e", "O2": "#c0392b",
           "bf16": "#2e8b57"}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="train.py --json files; the "
                   "first is the reference")
    p.add_argument("--out", required=True, help="PNG to write")
    args = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []
    for path in args.runs:
        with open(path) as f:
            runs.append(json.load(f))
    reference = [s["loss"] for s in runs[0]["steps"]]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True,
                                      gridspec_kw={"height_ratios": [2, 1]})
    for run in runs:
        steps = [s["step"] for s in run["steps"]]
        losses = [s["loss"] for s in run["steps"]]
        colour = COLOURS.get(run["level"])
        top.plot(steps, losses, label=run["level"], color=colour, lw=1.2)
        skipped = [s["step"] for s in run["steps"] if s["skipped"]]
        top.plot(skipped, [losses[steps.index(k)] for k in skipped], "x",
                 color=colour)
        n = min(len(losses), len(reference))
        bottom.plot(steps[:n], [a - b for a, b in zip(losses, reference)],
                    color=colour, lw=1.0)
        print(f"{run['level']}: {len(steps)} steps, last loss "
              f"{losses[-1]:.5f}, {len(skipped)} skipped, final scale "
              f"{run['steps'][-1]['scale']:g}")
    top.set_ylabel("training loss")
    top.set_yscale("log")
    top.legend()
    top.set_title(f"MLP on scikit-learn's {runs[0]['dataset']}, trained "
                  f"through amp-mlir's compiled step")
    bottom.set_ylabel(f"loss - {runs[0]['level']}")
    bottom.set_xlabel("step")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
