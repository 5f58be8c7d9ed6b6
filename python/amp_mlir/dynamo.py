"""amp_mlir as a torch.compile backend: amp-mlir decides precision inside
the user's own PyTorch loop.

    import torch, amp_mlir.dynamo          # registers backend="amp_mlir"
    model = torch.compile(model, backend="amp_mlir",
                          options={"level": "O1", "dtype": "bf16"})
    loss = loss_fn(model(x), y); loss.backward(); optimizer.step()

Once the package is pip-installed, PyTorch also finds the backend by name
through the `torch_dynamo_backends` entry point, without the import.

How a graph runs (docs/python.md, "torch.compile"):

- Dynamo captures the model's Python into FX graphs; a graph break (an op
  Dynamo cannot trace, or `torch._dynamo.graph_break()`) runs eagerly
  between them, as with any backend.
- AOTAutograd (`aot_autograd`) makes each graph's forward and backward in
  ATen ops, decomposed with torch-mlir's table and amp-mlir's backward
  decompositions (those of from_torch_training). An inference call (no
  gradient needed) gets a forward graph only.
- Each graph is imported by torch-mlir's FX importer (stateless: the
  parameters are arguments), lowered to linalg, and compiled by
  amp_mlir.compile with the backend's options: amp-mlir decides the
  precision of the forward and of the backward, with round-once lowering
  and its cast placement. The graph's inputs and outputs keep their
  PyTorch dtypes, so any optimizer and PyTorch's GradScaler work as in an
  eager loop.
- An op that amp-mlir cannot import or compile runs eagerly: the graph is
  split around it (each compiled part keeps amp-mlir's decisions), with an
  AmpWarning naming the op (options={"fallback": False} raises instead).
- A graph with dynamic shapes (Dynamo marks a dimension dynamic once it
  changed) is compiled once per concrete shape it is called with.
- Compiled graphs are cached by graph, input signature and options;
  stats() counts compilations, cache hits, recompilations and eager ops.

Options: those of amp_mlir.compile that apply to a graph (OPTIONS), and
`fallback`. They are checked when the backend is made: by
make_backend(**options) at once, and for `backend="amp_mlir",
options={...}` when Dynamo first compiles (PyTorch passes a named
backend's options to it only then); an unknown option raises ValueError
naming it.
"""

import difflib
import functools
import sys
import time
import warnings

import numpy as np

from . import compiler as _compiler
from .compiler import AmpError, AmpWarning
from .dtypes import bf16_dtype, low_precision_name
from .frontends import FrontendError

BACKEND_NAME = "amp_mlir"

# The options of the backend and their defaults. All but `fallback` are
# amp_mlir.compile's keywords of the same name (its docstring says what
# each does). The level is O1, PyTorch's autocast's: any optimizer and
# GradScaler work with it unchanged. dtype None: amp_mlir.compile's
# default (float16).
OPTIONS = {
    "level": "O1",
    "dtype": None,
    "target": "cpu",
    "custom_white_list": None,
    "custom_black_list": None,
    "placement": None,
    "rounding": None,
    "amp_options": None,
    "cpu_options": None,
    "gpu_options": None,
    "check_nan_inf": False,
    "explain": False,
    "fallback": True,
}

# Targets whose compiled functions take host (CPU) tensors. target='gpu'
# would take CUDA tensors on the caller's stream: not done yet.
_TARGETS = ("cpu", "gpu-sim")

_STATS_ZERO = {"graphs": 0, "compilations": 0, "cache_hits": 0,
               "recompilations": 0, "eager_ops": 0, "compile_seconds": 0.0,
               "calls": 0, "copied_bytes": 0}
_stats = dict(_STATS_ZERO)
# What each compilation gave: compiled_graphs().
_compiled_log = []
# (graph code, input signature, options key) -> _CompiledGraph
_cache = {}
# The compiled functions since the last reset (their copies: stats()).
_compiled_functions = []
# graph code -> input signatures compiled for it (recompilations).
_signatures = {}
# (op, input signature, options key) -> None (compiles) or the reason not.
_probes = {}


