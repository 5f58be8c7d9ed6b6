#!/usr/bin/env python3
"""Exports the GPU kit's frontend models with amp_mlir.from_torch (run with
the frontend environment's Python, .venv-frontends/bin/python):

    export_models.py OUT_DIR [--models NAME,...] [--list]

For each model (KIT_MODELS), OUT_DIR/<name>.mlir (function @main) and
OUT_DIR/<name>.json (the input, the batch, the seeded weights, the PyTorch
baseline's spec, the throughput unit). The MLP and the transformer
classifier (the models of test/Frontends; dynamic batch) keep their weights
as constants; their state dicts go to OUT_DIR/<name>.weights.npz for the
PyTorch baseline on the GPU machine. The torchvision and GPT-2 models have
static shapes (the GPU lowering makes library calls of static
contractions only) and take their weights as arguments (after the input; a
functional call of the module): ResNet-50's 25.6M and GPT-2's 124M weights
would not travel as constants. Both sides draw them from a seed (the kit's
runner on the GPU machine; the CPU reference here for the small models).

A training row (a spec with "train") is the whole training step:
from_torch_training's forward and backward (cross-entropy, the row's
optimizer) made a step by amp_mlir.make_training_step, as amp_mlir.Trainer
makes it, with GradScaler's settings at every level (the "pytorch" preset:
the bf16 and O0 levels run the same unscale, check and scale update as
f16, where Trainer would keep a scale of 1; the same work either way). It
is exported at a small batch with a dynamic batch dimension, so that
ResNet-50 at batch 256 is never traced on this machine, and one module
serves the rows that differ in batch only. Its seeded arguments follow the
step's signature: the parameters (seeded as the inference rows'), the
batch norms' running statistics, the optimizer and loss-scaler state at
the values the step's own @<entry>_init returns, then the batch as "data"
and "labels". A training row that from_torch_training cannot import yet
is written as OUT_DIR/<name>.json with "not_built" (the importer's own
message, from the same model at a small size), and the kit keeps the row.
"""

import argparse
import json
import os
import re
import sys

import numpy as np
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
import amp_mlir  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frontend_models import MLP, TransformerClassifier  # noqa: E402
from amp_mlir import trainer  # noqa: E402


def weights_as_arguments(net, names, output=None):
    """A module whose forward(x, p0, p1, ...) calls `net` with its
    parameters and buffers `names` replaced by the arguments (and returns
    output(result) when `output` is given: GPT-2's logits). The arguments
    are spelled out (torch.export takes no *args with per-argument dynamic
    shapes), and `net` is hidden from the module so that its own weights
    are not exported as constants too."""
    args = ", ".join(f"p{i}" for i in range(len(names)))
    scope = {"torch": torch}
    exec(f"def forward(self, x, {args}):\n"
         f"    result = torch.func.functional_call(\n"
         f"        self.hidden[0], dict(zip(self.names, ({args},))), (x,))\n"
         f"    return self.hidden[1](result)\n",
         scope)
    module = type("WeightsAsArguments", (torch.nn.Module,),
                  {"forward": scope["forward"]})()
    module.__dict__["hidden"] = [net, output or (lambda result: result)]
    module.names = names
    return module


# A bottleneck block's last BatchNorm gain (torchvision's ResNet-50).
_RESIDUAL_GAIN = re.compile(r"^layer\d+\.\d+\.bn3\.weight$")


