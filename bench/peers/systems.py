#!/usr/bin/env python3
"""One step of the peer comparison, each in a process of its own (the
peers' native libraries do not all load into one process):

    systems.py export SPEC WORKDIR [--shape 1,3,224,224] [--seed 0]
    systems.py run SYSTEM LEVEL WORKDIR OUT.json

`export` builds the model once (random weights under the seed), draws the
seeded input, computes the fp32 reference output with PyTorch, and writes
what every system starts from: model.onnx (torch.onnx.export, the dynamo
exporter), model.pt2 (torch.export), model.mlir (amp_mlir.from_torch),
x.npy, ref.npy and meta.json.

`run` converts the model with one system at one level, turns the
converted graph into the neutral graph (graph_*.py), measures it
(metrics.measure), runs the converted model on x.npy, and writes one row
as JSON: the metrics, rel_l2 against ref.npy, convert_s (the AMP
conversion alone) and compile_s (from the exported model to something
that runs, conversion included), or `error` saying why not.
"""

import importlib
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from metrics import add_caller_casts, measure, rel_l2  # noqa: E402

# (system, level) rows, in table order.
SYSTEMS = [
    ("amp-mlir", "O1 f16"), ("amp-mlir", "O2 f16"),
    ("amp-mlir", "O1 bf16"), ("amp-mlir", "O2 bf16"),
    # O2 with placement=autocast: the documented option for models whose
    # residual stream must stay f32 (docs/policies.md).
    ("amp-mlir", "O2-autocast f16"), ("amp-mlir", "O2-autocast bf16"),
    # The same compiler on the ONNX export (amp_mlir.from_onnx), to tell
    # the frontend's part from amp-mlir's.
    ("amp-mlir-onnx", "O2 f16"), ("amp-mlir-onnx", "O2 bf16"),
    ("onnx-float16", "f16"),
    # The same converter without kept I/O types: the graph's input and
    # output are f16 (a pure-half anchor; the caller converts).
    ("onnx-float16-f16io", "f16"),
    ("onnx-auto-mixed", "f16"),
    ("tvm-relax", "f16"),
    # The module converted whole (`.half()`, `.bfloat16()`; Apex's and
    # Paddle's O2): everything low, the input cast at the entry, the output
    # back to f32. The pure-half anchor of amp-mlir's O2 rows.
    ("torch-pure-half", "f16"), ("torch-pure-half", "bf16"),
    ("torch-autocast", "f16"), ("torch-autocast", "bf16"),
    ("torch-compile-autocast", "f16"), ("torch-compile-autocast", "bf16"),
    ("iree", "f16"), ("iree", "bf16"),
    ("tf-grappler", "f16"), ("tf-grappler", "bf16"),
]
# auto_convert_mixed_precision keeps a node in fp32 when converting it
# makes the output's rel L2 error exceed this (the f16 tolerance of
# amp-mlir's own model tests, docs/frontends.md).
AUTO_MIXED_TOLERANCE = 5e-3
# iree-compile's demotion of contraction inputs (matmul and convolution
# operands to the low type, f32 accumulation), per type. In IREE 3.13 the
# pass of `--iree-global-opt-demote-contraction-inputs-to-bf16` (earlier
# releases) takes the type and the ops as two flags.
IREE_DEMOTE = {
    dtype: ["--iree-global-opt-demote-contraction-inputs-operations=all",
            f"--iree-global-opt-demote-contraction-inputs-type={dtype}"]
    for dtype in ("f16", "bf16")
}


