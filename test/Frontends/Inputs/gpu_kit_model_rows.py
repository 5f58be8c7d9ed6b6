"""The GPU kit's model rows end to end on the CPU: a small GPT-2 whose
weights are arguments (as the kit's large models), imported by from_torch,
compiled for the GPU simulator at O0 and O2 bf16, and a kit of its own
(run.py, baselines.py, seeded.py, the loader) with a manifest by the model
rows' contract (seeded token ids and weights by name, "reference": "torch",
items, estimate_us) and a row not built. run.py --sim --torch-device cpu
then runs the rows' PyTorch side on the CPU (torch.compile is the GPU's
only): the torch reference, the eager variants, the profiles, the closing
table; report.py renders the run.

    gpu_kit_model_rows.py WORK_DIR
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

import amp_mlir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
KIT_SCRIPTS = os.path.join(REPO, "scripts", "gpu-kit")
sys.path.insert(0, KIT_SCRIPTS)
from export_models import weights_as_arguments  # noqa: E402

CONFIG = {"n_layer": 1, "n_embd": 32, "n_head": 2, "n_positions": 16,
          "vocab_size": 64, "bos_token_id": 0, "eos_token_id": 0}
BATCH, SEQ = 2, 8


def main():
    work = sys.argv[1]
    kit = os.path.join(work, "kit")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(kit, "sim"))
    for name in ("run.py", "baselines.py", "seeded.py"):
        shutil.copy2(os.path.join(KIT_SCRIPTS, name), kit)
    shutil.copy2(os.path.join(REPO, "python", "amp_mlir", "aot.py"),
                 os.path.join(kit, "amp_aot.py"))

    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    base = GPT2LMHeadModel(GPT2Config(attn_implementation="eager",
                                      **CONFIG)).eval()

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = base

        def forward(self, ids):
            return self.model(input_ids=ids, use_cache=False).logits

    # The arguments: the token ids, then the weights by state-dict name.
    names = [n for n, _ in base.named_parameters()]
    state = dict(base.named_parameters())
    net = weights_as_arguments(Logits(), [f"model.{n}" for n in names])
    example = (torch.randint(0, CONFIG["vocab_size"], (BATCH, SEQ)),
               *[state[n].detach() for n in names])
    text = amp_mlir.from_torch(net, *example)

    specs = [{"name": "input_ids", "shape": [BATCH, SEQ], "dtype": "i64",
              "init": "integers", "high": CONFIG["vocab_size"]}]
    for n in names:
        shape = list(state[n].shape)
        ones = n.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight"))
        specs.append({"name": n, "shape": shape, "dtype": "f32",
                      "init": "ones" if ones else "uniform",
                      "scale": 0.0 if ones else 0.1})
    spec = {"model": "gpt2", "config": CONFIG,
            "attn_implementation": "eager"}
    cases = []
    for level, dtype in (("O0", None), ("O2", "bf16")):
        label = level if dtype is None else f"{level} {dtype}"
        case_id = f"model.gpt2_tiny.{level}" + (f"-{dtype}" if dtype else "")
        library = os.path.join(kit, "sim", f"{case_id}.so")
        amp_mlir.compile(text, level=level, dtype=dtype, target="gpu-sim",
                         output=library)
        cases.append({
            "id": case_id, "group": "model", "name": "gpt2_tiny",
            "function": "main", "level": label, "quick": True, "repeat": 2,
            "reference": "torch", "library": f"sim/{case_id}.so",
            "sim_library": f"sim/{case_id}.so", "seeded_inputs": specs,
            "torch": spec, "items": {"unit": "tokens",
                                     "per_call": BATCH * SEQ},
            "estimate_us": {"h100-sxm": 20.0, "h200": 18.0}})
    cases.append({"id": "model.gpt2_tiny_train.O2-bf16", "group": "model",
                  "name": "gpt2_tiny_train", "function": "main",
                  "level": "O2 bf16", "quick": True, "repeat": 2,
                  "not_built": "not exported (this test)", "torch": spec})
    with open(os.path.join(kit, "manifest.json"), "w") as f:
        json.dump({"format": "amp-gpu-kit-1", "commit": "test",
                   "built": "now", "cases": cases}, f, indent=1)
    if not os.path.exists(os.path.join(kit, "sim",
                                       "libamp_runtime_gpusim.so")):
        shutil.copy2(os.path.join(os.environ["AMP_MLIR_ROOT"], "lib",
                                  "libamp_runtime_gpusim.so"),
                     os.path.join(kit, "sim"))

    out = os.path.join(work, "out")
    env = dict(os.environ, OUT=out)
    proc = subprocess.run([sys.executable, os.path.join(kit, "run.py"),
                           "--sim", "--no-gtests", "--quick",
                           "--torch-device", "cpu"], env=env,
                          capture_output=True, text=True)
    print(proc.stdout)
    print(proc.stderr[-3000:], file=sys.stderr)
    print(f"run.py exit {proc.returncode}")
    with open(os.path.join(out, "results.json")) as f:
        results = json.load(f)
    for row in results["rows"]:
        torch_side = row.get("torch") or {}
        variants = ", ".join(
            f"{k} {'error' if v.get('error') else v.get('n')}"
            for k, v in sorted(torch_side.items()))
        profile = row.get("profile") or {}
        print(f"row {row['test']}: {row['status']}, reference "
              f"{row.get('reference')}, items/s "
              f"{'yes' if row.get('items_per_s') else 'no'}, estimate "
              f"{row.get('estimate_chip')} "
              f"{'yes' if row.get('estimate_pct') else 'no'}; torch: "
              f"{variants}; profile: amp "
              f"{(profile.get('amp') or {}).get('method', '-')}, torch "
              f"{(profile.get('torch') or {}).get('method', '-')}")
    report = subprocess.run([sys.executable, os.path.join(
        KIT_SCRIPTS, "report.py"), os.path.join(out, "results.json")],
        capture_output=True, text=True, check=True)
    print(report.stdout)
    # The seeded token ids are integers in range, the same on both sides.
    ids = np.asarray(__import__("seeded").seeded_inputs(specs[:1])[0])
    print(f"token ids {ids.dtype} in [{ids.min()}, {ids.max()}]")


if __name__ == "__main__":
    main()
