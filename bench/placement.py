#!/usr/bin/env python3
"""O1's gray-op placements side by side on imported models: the error
against PyTorch's fp32 output, as a ratio to eager torch.autocast's own
error in the same type, and the bytes the AMP level converts per call.

Runs with the frontend environment (make frontends):

  AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \\
      bench/placement.py [--models bert,vit] [--update-doc docs/policies.md]
      [--check docs/policies.md]

--update-doc rewrites the table between the markers of docs/policies.md;
--check re-measures the models named in the table's rows that --models
selects and fails when a figure differs: the bytes exactly, the errors by
more than 2% (they come from the same seeded inputs and weights, so they
differ only where a library's kernels round differently).
"""

import argparse
import os
import re
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Frontends", "Inputs"))

import amp_mlir  # noqa: E402
from check_model import make, rel_l2  # noqa: E402

PLACEMENTS = ("optimal", "greedy", "autocast")
COLUMNS = tuple(f"O1 {p}" for p in PLACEMENTS) + ("O2 auto", "O2 autocast")
DTYPES = (("f16", torch.float16), ("bf16", torch.bfloat16))
MODELS = ("mlp", "transformer", "bert", "vit")
BEGIN = "<!-- placement-table:begin (bench/placement.py) -->"
END = "<!-- placement-table:end -->"
NAMES = {
    "mlp": "MLP 64-128-64-10",
    "transformer": "embedding + `TransformerEncoderLayer` + mean + linear",
    "bert": "transformers `BertModel` (2 layers, d 64), padding masked",
    "vit": "timm ViT-Tiny cut to 2 blocks, 32x32",
}


def measure(model):
    """{(dtype, column): (error ratio, KiB converted)} for one model."""
    net, x = make(model, 2)
    net.eval()
    text = amp_mlir.from_torch(net, x)
    with torch.no_grad():
        fp32 = net(x).numpy()
    rows = {}
    for dtype, torch_dtype in DTYPES:
        with torch.no_grad(), torch.autocast("cpu", dtype=torch_dtype):
            eager = rel_l2(net(x).float().numpy(), fp32)
        for label in COLUMNS:
            level, placement = label.split(" ")
            options = {"placement": placement}
            result = amp_mlir.compile(text, level=level, dtype=dtype,
                                      **options).main(x.numpy())
            error = rel_l2(result, fp32)
            report = amp_mlir.report(text, level=level, dtype=dtype,
                                     **options)
            kib = report["bytes_converted"] / 1024.0
            rows[(dtype, label)] = (error / eager, kib)
        rows[(dtype, "eager")] = (eager, None)
    return rows


def render(results):
    head = ("| model | type | eager autocast rel L2 | " +
            " | ".join(f"{c.split()[0]} `{c.split()[1]}`" for c in COLUMNS)
            + " |")
    lines = [head, "|---|---|---:|" + "---:|" * len(COLUMNS)]
    for model, rows in results.items():
        for dtype, _ in DTYPES:
            cells = [NAMES[model], dtype, f"{rows[(dtype, 'eager')][0]:.2e}"]
            for column in COLUMNS:
                ratio, kib = rows[(dtype, column)]
                cells.append(f"{ratio:.2f}× ({kib:.1f} KiB)")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


FIGURE = re.compile(r"([0-9.]+(?:e[-+][0-9]+)?)(×)?(?: \(([0-9.]+) KiB\))?")


def parse_row(line):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells[0], cells[1], cells[2:]


def check(doc, results):
    text = open(doc).read()
    table = text.split(BEGIN)[1].split(END)[0]
    fresh = {(r[0], r[1]): r[2] for r in map(parse_row,
             render(results).splitlines()[2:])}
    failures = 0
    for line in table.strip().splitlines()[2:]:
        name, dtype, cells = parse_row(line)
        if (name, dtype) not in fresh:
            continue
        for old, new in zip(cells, fresh[(name, dtype)]):
            a, b = FIGURE.match(old), FIGURE.match(new)
            same = abs(float(a.group(1)) - float(b.group(1))) <= \
                0.02 * float(b.group(1)) + 1e-12
            if a.group(3) is not None:
                same &= a.group(3) == b.group(3)
            if not same:
                print(f"placement: {name} {dtype}: the doc says {old}, "
                      f"measured {new}")
                failures += 1
    print(f"placement: {failures} figures differ")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--update-doc")
    parser.add_argument("--check")
    args = parser.parse_args()
    torch.manual_seed(0)
    results = {m: measure(m) for m in args.models.split(",")}
    table = render(results)
    print(table)
    if args.check:
        return check(args.check, results)
    if args.update_doc:
        text = open(args.update_doc).read()
        before, rest = text.split(BEGIN)
        _, after = rest.split(END)
        with open(args.update_doc, "w") as out:
            out.write(before + BEGIN + "\n" + table + "\n" + END + after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
