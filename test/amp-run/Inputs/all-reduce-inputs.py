"""Writes the inputs of all-reduce.mlir for two ranks, x<r>.npy and
h<r>.npy, into the directory argv[1], and expected.npz (what every rank
must get)."""
import sys

import numpy as np

out = sys.argv[1]
xs = [np.array([1, 2, 3, -4], np.float32),
      np.array([10, 20, 30, 40], np.float32)]
hs = [np.array([0.1, 1, 2], np.float16), np.array([0.2, 3, -2], np.float16)]
for rank in range(2):
    np.save(f"{out}/x{rank}.npy", xs[rank])
    np.save(f"{out}/h{rank}.npy", hs[rank])
flags = [x[0] > 5 for x in xs]
np.savez(f"{out}/expected.npz",
         sum=xs[0] + xs[1], mean=(xs[0] + xs[1]) / np.float32(2),
         max=np.maximum(xs[0], xs[1]),
         # f16 reduced in f32 and rounded once.
         hmean=((hs[0].astype(np.float32) + hs[1].astype(np.float32)) /
                np.float32(2)).astype(np.float16),
         any=np.int32(any(flags)), all=np.int32(all(flags)))
