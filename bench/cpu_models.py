#!/usr/bin/env python3
"""CPU execution of real models, side by side (issue 28, item 4): time per
call of amp-mlir's compiled code at O0, O1 and O2 in f16 and bf16, PyTorch
eager fp32, PyTorch autocast on the CPU in f16 and bf16, and ONNX Runtime
(CPU provider, fp32), as a ratio to PyTorch eager fp32's time in the same
run, with the verdict lines of the issue's goals.

  AMP_MLIR_ROOT=build PYTHONPATH=python .venv-peers/bin/python \\
      bench/cpu_models.py [--models resnet18,bert_block,gpt2_decode,...]
      [--calls 7] [--json bench/results/cpu-models.json]
      [--update-doc docs/performance.md] [--from-json FILE] [--check]

`make bench` runs it (the peers' environment has torch, transformers and
onnxruntime). The models, with random weights (nothing is downloaded):

- resnet18: torchvision's, 1x3x224x224 (compute-bound);
- bert_block: one BERT-base-sized encoder block, torch.nn's, 1x128x768
  (compute-bound; bench/peers/models.py);
- gpt2_decode, gpt2_prefill: a GPT-2-like decoder from transformers'
  GPT2Config (4 layers, width 512, 8 heads, MLP 2048), fed embeddings, at
  batch 1 and sequence 1 (memory-bound: each call reads every weight for
  one token, as decoding does without a KV cache) and at sequence 512
  (compute-bound, as a prefill).

Every system runs on one thread (torch.set_num_threads(1),
OPENBLAS_NUM_THREADS=1 for amp-mlir's library calls, ONNX Runtime's
intra_op_num_threads=1): amp-mlir's generated code is single-threaded, and
the ratios compare the code, not the thread counts. Each figure is the
median of --calls samples after one warm-up call; the systems take turns,
one sample each per round, so that load on the machine falls on all of them
alike. A sample is one call, or for a model whose eager call takes less than
50 ms, the mean of as many back-to-back calls as take about 50 ms in eager
(the same count for every system). amp-mlir is called through its Python
API (amp_mlir.compile(...).main), the time of a call including the argument marshalling, as
PyTorch's includes its Python dispatch. The JSON keeps each system's
median, its compile time where it has one, and its rel L2 error against
PyTorch fp32's output.

--update-doc writes the table and the verdict lines between the
cpu-models markers (scripts/doctables.py); with --from-json and --check it
fails when the document differs from the rendering of the kept run
(test/Bench/cpu-models-doc.test).
"""

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time

# Before amp_mlir's runtime loads OpenBLAS.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench", "peers"))

import doctables  # noqa: E402

BLOCK = "cpu-models"
SCRIPT = "bench/cpu_models.py"

# name: (description, input shape, bound)
MODELS = {
    "resnet18": ("torchvision resnet18", (1, 3, 224, 224), "compute"),
    "bert_block": ("BERT-base block (torch.nn)", (1, 128, 768), "compute"),
    "gpt2_decode": ("GPT-2-like decoder, 1 token", (1, 1, 512), "memory"),
    "gpt2_prefill": ("GPT-2-like decoder, 512 tokens", (1, 512, 512),
                     "compute"),
}
AMP = ("O0", "O1 f16", "O1 bf16", "O2 f16", "O2 bf16")
SYSTEMS = (("torch-eager", "fp32"),) + tuple(("amp-mlir", c) for c in AMP) + (
    ("torch-autocast", "f16"), ("torch-autocast", "bf16"),
    ("onnxruntime", "fp32"))
COLUMNS = tuple(f"{s} {c}" if s != "amp-mlir" else c for s, c in SYSTEMS[1:])
HEADS = {"torch-autocast f16": "autocast f16",
         "torch-autocast bf16": "autocast bf16",
         "onnxruntime fp32": "ORT fp32"}


def gpt2_decoder():
    import torch
    import transformers

    class Decoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            config = transformers.GPT2Config(
                n_layer=4, n_embd=512, n_head=8, n_inner=2048,
                n_positions=1024, vocab_size=1024, bos_token_id=0,
                eos_token_id=0)
            self.gpt2 = transformers.GPT2Model(config)

        def forward(self, embeddings):
            return self.gpt2(inputs_embeds=embeddings,
                             use_cache=False).last_hidden_state

    return Decoder()


def load(name):
    import torch
    from systems import load_model
    if name.startswith("gpt2"):
        torch.manual_seed(0)
        return gpt2_decoder().eval()
    spec = ("torchvision:resnet18" if name == "resnet18"
            else f"torch:models:{name}")
    return load_model(spec, 0)[0]


