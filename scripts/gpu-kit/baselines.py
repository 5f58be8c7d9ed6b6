#!/usr/bin/env python3
"""The PyTorch side of the GPU kit's model rows (issue 42): the same model,
weights and inputs as an amp-mlir case, run by PyTorch in the same process
(run.py) or, for torch.compile, in a child process with a time cap:

    baselines.py compile --kit KIT --case ID --precision bf16 [--mode M]
                         [--iters N] [--warmup W]

prints one line `BASELINE-RESULT {json}` (the variant's figures).

A model row's manifest case carries `"torch"`: torchvision (`name`,
`channels_last`) or gpt2 (`config`: GPT2Config's keywords,
`attn_implementation`, default sdpa), with `train` and `loss` for a
training step. Its seeded inputs are the data (images or token ids: the
input named "data", else the first), the module's parameters and floating
buffers by state-dict name, and for a training step the labels (named
"labels") and the step's optimizer and loss-scaler state (other names,
which PyTorch's own step keeps for itself).

Variants, each timed by CUDA events (warm-up first) with its peak memory:

  fp32         eager fp32, TF32 off (the O0 rows' baseline, and the
               reference of the `"reference": "torch"` rows);
  eager_amp    eager autocast f16/bf16 (GradScaler for an f16 training
               step), channels_last where the case says so, cudnn.benchmark;
  cuda_graph   the same call or step captured once and replayed;
  compile      torch.compile (default mode) of the model;
  compile_max_autotune  mode="max-autotune", where the run has time.

Imports nothing beyond the standard library at first (report.py renders
the closing table with it alone); numpy and torch (with torchvision or
transformers) when a function that runs a model is called.
"""

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time

KIT = os.path.dirname(os.path.abspath(__file__))

# The variants in the order of the closing table.
VARIANTS = ("fp32", "eager_amp", "cuda_graph", "compile",
            "compile_max_autotune")
# Model kinds that get every variant (others keep run.py's eager columns).
MODEL_KINDS = ("torchvision", "gpt2")
DEFAULT_ATTENTION = "sdpa"
GPT2_DROPOUTS = ("resid_pdrop", "embd_pdrop", "attn_pdrop")
RESULT_TAG = "BASELINE-RESULT "


def wants_baselines(case):
    """Whether `case` is a model row that gets every PyTorch variant."""
    return case.get("group") == "model" and \
        (case.get("torch") or {}).get("model") in MODEL_KINDS


def precision_of(level):
    """'fp32' for O0, else the level's dtype ('O2 f16' -> 'f16')."""
    parts = level.split()
    return "fp32" if len(parts) == 1 else parts[1]


def chip_of(device_name):
    """The simulator's chip for a device name: 'h200' for an H200, else
    'h100-sxm'."""
    return "h200" if "H200" in (device_name or "").upper() else "h100-sxm"


#===----------------------------------------------------------------------===#
# Statistics
#===----------------------------------------------------------------------===#


