#!/usr/bin/env python3
"""O1's gray-op placements side by side on imported models: the error
against PyTorch's fp32 output (pooled over 8 seeded input batches of 32,
as the model tests' bounds are), as a ratio to eager torch.autocast's own
error in the same type, and the bytes the AMP level converts per call.

Runs with the frontend environment (make frontends):

  AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \\
      bench/placement.py [--models bert,vit] [--update-doc docs/policies.md]
      [--check]

--update-doc rewrites the rows of the models measured in the table between
the placement-table markers (scripts/doctables.py); with --check it fails
instead when they differ, as the model tests' tables do.
"""

import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Frontends", "Inputs"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import amp_mlir  # noqa: E402
from check_model import make, pooled_errors, seeded_samples  # noqa: E402
import doctables  # noqa: E402

PLACEMENTS = ("optimal", "greedy", "autocast")
COLUMNS = tuple(f"O1 {p}" for p in PLACEMENTS) + ("O2 auto", "O2 autocast")
DTYPES = (("f16", torch.float16), ("bf16", torch.bfloat16))
MODELS = ("mlp", "transformer", "bert", "vit")
BLOCK = "placement-table"
SCRIPT = "bench/placement.py"
NAMES = {
    "mlp": "MLP 64-128-64-10",
    "transformer": "embedding + `TransformerEncoderLayer` + mean + linear",
    "bert": "transformers `BertModel` (2 layers, d 64), padding masked",
    "vit": "timm ViT-Tiny cut to 2 blocks, 32x32",
}


def measure(model):
    """{(dtype, column): (error ratio, KiB converted)} for one model: the
    rel L2 errors pooled over the model tests' seeded input batches (8 of
    32, check_model.pooled_errors); one batch of 2 is too noisy to rank
    placements on models with few outputs."""
    net, x = make(model, 2)
    net.eval()
    # The KiB converted per call at batch 2 (a static import: the report
    # cannot count the bytes of a dynamic batch); the errors on a dynamic
    # one.
    text = amp_mlir.from_torch(net, x)
    dynamic = amp_mlir.from_torch(net, x, dynamic_dims=0)
    samples = seeded_samples(model, 32, 8)
    rows = {}
    for dtype, torch_dtype in DTYPES:
        def eager(inputs, torch_dtype=torch_dtype):
            with torch.no_grad(), torch.autocast("cpu", dtype=torch_dtype):
                return net(inputs).float().numpy()
        systems, kibs = {"eager": eager}, {}
        for label in COLUMNS:
            level, placement = label.split(" ")
            options = {"placement": placement}
            function = amp_mlir.compile(dynamic, level=level, dtype=dtype,
                                        **options).main
            systems[label] = lambda inputs, f=function: f(inputs.numpy())
            report = amp_mlir.report(text, level=level, dtype=dtype,
                                     **options)
            kibs[label] = report["bytes_converted"] / 1024.0
        errors, _ = pooled_errors(net, systems, samples)
        for label in COLUMNS:
            rows[(dtype, label)] = (errors[label] / errors["eager"],
                                    kibs[label])
        rows[(dtype, "eager")] = (errors["eager"], None)
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


def merge(old_block, results):
    """The table with the rows of the measured models replaced, the others
    kept: --models may measure a part of it."""
    fresh = render(results).splitlines()
    measured = {tuple(c.strip() for c in row.strip("|").split("|")[:2])
                for row in fresh[2:]}
    kept = [row for row in old_block.splitlines()[2:]
            if tuple(c.strip() for c in row.strip("|").split("|")[:2])
            not in measured]
    order = [NAMES[m] for m in MODELS]
    rows = sorted(kept + fresh[2:], key=lambda row: (
        order.index(row.strip("|").split("|")[0].strip()),
        [d for d, _ in DTYPES].index(row.strip("|").split("|")[1].strip())))
    return "\n".join(fresh[:2] + rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--update-doc")
    parser.add_argument("--check", action="store_true",
                        help="with --update-doc: fail when the rows differ")
    args = parser.parse_args()
    torch.manual_seed(0)
    results = {m: measure(m) for m in args.models.split(",")}
    print(render(results))
    if not args.update_doc:
        return 0
    with open(args.update_doc) as f:
        old = doctables.extract(f.read(), BLOCK, args.update_doc)
    return doctables.update(args.update_doc, {BLOCK: merge(old, results)},
                            SCRIPT, check=args.check)


if __name__ == "__main__":
    sys.exit(main())
