"""Writes torchvision's resnet18 (random weights, 32x32 images) imported
with from_torch to argv[1], with a dynamic batch."""
import sys

import torch
import torchvision

import amp_mlir

torch.manual_seed(0)
net = torchvision.models.resnet18(weights=None).eval()
with open(sys.argv[1], "w") as out:
    out.write(amp_mlir.from_torch(net, torch.randn(2, 3, 32, 32),
                                  dynamic_dims=0))
