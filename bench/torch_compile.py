#!/usr/bin/env python3
"""torch.compile(backend="amp_mlir") beside PyTorch's own on the CPU (issue
47): one training step of each model in PyTorch's loop (zero_grad, the
model and its loss, backward, the optimizer's step), for

- PyTorch eager fp32 and eager autocast bf16 (the CPU's autocast type);
- Inductor, `torch.compile(model)`, in fp32 and under autocast bf16;
- the amp_mlir backend at O0, O1 bf16 and O1 f16.

  AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \\
      bench/torch_compile.py [--models mlp,gpt2,...] [--steps 9]
      [--json bench/results/torch-compile.json]
      [--update-doc docs/performance.md] [--from-json FILE] [--check]

The models and their batches are torch-compile-models.test's
(test/Frontends/Inputs/check_torch_compile.py: an MLP, BERT and GPT-2 from
small transformers configs, timm's ViT with 2 blocks, torchvision's
resnet18 on 64x64 images), with random weights. Every system runs on one
thread (torch.set_num_threads(1); amp-mlir's generated code is
single-threaded and its library calls are made so with
OPENBLAS_NUM_THREADS=1), so the table compares code, not thread counts.

For each model and system, from the same initial weights:

- error: the rel L2 distance of the first step's gradients (all
  parameters together) from eager fp32's;
- step: the median time of --steps steps after two warm-up steps, each
  the whole loop body, the optimizer included;
- compile: the first step's time minus the median step (Dynamo's tracing,
  AOTAutograd and the backend's compilation of the forward and the
  backward graph; the backward is compiled in the first backward).
  Inductor compiles cold: a fresh cache folder, its FX graph and
  autograd caches off.

The systems take turns per model; the machine's load moves the figures
by some percent between runs. --update-doc writes the table between the
torch-compile markers (scripts/doctables.py); with --from-json and --check
it fails when the document differs from the rendering of the kept run
(test/Bench/torch-compile-doc.test).
"""

import argparse
import copy
import importlib.util
import json
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import doctables  # noqa: E402

BLOCK = "torch-compile"
SCRIPT = "bench/torch_compile.py"
SYSTEMS = ("eager fp32", "eager autocast bf16", "inductor fp32",
           "inductor autocast bf16", "amp_mlir O0", "amp_mlir O1 bf16",
           "amp_mlir O1 f16")
MODELS = ("mlp", "bert", "gpt2", "vit", "resnet18")


def cases():
    """check_torch_compile.py, the test's models."""
    path = os.path.join(ROOT, "test", "Frontends", "Inputs",
                        "check_torch_compile.py")
    spec = importlib.util.spec_from_file_location("check_torch_compile",
                                                  path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepare(torch, case, system):
    """(model, step function) of `system`: the step runs one loop body on
    a batch and returns the loss."""
    import amp_mlir.dynamo as dynamo
    model = copy.deepcopy(case["model"]).train()
    optimizer = case["optimizer"](model.parameters())
    kind, _, precision = system.partition(" ")
    autocast = "autocast" in precision
    if kind == "eager":
        forward = model
    elif kind == "inductor":
        torch._dynamo.reset()
        forward = torch.compile(model)
    else:
        torch._dynamo.reset()
        dynamo.reset()
        level, _, dtype = precision.partition(" ")
        forward = torch.compile(model, backend="amp_mlir", options={
            "level": level, "dtype": dtype or "f16"})
    f16 = precision.split()[-1] == "f16"
    scaler = torch.amp.GradScaler("cpu", enabled=f16)

    def step(batch):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = case["loss"](forward, batch)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss
    return model, step


def gradients(torch, model):
    """The parameters' gradients (GradScaler's step has unscaled them)."""
    return torch.cat([p.grad.detach().double().flatten()
                      for p in model.parameters() if p.grad is not None])


def measure(torch, case, system, steps, reference):
    """The row of one system: error, step and compile times."""
    model, step = prepare(torch, case, system)
    batches = case["batches"]
    start = time.perf_counter()
    step(batches[0])
    first = time.perf_counter() - start
    grads = gradients(torch, model)
    times = []
    for index in range(steps + 2):
        batch = batches[(index + 1) % len(batches)]
        start = time.perf_counter()
        step(batch)
        times.append(time.perf_counter() - start)
    median = statistics.median(times[2:])
    error = None if reference is None else float(
        (grads - reference).norm() / reference.norm())
    return {"system": system, "error": error, "step_ms": median * 1e3,
            "compile_s": max(first - median, 0.0), "grads": grads}


def run(models, steps):
    # Inductor compiles cold, as amp-mlir does: no kernels or graphs from
    # an earlier run's on-disk caches.
    import tempfile
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(
        prefix="inductor-")
    import torch
    import torch._functorch.config
    import torch._inductor.config
    torch._inductor.config.fx_graph_cache = False
    torch._functorch.config.enable_autograd_cache = False
    torch.set_num_threads(1)
    module = cases()
    rows = []
    for name in models:
        case = module.CASES[name]()
        reference = None
        for system in SYSTEMS:
            row = measure(torch, case, system, steps, reference)
            if system == "eager fp32":
                reference = row["grads"]
                row["error"] = 0.0
            del row["grads"]
            row["model"] = name
            rows.append(row)
            print(f"{name:9} {system:24} error {row['error']:.2e} step "
                  f"{row['step_ms']:8.2f} ms compile {row['compile_s']:6.2f}"
                  f" s", flush=True)
    return {"date": time.strftime("%Y-%m-%d"), "torch": torch.__version__,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, 1 "
                       f"thread used", "steps": steps, "rows": rows}


def render(result):
    lines = [f"Run of {result['date']} ({SCRIPT}), torch "
             f"{result['torch']}, {result['machine']}: one training step "
             f"in PyTorch's loop, the median of {result['steps']} steps; "
             f"compile is the first step's extra time; error is the first "
             f"step's gradients against eager fp32's (rel L2).", "",
             "| model | system | error | step (ms) | step / eager fp32 | "
             "compile (s) |", "|---|---|---:|---:|---:|---:|"]
    eager = {row["model"]: row["step_ms"] for row in result["rows"]
             if row["system"] == "eager fp32"}
    for row in result["rows"]:
        compile_s = "" if row["system"].startswith("eager") else \
            f"{row['compile_s']:.1f}"
        lines.append(
            f"| {row['model']} | {row['system']} | {row['error']:.1e} | "
            f"{row['step_ms']:.2f} | "
            f"{row['step_ms'] / eager[row['model']]:.2f} | {compile_s} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--steps", type=int, default=9)
    parser.add_argument("--json")
    parser.add_argument("--from-json")
    parser.add_argument("--update-doc", action="append", default=[])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            result = json.load(f)
    else:
        result = run(args.models.split(","), args.steps)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=1)
                f.write("\n")
    table = render(result)
    print(table)
    status = 0
    for doc in args.update_doc:
        status |= doctables.update(doc, {BLOCK: table}, SCRIPT,
                                   check=args.check)
    return status


if __name__ == "__main__":
    sys.exit(main())