def summarize(times_ms):
    """Median, min, max and count of `times_ms` (milliseconds)."""
    times = [float(t) for t in times_ms]
    if not times:
        return {"median_ms": None, "min_ms": None, "max_ms": None, "n": 0}
    return {"median_ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "n": len(times)}


def items_per_second(items, median_ms):
    """Throughput of a call that handles `items` ({"unit", "per_call"})."""
    if not items or not median_ms:
        return None
    return items["per_call"] / (median_ms * 1e-3)


def error_text(error, width=400):
    """An exception as one line: its type and message."""
    return " ".join(f"{type(error).__name__}: {error}".split())[:width]


def short_name(name, width=100):
    """A kernel's name cut to `width` characters (C++ templates run long)."""
    name = " ".join(str(name).split())
    return name if len(name) <= width else name[:width - 1] + "…"


def aggregate_kernels(events, calls, top=10):
    """Groups device events [(name, microseconds)] of `calls` calls by name:
    kernels by time per call with their share of the kernel time, the top
    `top` of them; copies and memsets (names starting Memcpy/Memset) are
    counted apart."""
    kernels, copies_us, copies = {}, 0.0, 0
    for name, us in events:
        if str(name).startswith(("Memcpy", "Memset")):
            copies_us += us
            copies += 1
            continue
        entry = kernels.setdefault(name, [0.0, 0])
        entry[0] += us
        entry[1] += 1
    calls = max(int(calls), 1)
    total = sum(us for us, _ in kernels.values())
    ranked = sorted(kernels.items(), key=lambda kv: (-kv[1][0], kv[0]))
    return {
        "calls": calls,
        "kernel_us_per_call": total / calls,
        "launches_per_call": sum(n for _, n in kernels.values()) / calls,
        "distinct_kernels": len(kernels),
        "copy_us_per_call": copies_us / calls,
        "copies_per_call": copies / calls,
        "top": [{"name": short_name(name), "us_per_call": us / calls,
                 "launches_per_call": n / calls,
                 "share": us / total if total else 0.0}
                for name, (us, n) in ranked[:top]]}


#===----------------------------------------------------------------------===#
# Timers
#===----------------------------------------------------------------------===#


class WallTimer:
    """A wall clock around a call, after `sync` (the CPU, where there are
    no CUDA events)."""

    name = "wall"

    def __init__(self, sync=None):
        self.sync = sync or (lambda: None)

    def measure(self, call):
        self.sync()
        start = time.perf_counter()
        call()
        self.sync()
        return (time.perf_counter() - start) * 1e3


class CudaEventTimer:
    """CUDA events recorded on PyTorch's current stream around a call."""

    name = "cuda events"

    def __init__(self, torch):
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def measure(self, call):
        self.start.record()
        call()
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end)


def time_calls(call, timer, warmup, iters):
    """Milliseconds of `iters` calls of `call` after `warmup` untimed
    ones."""
    for _ in range(warmup):
        timer.measure(call)
    return [timer.measure(call) for _ in range(iters)]


#===----------------------------------------------------------------------===#
# Models from seeded weights
#===----------------------------------------------------------------------===#


class WeightError(ValueError):
    """Seeded weights that do not cover the module, or do not fit it."""


def split_inputs(case, arrays):
    """(data, labels, [(name, array)] of the rest) by the contract: the
    seeded input named "data" is the data (else the first one: an
    inference row's image or token ids), the one named "labels" the
    labels."""
    specs = case["seeded_inputs"]
    if len(specs) != len(arrays):
        raise ValueError(f"{len(arrays)} arrays for {len(specs)} seeded "
                         f"inputs")
    names = [spec.get("name") for spec in specs]
    data = names.index("data") if "data" in names else 0
    labels, named = None, []
    for index, (name, array) in enumerate(zip(names, arrays)):
        if index == data:
            continue
        if name == "labels":
            labels = array
        else:
            named.append((name, array))
    return arrays[data], labels, named


def _listing(names, limit=6):
    names = list(names)
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def assign_weights(module, named_arrays, allow_unknown=False):
    """Copies each (name, array) into the parameter or buffer of that name,
    in place (tied weights stay tied). Every floating entry of the state
    dict must be given, itself or through a tensor tied to it; integer
    entries (BatchNorm's num_batches_tracked) keep their constructor values
    and are listed as defaulted. Unknown names are an error unless
    `allow_unknown` (a training step's optimizer or scaler state), a wrong
    shape always. Returns what was done."""
    import numpy as np
    import torch
    targets = dict(module.named_parameters(remove_duplicate=False))
    targets.update(module.named_buffers(remove_duplicate=False))
    given, unknown, wrong = {}, [], []
    for name, array in named_arrays:
        target = targets.get(name)
        if target is None:
            unknown.append(name)
            continue
        if tuple(target.shape) != tuple(np.shape(array)):
            wrong.append(f"{name} {tuple(np.shape(array))} for "
                         f"{tuple(target.shape)}")
            continue
        previous = given.get(id(target))
        if previous is not None and not np.array_equal(previous[1], array):
            raise WeightError(f"{previous[0]} and {name} are one tensor "
                              f"(tied) but their seeded values differ")
        given[id(target)] = (name, array)
    if wrong:
        raise WeightError(f"seeded weights of the wrong shape: "
                          f"{_listing(wrong)}")
    if unknown and not allow_unknown:
        raise WeightError(f"seeded inputs that are not the module's: "
                          f"{_listing(unknown)}")
    missing, defaulted = [], []
    for name, tensor in module.state_dict(keep_vars=True).items():
        if id(tensor) in given:
            continue
        (missing if tensor.is_floating_point() else defaulted).append(name)
    if missing:
        raise WeightError(f"{len(missing)} state-dict entries have no "
                          f"seeded input: {_listing(missing)}")
    with torch.no_grad():
        for name, array in given.values():
            # (np.ascontiguousarray makes a 0-d array 1-d: a scalar
            # buffer such as num_batches_tracked keeps its shape.)
            source = torch.from_numpy(np.require(array, requirements="C"))
            targets[name].copy_(source.to(targets[name].dtype))
    return {"assigned": len(given), "defaulted": defaulted,
            "unused_inputs": unknown}


