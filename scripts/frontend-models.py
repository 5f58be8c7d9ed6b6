"""Which PyTorch models go through amp_mlir.from_torch and compile at O2.

    .venv-frontends/bin/python scripts/frontend-models.py [NAME...]

Needs the frontend environment (scripts/install-frontends.sh) and a build.
For each model (random weights, no downloads): import with a dynamic batch
(batch 2), compile at O2 in f16 and in bf16 for the CPU, run on a batch of 2
and print the relative L2 error against PyTorch fp32, or where it failed.
Prints a Markdown table (the one in docs/frontends.md, "Other models").

    frontend-models.py [NAME...] [--json FILE] [--update-doc DOC]
    frontend-models.py --from-json FILE --update-doc DOC [--check]

--json keeps the run (bench/results/frontend-models.json is the one the
docs show); --update-doc writes the table between the frontend-models
markers of DOC; --from-json renders a kept run without running anything
(no torch needed), and with --check fails when DOC's table is not that
rendering (test/Docs/frontend-models-table.test: the run takes about 20
minutes, so CI re-renders the kept one).
"""

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
sys.path.insert(0, str(HERE))
import doctables  # noqa: E402


def load_models():
    """{name: factory of (module, input)}; imports torch."""
    import torch
    import torchvision

    class Seq(torch.nn.Module):
        """A torch.nn layer applied to (batch, sequence, features), last output
        of recurrent layers."""

        def __init__(self, layer, recurrent=False):
            super().__init__()
            self.layer = layer
            self.recurrent = recurrent

        def forward(self, x):
            y = self.layer(x)
            return y[0] if self.recurrent else y


    class Attention(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = torch.nn.MultiheadAttention(32, 4, batch_first=True)

        def forward(self, x):
            return self.attention(x, x, x, need_weights=False)[0]


    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.decoder = torch.nn.TransformerDecoderLayer(
                32, 4, 64, dropout=0.0, batch_first=True)

        def forward(self, x):
            return self.decoder(x, x)


    def vit():
        """torchvision's ViT-B/16 initializes its head to zero (all outputs 0):
        a random head instead."""
        model = torchvision.models.vit_b_16()
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
        return model


    def image(size=64):
        return torch.randn(2, 3, size, size)


    def sequence():
        return torch.randn(2, 10, 32)


    vision = torchvision.models
    MODELS = {
        "torchvision resnet18": lambda: (vision.resnet18(), image()),
        "torchvision resnet50": lambda: (vision.resnet50(), image()),
        "torchvision mobilenet_v2": lambda: (vision.mobilenet_v2(), image()),
        "torchvision mobilenet_v3_small":
            lambda: (vision.mobilenet_v3_small(), image()),
        "torchvision squeezenet1_1": lambda: (vision.squeezenet1_1(), image()),
        "torchvision shufflenet_v2_x0_5":
            lambda: (vision.shufflenet_v2_x0_5(), image()),
        "torchvision efficientnet_b0": lambda: (vision.efficientnet_b0(), image()),
        "torchvision regnet_y_400mf": lambda: (vision.regnet_y_400mf(), image()),
        "torchvision densenet121": lambda: (vision.densenet121(), image()),
        "torchvision googlenet":
            lambda: (vision.googlenet(aux_logits=False, init_weights=True),
                     image()),
        "torchvision vit_b_16 (image 224, random head)":
            lambda: (vit(), torch.randn(2, 3, 224, 224)),
        "torch.nn TransformerEncoderLayer":
            lambda: (Seq(torch.nn.TransformerEncoderLayer(
                32, 4, 64, dropout=0.0, batch_first=True)), sequence()),
        "torch.nn TransformerDecoderLayer": lambda: (Decoder(), sequence()),
        "torch.nn MultiheadAttention": lambda: (Attention(), sequence()),
        "torch.nn LSTM": lambda: (Seq(torch.nn.LSTM(32, 32, batch_first=True),
                                      recurrent=True), sequence()),
        "torch.nn GRU": lambda: (Seq(torch.nn.GRU(32, 32, batch_first=True),
                                     recurrent=True), sequence()),
        "torch.nn Conv1d + BatchNorm1d":
            lambda: (torch.nn.Sequential(torch.nn.Conv1d(10, 16, 3),
                                         torch.nn.BatchNorm1d(16),
                                         torch.nn.ReLU()), sequence()),
        "torch.nn ConvTranspose2d + GroupNorm":
            lambda: (torch.nn.Sequential(torch.nn.ConvTranspose2d(3, 8, 4, 2),
                                         torch.nn.GroupNorm(2, 8),
                                         torch.nn.SiLU()), image(16)),
    }
    return MODELS


def rel_l2(value, reference):
    import numpy as np
    return float(np.linalg.norm(value - reference) /
                 np.linalg.norm(reference))


def first_line(error):
    return str(error).strip().splitlines()[0][:150].replace("|", "/")


HEADER = ["| model | import | O2 f16 rel L2 | O2 bf16 rel L2 | seconds |",
          "|---|---|---|---|---|"]


def render(run):
    lines = [f"Measured by `scripts/frontend-models.py` on {run['date']} "
             f"({run['cpus']} CPUs, while other work ran; seconds include "
             f"PyTorch's own run and both compiles):", ""] + HEADER
    lines += [f"| {r['model']} | " + " | ".join(r["cells"]) + " |"
              for r in run["rows"]]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)
    run = doctables.load_or_measure(args, lambda: measure(args.names))
    return doctables.publish(args, {"frontend-models": render(run)},
                             "scripts/frontend-models.py")


def measure(names):
    """Runs the models; the rows go to stderr as they come."""
    import torch
    import amp_mlir
    models = load_models()
    rows = []
    print("\n".join(HEADER), file=sys.stderr, flush=True)
    for name in names or list(models):
        torch.manual_seed(0)
        start = time.time()
        net, x = models[name]()
        net.eval()
        with torch.no_grad():
            reference = net(x).numpy()
        cells = []
        try:
            text = amp_mlir.from_torch(net, x, dynamic_dims=0)
            cells.append("ok")
            for dtype in ("f16", "bf16"):
                try:
                    function = amp_mlir.compile(text, level="O2",
                                                dtype=dtype).main
                    cells.append(f"{rel_l2(function(x.numpy()), reference):.1e}")
                except amp_mlir.AmpError as error:
                    cells.append(f"fails: {first_line(error)}")
        except amp_mlir.UnsupportedOpError as error:
            cells += [f"unsupported: {', '.join(error.ops)}", "", ""]
        except amp_mlir.FrontendError as error:
            cells += [f"fails: {first_line(error)}", "", ""]
        cells.append(f"{time.time() - start:.0f}")
        print(f"| {name} | " + " | ".join(cells) + " |", file=sys.stderr,
              flush=True)
        rows.append({"model": name, "cells": cells})
    return {"date": datetime.date.today().isoformat(),
            "cpus": os.cpu_count(), "rows": rows}


if __name__ == "__main__":
    sys.exit(main())