def stats():
    """What the backend did since the last reset(), as a dict:

    - graphs: graphs handed to it (forward, backward and inference graphs
      from AOTAutograd, and the parts of a split graph);
    - compilations: graphs amp-mlir compiled (one per concrete shape of a
      dynamic graph);
    - cache_hits: graphs found compiled already (the same graph, input
      signature and options);
    - recompilations: compilations of a graph compiled before for other
      input shapes or dtypes;
    - eager_ops: ops that run eagerly in PyTorch because amp-mlir could not
      compile them;
    - compile_seconds: time spent importing and compiling;
    - calls: calls of compiled graphs;
    - copied_bytes: what those calls copied between PyTorch and the
      compiled code. A CPU call reads its tensors' memory in place and its
      results are the buffers the code wrote, so this counts only inputs
      that are not contiguous (made contiguous first) and what the runner
      copies (amp_mlir.CompiledFunction.host_copies)."""
    counts = dict(_stats)
    for function in _compiled_functions:
        copies = function.host_copies()
        counts["copied_bytes"] += copies["input_bytes"] + \
            copies["result_bytes"]
    return counts


def compiled_graphs():
    """The graphs amp-mlir compiled since the last reset(), in order: a
    dict each with "kind" ('forward', 'backward', 'inference', or one of
    those and ' part' for a part of a split graph), "low_precision_type"
    ('f16', 'bf16', or None where the level put nothing in low precision)
    and "seconds" (import and compilation)."""
    return [dict(entry) for entry in _compiled_log]


def reset():
    """Forgets the compiled graphs and zeroes stats() (torch._dynamo.reset()
    does not: a graph compiled again after it is then a cache hit)."""
    _cache.clear()
    _signatures.clear()
    _probes.clear()
    _compiled_log.clear()
    _compiled_functions.clear()
    _stats.clear()
    _stats.update(_STATS_ZERO)