def _gpt2(spec, train):
    """GPT2LMHeadModel from spec["config"] with the attention stated (or
    sdpa); a training step without dropout unless the config says."""
    from transformers import GPT2Config, GPT2LMHeadModel
    config = dict(spec["config"])
    if train:
        for key in GPT2_DROPOUTS:
            config.setdefault(key, 0.0)
    attention = spec.get("attn_implementation", DEFAULT_ATTENTION)
    model = GPT2LMHeadModel(GPT2Config(attn_implementation=attention,
                                       **config))
    return model, getattr(model.config, "_attn_implementation", None)


def _logits_module(torch, model):
    """A module whose forward(ids) is model(ids, use_cache=False).logits."""

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, ids):
            return self.model(input_ids=ids, use_cache=False).logits

    return Logits()


def build_model(spec, named_arrays, device, train=False):
    """The module of `spec` with the seeded weights, on `device`, in train
    or eval mode: (module whose forward takes the data tensor, facts for
    the row)."""
    import torch
    facts = {}
    kind = spec["model"]
    if kind == "torchvision":
        import torchvision
        weights_module = getattr(torchvision.models, spec["name"])(
            weights=None)
        module = weights_module
    elif kind == "gpt2":
        weights_module, attention = _gpt2(spec, train)
        facts["attn_implementation"] = attention
        if train:
            facts["dropout"] = {k: getattr(weights_module.config, k)
                                for k in GPT2_DROPOUTS}
        module = _logits_module(torch, weights_module)
    else:
        raise ValueError(f"no PyTorch builder for model kind {kind!r}")
    facts["weights"] = assign_weights(weights_module, named_arrays,
                                      allow_unknown=train)
    module = module.to(device)
    facts["channels_last"] = bool(spec.get("channels_last"))
    if facts["channels_last"]:
        module = module.to(memory_format=torch.channels_last)
    module.train(train)
    return module, facts


def loss_of(torch, spec, output, labels):
    """The case's loss: cross_entropy over every position (GPT-2's logits
    [B, T, V] against labels [B, T]; shifted by one where spec says
    "shift_labels")."""
    if spec.get("loss", "cross_entropy") != "cross_entropy":
        raise ValueError(f"no loss {spec.get('loss')!r} (cross_entropy "
                         f"only)")
    if spec.get("shift_labels"):
        output, labels = output[..., :-1, :], labels[..., 1:]
    return torch.nn.functional.cross_entropy(
        output.reshape(-1, output.shape[-1]), labels.reshape(-1))


def make_optimizer(torch, train, parameters, fused, capturable=False):
    """The case's optimizer ({"optimizer": "sgd"|"adamw", ...}); fused
    kernels where asked (CUDA), capturable (AdamW) for a CUDA graph."""
    kind = train["optimizer"]
    extra = {"fused": True} if fused else {}
    if kind == "sgd":
        return torch.optim.SGD(parameters, lr=train["lr"],
                               momentum=train.get("momentum", 0.0),
                               weight_decay=train.get("weight_decay", 0.0),
                               **extra)
    if kind == "adamw":
        if capturable:
            extra["capturable"] = True
        return torch.optim.AdamW(parameters, lr=train["lr"],
                                 betas=tuple(train.get("betas",
                                                       (0.9, 0.999))),
                                 eps=train.get("eps", 1e-8),
                                 weight_decay=train.get("weight_decay", 0.01),
                                 **extra)
    raise ValueError(f"no optimizer {kind!r} (sgd, adamw)")


