#!/usr/bin/env python3
"""Exports the GPU kit's frontend models with amp_mlir.from_torch (run with
the frontend environment's Python, .venv-frontends/bin/python):

    export_models.py OUT_DIR [--models mlp,transformer,resnet18]

For each model, OUT_DIR/<name>.mlir (function @main, dynamic batch) and
OUT_DIR/<name>.json (the input's shape and dtype, the batch the kit runs,
where the weights are). The MLP and the transformer classifier (the models
of test/Frontends) keep their weights as constants; their state dicts go to
OUT_DIR/<name>.weights.npz for the PyTorch baseline on the GPU machine.
resnet18's 11.7M weights would not fit the kit as constants at five levels,
so its function takes them as arguments (after the image; a functional call
of the module), and both sides draw them from a seed (kit: the seeded
arguments; the CPU reference here from the same seeds).
"""

import argparse
import json
import os
import sys

import numpy as np
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
import amp_mlir  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frontend_models import MLP, TransformerClassifier  # noqa: E402


def weights_as_arguments(net, names):
    """A module whose forward(x, p0, p1, ...) calls `net` with its
    parameters and buffers `names` replaced by the arguments. The arguments
    are spelled out (torch.export takes no *args with per-argument dynamic
    shapes), and `net` is hidden from the module so that its own weights
    are not exported as constants too."""
    args = ", ".join(f"p{i}" for i in range(len(names)))
    scope = {"torch": torch}
    exec(f"def forward(self, x, {args}):\n"
         f"    return torch.func.functional_call(\n"
         f"        self.hidden[0], dict(zip(self.names, ({args},))), (x,))\n",
         scope)
    module = type("WeightsAsArguments", (torch.nn.Module,),
                  {"forward": scope["forward"]})()
    module.__dict__["hidden"] = [net]
    module.names = names
    return module


def seeded_weights(net, names):
    """Deterministic stand-ins: U(+-sqrt(3/fan_in)) for weights, small
    biases, BatchNorm gains 1, shifts 0, running mean 0 and variance 1."""
    specs = []
    state = dict(net.named_parameters())
    state.update(dict(net.named_buffers()))
    for name in names:
        shape = list(state[name].shape)
        leaf = name.rsplit(".", 1)[-1]
        if leaf == "running_var":
            spec = {"init": "ones", "scale": 0.0}
        elif leaf == "running_mean":
            spec = {"init": "uniform", "scale": 0.0}
        elif len(shape) == 1 and "bn" in name or "downsample.1" in name:
            spec = ({"init": "ones", "scale": 0.0} if leaf == "weight"
                    else {"init": "uniform", "scale": 0.0})
        elif len(shape) == 1:
            spec = {"init": "uniform", "scale": 0.05}
        else:
            fan_in = int(np.prod(shape[1:]))  # He: variance 2 / fan_in
            spec = {"init": "uniform", "scale": float(np.sqrt(6.0 / fan_in))}
        specs.append({"name": name, "shape": shape, "dtype": "f32", **spec})
    return specs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--models",
                        default="mlp,transformer,resnet18,mlp_train")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    for name in args.models.split(","):
        info = {"name": name}
        if name == "mlp":
            net, example = MLP().eval(), torch.randn(2, 64)
            info.update(batch=64, input={"shape": [64, 64], "dtype": "f32"})
        elif name == "transformer":
            net = TransformerClassifier().eval()
            example = torch.randint(0, 100, (2, 12))
            info.update(batch=32, input={"shape": [32, 12], "dtype": "i64",
                                         "high": 100})
        elif name == "resnet18":
            import torchvision
            base = torchvision.models.resnet18(weights=None).eval()
            names = [n for n, _ in base.named_parameters()] + [
                n for n, b in base.named_buffers() if b.is_floating_point()]
            state = dict(base.named_parameters())
            state.update(dict(base.named_buffers()))
            net = weights_as_arguments(base, names)
            params = [state[n].detach() for n in names]
            example = (torch.randn(2, 3, 64, 64), *params)
            info.update(batch=8, input={"shape": [8, 3, 64, 64],
                                        "dtype": "f32"},
                        weights=seeded_weights(base, names))
        elif name == "mlp_train":
            # A training step imported from PyTorch: from_torch_training's
            # forward and backward (cross_entropy, Adam), made a step by
            # make_training_step as amp_mlir.Trainer does, so that O0 runs
            # the same step (loss scaling, unscale, Adam, the skip).
            torch.manual_seed(0)
            model = torch.nn.Sequential(
                torch.nn.Linear(64, 256), torch.nn.ReLU(),
                torch.nn.Linear(256, 256), torch.nn.GELU(),
                torch.nn.Linear(256, 10))
            fb = amp_mlir.from_torch_training(
                model, torch.nn.functional.cross_entropy,
                {"kind": "adam", "lr": 1e-3}, torch.zeros(64, 64),
                torch.zeros(64, dtype=torch.int64))
            text = amp_mlir.make_training_step(fb)
            info.update(entry="forward_backward", variants="O0_O2",
                        tol_scale=2.0)
            with open(os.path.join(args.out, f"{name}.mlir"), "w") as f:
                f.write(text)
            with open(os.path.join(args.out, f"{name}.json"), "w") as f:
                json.dump(info, f, indent=1)
            print(f"{name}: {len(text) / 1e6:.1f} MB of MLIR")
            continue
        else:
            sys.exit(f"unknown model {name}")
        examples = example if isinstance(example, tuple) else (example,)
        text = amp_mlir.from_torch(
            net, *examples,
            dynamic_dims=0 if name != "resnet18" else
            [[0]] + [None] * (len(examples) - 1))
        with open(os.path.join(args.out, f"{name}.mlir"), "w") as f:
            f.write(text)
        if name != "resnet18":
            np.savez(os.path.join(args.out, f"{name}.weights.npz"),
                     **{k: v.detach().numpy()
                        for k, v in net.state_dict().items()})
        with open(os.path.join(args.out, f"{name}.json"), "w") as f:
            json.dump(info, f, indent=1)
        print(f"{name}: {len(text) / 1e6:.1f} MB of MLIR")


if __name__ == "__main__":
    main()
