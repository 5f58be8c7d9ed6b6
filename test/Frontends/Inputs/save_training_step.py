"""Writes the training step of an MLP (Linear 64->32, ReLU, Linear 32->10,
cross_entropy with int64 labels, torch.optim.AdamW) imported with
from_torch_training to argv[1]: the example of docs/frontends.md."""
import sys

import torch

import amp_mlir

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(),
                          torch.nn.Linear(32, 10))
optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.01)
x, y = torch.randn(64, 64), torch.randint(0, 10, (64,))
with open(sys.argv[1], "w") as out:
    out.write(amp_mlir.from_torch_training(
        net, torch.nn.functional.cross_entropy, optimizer, x, y))