def _dtype(torch, precision):
    return {"fp32": None, "f16": torch.float16,
            "bf16": torch.bfloat16}[precision]


def autocast(torch, device, precision, cache_enabled=True):
    """torch.autocast at `precision`, or nothing for fp32."""
    dtype = _dtype(torch, precision)
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=dtype,
                          cache_enabled=cache_enabled)


class Setup:
    """One model case ready to run: the module on the device, its data and
    labels as tensors, and (training) its initial state to restore before
    each variant."""

    def __init__(self, case, arrays, device):
        import numpy as np
        import torch
        self.torch = torch
        self.case = case
        self.spec = case["torch"]
        self.device = torch.device(device)
        self.train_spec = self.spec.get("train")
        self.train = self.train_spec is not None
        data, labels, named = split_inputs(case, arrays)
        self.module, self.facts = build_model(self.spec, named, self.device,
                                              train=self.train)
        self.data = torch.from_numpy(np.ascontiguousarray(data)).to(
            self.device)
        if self.facts["channels_last"] and self.data.dim() == 4:
            self.data = self.data.contiguous(
                memory_format=torch.channels_last)
        self.labels = None
        if self.train:
            if labels is None:
                raise ValueError("a training row needs a seeded input "
                                 "named 'labels'")
            self.labels = torch.from_numpy(np.ascontiguousarray(
                labels)).to(self.device)
            self.initial = {k: v.detach().clone() for k, v in
                            self.module.state_dict().items()}
        self.items = case.get("items")

    def restore(self):
        """The weights and buffers as seeded (a training variant moves
        them)."""
        if self.train:
            with self.torch.no_grad():
                for key, value in self.module.state_dict().items():
                    value.copy_(self.initial[key])

    def loss(self, module=None):
        output = (self.module if module is None else module)(self.data)
        return loss_of(self.torch, self.spec, output, self.labels)

    def reference(self):
        """The fp32 output (TF32 as set globally; run.py turns it off), or
        a training step's loss at the seeded weights, as numpy arrays."""
        torch = self.torch
        with torch.no_grad():
            if self.train:
                value = self.loss()
                self.restore()  # BatchNorm's running statistics moved
            else:
                value = self.module(self.data)
        return [value.detach().float().cpu().numpy()]


def forward_call(setup, precision, module=None, cache_enabled=True):
    """A call of the model (no_grad, autocast unless fp32)."""
    torch = setup.torch
    module = setup.module if module is None else module

    def call():
        with torch.no_grad(), autocast(torch, setup.device, precision,
                                       cache_enabled):
            return module(setup.data)
    return call


def train_parts(setup, precision, module=None, capturable=False):
    """(step body, optimizer, scaler, facts) of a training step: forward
    and loss under autocast, a GradScaler-scaled backward (f16; bf16 and
    fp32 without one, as PyTorch's AMP recipe), the optimizer step."""
    torch = setup.torch
    kind = setup.device.type
    fused = kind == "cuda"
    optimizer = make_optimizer(torch, setup.train_spec,
                               setup.module.parameters(), fused, capturable)
    scaler = torch.amp.GradScaler(kind, enabled=precision == "f16")
    module = setup.module if module is None else module

    def body(cache_enabled=True):
        with autocast(torch, setup.device, precision, cache_enabled):
            loss = setup.loss(module)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    facts = {"optimizer": f"{setup.train_spec['optimizer']}"
             + (" (fused)" if fused else "")
             + (" (capturable)" if capturable else ""),
             "grad_scaler": precision == "f16"}
    return body, optimizer, scaler, facts


def eager_call(setup, precision, module=None):
    """(call, facts): an inference call, or a whole training step."""
    if not setup.train:
        return forward_call(setup, precision, module), {}
    body, optimizer, _, facts = train_parts(setup, precision, module)

    def step():
        optimizer.zero_grad(set_to_none=True)
        return body()
    return step, facts