def load_model(spec, seed):
    """(torch module in eval mode, default input shape) for a spec
    torchvision:NAME or torch:MODULE:FACTORY, with random weights drawn
    under `seed`."""
    import torch
    # PyTorch's fused fast path of nn.TransformerEncoderLayer and
    # nn.MultiheadAttention (eval mode, no gradients) is one op that
    # autocast does not reach: eager autocast runs it in fp32, and
    # torch.compile traces it in fp32, so neither would be mixed precision.
    # Off, the layer is the ops that torch.export and the ONNX export see,
    # and autocast casts them one by one.
    torch.backends.mha.set_fastpath_enabled(False)
    torch.manual_seed(seed)
    kind, _, rest = spec.partition(":")
    if kind == "torchvision":
        import torchvision
        model = torchvision.models.get_model(rest, weights=None)
        shape = (1, 3, 224, 224)
    elif kind == "torch":
        module, _, factory = rest.rpartition(":")
        made = getattr(importlib.import_module(module), factory)()
        model, shape = made if isinstance(made, tuple) else (made, None)
    else:
        raise ValueError(f"not a torch model spec: {spec}")
    return model.eval(), shape


def first(output):
    while isinstance(output, (tuple, list)):
        output = output[0]
    return output


def export(spec, work, shape, seed):
    import torch
    os.makedirs(work, exist_ok=True)
    # What an earlier run derived from an earlier export must not be reused.
    for name in os.listdir(work):
        if name.endswith((".mlirbc", ".json", ".onnx", ".mlir", ".pt2",
                          ".npy")):
            os.remove(os.path.join(work, name))
    meta = {"spec": spec, "seed": seed, "errors": {}, "times": {}}
    if spec.startswith("onnx:"):
        return export_onnx_file(spec[5:], work, shape, seed, meta)
    model, default_shape = load_model(spec, seed)
    shape = tuple(shape or default_shape or ())
    if not shape:
        raise ValueError(f"{spec}: give --shape")
    meta["shape"] = list(shape)
    x = np.random.RandomState(seed).standard_normal(shape).astype(np.float32)
    np.save(os.path.join(work, "x.npy"), x)
    xt = torch.from_numpy(x)
    with torch.no_grad():
        ref = first(model(xt)).numpy()
    np.save(os.path.join(work, "ref.npy"), ref)
    meta["output_shape"] = list(ref.shape)

    def step(name, fn):
        start = time.perf_counter()
        try:
            fn()
        except Exception as error:  # recorded in the rows that need it
            meta["errors"][name] = f"{type(error).__name__}: {error}"[:500]
            traceback.print_exc()
        meta["times"][name] = time.perf_counter() - start

    def onnx_export():
        with torch.no_grad():
            program = torch.onnx.export(model, (xt,), dynamo=True)
        program.save(os.path.join(work, "model.onnx"))

    def torch_export():
        ep = torch.export.export(model, (xt,))
        torch.export.save(ep, os.path.join(work, "model.pt2"))

    def mlir_import():
        import amp_mlir
        text = amp_mlir.from_torch(model, xt)
        with open(os.path.join(work, "model.mlir"), "w") as f:
            f.write(text)

    def mlir_onnx_import():
        import amp_mlir
        if "onnx" in meta["errors"]:
            raise RuntimeError("no ONNX export")
        text = amp_mlir.from_onnx(os.path.join(work, "model.onnx"))
        with open(os.path.join(work, "model-onnx.mlir"), "w") as f:
            f.write(text)

    step("onnx", onnx_export)
    step("torch.export", torch_export)
    step("amp-mlir import", mlir_import)
    step("amp-mlir onnx import", mlir_onnx_import)
    with open(os.path.join(work, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def export_onnx_file(path, work, shape, seed, meta):
    import shutil

    import onnx
    import onnxruntime as ort
    model = onnx.load(path)
    if not shape:
        dims = model.graph.input[0].type.tensor_type.shape.dim
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in dims]
    meta["shape"] = list(shape)
    x = np.random.RandomState(seed).standard_normal(shape).astype(np.float32)
    np.save(os.path.join(work, "x.npy"), x)
    shutil.copy(path, os.path.join(work, "model.onnx"))
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ref = session.run(None, {session.get_inputs()[0].name: x})[0]
    np.save(os.path.join(work, "ref.npy"), ref)
    meta["output_shape"] = list(ref.shape)
    meta["errors"]["torch.export"] = "an ONNX file has no PyTorch model"
    try:
        import amp_mlir
        start = time.perf_counter()
        text = amp_mlir.from_onnx(path)
        for name in ("model.mlir", "model-onnx.mlir"):
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
        meta["times"]["amp-mlir import"] = time.perf_counter() - start
    except Exception as error:
        meta["errors"]["amp-mlir import"] = f"{type(error).__name__}: {error}"
        meta["errors"]["amp-mlir onnx import"] = meta["errors"][
            "amp-mlir import"]
    with open(os.path.join(work, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


# Systems --------------------------------------------------------------------

class Unavailable(Exception):
    """A system that cannot run on this model; the message says why."""


def need(meta, route):
    if route in meta["errors"]:
        raise Unavailable(f"{route} failed: {meta['errors'][route]}")


def run_amp_mlir(level, work, meta, route="model"):
    need(meta, "amp-mlir import" if route == "model" else
         "amp-mlir onnx import")
    import amp_mlir
    from amp_mlir import _paths
    from graph_mlir import from_mlir
    opt = str(_paths.tool("amp-opt"))
    lvl, dtype = level.split()
    # "O2-autocast": O2 with placement=autocast.
    lvl, _, placement = lvl.partition("-")
    options = f"dtype={dtype}" + (f" placement={placement}" if placement
                                  else "")
    source = os.path.join(work, f"{route}.mlir")
    binary = os.path.join(work, f"{route}.mlirbc")
    if not os.path.exists(binary):
        subprocess.run([opt, source, "--emit-bytecode", "-o", binary],
                       check=True)
    converted = os.path.join(
        work, f"{route}-{lvl}{placement and '-' + placement}-{dtype}.mlirbc")
    # The conversion alone, on bytecode (parsing the weights' hex text
    # would dominate otherwise).
    start = time.perf_counter()
    subprocess.run([opt, binary, f"--amp-{lvl.lower()}={options}",
                    "--emit-bytecode", "-o", converted], check=True)
    convert_s = time.perf_counter() - start
    text = subprocess.run(
        [opt, converted, "--mlir-print-op-generic",
         "--mlir-elide-resource-strings-if-larger=16"],
        check=True, capture_output=True, text=True).stdout
    graph = from_mlir(text)
    baseline = from_mlir(subprocess.run(
        [opt, binary, "--mlir-print-op-generic",
         "--mlir-elide-resource-strings-if-larger=16"],
        check=True, capture_output=True, text=True).stdout)
    x = np.load(os.path.join(work, "x.npy"))
    start = time.perf_counter()
    with open(source) as f:
        module = amp_mlir.compile(f.read(), level=lvl, dtype=dtype,
                                  placement=placement or None,
                                  entries=["main"])
    compile_s = time.perf_counter() - start
    y = first(module["main"](x))
    return graph, y, convert_s, compile_s, "", baseline


def _ort_session(model):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _ort_casts(model, work, system):
    """ONNX Runtime's CPU provider has no f16 kernels for many ops: at
    session creation it inserts casts and runs those ops in f32 (a chain of
    them stays f32 in between). The Cast nodes of the model it runs, with
    its basic optimisations and with all of them (which remove cast pairs);
    None where the optimised model cannot be written."""
    import onnx
    import onnxruntime as ort
    counts = []
    for level in (ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                  ort.GraphOptimizationLevel.ORT_ENABLE_ALL):
        path = os.path.join(work, f"{system}.ort-{int(level)}.onnx")
        options = ort.SessionOptions()
        options.graph_optimization_level = level
        options.optimized_model_filepath = path
        options.log_severity_level = 3
        try:
            ort.InferenceSession(model.SerializeToString(), options,
                                 providers=["CPUExecutionProvider"])
            counts.append(sum(n.op_type == "Cast"
                              for n in onnx.load(path).graph.node))
        except Exception:
            return None
    return counts


def run_onnx(system, level, work, meta):
    need(meta, "onnx")
    import onnx
    from graph_onnx import from_onnx
    model = onnx.load(os.path.join(work, "model.onnx"))
    x = np.load(os.path.join(work, "x.npy"))
    feed = {model.graph.input[0].name: x}
    start = time.perf_counter()
    if system in ("onnx-float16", "onnx-float16-f16io"):
        from onnxconverter_common import float16
        converted = float16.convert_float_to_float16(
            model, keep_io_types=system == "onnx-float16")
    else:
        from onnxconverter_common import auto_mixed_precision

        def validate(res_fp32, res_low):
            return rel_l2(res_low[0], res_fp32[0]) <= AUTO_MIXED_TOLERANCE
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            converted = auto_mixed_precision.auto_convert_mixed_precision(
                model, feed, validate_fn=validate, keep_io_types=True)
    convert_s = time.perf_counter() - start
    session = _ort_session(converted)
    compile_s = time.perf_counter() - start
    graph = from_onnx(converted)
    if system == "onnx-float16-f16io":
        # The graph's input and output are f16: the caller converts them
        # (here NumPy), and those conversions are counted as the graph's
        # own, as the casts keep_io_types inserts are.
        feed = {name: x.astype(np.float16) for name, x in feed.items()}
        y = session.run(None, feed)[0].astype(np.float32)
        add_caller_casts(graph)
    else:
        y = session.run(None, feed)[0]
    return (graph, y, convert_s, compile_s,
            {"ort_casts": _ort_casts(converted, work, system)},
            from_onnx(model))


def run_tvm(level, work, meta):
    import tvm
    from tvm import relax
    from graph_tvm import from_relax
    note = ""
    if "torch.export" not in meta["errors"]:
        import torch
        from tvm.relax.frontend.torch import from_exported_program
        ep = torch.export.load(os.path.join(work, "model.pt2"))
        mod = from_exported_program(ep)
        note = ""
    else:
        need(meta, "onnx")
        import onnx
        from tvm.relax.frontend.onnx import from_onnx as relax_from_onnx
        mod = relax_from_onnx(onnx.load(os.path.join(work, "model.onnx")))
        note = "imported from ONNX: torch.export failed"
    baseline = from_relax(mod)
    start = time.perf_counter()
    mod = relax.transform.ToMixedPrecision(out_dtype="float32")(mod)
    # Constants' casts folded, as a deployment pipeline does.
    mod = relax.transform.FoldConstant()(mod)
    convert_s = time.perf_counter() - start
    graph = from_relax(mod)
    executable = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(executable, tvm.cpu())
    compile_s = time.perf_counter() - start
    x = np.load(os.path.join(work, "x.npy"))
    out = vm["main"](tvm.runtime.tensor(x))
    while not hasattr(out, "numpy"):
        out = out[0]
    return graph, out.numpy(), convert_s, compile_s, note, baseline


def run_autocast(level, work, meta):
    import torch
    from graph_torch import from_fx
    if meta["spec"].startswith("onnx:"):
        raise Unavailable("an ONNX file has no PyTorch model")
    model, _ = load_model(meta["spec"], meta["seed"])
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[level]
    x = torch.from_numpy(np.load(os.path.join(work, "x.npy")))
    with torch.no_grad(), torch.autocast("cpu", dtype=dtype):
        y = first(model(x)).float().numpy()
        gm = _trace(model, x)
    with torch.no_grad():
        baseline = from_fx(_trace(model, x))
    return from_fx(gm), y, None, None, "", baseline


def pure_half(model, dtype):
    """The call of torch-pure-half: MODEL converted whole (in place) to
    DTYPE, the input cast to it at the entry, the output back to f32."""
    low = model.to(dtype)

    def forward(inputs):
        return first(low(inputs.to(dtype))).float()
    return forward


def run_pure_half(level, work, meta):
    """PyTorch's module converted whole to the low type (`.half()`,
    `.bfloat16()`: Apex's and Paddle's O2), run eagerly: the input cast to
    the low type at the entry, the output back to f32. The weights are
    converted once, with the module, not at every call. The graph is a
    make_fx trace of that call (the entry and exit casts in it)."""
    import torch
    from graph_torch import from_fx
    if meta["spec"].startswith("onnx:"):
        raise Unavailable("an ONNX file has no PyTorch model")
    model, _ = load_model(meta["spec"], meta["seed"])
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[level]
    x = torch.from_numpy(np.load(os.path.join(work, "x.npy")))
    start = time.perf_counter()
    forward = pure_half(model, dtype)
    convert_s = time.perf_counter() - start
    with torch.no_grad():
        y = forward(x).numpy()
        gm = _trace(forward, x)
    with torch.no_grad():
        baseline = from_fx(_trace(load_model(meta["spec"], meta["seed"])[0],
                                  x))
    return from_fx(gm), y, convert_s, None, "", baseline


def _trace(model, x):
    """make_fx's graph of one call, traced on fake tensors (the weights
    stay real: constants of the graph). Code that looks at values
    (transformers' check whether a mask can be dropped) then takes the
    branch it takes under torch.compile or torch.export instead of
    failing on a traced value."""
    from torch.fx.experimental.proxy_tensor import make_fx
    return make_fx(model, tracing_mode="fake", _allow_non_fake_inputs=True)(x)


def run_compile_autocast(level, work, meta):
    """torch.compile (Inductor, CPU) of a function that runs the model
    under torch.autocast. The graph measured is made of the kernels
    Inductor generates, after fusion (graph_inductor.py): what they read
    and write, in the types they store."""
    import torch
    import torch._inductor.config as inductor_config
    from graph_inductor import Capture
    from graph_torch import from_fx
    if meta["spec"].startswith("onnx:"):
        raise Unavailable("an ONNX file has no PyTorch model")
    model, _ = load_model(meta["spec"], meta["seed"])
    dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[level]
    x = torch.from_numpy(np.load(os.path.join(work, "x.npy")))
    # Compiled here, not taken from a cache: the capture sees the kernels.
    inductor_config.fx_graph_cache = False
    inductor_config.autotune_local_cache = False

    def forward(inputs):
        with torch.autocast("cpu", dtype=dtype):
            return model(inputs)

    with Capture(model) as capture:
        compiled = torch.compile(forward, backend=capture.backend,
                                 fullgraph=True)
        start = time.perf_counter()
        with torch.no_grad():
            y = first(compiled(x)).float().numpy()
        compile_s = time.perf_counter() - start
    if len(capture.graphs) != 1:
        raise RuntimeError(f"expected one compiled graph, Inductor compiled "
                           f"{len(capture.graphs)}")
    with torch.no_grad():
        baseline = from_fx(_trace(model, x))
    return capture.graphs[0], y, None, compile_s, "", baseline


def run_iree(level, work, meta):
    """IREE: the ONNX export imported with iree-import-onnx, compiled by
    iree-compile with its contraction demotion (matmul and convolution
    inputs to f16/bf16, f32 accumulation) for llvm-cpu. The graph measured
    is the IR at the end of IREE's global optimization phase (the demotion,
    then constant evaluation, which converts the weights at compile time);
    the output comes from running the compiled module with IREE's runtime
    (local-task)."""
    need(meta, "onnx")
    import iree.compiler as ireec
    import iree.runtime as ireert
    from graph_mlir import from_mlir
    onnx_path = os.path.join(work, "model.onnx")
    imported = os.path.join(work, "iree-import.mlir")
    if not os.path.exists(imported):
        subprocess.run([sys.executable, "-m", "iree.compiler.tools.import_onnx",
                        onnx_path, "-o", imported], check=True)
    flags = IREE_DEMOTE[level]
    target = ["--iree-hal-target-device=local",
              "--iree-hal-local-target-device-backends=llvm-cpu",
              "--iree-llvmcpu-target-cpu=host"]
    tool = ireec.tools.binaries.find_tool("iree-compile")
    start = time.perf_counter()
    text = subprocess.run(
        [tool, imported, *target, *flags, "--compile-to=global-optimization",
         "--mlir-print-op-generic",
         "--mlir-elide-resource-strings-if-larger=16",
         "--mlir-elide-elementsattrs-if-larger=16"],
        check=True, capture_output=True, text=True).stdout
    convert_s = time.perf_counter() - start
    baseline_text = subprocess.run(
        [tool, imported, *target, "--compile-to=global-optimization",
         "--mlir-print-op-generic",
         "--mlir-elide-resource-strings-if-larger=16",
         "--mlir-elide-elementsattrs-if-larger=16"],
        check=True, capture_output=True, text=True).stdout
    with open(os.path.join(work, f"iree-{level}.global-opt.mlir"), "w") as f:
        f.write(text)
    vmfb = os.path.join(work, f"iree-{level}.vmfb")
    start = time.perf_counter()
    subprocess.run([tool, imported, *target, *flags, "-o", vmfb], check=True)
    compile_s = time.perf_counter() - start
    x = np.load(os.path.join(work, "x.npy"))
    config = ireert.Config("local-task")
    with open(vmfb, "rb") as f:
        vm_module = ireert.VmModule.copy_buffer(config.vm_instance, f.read())
    context = ireert.SystemContext(config=config)
    context.add_vm_module(vm_module)
    # The function is named after the ONNX graph (main_graph).
    names = [n for n in vm_module.function_names
             if not n.startswith("__") and not n.endswith("$async")]
    function = context.modules[vm_module.name][names[0]]
    y = first(function(x))
    y = y.to_host() if hasattr(y, "to_host") else np.asarray(y)
    return (from_mlir(text, function="largest"), y, convert_s, compile_s,
            "", from_mlir(baseline_text, function="largest"))


def run_tf(level, work, meta):
    need(meta, "onnx")
    import tf_route
    return tf_route.run(level, work)


def run(system, level, work):
    with open(os.path.join(work, "meta.json")) as f:
        meta = json.load(f)
    row = {"system": system, "level": level}
    try:
        if system == "amp-mlir":
            result = run_amp_mlir(level, work, meta)
        elif system == "amp-mlir-onnx":
            result = run_amp_mlir(level, work, meta, "model-onnx")
        elif system in ("onnx-float16", "onnx-float16-f16io",
                        "onnx-auto-mixed"):
            result = run_onnx(system, level, work, meta)
        elif system == "tvm-relax":
            result = run_tvm(level, work, meta)
        elif system == "torch-autocast":
            result = run_autocast(level, work, meta)
        elif system == "torch-pure-half":
            result = run_pure_half(level, work, meta)
        elif system == "torch-compile-autocast":
            result = run_compile_autocast(level, work, meta)
        elif system == "iree":
            result = run_iree(level, work, meta)
        elif system == "tf-grappler":
            result = run_tf(level, work, meta)
        else:
            raise ValueError(f"unknown system {system}")
    except Unavailable as error:
        row["error"] = str(error)
        return row
    except Exception as error:
        traceback.print_exc()
        row["error"] = f"{type(error).__name__}: {error}".splitlines()[0][:300]
        return row
    graph, y, convert_s, compile_s, note, baseline = result
    ref = np.load(os.path.join(work, "ref.npy"))
    row.update(measure(graph))
    # The same measure of the graph the system started from (fp32): the
    # conversions the frontend's graph already had.
    if baseline is not None:
        fp32 = measure(baseline)
        row["fp32_casts"] = fp32["casts"]
        row["fp32_bytes_converted"] = fp32["bytes_converted"]
    row["rel_l2"] = rel_l2(np.asarray(y, dtype=np.float32), ref)
    row["convert_s"] = convert_s
    row["compile_s"] = compile_s
    if isinstance(note, dict):
        row.update(note)
    elif note:
        row["note"] = note
    graph.save(os.path.join(work, f"graph-{system}-{level.replace(' ', '-')}"
                                  f".json"))
    return row


def main(argv):
    if len(argv) >= 3 and argv[0] == "export":
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("spec")
        p.add_argument("work")
        p.add_argument("--shape")
        p.add_argument("--seed", type=int, default=0)
        a = p.parse_args(argv[1:])
        shape = [int(d) for d in a.shape.split(",")] if a.shape else None
        export(a.spec, a.work, shape, a.seed)
        return 0
    if len(argv) == 5 and argv[0] == "run":
        row = run(argv[1], argv[2], argv[3])
        with open(argv[4], "w") as f:
            json.dump(row, f, indent=1)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