class BackendOptions:
    """The backend's options, checked once where they enter and kept
    typed: `compile_kwargs` (amp_mlir.compile's keywords), `explain`,
    `fallback`, and `key` (for the cache)."""

    def __init__(self, options=None):
        if options is None:
            options = {}
        if isinstance(options, BackendOptions):
            options = options.values
        if not isinstance(options, dict):
            raise TypeError(f"the amp_mlir backend's options are a dict, "
                            f"not {type(options).__name__}")
        for name in options:
            if name not in OPTIONS:
                close = difflib.get_close_matches(str(name), OPTIONS, 1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise ValueError(
                    f"the amp_mlir backend has no option {name!r}{hint}; "
                    f"its options are {', '.join(OPTIONS)}")
        values = {**OPTIONS, **options}
        values["level"] = _compiler._level_name(values["level"])
        if values["dtype"] is not None:
            values["dtype"] = low_precision_name(values["dtype"])
        if values["target"] not in _TARGETS:
            raise ValueError(
                f"the amp_mlir backend's target is 'cpu' or 'gpu-sim', not "
                f"{values['target']!r} (target='gpu', on CUDA tensors, is "
                f"not supported by the torch.compile backend yet: use "
                f"amp_mlir.compile(..., target='gpu'))")
        for flag in ("explain", "fallback"):
            if not isinstance(values[flag], bool):
                raise ValueError(f"the amp_mlir backend's option {flag!r} "
                                 f"is True or False, not {values[flag]!r}")
        self.values = values
        self.explain = values["explain"]
        self.fallback = values["fallback"]
        self.compile_kwargs = {name: value for name, value in values.items()
                               if name not in ("explain", "fallback")}
        self.key = repr(sorted((name, repr(value))
                               for name, value in values.items()))
        _check_by_compiling(self)

    def __repr__(self):
        changed = {name: value for name, value in self.values.items()
                   if OPTIONS[name] != value}
        return f"<amp_mlir backend options {changed}>"


# A function every option applies to: compiling it checks the options that
# amp_mlir.compile checks only when it compiles (amp_options' names, the
# lowering options), so that a bad one raises where the options enter.
_CHECK_MODULE = """
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = tensor.empty() : tensor<2x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>)
                     outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}
"""


# The options keys (BackendOptions.key) that compiled.
_checked = set()


def _check_by_compiling(settings):
    if settings.key in _checked:
        return
    try:
        _compiler.compile(_CHECK_MODULE, entries=["main"],
                          **settings.compile_kwargs)
    except AmpError as error:
        raise ValueError(f"the amp_mlir backend's options do not compile: "
                         f"{error}") from None
    _checked.add(settings.key)


def make_backend(**options):
    """The backend with these options, checked now:
    `torch.compile(model, backend=amp_mlir.dynamo.make_backend(level="O2"))`.
    """
    settings = BackendOptions(options)

    def amp_mlir(gm, example_inputs, **kwargs):
        if kwargs:
            raise ValueError(f"this amp_mlir backend was made with its "
                             f"options; torch.compile passed "
                             f"{', '.join(kwargs)} too")
        return _trace(settings, gm, example_inputs)

    amp_mlir.reset = reset
    amp_mlir.options = settings
    return amp_mlir


def amp_mlir_backend(gm, example_inputs, options=None, mode=None):
    """The backend torch.compile(backend="amp_mlir", options=...) calls:
    gm is Dynamo's FX graph, example_inputs its inputs."""
    if mode is not None:
        raise ValueError(f"the amp_mlir backend has no modes (mode="
                         f"{mode!r}): pass options={{'level': ...}}")
    return _trace(BackendOptions(options), gm, example_inputs)


def _trace(settings, gm, example_inputs):
    """AOTAutograd's forward and backward of Dynamo's graph `gm`, traced
    now, each compiled by amp-mlir (the backward when first run).

    Attention is traced in PyTorch's math form (`sdpa_kernel(MATH)`), as
    from_torch and from_torch_training export it: its forward and backward
    are then matmuls and a softmax that amp-mlir compiles. On the CPU,
    PyTorch would pick its flash kernel, whose backward op torch-mlir does
    not lower; the decomposed forward would then hand that op saved values
    it does not expect."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel([SDPBackend.MATH]):
        return _aot_backend(settings)(gm, example_inputs)


amp_mlir_backend.reset = reset


def _aot_backend(settings):
    from torch._dynamo.backends.common import aot_autograd

    def compiler(kind):
        return functools.partial(_compile_fx, settings=settings, kind=kind)
    return aot_autograd(fw_compiler=compiler("forward"),
                        bw_compiler=compiler("backward"),
                        inference_compiler=compiler("inference"),
                        decompositions=_decomposition_table())


@functools.lru_cache(maxsize=1)
def _decomposition_table():
    import torch
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    from .frontends import _decompositions as import_decompositions
    from .training import _backward_decompositions
    table = dict(get_decomposition_table())
    table.update(import_decompositions(torch))
    table.update(_backward_decompositions(torch))
    return table


def _compile_fx(gm, example_inputs, settings, kind):
    """AOTAutograd's compiler: a boxed callable running `gm`. The example
    inputs are fake tensors; the graph's nodes carry the same values."""
    from torch._functorch.aot_autograd import make_boxed_func
    del example_inputs
    return make_boxed_func(_graph_runner(gm, settings, kind))


def _graph_runner(gm, settings, kind):
    _stats["graphs"] += 1
    if any(_is_symbolic(node) for node in _placeholders(gm)):
        return _PerShapeGraph(gm, settings, kind)
    return _compiled_or_split(gm, settings, kind)


def _placeholders(gm):
    return [node for node in gm.graph.nodes if node.op == "placeholder"]


def _value(node):
    """What an ATen graph's node computes: a fake tensor, a symbolic int,
    or a tuple of them."""
    return node.meta.get("val")


def _is_symbolic(node):
    """Whether a placeholder has a symbolic shape, or is a symbolic int."""
    import torch
    value = _value(node)
    if isinstance(value, torch.Tensor):
        return any(not isinstance(size, int) for size in value.shape)
    return isinstance(value, torch.SymInt)


def _signature(values):
    """The dtypes and shapes of a graph's inputs (tensors' meta values or
    real tensors), hashable."""
    import torch
    signature = []
    for value in values:
        if isinstance(value, torch.Tensor):
            signature.append((str(value.dtype), tuple(value.shape)))
        else:
            signature.append((type(value).__name__, value))
    return tuple(signature)


def _compiled_or_split(gm, settings, kind):
    """`gm` compiled whole, or split around what amp-mlir cannot compile
    (settings.fallback), or AmpError."""
    try:
        return _compiled(gm, settings, kind)
    except (FrontendError, AmpError) as error:
        if not settings.fallback:
            raise
        return _split(gm, settings, kind, error)


def _compiled(gm, settings, kind):
    """The _CompiledGraph of `gm`, from the cache or compiled now."""
    code = gm.code
    signature = _signature(_value(node) for node in _placeholders(gm))
    key = (code, signature, settings.key)
    graph = _cache.get(key)
    if graph is not None:
        _stats["cache_hits"] += 1
        return graph
    graph = _CompiledGraph(gm, settings, kind)
    seen = _signatures.setdefault((code, settings.key), set())
    if seen and signature not in seen:
        _stats["recompilations"] += 1
    seen.add(signature)
    _cache[key] = graph
    return graph


class _CompiledGraph:
    """An ATen FX graph compiled by amp-mlir, called on torch tensors.

    The compiled function computes the graph's tensor outputs that ops
    make; an output that is an input, None, or the same value again is
    filled in here (torch-mlir's import takes tensor results only)."""

    def __init__(self, gm, settings, kind, count=True):
        import torch
        start = time.perf_counter()
        self.kind = kind
        for node in _placeholders(gm):
            if not isinstance(_value(node), torch.Tensor):
                raise FrontendError(
                    f"the {kind} graph takes a non-tensor input "
                    f"{node.name} ({type(_value(node)).__name__})")
        core, self.plan = _tensor_results(gm, kind)
        self.function = None
        self.layouts = []
        if core is not None:
            self.layouts = _dense_layouts(core)
            text = _import_graph(core, f"<torch.compile {kind}>")
            if settings.explain and count:
                _explain(text, settings, kind)
            module = _compiler.compile(text, entries=["main"],
                                       **settings.compile_kwargs)
            self.function = module["main"]
        if count:
            if self.function is not None:
                _compiled_functions.append(self.function)
            seconds = time.perf_counter() - start
            _stats["compilations"] += 1
            _stats["compile_seconds"] += seconds
            _compiled_log.append({
                "kind": kind, "seconds": seconds,
                "low_precision_type": self.function.low_precision_type
                if self.function is not None else None})

    def __call__(self, *args):
        results = ()
        if self.function is not None:
            _stats["calls"] += 1
            arrays = []
            for index, (arg, layout) in enumerate(zip(args, self.layouts)):
                if layout is not None:
                    layout.check(arg, index, self.kind)
                    arg = layout.base(arg)
                arrays.append(_to_numpy(arg, self.kind))
            results = self.function.call(*arrays)
        tensors = [_to_torch(result) for result in results]
        outputs = []
        for what, index, views in self.plan:
            if what == "none":
                outputs.append(None)
                continue
            value = tensors[index] if what == "result" else args[index]
            for op, rest in views:
                value = op(value, *rest)
            outputs.append(value)
        return outputs


class _Layout:
    """How a graph input traced as a view of a smaller dense tensor is
    passed: its broadcast dimensions (stride 0) narrowed to one element,
    then permuted to `order` (None: as it is), which makes it dense."""

    def __init__(self, broadcast, order):
        self.broadcast, self.order = broadcast, order

    def base(self, value):
        for dim in self.broadcast:
            value = value.narrow(dim, 0, 1)
        return value.permute(self.order) if self.order else value

    def check(self, value, index, kind):
        if any(value.stride(dim) != 0 for dim in self.broadcast):
            raise AmpError(
                f"input #{index} of the {kind} graph was traced broadcast "
                f"along dimensions {self.broadcast} (stride 0) and came "
                f"with strides {tuple(value.stride())}")


def _dense_layout(value):
    """The _Layout that makes a traced input dense, or None (dense already,
    symbolic, or no such layout: such a tensor is copied at the call)."""
    import torch
    if not isinstance(value, torch.Tensor) or value.is_contiguous() or \
            any(not isinstance(size, int) for size in value.shape):
        return None
    broadcast = [dim for dim in range(value.dim())
                 if value.stride(dim) == 0 and value.shape[dim] > 1]
    layout = _Layout(broadcast, None)
    base = layout.base(value)
    if not base.is_contiguous():
        strides = base.stride()
        order = sorted(range(base.dim()), key=lambda d: -strides[d])
        if not base.permute(order).is_contiguous():
            return None
        layout.order = order
    return layout


def _dense_layouts(gm):
    """Makes each input of `gm` traced as a view of a smaller dense tensor
    (a transposed weight or a broadcast index saved for the backward) an
    input of that dense tensor, made into the view again inside the graph,
    where the compiled code folds it into its readers instead of the
    caller copying the view. Returns each input's _Layout (None: passed as
    it is)."""
    import torch
    aten = torch.ops.aten
    layouts = []
    for node in _placeholders(gm):
        value = _value(node)
        layout = _dense_layout(value)
        layouts.append(layout)
        if layout is None:
            continue
        base = layout.base(value)
        last, made = node, set()
        with gm.graph.inserting_after(node):
            if layout.order:
                inverse = [layout.order.index(d)
                           for d in range(len(layout.order))]
                last = gm.graph.call_function(aten.permute.default,
                                              (last, inverse))
                last.meta["val"] = base.permute(inverse)
                made.add(last)
        if layout.broadcast:
            with gm.graph.inserting_after(last):
                last = gm.graph.call_function(aten.expand.default,
                                              (last, list(value.shape)))
                last.meta["val"] = value
                made.add(last)
        node.replace_all_uses_with(last, delete_user_cb=lambda user:
                                   user not in made)
        node.meta["val"] = base
        # torch-mlir reads the metadata before the value: it is stale now.
        node.meta.pop("tensor_meta", None)
    if any(layouts):
        gm.recompile()
    return layouts


def _view_chain(value):
    """`value` as views of another node: (the node, [(op, other args)] to
    apply to it in order). A view's output needs no compiled code: it is
    made in PyTorch from its base, without a copy (AOTAutograd returns, for
    the backward, views such as aliases and transposed weights)."""
    import torch
    aten = torch.ops.aten
    views = {aten.alias.default, aten.detach.default, aten.permute.default,
             aten.t.default, aten.transpose.int, aten.view.default,
             aten._unsafe_view.default, aten.unsqueeze.default,
             aten.squeeze.dim, aten.squeeze.dims, aten.expand.default}

    def constant(args):   # No node among them (a symbolic size is one).
        nodes = []
        torch.fx.node.map_arg(args, nodes.append)
        return not nodes

    chain = []
    while (value.op == "call_function" and value.target in views and
           value.args and isinstance(value.args[0], torch.fx.Node) and
           not value.kwargs and constant(value.args[1:])):
        chain.append((value.target, tuple(value.args[1:])))
        value = value.args[0]
    return value, chain[::-1]


def _structural_keys(gm):
    """Each node of `gm` with a key that two nodes share when they compute
    the same value: the same op on the same keys and constants. An op that
    draws random numbers, or one with a constant that cannot be compared,
    has a key of its own."""
    import torch
    keys, canonical = {}, {}

    def constant(value):
        if isinstance(value, torch.fx.Node):
            return keys[value]
        if isinstance(value, (list, tuple)):
            return tuple(constant(item) for item in value)
        if isinstance(value, dict):
            return tuple(sorted((k, constant(v)) for k, v in value.items()))
        if isinstance(value, float):   # -0.0 is not 0.0 here.
            return ("float", repr(value))
        hash(value)  # TypeError: not comparable
        return (type(value).__name__, value)

    for node in gm.graph.nodes:   # In order: arguments first.
        made = ("node", node)
        tags = getattr(node.target, "tags", ())
        if node.op == "call_function" and \
                torch.Tag.nondeterministic_seeded not in tags:
            try:
                made = (node.target, constant(node.args),
                        constant(node.kwargs))
            except TypeError:
                pass
        # One small number per distinct key: keys stay shallow.
        keys[node] = canonical.setdefault(made, len(canonical))
    return keys


def _tensor_results(gm, kind):
    """A copy of `gm` returning only the distinct tensors its ops make (or
    None when it makes none), and the plan that rebuilds gm's outputs, one
    entry each: ("result", i, views), ("input", i, views) or ("none", None,
    []), where views are ops to apply (_view_chain)."""
    import copy

    import torch
    output = next(node for node in gm.graph.nodes if node.op == "output")
    values = output.args[0]
    values = list(values) if isinstance(values, (tuple, list)) else [values]
    inputs = {node: index for index, node in enumerate(_placeholders(gm))}
    # A backward's gradients that the same ops compute (the bias gradients
    # of two batch norms that one residual sum feeds) are one result: the
    # code computes them once, and returned twice they would be copied
    # apart. PyTorch's gradient accumulation copies a gradient that another
    # holds before it keeps it.
    keys_of = _structural_keys(gm) if kind == "backward" else {}
    plan, results, keys = [], [], []
    for value in values:
        views = []
        if isinstance(value, torch.fx.Node):
            value, views = _view_chain(value)
        if value is None:
            plan.append(("none", None, []))
        elif isinstance(value, torch.fx.Node) and value in inputs:
            plan.append(("input", inputs[value], views))
        elif isinstance(value, torch.fx.Node) and \
                isinstance(_value(value), torch.Tensor):
            key = keys_of.get(value, value)
            if key not in keys:
                keys.append(key)
                results.append(value)
            plan.append(("result", keys.index(key), views))
        else:
            what = _value(value) if isinstance(value, torch.fx.Node) \
                else value
            raise FrontendError(f"the {kind} graph returns a "
                                f"{type(what).__name__}, not a tensor")
    if not results:
        return None, plan
    core = copy.deepcopy(gm)
    by_name = {node.name: node for node in core.graph.nodes}
    core_output = by_name[output.name]
    core_output.args = (tuple(by_name[node.name] for node in results),)
    core.graph.eliminate_dead_code()
    core.recompile()
    return core, plan


def _import_graph(gm, name):
    """MLIR text of an ATen FX graph, lowered to linalg (torch-mlir's FX
    importer, stateless: every placeholder an argument)."""
    from torch_mlir import fx

    from .frontends import (_finish, _import_torch_mlir, lower_fx_import,
                            non_negative_scatter_dims)
    non_negative_scatter_dims(gm)
    try:
        imported = fx.stateless_fx_import(gm, output_type="raw",
                                          model_name="main")
    except Exception as error:
        raise FrontendError(f"torch-mlir's FX importer failed on the "
                            f"{name} graph: {type(error).__name__}: "
                            f"{str(error)[:2000]}") from error
    lower_fx_import(_import_torch_mlir()[3], imported.operation)
    return _finish(imported.operation, name)


def _explain(text, settings, kind):
    """Prints the precision report of a graph under the options."""
    kwargs = {name: settings.compile_kwargs[name] for name in
              ("level", "dtype", "custom_white_list", "custom_black_list",
               "placement", "amp_options")}
    report = _compiler.report(text, **kwargs)
    ops = ", ".join(
        f"{op} " + "/".join(f"{count} {precision}" for precision, count in
                            sorted(by_precision.items()))
        for op, by_precision in sorted(report["ops"].items()))
    print(f"amp_mlir backend: {kind} graph at {settings.values['level']}: "
          f"{report['low_precision_ops']} of {report['float_ops']} float "
          f"ops in {report['low_precision_type']}, {report['casts']} casts, "
          f"ideal fraction {report['ideal_fraction']:.2f}\n  {ops}",
          file=sys.stderr)


def _to_numpy(value, kind):
    """A torch tensor as the numpy array the compiled function takes (no
    copy for a contiguous CPU tensor)."""
    import torch
    if not isinstance(value, torch.Tensor):
        return value
    if value.device.type != "cpu":
        raise AmpError(f"the amp_mlir backend (targets 'cpu' and "
                       f"'gpu-sim') takes CPU tensors; the {kind} graph got "
                       f"one on {value.device}")
    value = value.detach()
    if not value.is_contiguous():
        _stats["copied_bytes"] += value.nbytes
    if value.dtype == torch.bfloat16:
        return value.contiguous().view(torch.int16).numpy().view(np.uint16)
    return value.numpy()


def _to_torch(array):
    import torch
    if array.dtype == bf16_dtype() and array.dtype != np.uint16:
        array = array.view(np.uint16)
        return torch.from_numpy(array).view(torch.bfloat16)
    if array.dtype == np.uint16:   # bf16 bit patterns without ml_dtypes
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def _split(gm, settings, kind, error):
    """`gm` with each op amp-mlir cannot compile run eagerly and the rest
    compiled in parts (torch.fx's CapabilityBasedPartitioner), with an
    AmpWarning naming those ops; when every op compiles on its own (the
    failure is the graph's: `error`), `gm` itself, run eagerly, with an
    AmpWarning saying why."""
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    from torch.fx.passes.operator_support import OperatorSupportBase

    reasons = {}
    for node in gm.graph.nodes:
        if node.op == "call_function" and not _is_getitem(node):
            reason = _probe(node, settings)
            if reason is not None:
                reasons[node] = reason
    if not reasons:
        # Each op compiles alone, the graph does not: it runs eagerly.
        count = sum(node.op == "call_function" for node in gm.graph.nodes)
        _stats["eager_ops"] += count
        warnings.warn(AmpWarning(
            f"the {kind} graph ({count} ops) cannot be compiled by amp-mlir "
            f"although each of its ops can ({_first_line(error)}); it runs "
            f"eagerly in PyTorch, as written"),
            stacklevel=_compiler._stacklevel())
        return gm
    eager = set(reasons)
    for node in gm.graph.nodes:
        # The elements of an eager op's results are taken eagerly too.
        if _is_getitem(node) and node.args[0] in eager:
            eager.add(node)

    class Support(OperatorSupportBase):
        def is_node_supported(self, submodules, node):
            return node.op == "call_function" and node not in eager

    partitioner = CapabilityBasedPartitioner(
        gm, Support(), allows_single_node_partition=True)
    split = partitioner.fuse_partitions(partitioner.propose_partitions())
    parts = 0
    for node in list(split.graph.nodes):
        if node.op != "call_module":
            continue
        part = getattr(split, node.target)
        for placeholder, arg in zip(_placeholders(part), node.args):
            placeholder.meta["val"] = _value(arg)
        single = not isinstance(_output_values(part), (tuple, list))
        _stats["graphs"] += 1
        setattr(split, node.target,
                _part_module(_compiled(part, settings, f"{kind} part"),
                             single))
        parts += 1
    _stats["eager_ops"] += len(reasons)
    ops = sorted({str(node.target) for node in reasons})
    why = "; ".join(sorted({reason for reason in reasons.values()}))
    warnings.warn(AmpWarning(
        f"cannot be compiled by amp-mlir ({why}); it runs eagerly in "
        f"PyTorch, as written, and the amp_mlir backend splits the {kind} "
        f"graph into {parts} compiled parts around it", op=", ".join(ops)),
        stacklevel=_compiler._stacklevel())
    split.recompile()
    return split


def _first_line(error):
    return (str(error).strip().splitlines() or [""])[0][:300]


def _is_getitem(node):
    import operator
    return node.op == "call_function" and node.target is operator.getitem


def _output_values(gm):
    output = next(node for node in gm.graph.nodes if node.op == "output")
    return output.args[0]


def _part_module(graph, single):
    """A compiled part of a split graph, as the module its call_module
    node calls."""
    import torch

    class CompiledPart(torch.nn.Module):
        def forward(self, *args):
            outputs = graph(*args)
            return outputs[0] if single else tuple(outputs)

    return CompiledPart()


def _probe(node, settings):
    """None if amp-mlir compiles `node` alone, else why not (the first
    line of the error). Cached per op, input signature and options."""
    import operator

    import torch
    inputs = node.all_input_nodes
    key = (str(node.target), _signature(_value(arg) for arg in inputs),
           repr(node.args), repr(node.kwargs), settings.key)
    if key in _probes:
        return _probes[key]
    graph = torch.fx.Graph()
    env = {}
    for arg in inputs:
        env[arg] = graph.placeholder(arg.name)
        env[arg].meta["val"] = _value(arg)
    copy = graph.node_copy(node, lambda arg: env[arg])
    value = _value(node)
    if isinstance(value, (tuple, list)):
        results = []
        for index, element in enumerate(value):
            if isinstance(element, torch.Tensor):
                item = graph.call_function(operator.getitem, (copy, index))
                item.meta["val"] = element
                results.append(item)
        graph.output(tuple(results))
    else:
        graph.output((copy,))
    try:
        _CompiledGraph(torch.fx.GraphModule(torch.nn.Module(), graph),
                       settings, "probe", count=False)
        reason = None
    except (FrontendError, AmpError) as error:
        reason = _first_line(error)
    _probes[key] = reason
    return reason


class _PerShapeGraph:
    """A graph with symbolic shapes, compiled once per concrete input
    signature: traced again (make_fx on fake tensors) with the shapes and
    ints of the call, which makes every shape static."""

    def __init__(self, gm, settings, kind):
        self.gm = gm
        self.settings = settings
        self.kind = kind
        self.by_signature = {}

    def __call__(self, *args):
        import torch
        signature = _signature(args)
        entry = self.by_signature.get(signature)
        if entry is None:
            positions = [index for index, arg in enumerate(args)
                         if isinstance(arg, torch.Tensor)]
            static = _specialise(self.gm, args, positions)
            graph = _compiled_or_split(static, self.settings, self.kind)
            entry = self.by_signature[signature] = (graph, positions)
        graph, positions = entry
        return graph(*[args[index] for index in positions])


def _specialise(gm, args, positions):
    """`gm` traced on fake tensors of `args`' shapes, its non-tensor
    arguments (symbolic ints) fixed to their values: a graph of the tensor
    arguments only, with static shapes."""
    from torch.fx.experimental.proxy_tensor import make_fx

    def run(*tensors):
        full = list(args)
        for index, tensor in zip(positions, tensors):
            full[index] = tensor
        return gm(*full)

    return make_fx(run, tracing_mode="fake",
                   decomposition_table=_decomposition_table())(
                       *[args[index] for index in positions])


def register():
    """Registers the backend as "amp_mlir" with torch._dynamo (done when
    this module is imported). Once the package is installed, PyTorch finds
    it through the `torch_dynamo_backends` entry point instead: it then
    registers what the entry point names itself."""
    from importlib.metadata import EntryPoint

    from .frontends import _import_torch_mlir
    try:
        _import_torch_mlir()
    except ImportError as error:
        raise ImportError(f"the amp_mlir torch.compile backend needs torch "
                          f"and torch-mlir: {error}") from None
    from torch._dynamo.backends import registry
    if BACKEND_NAME in registry._COMPILER_FNS or isinstance(
            registry._BACKENDS.get(BACKEND_NAME), EntryPoint):
        return
    registry.register_backend(amp_mlir_backend, name=BACKEND_NAME)


register()
