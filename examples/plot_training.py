#!/usr/bin/env python3
"""Train examples/mlp_training.mlir at fp32, O1, O2 (f16) and O2 bf16 through
the amp_mlir Python package, and plot the loss curves and the loss scale.

    /usr/bin/python3 examples/plot_training.py --out-dir docs/images

Writes training-loss.png (loss per step, and its difference from fp32),
training-scale.png (log2 of the loss scale per step, skipped steps marked)
and training.json (every curve and a summary), and prints the summary.
--inject STEP adds a fifth run, O2 with +Inf in a gradient at STEP.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))

import amp_mlir  # noqa: E402

RUNS = [
    # label, level, dtype, colour
    ("fp32", "O0", "f16", "#1f4e9c"),
    ("O1 f16", "O1", "f16", "#e08a1e"),
    ("O2 f16", "O2", "f16", "#c0392b"),
    ("O2 bf16", "O2", "bf16", "#2e8b57"),
]
NAMES = ["x", "y", "w1", "b1", "w2", "b2", "inject"]


def load_data(inject):
    """The example's data and initial weights (examples/mlp_training_data.py)
    as arrays, in @train's argument order."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, str(HERE / "mlp_training_data.py"),
                        tmp, "--inject", str(inject)], check=True)
        return [np.load(Path(tmp) / f"{name}.npy") for name in NAMES]


def train(module, level, dtype, data):
    compiled = amp_mlir.compile(module, level=level, dtype=dtype)
    loss, scale, found = compiled.train(*data)
    return {"loss": loss.tolist(), "scale": scale.tolist(),
            "found_inf": found.tolist()}


def summarize(curves):
    reference = curves["fp32"]["loss"][-1]
    summary = {}
    for label, curve in curves.items():
        final = curve["loss"][-1]
        scale = np.array(curve["scale"])
        summary[label] = {
            "final_loss": final,
            "vs_fp32": (final - reference) / reference,
            "scale_first": float(scale[0]),
            "scale_last": float(scale[-1]),
            "skipped_steps": [i for i, f in enumerate(curve["found_inf"])
                              if f],
        }
    return summary


def plot(curves, colours, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = np.arange(1, len(curves["fp32"]["loss"]) + 1)
    reference = np.array(curves["fp32"]["loss"])

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    for label, curve in curves.items():
        loss = np.array(curve["loss"])
        top.plot(steps, loss, label=label, color=colours[label],
                 linewidth=1.6 if label == "fp32" else 1.2,
                 linestyle="-" if label != "fp32" else "--")
        if label != "fp32":
            bottom.plot(steps, 100 * (loss - reference) / reference,
                        label=label, color=colours[label], linewidth=1.2)
    top.set_yscale("log")
    top.set_ylabel("training loss")
    top.set_title("examples/mlp_training.mlir: 300 steps of Adam, fp32 "
                  "masters, dynamic loss scaling")
    top.legend()
    top.grid(alpha=0.3, which="both")
    bottom.axhline(0, color="black", linewidth=0.8)
    bottom.set_ylabel("difference from fp32 (%)")
    bottom.set_xlabel("step")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "training-loss.png", dpi=110)
    plt.close(fig)

    fig, axis = plt.subplots(figsize=(8, 3.8))
    for label, curve in curves.items():
        if label == "fp32":
            continue  # no loss scaling at fp32
        scale = np.log2(np.array(curve["scale"]))
        # O1 and O2 see the same overflows here: dash one to show both.
        axis.step(steps, scale, where="post", label=label,
                  color=colours[label], linewidth=1.4,
                  linestyle=(0, (4, 3)) if label.startswith("O1") else "-")
        skipped = [i for i, f in enumerate(curve["found_inf"]) if f]
        if skipped:
            axis.scatter(steps[skipped], scale[skipped], marker="x", s=60,
                         color=colours[label], zorder=3,
                         label=f"{label}: skipped step")
    axis.set_xlabel("step")
    axis.set_ylabel("log2(loss scale)")
    axis.set_title("Loss scale after each step (bf16 runs without scaling)")
    axis.legend()
    axis.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out_dir / "training-scale.png", dpi=110)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("."))
    parser.add_argument("--module", type=Path,
                        default=HERE / "mlp_training.mlir")
    parser.add_argument("--inject", type=int, default=-1,
                        help="also run O2 with +Inf in a gradient at STEP")
    parser.add_argument("--no-plot", action="store_true",
                        help="write training.json only (no matplotlib)")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)

    runs = list(RUNS)
    if args.inject >= 0:
        runs.append((f"O2 f16, Inf at step {args.inject}", "O2", "f16",
                     "#8e44ad"))
    clean = load_data(-1)
    injected = load_data(args.inject) if args.inject >= 0 else None
    curves, colours = {}, {}
    for label, level, dtype, colour in runs:
        data = injected if "Inf at" in label else clean
        curves[label] = train(args.module, level, dtype, data)
        colours[label] = colour
    summary = summarize(curves)
    (args.out_dir / "training.json").write_text(
        json.dumps({"summary": summary, "curves": curves}, indent=1))
    if not args.no_plot:
        plot(curves, colours, args.out_dir)

    print(f"{'run':<24} {'final loss':>10} {'vs fp32':>9} "
          f"{'scale first':>12} {'scale last':>11}  skipped steps")
    for label, row in summary.items():
        skipped = ",".join(map(str, row["skipped_steps"])) or "-"
        print(f"{label:<24} {row['final_loss']:>10.5f} "
              f"{100 * row['vs_fp32']:>+8.2f}% {row['scale_first']:>12g} "
              f"{row['scale_last']:>11g}  {skipped}")


if __name__ == "__main__":
    main()
