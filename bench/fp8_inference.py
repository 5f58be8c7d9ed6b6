#!/usr/bin/env python3
"""FP8 inference error beside torchao's float8 (issue 29, item 8): the rel L2
error against fp32 eager PyTorch of amp-mlir's dtype=fp8 (O2: the
contractions' operands in FP8 with per-tensor current scaling, the rest in
bf16) and of torchao's tensorwise float8 (convert_to_float8_training with
emulate=True: its nn.Linear layers' operands cast to FP8 with per-tensor
dynamic scales, computed on the CPU), on the same random weights and input.
torchao runs twice: on the fp32 model (everything but the Linears stays
fp32) and on the model in bf16 (the rest in bf16, as amp-mlir's O2 and
TransformerEngine's bf16 models have it). amp-mlir's bf16 column is given
for scale. resnet18 has a second row with its convolutions kept in f32
(custom-black-list), the scope of torchao's float8 (Linears only).

    .venv-peers/bin/python bench/fp8_inference.py \\
        --json bench/results/fp8-inference.json --update-doc docs/policies.md
    python3 bench/fp8_inference.py --from-json \\
        bench/results/fp8-inference.json --update-doc docs/policies.md --check

Runs in the peers' environment (scripts/install-peers.sh: torch,
torchvision, torch-mlir and torchao, pinned in bench/peers/requirements.txt)
with AMP_MLIR_ROOT pointing at a build. torchao's float8 swaps nn.Linear
only: in resnet18 that is the classifier, while amp-mlir's FP8 covers
matmuls, batch matmuls and convolutions. The table goes between the
fp8-inference markers of the document.
"""

import argparse
import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench" / "peers"))

SCRIPT = "bench/fp8_inference.py"


def models(torch):
    import torchvision
    import models as peer_models

    torch.manual_seed(0)
    resnet = torchvision.models.resnet18().eval()
    block, shape = peer_models.bert_block()
    convolutions_f32 = {"custom_black_list": ["linalg.conv_2d_nchw_fchw"]}
    return [("resnet18", resnet, (1, 3, 224, 224), {}),
            ("resnet18, convolutions in f32", resnet, (1, 3, 224, 224),
             convolutions_f32),
            ("BERT block", block.eval(), shape, {}),
            ("transformer encoder (2 layers)",
             *peer_models.transformer_encoder(), {})]


def rel_l2(got, want):
    import numpy as np
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


def measure(torch, name, model, shape, options):
    import amp_mlir
    from torchao.float8 import Float8LinearConfig, convert_to_float8_training

    torch.manual_seed(1)
    model = model.eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        reference = model(x).numpy()
    text = amp_mlir.from_torch(model, x)
    row = {"model": name}
    for label, dtype in (("amp-mlir O2 bf16", "bf16"),
                         ("amp-mlir O2 fp8", "fp8")):
        compiled = amp_mlir.compile(text, level="O2", dtype=dtype, **options)
        row[label] = rel_l2(compiled(x.numpy()), reference)
    config = Float8LinearConfig(emulate=True)
    float8 = convert_to_float8_training(copy.deepcopy(model), config=config)
    bf16 = convert_to_float8_training(
        copy.deepcopy(model).to(torch.bfloat16), config=config)
    with torch.no_grad():
        row["torchao float8 (tensorwise)"] = rel_l2(float8(x).numpy(),
                                                    reference)
        row["torchao float8, model in bf16"] = rel_l2(
            bf16(x.to(torch.bfloat16)).float().numpy(), reference)
    row["linear layers"] = sum(isinstance(m, torch.nn.Linear)
                               for m in model.modules())
    return row


COLUMNS = ["amp-mlir O2 bf16", "amp-mlir O2 fp8",
           "torchao float8 (tensorwise)", "torchao float8, model in bf16"]


def table(rows):
    lines = ["| model | " + " | ".join(COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for row in rows:
        lines.append(f"| {row['model']} | " + " | ".join(
            f"{row[c]:.2e}" for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    import doctables
    doctables.add_arguments(p)
    args = p.parse_args(argv)
    doctables.check_arguments(p, args)
    if args.from_json:
        rows = json.loads(Path(args.from_json).read_text())
    else:
        import warnings
        import torch
        warnings.simplefilter("ignore")
        # nn.TransformerEncoderLayer's fused fast path (eval, no grad)
        # reads the weights directly, past the Linear modules torchao
        # swaps.
        torch.backends.mha.set_fastpath_enabled(False)
        rows = [measure(torch, *model) for model in models(torch)]
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return doctables.publish(args, {"fp8-inference": table(rows)}, SCRIPT)


if __name__ == "__main__":
    sys.exit(main())
