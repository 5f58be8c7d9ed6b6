#!/usr/bin/env python3
"""Where amp-mlir's O2 error on the transformers comes from (an experiment
beside the peers table; docs/performance.md cites it).

Runs each transformer model in PyTorch with every weight and activation in
f16 or bf16 (`model.to(dtype)`, attention fast path off), twice:

- `fused`: PyTorch's layer_norm and scaled_dot_product_attention kernels,
  which compute in f32 inside and round their result once;
- `decomposed`: the same two ops written as the chain of ops torch-mlir
  lowers them to (mean, centre, variance, rsqrt, scale; scores, max,
  subtract, exp, sum, divide), each intermediate stored in the low type,
  sums accumulated in f32: what amp-mlir's O2 graph computes.

and prints the rel L2 error of each against fp32 on the benchmark's seeded
input. Then resnet18 entirely in the low type, as it is and with each
batch norm folded into its convolution (torch.fx's `fuse`, what the ONNX
exporter does), for its smaller gap.

    .venv-peers/bin/python bench/peers/roundings.py
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from metrics import rel_l2  # noqa: E402
from systems import first, load_model  # noqa: E402


def layer_norm(x, shape, weight=None, bias=None, eps=1e-5):
    dims = tuple(range(-len(shape), 0))
    n = math.prod(shape)
    mean = x.float().sum(dims, keepdim=True).to(x.dtype) / n
    centred = x - mean
    var = (centred * centred).float().sum(dims, keepdim=True).to(x.dtype) / n
    y = centred * torch.rsqrt(var + eps)
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False,
              scale=None, **_):
    assert attn_mask is None and not is_causal and dropout_p == 0.0
    s = (q @ k.transpose(-2, -1)) * (scale or 1 / math.sqrt(q.shape[-1]))
    e = torch.exp(s - s.amax(-1, keepdim=True))
    p = e / e.float().sum(-1, keepdim=True).to(e.dtype)
    return p @ v


def run(spec, dtype, decomposed, x, seed=0):
    model, _ = load_model(spec, seed)
    saved = F.layer_norm, F.scaled_dot_product_attention
    if decomposed:
        F.layer_norm, F.scaled_dot_product_attention = layer_norm, attention
    try:
        with torch.no_grad():
            return first(model.to(dtype)(x.to(dtype))).float().numpy()
    finally:
        F.layer_norm, F.scaled_dot_product_attention = saved


def main():
    torch.backends.mha.set_fastpath_enabled(False)
    print("| model | type | fused | decomposed |")
    print("|---|---|---:|---:|")
    for name in ("transformer_encoder", "bert_block"):
        spec = f"torch:models:{name}"
        model, shape = load_model(spec, 0)
        x = torch.from_numpy(np.random.RandomState(0).standard_normal(
            shape).astype(np.float32))
        with torch.no_grad():
            ref = first(model(x)).numpy()
        # The decomposition itself is exact in fp32.
        assert rel_l2(run(spec, torch.float32, True, x), ref) < 1e-5
        for dtype, label in ((torch.float16, "f16"), (torch.bfloat16,
                                                     "bf16")):
            fused = rel_l2(run(spec, dtype, False, x), ref)
            decomposed = rel_l2(run(spec, dtype, True, x), ref)
            print(f"| {name} | {label} | {fused:.2e} | {decomposed:.2e} |")
    from torch.fx.experimental.optimization import fuse
    spec = "torchvision:resnet18"
    model, shape = load_model(spec, 0)
    x = torch.from_numpy(np.random.RandomState(0).standard_normal(
        shape).astype(np.float32))
    with torch.no_grad():
        ref = first(model(x)).numpy()
    print("\n| model | type | low type | batch norm folded, low type |")
    print("|---|---|---:|---:|")
    for dtype, label in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        plain = rel_l2(run(spec, dtype, False, x), ref)
        folded_model = fuse(load_model(spec, 0)[0]).to(dtype)
        with torch.no_grad():
            folded = rel_l2(first(folded_model(x.to(dtype))).float().numpy(),
                            ref)
        print(f"| resnet18 | {label} | {plain:.2e} | {folded:.2e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