def graph_call(setup, precision):
    """(replay, facts): the call or training step captured as a CUDA graph
    (warm-up on a side stream, autocast's cache off, the optimizer
    capturable), after PyTorch's documented recipe."""
    torch = setup.torch
    if setup.train:
        body, optimizer, _, facts = train_parts(setup, precision,
                                                capturable=True)

        def run():
            body(cache_enabled=False)

        def before():
            optimizer.zero_grad(set_to_none=True)
    else:
        run = forward_call(setup, precision, cache_enabled=False)
        facts = {}

        def before():
            pass
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            before()
            run()
    torch.cuda.current_stream().wait_stream(side)
    before()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        run()
    return graph.replay, facts


def _timer(setup):
    torch = setup.torch
    if setup.device.type == "cuda":
        return CudaEventTimer(torch)
    return WallTimer()


def _memory_reset(setup):
    if setup.device.type == "cuda":
        setup.torch.cuda.synchronize()
        setup.torch.cuda.reset_peak_memory_stats()


def _memory_peak(setup):
    if setup.device.type != "cuda":
        return None
    setup.torch.cuda.synchronize()
    return setup.torch.cuda.max_memory_allocated() / 2**20


def measure(setup, variant, precision, warmup, iters, make=None):
    """One variant's figures: times (median, range, count), items/s, peak
    memory (PyTorch's allocator: max_memory_allocated, weights and inputs
    included), and the settings it ran with; an error is recorded, not
    raised. `make` overrides how the call is made (torch.compile)."""
    torch = setup.torch
    stats = {"variant": variant, "precision": precision,
             "tf32": _tf32(torch),
             "channels_last": setup.facts["channels_last"],
             "timer": _timer(setup).name}
    if "attn_implementation" in setup.facts:
        stats["attn_implementation"] = setup.facts["attn_implementation"]
    benchmark = torch.backends.cudnn.benchmark
    torch.backends.cudnn.benchmark = True
    stats["cudnn_benchmark"] = True
    try:
        setup.restore()
        if make is not None:
            call, facts = make()
        elif variant == "cuda_graph":
            call, facts = graph_call(setup, precision)
        else:
            call, facts = eager_call(setup, precision)
        stats.update(facts)
        # What stays allocated (weights, inputs, a graph's pool) counts.
        _memory_reset(setup)
        times = time_calls(call, _timer(setup), warmup, iters)
        stats.update(summarize(times))
        stats["items_per_s"] = items_per_second(setup.items,
                                                stats["median_ms"])
        stats["peak_mem_MiB"] = _memory_peak(setup)
    except Exception as error:  # noqa: BLE001 - recorded in the row
        stats["error"] = error_text(error)
    finally:
        torch.backends.cudnn.benchmark = benchmark
        setup.restore()
        for parameter in setup.module.parameters():
            parameter.grad = None  # (a graph's pool stays alive by them)
        if setup.device.type == "cuda":
            torch.cuda.empty_cache()
    return stats


def _tf32(torch):
    return bool(torch.backends.cuda.matmul.allow_tf32 or
                torch.backends.cudnn.allow_tf32)


#===----------------------------------------------------------------------===#
# Profiles
#===----------------------------------------------------------------------===#


def device_events(prof, kind="CUDA"):
    """[(name, microseconds)] of a torch.profiler run's events on `kind`
    ('CUDA': kernels, copies and memsets, whoever launched them; 'CPU' to
    test on a machine without a GPU)."""
    events = []
    for event in prof.events():
        if str(getattr(event, "device_type", "")).endswith(kind):
            events.append((event.name, event.time_range.elapsed_us()))
    return events


def profile_calls(torch, calls, device="cuda", before=None):
    """Device events of `calls` (callables, one call each) under
    torch.profiler; `before` runs first, outside the profile."""
    from torch.profiler import ProfilerActivity, profile
    cuda = torch.device(device).type == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda
                                           else [])
    if before:
        before()
    if cuda:
        torch.cuda.synchronize()
    with profile(activities=activities) as prof:
        for call in calls:
            call()
        if cuda:
            torch.cuda.synchronize()
    return device_events(prof, "CUDA" if cuda else "CPU")


def profile_setup(setup, precision, calls=3, top=10):
    """The eager call or step of `precision`, profiled: aggregate_kernels
    of `calls` calls after one warm-up."""
    torch = setup.torch
    setup.restore()
    call, _ = eager_call(setup, precision)
    events = profile_calls(torch, [call] * calls, setup.device, before=call)
    setup.restore()
    summary = aggregate_kernels(events, calls, top)
    summary["variant"] = "fp32" if precision == "fp32" else "eager_amp"
    summary["method"] = "torch.profiler (CUPTI)" if \
        setup.device.type == "cuda" else "torch.profiler (CPU ops)"
    return summary