def seeded_weights(net, names, zero_init_residual=False):
    """Deterministic stand-ins for a torchvision CNN: He-uniform weights,
    small biases, BatchNorm gains 1, shifts 0, running mean 0 and variance
    1. zero_init_residual: the last BatchNorm gain of each bottleneck block
    is 0, as in NVIDIA's ResNet-50 recipe (torchvision's
    zero_init_residual=True): every block starts as the identity. The
    training rows use it: without it, ResNet-50's gradients at a random
    initialisation are ill-conditioned at small sizes (PyTorch's own fp32
    and fp64 gradients differ by 2% at batch 4, 64x64, and by 150% at
    batch 2, 32x32; 1e-6 with it)."""
    specs = []
    state = dict(net.named_parameters())
    state.update(dict(net.named_buffers()))
    for name in names:
        shape = list(state[name].shape)
        leaf = name.rsplit(".", 1)[-1]
        if zero_init_residual and _RESIDUAL_GAIN.match(name):
            spec = {"init": "uniform", "scale": 0.0}
        elif leaf == "running_var":
            spec = {"init": "ones", "scale": 0.0}
        elif leaf == "running_mean":
            spec = {"init": "uniform", "scale": 0.0}
        elif len(shape) == 1 and "bn" in name or "downsample.1" in name:
            spec = ({"init": "ones", "scale": 0.0} if leaf == "weight"
                    else {"init": "uniform", "scale": 0.0})
        elif len(shape) == 1:
            spec = {"init": "uniform", "scale": 0.05}
        else:
            fan_in = int(np.prod(shape[1:]))  # He: variance 2 / fan_in
            spec = {"init": "uniform", "scale": float(np.sqrt(6.0 / fan_in))}
        specs.append({"name": name, "shape": shape, "dtype": "f32", **spec})
    return specs


def seeded_gpt2_weights(net, names):
    """GPT-2's initialisation in uniform form: weights and embeddings with
    standard deviation 0.02 (U(+-0.02*sqrt(3))), LayerNorm gains 1, biases
    and shifts 0."""
    specs = []
    state = dict(net.named_parameters())
    for name in names:
        shape = list(state[name].shape)
        if ".ln_" in name or name.startswith("transformer.ln_f"):
            spec = ({"init": "ones", "scale": 0.0} if name.endswith("weight")
                    else {"init": "uniform", "scale": 0.0})
        elif name.endswith("bias"):
            spec = {"init": "uniform", "scale": 0.0}
        else:
            spec = {"init": "uniform", "scale": float(0.02 * np.sqrt(3.0))}
        specs.append({"name": name, "shape": shape, "dtype": "f32", **spec})
    return specs


# GPT-2 124M (GPT2Config's defaults) without dropout (the kit times the
# deterministic step; PyTorch's baseline uses the same config).
GPT2_124M = {"n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024,
             "vocab_size": 50257, "resid_pdrop": 0.0, "embd_pdrop": 0.0,
             "attn_pdrop": 0.0}
# The same structure at a size the simulator and the CPU run in seconds.
GPT2_SMALL = {"n_layer": 2, "n_embd": 64, "n_head": 4, "n_positions": 64,
              "vocab_size": 512, "resid_pdrop": 0.0, "embd_pdrop": 0.0,
              "attn_pdrop": 0.0, "bos_token_id": 0, "eos_token_id": 0}


RESNET50_SGD = {"optimizer": "sgd", "lr": 0.1, "momentum": 0.9,
                "weight_decay": 5e-5}
# GPT-2's AdamW (nanoGPT's settings).
GPT2_ADAMW = {"optimizer": "adamw", "lr": 6e-4, "betas": [0.9, 0.95],
              "eps": 1e-8, "weight_decay": 0.1}


