#!/usr/bin/env python3
"""Where amp-mlir O2's error on the transformers comes from, tensor class
by tensor class (issue 25: "where storing a tensor low costs more error
than it saves bytes, say so with roundings.py's evidence").

Eager `torch.autocast` is the anchor: it stores every contraction's result
low and keeps the rest in f32. O2 stores everything low. What O2 stores
low and autocast does not is, on these post-norm encoders, three classes
of tensors:

- `input`: the model's input (O2 converts it once, at the entry);
- `stream`: the residual stream, the outputs of the layer norms inside the
  model (each is the input of the next block's residual add);
- `output`: the last layer norm's output, which the model returns.

For each model of the peers table with layer norms, each type, and each
class, this runs the model in PyTorch under eager autocast with that class
alone rounded to the low type where it is written (a forward hook, or the
input cast), then all three at once, and prints the rel L2 error against
the fp32 output as a ratio to autocast's own, on the peers' seeded input.
Beside them: the KiB that keeping the class in f32 costs per call (two
more bytes per element written), and amp-mlir O2's ratio as the peers run
measured it (bench/peers/results/peers.json), which "all three" should
explain.

    AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \\
        bench/peers/roundings.py [--update-doc docs/performance.md] [--check]

Needs torch and transformers only (the frontend environment will do).
--update-doc keeps the run in bench/peers/results/roundings.json (--kept)
and renders the table between the roundings-table markers from it
(scripts/doctables.py). With --check it writes nothing and fails when the
table is not the kept run's rendering, or when this run's figures are not
the kept ones: the KiB exactly, the errors and ratios within
doctables.ANOTHER_CPU (another CPU sums in another order).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import doctables  # noqa: E402
from metrics import rel_l2  # noqa: E402
from systems import first, load_model  # noqa: E402

MODELS = ("transformer_encoder", "bert_block", "hf_bert")
CLASSES = ("input", "stream", "output")
DTYPES = (("f16", torch.float16), ("bf16", torch.bfloat16))
BLOCK = "roundings-table"
SCRIPT = "bench/peers/roundings.py"
RESULTS = os.path.join(HERE, "results", "peers.json")
KEPT = os.path.join(HERE, "results", "roundings.json")


def layer_norms(model):
    return [m for m in model.modules() if isinstance(m, torch.nn.LayerNorm)]


def run(model, x, dtype, rounded):
    """The model's output under eager autocast in `dtype`, with the
    classes in `rounded` rounded to `dtype` where they are written, and
    the KiB that keeping each of those classes f32 costs."""
    norms = layer_norms(model)
    written = {c: 0 for c in CLASSES}
    hooks = []

    def hook(cls):
        def round_output(module, inputs, output):
            written[cls] += output.numel()
            if cls in rounded:
                return output.to(dtype).to(output.dtype)
            return output
        return round_output

    for i, norm in enumerate(norms):
        cls = "output" if i == len(norms) - 1 else "stream"
        hooks.append(norm.register_forward_hook(hook(cls)))
    written["input"] = x.numel()
    if "input" in rounded:
        x = x.to(dtype).to(x.dtype)
    try:
        with torch.no_grad(), torch.autocast(
                "cpu", dtype=dtype, enabled=dtype != torch.float32):
            y = first(model(x))
    finally:
        for h in hooks:
            h.remove()
    return y.float().numpy(), {c: n * 2 / 1024 for c, n in written.items()}


def amp_o2_ratios():
    """{(model, type): amp-mlir O2's rel L2 / eager autocast's} from the
    peers run kept in the repository."""
    if not os.path.exists(RESULTS):
        return {}
    with open(RESULTS) as f:
        results = json.load(f)["results"]
    by = {}
    for result in results:
        model = result["spec"].split(":")[-1]
        for row in result["rows"]:
            by[(model, row["system"], row["level"])] = row
    ratios = {}
    for model in MODELS:
        for label, _ in DTYPES:
            amp = by.get((model, "amp-mlir", f"O2 {label}"))
            eager = by.get((model, "torch-autocast", label))
            if amp and eager and amp.get("rel_l2") and eager.get("rel_l2"):
                ratios[(model, label)] = amp["rel_l2"] / eager["rel_l2"]
    return ratios


def measure(name, seed=0):
    model, shape = load_model(f"torch:models:{name}", seed)
    x = torch.from_numpy(
        np.random.RandomState(seed).standard_normal(shape).astype(np.float32))
    with torch.no_grad():
        ref = first(model(x)).numpy()
    # The last layer norm's output is what the model returns (post-norm).
    out, _ = run(model, x, torch.float32, CLASSES)
    assert np.array_equal(out, ref), f"{name}: not a post-norm model"
    rows = {}
    for label, dtype in DTYPES:
        eager_out, kib = run(model, x, dtype, ())
        eager = rel_l2(eager_out, ref)
        ratios = {c: rel_l2(run(model, x, dtype, (c,))[0], ref) / eager
                  for c in CLASSES}
        ratios["all"] = rel_l2(run(model, x, dtype, CLASSES)[0], ref) / eager
        rows[label] = {"eager": eager, "ratios": ratios, "kib": kib}
    return rows


def compare_rule(where):
    """How a re-measured figure is compared with the kept one
    (doctables.compare_runs): the KiB exactly, errors and ratios within
    another CPU's noise."""
    if "kib" in where:
        return doctables.EXACT
    return doctables.ANOTHER_CPU


def render(results, amp):
    lines = [
        "| model | type | eager autocast rel L2 | + input low | + stream low "
        "| + output low | + all three | amp-mlir O2 (peers table) "
        "| KiB kept f32: input / stream / output |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    # The models in MODELS's order (a kept run's keys are sorted).
    for model in [m for m in MODELS if m in results]:
        rows = results[model]
        for label, _ in DTYPES:
            eager, ratios, kib = (rows[label][k] for k in ("eager", "ratios",
                                                           "kib"))
            o2 = amp.get((model, label))
            cells = [model, label, f"{eager:.2e}"]
            cells += [f"{ratios[c]:.2f}×" for c in CLASSES + ("all",)]
            cells.append(f"{o2:.2f}×" if o2 is not None else "–")
            cells.append(" / ".join(f"{kib[c]:.0f}" for c in CLASSES))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--update-doc")
    parser.add_argument("--check", action="store_true",
                        help="with --update-doc: write nothing; fail when "
                        "the table is not the kept run's, or this run "
                        "differs from it beyond another CPU's noise")
    parser.add_argument("--kept", default=KEPT,
                        help="the kept run (bench/peers/results/"
                        "roundings.json)")
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)  # One summation order, run to run.
    torch.backends.mha.set_fastpath_enabled(False)
    results = {m: measure(m) for m in MODELS}
    amp = amp_o2_ratios()
    print(render(results, amp))
    if not args.update_doc:
        return 0
    status = 0
    if args.check:
        if not os.path.exists(args.kept):
            print(f"{SCRIPT}: no kept run {args.kept}; make it with "
                  f"--update-doc without --check")
            return 1
        with open(args.kept) as f:
            kept = json.load(f)
        status = doctables.check_run(kept["models"], results, compare_rule,
                                     SCRIPT, args.kept)
    else:
        kept = {"machine": doctables.machine(), "torch": torch.__version__,
                "models": results}
        doctables.keep_run(args.kept, kept)
        print(f"{SCRIPT}: kept the run in {args.kept}")
    # The amp-mlir O2 column comes from the kept peers run.
    table = render(kept["models"], amp)
    return status | doctables.update(args.update_doc, {BLOCK: table}, SCRIPT,
                                     check=args.check)


if __name__ == "__main__":
    sys.exit(main())
