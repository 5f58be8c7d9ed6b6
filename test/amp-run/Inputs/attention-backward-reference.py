"""Inputs and the exact gradients of @op in attention-training.mlir.

Usage: attention-backward-reference.py DIR. Writes DIR/{q,k,v,bias,do}.npy
(f16, seeded) and DIR/ref.{q,k,v}.npy: the gradients of scaled dot-product
attention (scale 1/4, the mask added, causal) with respect to q, k and v for
the output gradient do, in float64 from the f16 inputs: a softmax computed
directly, not from the forward's rounded output or stats, so each
implementation is measured against the mathematics, not against another.
"""
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(7)
b, h, sq, skv, d = 2, 2, 24, 40, 16
shapes = {"q": (b, h, sq, d), "k": (b, h, skv, d), "v": (b, h, skv, d),
          "bias": (1, h, sq, skv), "do": (b, h, sq, d)}
x = {}
for name, shape in shapes.items():
    x[name] = rng.uniform(-1, 1, shape).astype(np.float16)
    np.save(f"{out}/{name}.npy", x[name])
q, k, v, bias, do = (x[n].astype(np.float64)
                     for n in ("q", "k", "v", "bias", "do"))
scale = 0.25
s = scale * q @ k.swapaxes(-1, -2) + bias
s = np.where(np.triu(np.ones((sq, skv), bool), 1), -np.inf, s)
p = np.exp(s - s.max(-1, keepdims=True))
p /= p.sum(-1, keepdims=True)
dv = p.swapaxes(-1, -2) @ do
dp = do @ v.swapaxes(-1, -2)
ds = p * (dp - (dp * p).sum(-1, keepdims=True))
np.save(f"{out}/ref.q.npy", scale * ds @ k)
np.save(f"{out}/ref.k.npy", scale * ds.swapaxes(-1, -2) @ q)
np.save(f"{out}/ref.v.npy", dv)
