"""Exports a small MLP to DIR/mlp.onnx with torch.onnx.export (dynamic
batch), and writes DIR/x.npy and PyTorch's fp32 output DIR/ref.npy; with
--from-onnx, also imports the file with amp_mlir.from_onnx, runs it at O2
and prints the relative L2 error against PyTorch."""
import sys

import numpy as np
import torch

import amp_mlir

directory = sys.argv[1]
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                          torch.nn.Linear(16, 4)).eval()
torch.onnx.export(net, (torch.randn(2, 8),), f"{directory}/mlp.onnx",
                  dynamo=True, dynamic_shapes=({0: "batch"},),
                  verbose=False)
x = torch.randn(5, 8, generator=torch.Generator().manual_seed(1))
with torch.no_grad():
    reference = net(x).numpy()
np.save(f"{directory}/x.npy", x.numpy())
np.save(f"{directory}/ref.npy", reference)
if "--from-onnx" in sys.argv:
    text = amp_mlir.from_onnx(f"{directory}/mlp.onnx")
    function = amp_mlir.compile(text, level="O2").main
    result = function(x.numpy())
    error = np.linalg.norm(result - reference) / np.linalg.norm(reference)
    print(f"from_onnx: {function.signature}, O2 f16 rel L2 {error:.1e}")
    assert error < 5e-3
