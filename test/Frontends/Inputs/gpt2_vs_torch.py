"""GPT-2 as the GPU kit exports its model rows (export_models.py: the
weights as arguments after the token ids, a static batch, GPT2LMHeadModel
with eager attention, returning the logits), at a small size, against
PyTorch itself on the same seeded weights and token ids as the kit's
run.py takes its reference (baselines.py: sdpa attention, weights assigned
by name, lm_head tied to wte), at batch 1 and 4, compiled at O0 for the CPU
and for the GPU simulator. Also prints the module's integer powers
(math.fpowi: the tanh GELU's x ** 3, an i64 exponent, which the GPU
lowering called libdevice's __nv_powif(float, int) with until
amp-gpu-integer-powers).

    gpt2_vs_torch.py
"""

import os
import sys

import numpy as np
import torch

import amp_mlir

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "scripts", "gpu-kit"))
import baselines  # noqa: E402
from export_models import (_logits, _weight_names, build_gpt2,  # noqa: E402
                           seeded_gpt2_weights, weights_as_arguments)
from seeded import seeded_inputs  # noqa: E402

CONFIG = {"n_layer": 2, "n_embd": 32, "n_head": 2, "n_positions": 16,
          "vocab_size": 64, "resid_pdrop": 0.0, "embd_pdrop": 0.0,
          "attn_pdrop": 0.0, "bos_token_id": 0, "eos_token_id": 0}
SEQ = 16
# O0 against PyTorch fp32: other accumulation orders only.
BOUND = 1e-5


def export(batch):
    """The module and its seeded arguments, as export_one makes a gpt2
    row."""
    base = build_gpt2(CONFIG)
    names = _weight_names(base)
    state = dict(base.named_parameters())
    net = weights_as_arguments(base, names, output=_logits)
    text = amp_mlir.from_torch(net, torch.zeros(batch, SEQ, dtype=torch.int64),
                               *[state[n].detach() for n in names])
    specs = [{"name": "tokens", "shape": [batch, SEQ], "dtype": "i64",
              "init": "integers", "high": CONFIG["vocab_size"]}]
    return text, specs + seeded_gpt2_weights(base, names)


def main():
    for batch in (1, 4):
        text, specs = export(batch)
        powers = [line.split(":")[-1].strip() for line in text.splitlines()
                  if "math.fpowi" in line]
        print(f"gpt2 batch {batch}: {len(powers)} math.fpowi "
              f"({', '.join(sorted(set(powers)))})")
        arrays = seeded_inputs(specs)
        data, _, named = baselines.split_inputs({"seeded_inputs": specs},
                                                arrays)
        module, facts = baselines.build_model(
            {"model": "gpt2", "config": CONFIG}, named, "cpu")
        with torch.no_grad():
            reference = module(torch.from_numpy(data)).numpy()
        for target in ("cpu", "gpu-sim"):
            compiled = amp_mlir.compile(text, level="O0", target=target)
            out = np.asarray(compiled.main(*arrays))
            rel = float(np.linalg.norm(out - reference) /
                        np.linalg.norm(reference))
            print(f"gpt2 batch {batch} {target} O0 vs torch "
                  f"({facts['attn_implementation']}): rel L2 {rel:.1e} "
                  f"{'ok' if rel <= BOUND else 'FAIL'}")


if __name__ == "__main__":
    main()