def _kit_models():
    """name -> spec of every model the kit can carry. kind: 'frontend'
    (constant weights), 'mlp_train', 'torchvision' or 'gpt2' (weights as
    arguments, static shapes); 'train' rows are training steps."""
    models = {
        "mlp": {"kind": "frontend"},
        "transformer": {"kind": "frontend"},
        "mlp_train": {"kind": "mlp_train"},
        # resnet18 as before, now with a static batch: its convolutions are
        # cuDNN calls (with a dynamic batch they were generated kernels).
        "resnet18": {"kind": "torchvision", "arch": "resnet18", "batch": 8,
                     "image": 64, "variants": "ALL"},
        # The structure of the real-size rows at a size the simulator and
        # the CPU reference run in seconds (run.sh --sim, CI).
        "resnet50_small": {"kind": "torchvision", "arch": "resnet50",
                           "batch": 2, "image": 32, "variants": "O0_O2",
                           "channels_last": True},
        "gpt2_small": {"kind": "gpt2", "config": GPT2_SMALL, "batch": 2,
                       "seq": 64, "variants": "O0_O2"},
        # GPT-2's training step (AdamW) at that size, against the CPU.
        "gpt2_train_small": {"kind": "gpt2", "config": GPT2_SMALL,
                             "batch": 2, "seq": 64, "train": GPT2_ADAMW,
                             "variants": "O0_O2"},
        # ResNet-50's training step at that size, against the CPU.
        "resnet50_train_small": {"kind": "torchvision", "arch": "resnet50",
                                 "batch": 2, "image": 64,
                                 "train": RESNET50_SGD, "variants": "O0_O2",
                                 "channels_last": True},
    }
    # The real-size rows (issue 42): checked on the GPU machine against
    # PyTorch fp32 on the same seeded weights.
    # The conv nets' rows marked channels_last also get an O2 f16 row in
    # NHWC (build_kit.CHANNELS_LAST), timed beside the NCHW one.
    for batch in (1, 32, 256):
        models[f"resnet50_b{batch}"] = {
            "kind": "torchvision", "arch": "resnet50", "batch": batch,
            "image": 224, "variants": "ALL", "real": True,
            "channels_last": batch == 256}
    # ResNet-50's training step (SGD with momentum and weight decay, as
    # NVIDIA's recipe), at batch 128 and 256 from one module (a dynamic
    # batch), against PyTorch's AMP step on the GPU machine.
    for batch in (128, 256):
        models[f"resnet50_train_b{batch}"] = {
            "kind": "torchvision", "arch": "resnet50", "batch": batch,
            "image": 224, "train": RESNET50_SGD, "real": True,
            "channels_last": True}
    for batch in (1, 8):
        models[f"gpt2_b{batch}"] = {
            "kind": "gpt2", "config": GPT2_124M, "batch": batch, "seq": 1024,
            "variants": "ALL", "real": True}
    models["gpt2_train_b8"] = {
        "kind": "gpt2", "config": GPT2_124M, "batch": 8, "seq": 1024,
        "train": GPT2_ADAMW, "real": True}
    return models


KIT_MODELS = _kit_models()
# What make gpu-kit exports (all of KIT_MODELS).
DEFAULT_MODELS = ",".join(KIT_MODELS)


def build_torchvision(arch):
    import torchvision
    torch.manual_seed(0)
    return getattr(torchvision.models, arch)(weights=None).eval()


def build_gpt2(config):
    """transformers' GPT2LMHeadModel from `config`, eager attention (the
    import's form: amp-mlir's own attention lowering takes the matmuls),
    without the cache. Its state-dict names are the kit's weight names (the
    runner builds the same model there); lm_head.weight is tied to
    transformer.wte.weight and not listed."""
    import transformers
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(**config)
    cfg._attn_implementation = "eager"
    cfg.use_cache = False
    return transformers.GPT2LMHeadModel(cfg).eval()


def _logits(output):
    return output.logits


def build_gpt2_logits(config):
    """build_gpt2's model whose forward(tokens) returns the logits, with
    the state-dict names of GPT2LMHeadModel (the PyTorch baseline's). It
    passes an all-ones attention mask: without one, transformers checks
    the positions for packed sequences by reading a tensor's value, which
    tracing the training step (make_fx) cannot do."""
    import transformers

    class GPT2Logits(transformers.GPT2LMHeadModel):
        def forward(self, tokens):
            return super().forward(tokens,
                                   attention_mask=torch.ones_like(tokens),
                                   use_cache=False).logits

    torch.manual_seed(0)
    cfg = transformers.GPT2Config(**config)
    cfg._attn_implementation = "eager"
    cfg.use_cache = False
    return GPT2Logits(cfg).eval()


