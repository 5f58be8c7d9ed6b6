#!/usr/bin/env python3
"""Where the time of a JIT compilation goes, stage by stage, on imported
models (issue 28): `amp-run --timing` at O2, f16 and bf16, for the CPU and
for the GPU (`--target=gpu --compile-only`: the kernels compiled to a fatbin
by ptxas and the host code JIT-compiled, without a GPU).

Runs with the frontend environment (make frontends):

  AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \\
      bench/compile_time.py [--models resnet18,vit,tosa-transformer]
      [--targets cpu,gpu] [--json bench/results/compile-time.json]
      [--update-doc
      docs/performance.md] [--from-json FILE] [--check]

Models: torchvision's resnet18 (11.7M parameters, 2x3x64x64), timm's
ViT-Tiny at full depth (12 blocks, 5.4M parameters, 2x3x64x64 in 8x8
patches) and the TOSA transformer of bench/generate.py (64 blocks). The
figures are CPU seconds of the amp-run process and of the ptxas processes
it waits for in each stage (the compilation is single-threaded: CPU time is
steadier than wall time on a shared machine), the median of --repeat
compilations, and the run time of one call on the CPU (median of 3 after a
warm-up; none for the GPU, which is compiled only). The GPU target needs
the CUDA toolkit (ptxas), not a GPU.

--update-doc writes the table between the compile-stages markers
(scripts/doctables.py) from this run, or from --from-json; with --check it
fails when the document differs from the rendering of --from-json's run.
"""

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doctables  # noqa: E402

BLOCK = "compile-stages"
SCRIPT = "bench/compile_time.py"
MODELS = ("resnet18", "vit", "tosa-transformer")
NAMES = {
    "resnet18": "torchvision resnet18 (11.7M params)",
    "vit": "timm ViT-Tiny, 12 blocks (5.4M params)",
    "tosa-transformer": "TOSA transformer, 64 blocks (bench/generate.py)",
}
STAGES = ("parse", "AMP passes", "lowering", "LLVM IR translation",
          "LLVM optimization", "machine code")
# The reference in the same run: torch.compile (Inductor, CPU) of the same
# model under autocast in the same type, the CPU seconds of its first call
# less those of the second (the compilation), in a fresh process with
# Inductor's compile workers kept in it (TORCHINDUCTOR_COMPILE_THREADS=1),
# so that process CPU time counts all of it, and with a cold cache.
INDUCTOR = r"""
import sys, time, torch
sys.path.insert(0, sys.argv[3])
import compile_time
net, x = compile_time.torch_model(sys.argv[1])
dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[sys.argv[2]]
def run(x):
    with torch.autocast("cpu", dtype=dtype):
        return net(x)
compiled = torch.compile(run)
with torch.no_grad():
    t0 = time.process_time(); compiled(x); t1 = time.process_time()
    compiled(x); t2 = time.process_time()
print((t1 - t0) - (t2 - t1))
"""


def torch_model(name):
    """The PyTorch model and input of `name` (resnet18, vit), seeded."""
    import torch
    torch.manual_seed(0)
    if name == "resnet18":
        import torchvision
        net = torchvision.models.resnet18(weights=None)
    else:
        import timm
        net = timm.create_model("vit_tiny_patch16_224", pretrained=False,
                                img_size=64, patch_size=8, num_classes=10)
    return net.eval(), torch.randn(2, 3, 64, 64)


