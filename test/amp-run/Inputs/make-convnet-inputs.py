"""Writes inputs for examples/linalg_convnet.mlir to DIR/{image,filter,mean,
var,gamma,beta,fc}.npy: uniform values, with a positive variance (random
inputs in [-1, 1) make var + eps negative and every output NaN)."""
import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(1)


def uniform(low, high, *shape):
    return rng.uniform(low, high, shape).astype(np.float32)


arrays = {
    "image": uniform(-1, 1, 1, 3, 16, 16),
    "filter": uniform(-1, 1, 8, 3, 3, 3),
    "mean": uniform(-0.1, 0.1, 8),
    "var": uniform(0.5, 1.5, 8),
    "gamma": uniform(0.5, 1.5, 8),
    "beta": uniform(-0.1, 0.1, 8),
    "fc": uniform(-0.1, 0.1, 392, 10),
}
for name, array in arrays.items():
    np.save(os.path.join(out, name + ".npy"), array)