#===----------------------------------------------------------------------===#
# torch.compile in a child process, with a time cap
#===----------------------------------------------------------------------===#


def set_flags(torch):
    """The run's settings: TF32 off (amp-mlir's fp32 is IEEE fp32 too;
    measure() turns cudnn.benchmark on for its variant only)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


def compile_variant(setup, precision, mode, warmup, iters, backend=None):
    """torch.compile of the model (forward, and backward through
    AOTAutograd for a training step; the optimizer stays eager, fused):
    the first call's seconds (compilation) and the timed calls. `backend`
    other than Inductor (the default) only in tests."""
    torch = setup.torch
    compiled = {}

    def make():
        kwargs = {} if mode == "default" else {"mode": mode}
        if backend:
            kwargs["backend"] = backend
        module = torch.compile(setup.module, **kwargs)
        call, facts = eager_call(setup, precision, module)
        start = time.time()
        call()
        if setup.device.type == "cuda":
            torch.cuda.synchronize()
        compiled["compile_s"] = time.time() - start
        return call, dict(facts, mode=mode)

    stats = measure(setup, "compile", precision, warmup, iters, make=make)
    stats.update(compiled)
    return stats


def compile_in_child(kit, case_id, precision, mode, cap_s, warmup, iters,
                     python=None, device="cuda", backend=None):
    """compile_variant in a child process (its own CUDA context; a crash or
    a compilation over `cap_s` seconds costs only the variant): its
    figures, or an error saying why there are none. `device` and `backend`
    other than the defaults only in tests."""
    command = [python or sys.executable, os.path.join(kit, "baselines.py"),
               "compile", "--kit", kit, "--case", case_id, "--precision",
               precision, "--mode", mode, "--warmup", str(warmup),
               "--iters", str(iters), "--device", device] + \
        (["--backend", backend] if backend else [])
    start = time.time()
    process = subprocess.Popen(command, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=cap_s)
    except subprocess.TimeoutExpired:
        # Its own session: the compile workers go with it.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        process.communicate()
        return {"error": f"skipped: over the cap of {cap_s:.0f} s",
                "cap_s": round(cap_s), "mode": mode}
    for line in reversed(out.splitlines()):
        if line.startswith(RESULT_TAG):
            stats = json.loads(line[len(RESULT_TAG):])
            stats.update(cap_s=round(cap_s),
                         child_s=round(time.time() - start, 1))
            return stats
    tail = " ".join(err.split())[-300:]
    return {"error": f"the child exited {process.returncode} without a "
                     f"result: {tail}", "cap_s": round(cap_s),
            "mode": mode}


def _child_compile(args):
    import torch
    sys.path.insert(0, args.kit)
    from seeded import seeded_inputs
    with open(os.path.join(args.kit, "manifest.json")) as f:
        cases = {c["id"]: c for c in json.load(f)["cases"]}
    case = cases[args.case]
    set_flags(torch)
    setup = Setup(case, seeded_inputs(case["seeded_inputs"]), args.device)
    stats = compile_variant(setup, args.precision, args.mode, args.warmup,
                            args.iters, args.backend)
    print(RESULT_TAG + json.dumps(stats, default=float), flush=True)
    return 0


#===----------------------------------------------------------------------===#
# The closing table: one line per model row
#===----------------------------------------------------------------------===#


def _ratio(base, median):
    return base / median if base and median else None


def _median(stats):
    return (stats or {}).get("median_ms") if not (stats or {}).get(
        "error") else None


def closing_rows(results):
    """The model rows of a results dict, each with its speed-ups over O0
    and the PyTorch variants (> 1: amp-mlir is faster), throughput, peak
    memory of both sides and share of the roofline estimate."""
    lines = []
    for row in results.get("rows", []):
        if row.get("group") != "model" or not (
                isinstance(row.get("torch"), dict)
                or row.get("status") == "not built"
                or row.get("estimate_us") or row.get("items")):
            continue
        median = row.get("median_ms") if row.get("status") == "pass" \
            else None
        variants = row.get("torch") if isinstance(row.get("torch"),
                                                  dict) else {}
        eager_key = "fp32" if precision_of(row.get("level", "O0")) == \
            "fp32" else "eager_amp"
        eager = variants.get(eager_key)
        lines.append({
            "test": row["test"], "status": row["status"],
            "median_ms": median,
            "x_O0": row.get("speedup_vs_O0") if median else None,
            "eager": eager_key,
            "x_eager": _ratio(_median(eager), median),
            "x_graph": _ratio(_median(variants.get("cuda_graph")), median),
            # amp-mlir's own CUDA graph (run.py's graph_row), against
            # PyTorch's.
            "graph_ms": row.get("graph_median_ms") if median else None,
            "x_graph_graph": _ratio(_median(variants.get("cuda_graph")),
                                    row.get("graph_median_ms")
                                    if median else None),
            "x_compile": _ratio(_median(variants.get("compile")), median),
            "x_max_autotune": _ratio(_median(variants.get(
                "compile_max_autotune")), median),
            "items_per_s": row.get("items_per_s") if median else None,
            "torch_items_per_s": (eager or {}).get("items_per_s"),
            "unit": (row.get("items") or {}).get("unit"),
            "peak_MiB": row.get("peak_mem_MiB"),
            "torch_peak_MiB": (eager or {}).get("peak_mem_MiB"),
            "estimate_pct": row.get("estimate_pct") if median else None,
            "note": row.get("note", "")})
    return lines


CLOSING_COLUMNS = (("row", 34), ("status", 9), ("ms", 8), ("xO0", 5),
                   ("xeager", 6), ("xgraph", 6), ("graph ms|x", 13),
                   ("xcompile", 8),
                   ("items/s amp|torch", 17), ("MiB amp|torch", 13),
                   ("%est", 5))


def _cell(value, spec):
    return "-" if value is None else format(value, spec)


def _pair(a, b, spec):
    return f"{_cell(a, spec)}|{_cell(b, spec)}"


def format_closing(lines):
    """The closing table as text (run.py prints it at the end)."""
    head = " ".join(name.ljust(width) for name, width in CLOSING_COLUMNS)
    out = [head, "-" * len(head)]
    for r in lines:
        cells = [r["test"], r["status"], _cell(r["median_ms"], ".3f"),
                 _cell(r["x_O0"], ".2f"),
                 _cell(r["x_eager"], ".2f") + ("*" if r["eager"] == "fp32"
                                               else ""),
                 _cell(r["x_graph"], ".2f"),
                 _pair(r["graph_ms"], r["x_graph_graph"], ".3f"),
                 _cell(r["x_compile"], ".2f"),
                 _pair(r["items_per_s"], r["torch_items_per_s"], ".0f"),
                 _pair(r["peak_MiB"], r["torch_peak_MiB"], ".0f"),
                 _cell(r["estimate_pct"], ".0f")]
        text = " ".join(str(c)[:w].ljust(w) for c, (_, w) in
                        zip(cells, CLOSING_COLUMNS))
        if r["status"] in ("not built", "skipped"):
            text += " " + r["note"]
        out.append(text.rstrip())
    out.append("x: PyTorch's median / amp-mlir's (> 1: amp-mlir faster); "
               "eager is eager AMP at the row's dtype (* fp32 eager, TF32 "
               "off, for O0); graph ms|x: amp-mlir's call as a CUDA graph, "
               "and PyTorch's graph over it; %est: the simulator's roofline "
               "estimate / the median.")
    return "\n".join(out)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    child = sub.add_parser("compile", help="torch.compile one case (run.py "
                           "runs this in a child process)")
    child.add_argument("--kit", default=KIT)
    child.add_argument("--case", required=True)
    child.add_argument("--precision", required=True)
    child.add_argument("--mode", default="default")
    child.add_argument("--warmup", type=int, default=3)
    child.add_argument("--iters", type=int, default=20)
    child.add_argument("--device", default="cuda", help="(tests: cpu)")
    child.add_argument("--backend", default=None,
                       help="(tests: eager) torch.compile's backend")
    args = parser.parse_args(argv)
    return _child_compile(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
