"""torchvision's resnet18 in inference on the GPU pipeline with
channels-last (test/Frontends/resnet18-conv-epilogues.test): how many of
its convolutions take their batch norm, residual and ReLU into the call
(ampGpuConv2dEpilogue, cuDNN's graph API), and the simulator's output
against PyTorch's fp32 and the CPU pipeline's, with and without
conv-epilogues, at O2 float16.

Batch norm gets running statistics and affine parameters away from
their defaults (mean 0, variance 1, weight 1, bias 0 would make the
epilogue's scale and shift trivial). Then the same with a dynamic batch.
Prints one line per figure.
"""
import re
import warnings

import numpy as np
import torch
import torchvision

import amp_mlir

torch.manual_seed(0)
net = torchvision.models.resnet18(weights=None).eval()
with torch.no_grad():
    for module in net.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.uniform_(0.5, 1.5)
            module.bias.uniform_(-0.5, 0.5)
x = torch.randn(2, 3, 32, 32)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    text = amp_mlir.from_torch(net, x)
    reference = net(x).detach().numpy()
    lowered = amp_mlir.transform(text, level="O2", dtype="float16",
                                 lower="gpu",
                                 gpu_options={"channels-last": True})
    fused = len(re.findall(r"call @ampGpuConv2dEpilogue\(", lowered))
    plain = len(re.findall(r"call @ampGpuConv2d\(", lowered))
    print(f"convolutions: {fused} with their epilogue, {plain} plain")
    outputs = {}
    for name, target, options in [
            ("cpu", "cpu", None),
            ("fused", "gpu-sim", {"channels-last": True}),
            ("unfused", "gpu-sim", {"channels-last": True,
                                    "conv-epilogues": False})]:
        compiled = amp_mlir.compile(text, level="O2", dtype="float16",
                                    target=target, gpu_options=options)
        outputs[name] = np.asarray(compiled(x.numpy()))


def rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


errors = {name: rel(out, reference) for name, out in outputs.items()}
print("against torch fp32: " + ", ".join(
    f"{name} {error:.2e}" for name, error in errors.items()))
print("fused within 1% of unfused or better:",
      errors["fused"] <= 1.01 * errors["unfused"])
print("fused against the CPU pipeline within 2e-3:",
      rel(outputs["fused"], outputs["cpu"]) <= 2e-3)

# A dynamic batch (the output's size read at the call): the same fusions,
# and a batch of 3 in the simulator against the CPU.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    dynamic = amp_mlir.from_torch(net, x, dynamic_dims=0)
    lowered = amp_mlir.transform(dynamic, level="O2", dtype="float16",
                                 lower="gpu",
                                 gpu_options={"channels-last": True})
    fused = len(re.findall(r"call @ampGpuConv2dEpilogue\(", lowered))
    three = torch.randn(3, 3, 32, 32).numpy()
    results = [np.asarray(amp_mlir.compile(
        dynamic, level="O2", dtype="float16", target=target,
        gpu_options=options)(three))
        for target, options in [("cpu", None),
                                ("gpu-sim", {"channels-last": True})]]
print(f"dynamic batch: {fused} with their epilogue; batch 3 against the "
      f"CPU pipeline within 2e-3: {rel(results[1], results[0]) <= 2e-3}")