def _weight_names(net):
    return [n for n, _ in net.named_parameters()] + [
        n for n, b in net.named_buffers() if b.is_floating_point()]


def export_one(name, spec, out):
    """Writes OUT/<name>.mlir and OUT/<name>.json for one KIT_MODELS
    entry; returns the info dict."""
    info = {"name": name}
    kind = spec["kind"]
    if kind == "frontend":
        net = MLP().eval() if name == "mlp" else TransformerClassifier().eval()
        if name == "mlp":
            example = (torch.randn(2, 64),)
            info.update(batch=64, input={"shape": [64, 64], "dtype": "f32"})
        else:
            example = (torch.randint(0, 100, (2, 12)),)
            info.update(batch=32, input={"shape": [32, 12], "dtype": "i64",
                                         "high": 100})
        text = amp_mlir.from_torch(net, *example, dynamic_dims=0)
        np.savez(os.path.join(out, f"{name}.weights.npz"),
                 **{k: v.detach().numpy()
                    for k, v in net.state_dict().items()})
    elif kind == "mlp_train":
        # A training step imported from PyTorch: from_torch_training's
        # forward and backward (cross_entropy, Adam), made a step by
        # make_training_step as amp_mlir.Trainer does, so that O0 runs the
        # same step (loss scaling, unscale, Adam, the skip).
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Linear(64, 256), torch.nn.ReLU(),
            torch.nn.Linear(256, 256), torch.nn.GELU(),
            torch.nn.Linear(256, 10))
        fb = amp_mlir.from_torch_training(
            model, torch.nn.functional.cross_entropy,
            {"kind": "adam", "lr": 1e-3}, torch.zeros(64, 64),
            torch.zeros(64, dtype=torch.int64))
        text = amp_mlir.make_training_step(fb)
        info.update(entry="forward_backward", variants="O0_O2",
                    tol_scale=2.0)
    elif spec.get("train"):
        return export_training(name, spec, out, info)
    else:
        batch = spec["batch"]
        if kind == "torchvision":
            base = build_torchvision(spec["arch"])
            image = spec["image"]
            example = torch.zeros(batch, 3, image, image)
            names = _weight_names(base)
            weights = seeded_weights(base, names)
            first = {"name": "x", "shape": [batch, 3, image, image],
                     "dtype": "f32", "init": "uniform", "scale": 1.0}
            info["items"] = {"unit": "images", "per_call": batch}
            info["size"] = f"batch {batch}, {image}x{image}"
        else:
            base = build_gpt2(spec["config"])
            seq = spec["seq"]
            example = torch.zeros(batch, seq, dtype=torch.int64)
            names = _weight_names(base)
            weights = seeded_gpt2_weights(base, names)
            first = {"name": "tokens", "shape": [batch, seq], "dtype": "i64",
                     "init": "integers",
                     "high": spec["config"]["vocab_size"]}
            info["items"] = {"unit": "tokens", "per_call": batch * seq}
            info["size"] = (f"batch {batch} x {seq} tokens, "
                            f"{spec['config']['n_layer']} layers of "
                            f"{spec['config']['n_embd']}")
        state = dict(base.named_parameters())
        state.update(dict(base.named_buffers()))
        net = weights_as_arguments(base, names, output=(
            _logits if kind == "gpt2" else None))
        params = [state[n].detach() for n in names]
        text = amp_mlir.from_torch(net, example, *params)
        info.update(batch=batch, input={"shape": first["shape"],
                                        "dtype": first["dtype"]},
                    arguments=[first] + weights,
                    torch=_torch_spec(spec),
                    variants=spec.get("variants", "ALL"),
                    channels_last=bool(spec.get("channels_last")),
                    real=bool(spec.get("real")))
    with open(os.path.join(out, f"{name}.mlir"), "w") as f:
        f.write(text)
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


