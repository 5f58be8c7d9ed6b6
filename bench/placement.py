#!/usr/bin/env python3
"""O1's gray-op placements side by side on imported models: the error
against PyTorch's fp32 output (pooled over 8 seeded input batches of 32,
as the model tests' bounds are), as a ratio to eager torch.autocast's own
error in the same type, and the bytes the AMP level converts per call.

Runs with the frontend environment (make frontends):

  AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \\
      bench/placement.py [--models bert,vit] [--update-doc docs/policies.md]
      [--check]

--update-doc keeps the run of the models measured in
bench/results/placement.json (--kept; the other models' runs are kept as
they were) and renders the table between the placement-table markers
from it (scripts/doctables.py). With --check it writes nothing and fails
when the table is not the kept run's rendering, or when this run's
figures are not the kept ones: the KiB converted (the compiler's counts)
exactly, the errors and ratios within doctables.ANOTHER_CPU (another CPU
sums in another order), as the model tests' tables do.
"""

import argparse
import json
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
KEPT = os.path.join(ROOT, "bench", "results", "placement.json")
NAMES = {
    "mlp": "MLP 64-128-64-10",
    "transformer": "embedding + `TransformerEncoderLayer` + mean + linear",
    "bert": "transformers `BertModel` (2 layers, d 64), padding masked",
    "vit": "timm ViT-Tiny cut to 2 blocks, 32x32",
}


def measure(model):
    """{dtype: {"eager": eager autocast's rel L2, column: {"ratio": rel L2
    / eager's, "kib": KiB converted}}} for one model: the rel L2 errors
    pooled over the model tests' seeded input batches (8 of 32,
    check_model.pooled_errors); one batch of 2 is too noisy to rank
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
        rows[dtype] = {"eager": errors["eager"]}
        for label in COLUMNS:
            rows[dtype][label] = {"ratio": errors[label] / errors["eager"],
                                  "kib": kibs[label]}
    return rows


def compare_rule(where):
    """How a re-measured figure is compared with the kept one
    (doctables.compare_runs): the KiB exactly, errors and ratios within
    another CPU's noise."""
    if where[-1:] == ("kib",):
        return doctables.EXACT
    return doctables.ANOTHER_CPU


def render(results):
    head = ("| model | type | eager autocast rel L2 | " +
            " | ".join(f"{c.split()[0]} `{c.split()[1]}`" for c in COLUMNS)
            + " |")
    lines = [head, "|---|---|---:|" + "---:|" * len(COLUMNS)]
    for model in [m for m in MODELS if m in results]:
        rows = results[model]
        for dtype, _ in DTYPES:
            cells = [NAMES[model], dtype, f"{rows[dtype]['eager']:.2e}"]
            for column in COLUMNS:
                cell = rows[dtype][column]
                cells.append(f"{cell['ratio']:.2f}× ({cell['kib']:.1f} KiB)")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--update-doc")
    parser.add_argument("--check", action="store_true",
                        help="with --update-doc: write nothing; fail when "
                        "the table is not the kept run's, or this run "
                        "differs from it beyond another CPU's noise")
    parser.add_argument("--kept", default=KEPT,
                        help="the kept run (bench/results/placement.json)")
    args = parser.parse_args()
    torch.manual_seed(0)
    results = {m: measure(m) for m in args.models.split(",")}
    print(render(results))
    if not args.update_doc:
        return 0
    kept = {"models": {}}
    if os.path.exists(args.kept):
        with open(args.kept) as f:
            kept = json.load(f)
    status = 0
    if args.check:
        # The measured models only: --models may measure a part of it.
        missing = [m for m in results if m not in kept["models"]]
        if missing:
            print(f"{SCRIPT}: no kept run of {', '.join(missing)} in "
                  f"{args.kept}; make it with --update-doc without --check")
            return 1
        status = doctables.check_run(
            {m: kept["models"][m] for m in results}, results, compare_rule,
            SCRIPT, args.kept)
    else:
        kept["models"].update(results)
        kept["machine"] = doctables.machine()
        kept["torch"] = torch.__version__
        doctables.keep_run(args.kept, kept)
        print(f"{SCRIPT}: kept the run in {args.kept}")
    return status | doctables.update(args.update_doc,
                                     {BLOCK: render(kept["models"])},
                                     SCRIPT, check=args.check)


if __name__ == "__main__":
    sys.exit(main())