def callables(name, work):
    """{system key: (call, compile seconds or None, output)} for a model."""
    import numpy as np
    import torch

    import amp_mlir
    from metrics import rel_l2

    import warnings
    # The remarks (an op kept as loops, say) belong to the model tests.
    warnings.simplefilter("ignore", amp_mlir.AmpRemark)
    model = load(name)
    shape = MODELS[name][1]
    x = np.random.RandomState(0).standard_normal(shape).astype(np.float32)
    xt = torch.from_numpy(x)
    with torch.no_grad():
        ref = model(xt)
        ref = (ref[0] if isinstance(ref, (tuple, list)) else ref).numpy()
    calls = {}

    def eager():
        with torch.no_grad():
            return model(xt)

    def autocast(dtype):
        def call():
            with torch.no_grad(), torch.autocast("cpu", dtype=dtype):
                return model(xt)
        return call

    calls["torch-eager fp32"] = (eager, None)
    calls["torch-autocast f16"] = (autocast(torch.float16), None)
    calls["torch-autocast bf16"] = (autocast(torch.bfloat16), None)
    text = amp_mlir.from_torch(model, xt)
    for config in AMP:
        level, _, dtype = config.partition(" ")
        start = time.perf_counter()
        compiled = amp_mlir.compile(text, level=level, dtype=dtype or "f16")
        compiled.main(x)  # Compiles on first use where it is lazy.
        calls[config] = ((lambda c=compiled: c.main(x)),
                         time.perf_counter() - start)
    try:
        import onnxruntime as ort
        path = os.path.join(work, f"{name}.onnx")
        with torch.no_grad():
            torch.onnx.export(model, (xt,), dynamo=True).save(path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        start = time.perf_counter()
        session = ort.InferenceSession(path, options,
                                       providers=["CPUExecutionProvider"])
        feed = {session.get_inputs()[0].name: x}
        calls["onnxruntime fp32"] = ((lambda: session.run(None, feed)[0]),
                                     time.perf_counter() - start)
    except Exception as error:  # a row that says why
        calls["onnxruntime fp32"] = (f"{type(error).__name__}: {error}"[:200],
                                     None)
    result = {}
    for key, (call, compile_s) in calls.items():
        if isinstance(call, str):
            result[key] = {"error": call}
            continue
        out = call()
        out = out[0] if isinstance(out, (tuple, list)) else out
        out = out.float().numpy() if hasattr(out, "float") and hasattr(
            out, "numpy") else np.asarray(out, dtype=np.float32)
        result[key] = {"call": call, "compile_s": compile_s,
                       "rel_l2": rel_l2(out, ref)}
    return result


# The shortest sample, in seconds (see measure).
SAMPLE_SECONDS = 0.05


def measure(name, calls, work):
    import torch
    torch.set_num_threads(1)
    systems = callables(name, work)
    times = {k: [] for k, v in systems.items() if "call" in v}
    # A sample of a fast model (a few milliseconds a call, the decode row)
    # is the mean of back-to-back calls that take about SAMPLE_SECONDS
    # together, as many for every system: one call alone is at the mercy of
    # the timer and of the scheduler of this shared machine.
    start = time.perf_counter()
    systems["torch-eager fp32"]["call"]()
    eager = time.perf_counter() - start
    batch = max(1, int(SAMPLE_SECONDS / max(eager, 1e-6)))
    for _ in range(calls):
        for key in times:
            call = systems[key]["call"]
            start = time.perf_counter()
            for _ in range(batch):
                call()
            times[key].append((time.perf_counter() - start) / batch)
    rows = []
    for key, entry in systems.items():
        row = {"model": name, "system": key}
        if "error" in entry:
            row["error"] = entry["error"]
        else:
            row.update(ms=1e3 * statistics.median(times[key]),
                       compile_s=entry["compile_s"], rel_l2=entry["rel_l2"])
        rows.append(row)
        print(f"{name:14s} {key:20s} " + (
            f"{row['ms']:10.3f} ms  rel L2 {row['rel_l2']:.1e}"
            if "ms" in row else row["error"]), flush=True)
    return rows


def index(run):
    return {(r["model"], r["system"]): r for r in run["rows"]}


def render(run):
    rows = index(run)
    models = [m for m in MODELS if (m, "torch-eager fp32") in rows]
    lines = [
        f"Measured by `{SCRIPT}` on {run['date']} ({run['machine']}, one "
        f"thread for every system; median of {run['calls']} "
        + (f"samples, taking turns; a sample of a model whose eager call "
           f"takes less than {run['sample_seconds'] * 1e3:g} ms is the mean "
           f"of as many back-to-back calls as take about that long"
           if run.get("sample_seconds") else "calls, taking turns")
        + "). Time per call as a ratio to PyTorch eager fp32's in the "
        "same run (lower is faster); eager fp32 in milliseconds; in "
        "parentheses amp-mlir's rel L2 error against fp32:",
        "",
        "| model | bound | eager fp32 (ms) | " +
        " | ".join(HEADS.get(c, c) for c in COLUMNS) + " |",
        "|---|---|---:|" + "---:|" * len(COLUMNS),
    ]
    for model in models:
        eager = rows[(model, "torch-eager fp32")]["ms"]
        cells = [MODELS[model][0], MODELS[model][2], f"{eager:.2f}"]
        for column in COLUMNS:
            key = column
            row = rows.get((model, key))
            if row is None or "ms" not in row:
                cells.append("–")
                continue
            cell = f"{row['ms'] / eager:.2f}×"
            if key in AMP:
                cell += f" ({row['rel_l2']:.0e})"
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Compile time of `amp_mlir.compile` (seconds, the first "
              "call included):", "",
              "| model | " + " | ".join(AMP) + " |",
              "|---|" + "---:|" * len(AMP)]
    for model in models:
        lines.append("| " + MODELS[model][0] + " | " + " | ".join(
            f"{rows[(model, c)]['compile_s']:.1f}"
            if "compile_s" in rows.get((model, c), {}) else "–"
            for c in AMP) + " |")
    lines += ["", "Issue 28's goals, from the rows above:", ""]
    lines += [f"- {v}" for v in verdicts(rows, models)]
    errors = [f"- {MODELS[m][0]}, {s}: not run: {r['error']}"
              for (m, s), r in rows.items() if "error" in r]
    if errors:
        lines += ["", "Rows not run:", ""] + errors
    return "\n".join(lines)


def verdicts(rows, models):
    def ms(model, key):
        row = rows.get((model, key), {})
        return row.get("ms")

    def line(goal, checks):
        """checks: [(label, value, ok)]"""
        if not checks:
            return f"**{goal}**: no row measured."
        failed = sum(1 for _, _, ok in checks if not ok)
        shown = ", ".join(f"{label} {value}" + ("" if ok else " (missed)")
                          for label, value, ok in checks)
        verdict = "met" if not failed else (
            f"not met ({failed} of {len(checks)} missed)")
        return f"**{goal}**: {shown}: {verdict}."

    compute = [m for m in models if MODELS[m][2] == "compute"]
    memory = [m for m in models if MODELS[m][2] == "memory"]
    out = []
    checks = []
    for m in compute:
        for dtype in ("f16", "bf16"):
            ratio = ms(m, f"O2 {dtype}") / ms(m, "torch-eager fp32")
            checks.append((f"{m} O2 {dtype}", f"{ratio:.2f}×", ratio <= 1.2))
    out.append(line("O2 at most 1.2× PyTorch eager fp32's time, compute-"
                    "bound rows", checks))
    checks = []
    for m in compute + memory:
        goal = 0.97 if m in compute else 1.6
        for dtype in ("f16", "bf16"):
            speed = ms(m, "O0") / ms(m, f"O2 {dtype}")
            checks.append((f"{m} O2 {dtype}", f"{speed:.2f}× (goal "
                           f"{goal}×)", speed >= goal))
    out.append(line("O2's speed against its own O0: at least 0.97× on the "
                    "compute-bound rows, 1.6× on the decode row", checks))
    checks = []
    for m in models:
        for level in ("O1", "O2"):
            f16, bf16 = ms(m, f"{level} f16"), ms(m, f"{level} bf16")
            gap = max(f16, bf16) / min(f16, bf16) - 1
            checks.append((f"{m} {level}", f"{100 * gap:.0f}%", gap <= 0.1))
    out.append(line("f16 and bf16 within 10% of each other", checks))
    return out


def machine():
    """'2 CPUs, AMD EPYC, AVX2 F16C' from /proc/cpuinfo where it exists."""
    name, flags = platform.machine(), set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    name = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
    except OSError:
        pass
    features = [f.upper() for f in ("avx2", "f16c", "avx512f", "avx512_bf16",
                                    "avx512_fp16", "amx_bf16") if f in flags]
    return ", ".join([f"{os.cpu_count()} CPUs", name] + [" ".join(features)])


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--calls", type=int, default=7)
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)
    def measure_run():
        run = {"date": time.strftime("%Y-%m-%d"), "machine": machine(),
               "calls": args.calls, "sample_seconds": SAMPLE_SECONDS,
               "rows": []}
        with tempfile.TemporaryDirectory() as work:
            for name in args.models.split(","):
                if name not in MODELS:
                    parser.error(f"--models: unknown model '{name}' "
                                 f"(known: {', '.join(MODELS)})")
                run["rows"] += measure(name, args.calls, work)
        return run

    run = doctables.load_or_measure(args, measure_run)
    return doctables.publish(args, {BLOCK: render(run)}, SCRIPT)


if __name__ == "__main__":
    sys.exit(main())