def _optimizer_of(train):
    """from_torch_training's optimizer dict of a row's "train" settings."""
    settings = dict(train)
    kind = settings.pop("optimizer")
    return {"kind": "momentum" if kind == "sgd" else kind, **settings}


_CONSTANT = re.compile(r"(%[\w.]+) = arith\.constant dense<([^>]*)> : "
                       r"(tensor<[^>]*>)")


def initial_state(text, entry):
    """The values @<entry>_init returns (a training step's initial
    optimizer and loss-scaler state): one number per result, each a splat
    constant; raises ValueError otherwise."""
    match = re.search(rf"func\.func @{re.escape(entry)}_init\(\)(.*?)"
                      rf"^\s*return ([^:\n]*) :", text, re.S | re.M)
    if not match:
        raise ValueError(f"the training step has no @{entry}_init")
    constants = {name: value for name, value, _ in
                 _CONSTANT.findall(match.group(1))}
    values = []
    for name in (n.strip() for n in match.group(2).split(",")):
        if name not in constants:
            raise ValueError(f"@{entry}_init returns {name}, not a splat "
                             f"constant")
        literal = constants[name]
        values.append(literal == "true" if literal in ("true", "false")
                      else float(literal) if any(c in literal for c in ".e")
                      else int(literal))
    return values


def training_arguments(text, entry, weights, batch_specs):
    """The seeded specs of the step's arguments, in its order (see the
    module's docstring): `weights` the seeded specs of the parameters and
    floating buffers by name, `batch_specs` those of the batch."""
    header = trainer._header(text, entry)[0]
    types = [trainer._tensor_type(m.group(1))
             for m in trainer._ARGUMENT.finditer(header)]
    roles, _ = trainer._signature(text, entry)
    weights = {spec["name"]: spec for spec in weights}
    state = iter(initial_state(text, entry))
    batch_args = iter(batch_specs)
    specs = []
    for (role, label), (shape, element) in zip(roles, types):
        if role == "batch":
            specs.append(next(batch_args))
        elif role in ("optimizer_state", "scaler"):
            specs.append({"name": f"{role}:{label}", "shape": shape,
                          "init": "fill", "value": next(state),
                          "dtype": element})
        elif label in weights:
            specs.append(weights[label])
        else:  # num_batches_tracked
            specs.append({"name": label, "shape": shape, "init": "fill",
                          "value": 0, "dtype": element})
    if next(state, None) is not None or next(batch_args, None) is not None:
        raise ValueError("the step's signature and its initial state "
                         "disagree")
    return specs


_TRAINING_MODULES_WRITTEN = set()


def _training_model(spec):
    """(net, module file, loss, example batch, dynamic_dims, seeded weight
    specs, batch argument specs, items, size) of a training row: a
    torchvision net's step has a dynamic batch (traced at 2), GPT-2's the
    row's (with a dynamic batch its reshapes take their shapes from
    tensors, which the GPU pipeline would read on the host)."""
    import torch.nn.functional as F
    batch = spec["batch"]
    if spec["kind"] == "torchvision":
        image = spec["image"]
        net = build_torchvision(spec["arch"]).train()
        names = [n for n in _weight_names(net)
                 if not n.endswith("num_batches_tracked")]
        return (net, f"{spec['arch']}_train_{image}.mlir", F.cross_entropy,
                (torch.zeros(2, 3, image, image),
                 torch.zeros(2, dtype=torch.int64)), 0,
                seeded_weights(net, names, zero_init_residual=True),
                [{"name": "data", "shape": [batch, 3, image, image],
                  "dtype": "f32", "init": "uniform", "scale": 1.0},
                 {"name": "labels", "shape": [batch], "dtype": "i64",
                  "init": "integers", "high": net.fc.out_features}],
                {"unit": "images", "per_call": batch},
                f"batch {batch}, {image}x{image}, training step")
    config, seq = spec["config"], spec["seq"]
    net = build_gpt2_logits(config).train()
    vocab = config["vocab_size"]

    def loss(logits, labels):
        # Every position's next-token loss, as the baseline's loss_of.
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               labels.reshape(-1))

    tokens = {"shape": [batch, seq], "dtype": "i64", "init": "integers",
              "high": vocab}
    return (net, f"gpt2_train_{config['n_layer']}x{config['n_embd']}_"
            f"b{batch}_{seq}.mlir", loss,
            (torch.zeros(batch, seq, dtype=torch.int64),
             torch.zeros(batch, seq, dtype=torch.int64)), None,
            seeded_gpt2_weights(net, [n for n, _ in net.named_parameters()]),
            [{"name": "data", **tokens}, {"name": "labels", **tokens}],
            {"unit": "tokens", "per_call": batch * seq},
            f"batch {batch} x {seq} tokens, {config['n_layer']} layers of "
            f"{config['n_embd']}, training step")