def inductor_seconds(name, dtype):
    """CPU seconds of Inductor's compilation of the model (INDUCTOR), cold:
    an empty cache directory of its own and the FX graph and autograd
    caches off, as amp-mlir's JIT, which caches nothing between
    processes."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="1",
                   TORCHINDUCTOR_CACHE_DIR=cache,
                   TORCHINDUCTOR_FX_GRAPH_CACHE="0",
                   TORCHINDUCTOR_AUTOGRAD_CACHE="0")
        out = subprocess.run([sys.executable, "-W", "ignore", "-c",
                              INDUCTOR, name, dtype,
                              os.path.dirname(__file__)],
                             capture_output=True, text=True, check=True,
                             env=env).stdout
    return float(out.strip().splitlines()[-1])


def write_model(name, path):
    if name == "tosa-transformer":
        with open(path, "w") as f:
            subprocess.run([sys.executable,
                            os.path.join(ROOT, "bench", "generate.py"),
                            "transformer", "--dialect", "tosa", "--blocks",
                            "64"], stdout=f, check=True)
        return
    import amp_mlir
    net, x = torch_model(name)
    with open(path, "w") as f:
        f.write(amp_mlir.from_torch(net, x))


def amp_run(amp_run_path, model, dtype, target, repeat_calls=0):
    """(stage -> CPU seconds, header line, run seconds or None)."""
    command = [amp_run_path, model, "--level=O2", f"--dtype={dtype}",
               "--timing", f"--target={target}"]
    if target == "gpu":
        command.append("--compile-only")
    elif repeat_calls:
        command.append(f"--repeat={repeat_calls}")
    out = subprocess.run(command, capture_output=True, text=True,
                         check=True).stdout
    stages, header, run = {}, None, None
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("compile time:"):
            header = line
            for row in lines[i + 2:]:
                cells = re.split(r"\s{2,}", row.strip())
                if cells[0] == "total":
                    break
                stages[cells[0]] = doctables.to_seconds(cells[2])
        if line.startswith(f"  O2 {dtype}"):
            run = doctables.to_seconds(re.split(r"\s{2,}", line.strip())[1])
    return stages, header, run


def measure(amp_run_path, models, targets, repeat):
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            path = os.path.join(tmp, f"{model}.mlir")
            write_model(model, path)
            for target in targets:
                for dtype in ("f16", "bf16"):
                    runs = [amp_run(amp_run_path, path, dtype, target)
                            for _ in range(repeat - 1)]
                    runs.append(amp_run(amp_run_path, path, dtype, target, 3))
                    stages = {s: statistics.median(r[0].get(s, 0.0)
                                                   for r in runs)
                              for s in STAGES}
                    results[f"{model} {dtype} {target}"] = {
                        "stages": stages, "jit": runs[-1][1],
                        "run_seconds": runs[-1][2]}
                    if target == "cpu" and model != "tosa-transformer":
                        # One cold compilation (tens of seconds each).
                        results[f"{model} {dtype} {target}"][
                            "inductor_seconds"] = inductor_seconds(model,
                                                                   dtype)
                    print(f"{model} {dtype} {target}: "
                          f"{sum(stages.values()):.2f} s ({runs[-1][1]})",
                          file=sys.stderr)
    return results


def fmt(seconds):
    return f"{seconds:.2f}"


def render(run):
    head = ("| model | target | type | " + " | ".join(STAGES) +
            " | total | one call | Inductor, same run |")
    lines = [f"Measured on {run['machine']}, CPU seconds, median of "
             f"{run['repeat']} compilations; the last column is "
             f"torch.compile (Inductor, CPU) of the same PyTorch model under "
             f"autocast in the same type, in the same run: one cold "
             f"compilation (empty caches), its first call's CPU seconds "
             f"less its second's:", "", head,
             "|---|---|---|" + "---:|" * (len(STAGES) + 3)]
    for key, result in run["results"].items():
        # Runs before the GPU column were of the CPU only.
        model, dtype, target = (key.split(" ") + ["cpu"])[:3]
        stages = result["stages"]
        call = result["run_seconds"]
        inductor = result.get("inductor_seconds")
        lines.append(
            f"| {NAMES[model]} | {target} | {dtype} | " +
            " | ".join(fmt(stages[s]) for s in STAGES) +
            f" | **{fmt(sum(stages.values()))}** | "
            f"{'-' if call is None else fmt(call)} | "
            f"{fmt(inductor) if inductor is not None else '-'} |")
    ratios = [f"{key.split(' ')[0]} {key.split(' ')[1]} "
              f"{sum(r['stages'].values()) / r['inductor_seconds']:.2f}×"
              for key, r in run["results"].items()
              if r.get("inductor_seconds")]
    if ratios:
        longest = max(run["results"].items(),
                      key=lambda item: sum(item[1]["stages"].values()))
        lines += ["", "amp-mlir's CPU compilation (total) against Inductor's "
                  "of the same model in the same type: " +
                  ", ".join(ratios) + f". The longest compilation of the "
                  f"run: {NAMES[longest[0].split(' ')[0]]}, "
                  f"{longest[0].split(' ')[2]} {longest[0].split(' ')[1]}, "
                  f"{fmt(sum(longest[1]['stages'].values()))} s."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--amp-run", default=os.path.join(
        os.environ.get("AMP_MLIR_ROOT", os.path.join(ROOT, "build")), "bin",
        "amp-run"))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--targets", default="cpu,gpu",
                        help="cpu, gpu (compiled only; needs ptxas)")
    parser.add_argument("--repeat", type=int, default=3)
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)

    def measure_run():
        models = [m for m in args.models.split(",") if m]
        for model in models:
            if model not in MODELS:
                parser.error(f"unknown model {model}")
        targets = [t for t in args.targets.split(",") if t]
        for target in targets:
            if target not in ("cpu", "gpu"):
                parser.error(f"unknown target {target}")
        return {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                "repeat": args.repeat,
                "results": measure(args.amp_run, models, targets,
                                   args.repeat)}

    run = doctables.load_or_measure(args, measure_run)
    return doctables.publish(args, {BLOCK: render(run)}, SCRIPT)


if __name__ == "__main__":
    sys.exit(main())
