"""The GPU kit's PyTorch side (scripts/gpu-kit/baselines.py) on the CPU:
models built from seeded weights by name (every state-dict entry covered,
or a loud error), the same outputs as the library's own model with the
same state dict, the eager variants and training steps (weights restored
after each), a CUDA graph's failure recorded rather than raised, a
profile, and torch.compile in a child process (backend "eager" here)."""

import json
import os
import shutil
import sys
import tempfile

import numpy as np
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
KIT = os.path.join(REPO, "scripts", "gpu-kit")
sys.path.insert(0, KIT)
import baselines  # noqa: E402
import seeded  # noqa: E402
from export_models import seeded_weights  # noqa: E402

ADAMW = {"optimizer": "adamw", "lr": 1e-3, "betas": [0.9, 0.999],
         "eps": 1e-8, "weight_decay": 0.01}
GPT2 = {"n_layer": 2, "n_embd": 32, "n_head": 2, "n_positions": 16,
        "vocab_size": 64, "bos_token_id": 0, "eos_token_id": 0}


def rel(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def expect_error(what, call, fragment):
    try:
        call()
    except baselines.WeightError as error:
        ok = fragment in str(error)
        print(f"{what}: WeightError {'names it' if ok else 'FAIL'}: {error}")
        return
    print(f"{what}: FAIL (no error)")


def torchvision_case(name, batch, size, train=None):
    import torchvision
    base = getattr(torchvision.models, name)(weights=None)
    names = [n for n, _ in base.named_parameters()] + [
        n for n, b in base.named_buffers() if b.is_floating_point()]
    specs = [{"name": "x", "shape": [batch, 3, size, size], "dtype": "f32",
              "init": "uniform", "scale": 1.0}] + seeded_weights(base, names)
    spec = {"model": "torchvision", "name": name, "channels_last": True}
    if train:
        spec.update(train=train, loss="cross_entropy")
        specs.append({"name": "labels", "shape": [batch], "dtype": "i64",
                      "init": "integers", "high": 1000})
    return {"id": f"model.{name}.O2-bf16", "name": name, "group": "model",
            "level": "O2 bf16", "seeded_inputs": specs, "torch": spec,
            "items": {"unit": "images", "per_call": batch}}


def gpt2_case(attention="sdpa", train=None, batch=2, seq=8):
    from transformers import GPT2Config, GPT2LMHeadModel
    base = GPT2LMHeadModel(GPT2Config(**GPT2))
    specs = [{"name": "input_ids", "shape": [batch, seq], "dtype": "i64",
              "init": "integers", "high": GPT2["vocab_size"]}]
    for n, p in base.named_parameters():  # lm_head.weight is wte's
        ones = n.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight"))
        specs.append({"name": n, "shape": list(p.shape), "dtype": "f32",
                      "init": "ones" if ones else "uniform",
                      "scale": 0.0 if ones else 0.1})
    spec = {"model": "gpt2", "config": GPT2, "attn_implementation": attention}
    if train:
        spec.update(train=train, loss="cross_entropy")
        specs.append({"name": "labels", "shape": [batch, seq], "dtype": "i64",
                      "init": "integers", "high": GPT2["vocab_size"]})
    return {"id": f"model.gpt2_{attention}.O2-bf16", "name": "gpt2",
            "group": "model", "level": "O2 bf16", "seeded_inputs": specs,
            "torch": spec, "items": {"unit": "tokens",
                                     "per_call": batch * seq}}


def check_resnet50():
    import torchvision
    case = torchvision_case("resnet50", 1, 64)
    arrays = seeded.seeded_inputs(case["seeded_inputs"])
    setup = baselines.Setup(case, arrays, "cpu")
    weights = setup.facts["weights"]
    print(f"resnet50: {weights['assigned']} weights assigned, "
          f"{len(weights['defaulted'])} defaulted "
          f"({sorted({n.rsplit('.', 1)[-1] for n in weights['defaulted']})})"
          f", channels_last {setup.facts['channels_last']}")
    other = torchvision.models.resnet50(weights=None).eval()
    names = [s["name"] for s in case["seeded_inputs"][1:]]
    missing, unexpected = other.load_state_dict(
        {n: torch.from_numpy(a) for n, a in zip(names, arrays[1:])},
        strict=False)
    print(f"resnet50: torchvision's load_state_dict misses "
          f"{sorted({m.rsplit('.', 1)[-1] for m in missing})}, "
          f"{len(unexpected)} unexpected")
    with torch.no_grad():
        expected = other(torch.from_numpy(arrays[0])).numpy()
    error = rel(setup.reference()[0], expected)
    print(f"resnet50: fp32 output vs torchvision's: rel L2 {error:.1e} "
          f"{'ok' if error < 1e-5 else 'FAIL'}")
    named = list(zip(names, arrays[1:]))
    expect_error("resnet50 without fc.bias",
                 lambda: baselines.assign_weights(
                     torchvision.models.resnet50(weights=None),
                     [(n, a) for n, a in named if n != "fc.bias"]),
                 "fc.bias")
    expect_error("resnet50 with a stray name",
                 lambda: baselines.assign_weights(
                     torchvision.models.resnet50(weights=None),
                     named + [("momentum.fc.weight", arrays[-1])]),
                 "momentum.fc.weight")
    expect_error("resnet50 with a wrong shape",
                 lambda: baselines.assign_weights(
                     torchvision.models.resnet50(weights=None),
                     [(n, a.T if n == "fc.weight" else a)
                      for n, a in named]),
                 "fc.weight")
    report = baselines.assign_weights(
        torchvision.models.resnet50(weights=None),
        named + [("momentum.fc.weight", arrays[-1])], allow_unknown=True)
    print(f"resnet50 training: unused inputs {report['unused_inputs']}")


def check_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    for attention in ("sdpa", "eager"):
        case = gpt2_case(attention)
        arrays = seeded.seeded_inputs(case["seeded_inputs"])
        setup = baselines.Setup(case, arrays, "cpu")
        other = GPT2LMHeadModel(GPT2Config(**GPT2)).eval()
        names = [s["name"] for s in case["seeded_inputs"][1:]]
        missing, _ = other.load_state_dict(
            {n: torch.from_numpy(a) for n, a in zip(names, arrays[1:])},
            strict=False)
        with torch.no_grad():
            expected = other(torch.from_numpy(arrays[0]),
                             use_cache=False).logits.numpy()
        error = rel(setup.reference()[0], expected)
        print(f"gpt2 {attention}: attention {setup.facts['attn_implementation']}"
              f", {setup.facts['weights']['assigned']} weights (missing in "
              f"transformers' load: {missing}), logits vs transformers': "
              f"rel L2 {error:.1e} {'ok' if error < 1e-5 else 'FAIL'}")
    named = list(zip(names, arrays[1:]))
    wte = dict(named)["transformer.wte.weight"]
    expect_error("gpt2 with lm_head.weight unlike wte",
                 lambda: baselines.assign_weights(
                     GPT2LMHeadModel(GPT2Config(**GPT2)),
                     named + [("lm_head.weight", wte + 1)]),
                 "tied")


def check_variants(case, label):
    arrays = seeded.seeded_inputs(case["seeded_inputs"])
    setup = baselines.Setup(case, arrays, "cpu")
    before = {k: v.clone() for k, v in setup.module.state_dict().items()}
    if setup.train:
        loss = setup.reference()[0]
        with torch.no_grad():
            expected = baselines.loss_of(
                torch, case["torch"], setup.module(setup.data), setup.labels)
        print(f"{label}: reference loss {float(loss):.4f} "
              f"{'ok' if abs(float(loss) - float(expected)) < 1e-6 else 'FAIL'}")
        step, facts = baselines.eager_call(setup, "bf16")
        step()
        moved = any(not torch.equal(before[k], v) for k, v in
                    setup.module.state_dict().items())
        setup.restore()
        print(f"{label}: a step moves the weights {moved}, optimizer "
              f"{facts['optimizer']}")
    for variant, precision in (("fp32", "fp32"), ("eager_amp", "bf16"),
                               ("eager_amp", "f16"),
                               ("cuda_graph", "bf16")):
        stats = baselines.measure(setup, variant, precision, 1, 3)
        if stats.get("error"):
            print(f"{label} {variant} {precision}: error recorded")
            continue
        ok = stats["n"] == 3 and stats["min_ms"] <= stats["median_ms"] <= \
            stats["max_ms"] and stats["items_per_s"] > 0
        extra = "" if not setup.train else \
            f", GradScaler {stats['grad_scaler']}"
        print(f"{label} {variant} {precision}: {stats['n']} calls "
              f"{'ok' if ok else 'FAIL'}{extra}")
    same = all(torch.equal(before[k], v)
               for k, v in setup.module.state_dict().items())
    print(f"{label}: weights as seeded after the variants {same}")
    profile = baselines.profile_setup(setup, "bf16", calls=2, top=4)
    shares = sum(k["share"] for k in profile["top"])
    print(f"{label}: profile of {profile['calls']} calls, "
          f"{len(profile['top'])} top entries, shares "
          f"{'ok' if 0 < shares <= 1.0 + 1e-9 else 'FAIL'}")


def check_compile_child(case, backend, label):
    """The child process run.py starts for torch.compile: a kit folder
    with the manifest, and baselines.py's compile command (backend eager
    or aot_eager: Inductor would compile C++ here)."""
    kit = tempfile.mkdtemp()
    try:
        for name in ("baselines.py", "seeded.py"):
            shutil.copy2(os.path.join(KIT, name), kit)
        with open(os.path.join(kit, "manifest.json"), "w") as f:
            json.dump({"cases": [case]}, f)
        stats = baselines.compile_in_child(
            kit, case["id"], "bf16", "default", 300, 1, 4, device="cpu",
            backend=backend)
        print(f"compile child, {label}: {stats.get('error') or 'figures'}, "
              f"{stats.get('n')} calls, compiled in "
              f"{'yes' if stats.get('compile_s', 0) > 0 else 'no'}, mode "
              f"{stats.get('mode')}")
    finally:
        shutil.rmtree(kit)


def main():
    torch.manual_seed(0)
    check_resnet50()
    check_gpt2()
    check_variants(torchvision_case("resnet18", 2, 32, train={
        "optimizer": "sgd", "lr": 0.1, "momentum": 0.9,
        "weight_decay": 1e-4}), "resnet18 sgd")
    check_variants(gpt2_case("sdpa", train=ADAMW), "gpt2 adamw")
    check_variants(gpt2_case("sdpa"), "gpt2")
    check_compile_child(gpt2_case("sdpa"), "eager", "gpt2")
    check_compile_child(gpt2_case("sdpa", train=ADAMW), "aot_eager",
                        "gpt2 adamw step")


if __name__ == "__main__":
    main()