def export_training(name, spec, out, info):
    """A training row (a torchvision net or GPT-2): the step module (shared
    by the rows that differ in batch only where the batch is dynamic) and
    OUT/<name>.json."""
    (net, module, loss, example, dynamic_dims, weights, batch_specs, items,
     size) = _training_model(spec)
    batch = spec["batch"]
    path = os.path.join(out, module)
    # Shared by the rows of this run, made again by every run: the step is
    # amp-training's, so a file an earlier build left would keep an older
    # compiler's step (its optimizer, its loss scaling) in the kit.
    if path not in _TRAINING_MODULES_WRITTEN:
        _TRAINING_MODULES_WRITTEN.add(path)
        fb = amp_mlir.from_torch_training(
            net, loss, _optimizer_of(spec["train"]), *example,
            dynamic_dims=dynamic_dims)
        text = amp_mlir.make_training_step(fb, scaler="pytorch")
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        text = f.read()
    info.update(batch=batch, module=module, entry="forward_backward",
                input={"shape": batch_specs[0]["shape"],
                       "dtype": batch_specs[0]["dtype"]},
                arguments=training_arguments(text, "forward_backward",
                                             weights, batch_specs),
                torch=_torch_spec(spec), train=spec["train"],
                variants=spec.get("variants", "ALL"),
                channels_last=bool(spec.get("channels_last")),
                real=bool(spec.get("real")), items=items, size=size,
                tol_scale=2.0)
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(info, f, indent=1)
    return info


def _torch_spec(spec):
    """The PyTorch baseline's model on the GPU machine (run.py)."""
    if spec["kind"] == "torchvision":
        torch_spec = {"model": "torchvision", "name": spec["arch"],
                      "channels_last": True}
    else:
        torch_spec = {"model": "gpt2", "config": spec["config"]}
    if spec.get("train"):
        torch_spec["train"] = spec["train"]
        torch_spec["loss"] = "cross_entropy"
    return torch_spec


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--models", default=DEFAULT_MODELS,
                        help="comma-separated names of KIT_MODELS")
    parser.add_argument("--small", action="store_true",
                        help="only the models that are not real-size rows")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = args.models.split(",")
    for name in names:
        if name not in KIT_MODELS:
            sys.exit(f"export_models.py: unknown model '{name}' (known: "
                     f"{', '.join(KIT_MODELS)})")
    for name in names:
        spec = KIT_MODELS[name]
        if args.small and spec.get("real"):
            continue
        torch.manual_seed(0)
        info = export_one(name, spec, args.out)
        path = os.path.join(args.out, info.get("module", f"{name}.mlir"))
        if info.get("not_built"):
            print(f"{name}: not built: {info['not_built'][:160]}")
        else:
            print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB of MLIR")


if __name__ == "__main__":
    main()
