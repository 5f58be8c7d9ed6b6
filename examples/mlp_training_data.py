#!/usr/bin/env python3
"""Synthetic data and initial weights for examples/mlp_training.mlir.

Writes x.npy (256x16 inputs), y.npy (256x4 one-hot labels of a noisy linear
teacher), w1/b1/w2/b2.npy (initial weights) and inject.npy (the step at
which @train adds +Inf to a gradient; -1 for never) into a directory:

    /usr/bin/python3 examples/mlp_training_data.py OUT_DIR [--inject STEP]
"""
import argparse
import os

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--inject", type=int, default=-1,
                        help="step at which a gradient gets +Inf (-1: never)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    rng = np.random.default_rng(args.seed)
    n, d, h, c = 256, 16, 8, 4
    x = rng.standard_normal((n, d)).astype(np.float32)
    teacher = rng.standard_normal((d, c)).astype(np.float32)
    labels = np.argmax(x @ teacher + 2.0 * rng.standard_normal((n, c)), axis=1)
    arrays = {
        "x": x,
        "y": np.eye(c, dtype=np.float32)[labels],
        "w1": (rng.standard_normal((d, h)) * 0.25).astype(np.float32),
        "b1": np.zeros(h, np.float32),
        "w2": (rng.standard_normal((h, c)) * 0.35).astype(np.float32),
        "b2": np.zeros(c, np.float32),
        "inject": np.array(args.inject, np.int32),
    }
    for name, array in arrays.items():
        np.save(os.path.join(args.out_dir, name + ".npy"), array)


if __name__ == "__main__":
    main()
