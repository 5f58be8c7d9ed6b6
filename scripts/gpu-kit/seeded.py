"""Inputs drawn from a seed, the same on the build machine and the GPU
machine (NumPy's PCG64 and uniform(), stable across versions): the GPU kit's
large bench models and resnet18's weights are too large to carry."""

import numpy as np


def seeded_inputs(specs, seed=0):
    """One float32 array per spec ({"shape", "init": "uniform"|"ones",
    "scale"}): U(-scale, scale), plus 1 for "ones"."""
    arrays = []
    for index, spec in enumerate(specs):
        rng = np.random.default_rng(seed * 1000 + index)
        shape = tuple(spec["shape"])
        values = rng.uniform(-spec["scale"], spec["scale"], size=shape)
        if spec["init"] == "ones":
            values = values + 1.0
        arrays.append(values.astype(np.float32))
    return arrays
