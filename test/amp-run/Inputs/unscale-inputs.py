"""unscale-inputs.py DIR: the inputs of unscale-grads.mlir for
gpu-sim-loss-scaling.test, one folder per case, each with a.npy (f32),
b.npy (f16), c.npy (f32, rounded to bf16 in the function) and s.npy (the
scale):

  clean     finite gradients (some f16 results subnormal), scale 1024
  third     scale 3: 1/3 is not a power of two, every product rounds
  nonfinite +Inf in a, NaN in b, -Inf in c, scale 1024
  overflow  scale 2^-10: finite f16 gradients whose products pass 65504
  invalid   scale 0: 1/scale is Inf, found_inf without any bad gradient
"""
import os
import sys

import numpy as np

CASES = {"clean": 1024.0, "third": 3.0, "nonfinite": 1024.0,
         "overflow": 2.0 ** -10, "invalid": 0.0}

rng = np.random.default_rng(2024)
for name, scale in CASES.items():
    a = (rng.standard_normal(1000) * 1000).astype(np.float32)
    b = (rng.standard_normal((7, 37)) * 1000).astype(np.float16)
    c = (rng.standard_normal((3, 333)) * 1000).astype(np.float32)
    b[0, :4] = np.array([1e-3, -2e-3, 6e-5, 3e-2], np.float16)
    if name == "nonfinite":
        a[17] = np.inf
        b[3, 5] = np.nan
        c[2, 300] = -np.inf
    folder = os.path.join(sys.argv[1], name)
    os.makedirs(folder, exist_ok=True)
    for key, value in {"a": a, "b": b, "c": c,
                       "s": np.array(scale, np.float32)}.items():
        np.save(os.path.join(folder, key + ".npy"), value)
