"""Writes a small MLP imported with from_torch to argv[1], with a dynamic
batch (or a static one with --static)."""
import sys

import torch

import amp_mlir

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                          torch.nn.Linear(16, 4))
with open(sys.argv[1], "w") as out:
    out.write(amp_mlir.from_torch(
        net, torch.randn(2, 8),
        dynamic_dims=None if "--static" in sys.argv else 0))
