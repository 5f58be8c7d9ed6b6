"""from_torch(): a PyTorch nn.Module as MLIR that amp-mlir compiles.

The route is torch-mlir's FX importer (``torch.export`` then the
``torchdynamo-export-to-torch-backend-pipeline`` and
``torch-backend-to-linalg-on-tensors-backend-pipeline`` of torch-mlir), with
three additions:

- the diagnostics of a failing torch-mlir pipeline are collected and the
  ops it could not lower are named in the exception (torch-mlir itself only
  says "Failure while executing pass pipeline");
- ops that the linalg-on-tensors contract allows but upstream MLIR does not
  have (``tm_tensor.*``, left-over ``torch.*``/``torch_c.*``) are refused
  with an UnsupportedOpError naming them;
- version skew: torch-mlir bundles a newer MLIR than LLVM 22. Its output is
  printed in the generic op form (which does not depend on any op's custom
  syntax) and re-printed by amp-opt, i.e. by MLIR 22 itself, so the text
  returned is what MLIR 22 prints and parses.

torch, torchvision and torch-mlir are imported on first use only: the rest
of amp_mlir works without them (``pip install "./python[torch]"`` or
scripts/install-frontends.sh installs the pinned versions).
"""

import math
import re
import subprocess
import warnings
from pathlib import Path

from . import _paths
from .compiler import AmpError, AmpRemark, _stacklevel

_supported_dialects = None


def supported_dialects():
    """The dialects the returned module may contain: the ones amp-mlir's
    context registers (upstream MLIR 22's and amp), as the C API reports
    them (ampRunnerGetRegisteredDialects), so this list cannot drift from
    what compile() parses. Also `SUPPORTED_DIALECTS`."""
    global _supported_dialects
    if _supported_dialects is None:
        from ._capi import lib
        names = lib().ampRunnerGetRegisteredDialects().decode()
        _supported_dialects = frozenset(names.split(","))
    return _supported_dialects


def __getattr__(name):
    # SUPPORTED_DIALECTS is read from the C library on first use, not at
    # import: importing amp_mlir must not need the built library.
    if name == "SUPPORTED_DIALECTS":
        return supported_dialects()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_INSTALL_HINT = ('install the pinned frontend packages with: pip install '
                 '"./python[torch]" (or scripts/install-frontends.sh)')


class FrontendError(AmpError):
    """A model that the frontend could not import; the message carries the
    frontend's diagnostics."""


class UnsupportedOpError(FrontendError):
    """A model with ops that do not lower to upstream MLIR dialects.
    ``ops`` lists their names (e.g. ``['tm_tensor.sort']``)."""

    def __init__(self, message, ops):
        super().__init__(message)
        self.ops = list(ops)


def _import_torch_mlir():
    try:
        import torch
        from torch_mlir import fx, ir
        from torch_mlir.passmanager import PassManager
    except ImportError as error:
        raise ImportError(f"amp_mlir.from_torch needs torch and torch-mlir "
                          f"({error}); {_INSTALL_HINT}") from error
    return torch, fx, ir, PassManager


def _dynamic_shapes(torch, example_inputs, dynamic_dims):
    """torch.export's dynamic_shapes for `dynamic_dims`: None (all static),
    an int d (dimension d of every tensor input is dynamic, e.g. 0 for the
    batch), or one entry per input, each None or an iterable of dimensions.
    Equal dimension indices share one torch.export.Dim, so that a batch
    dimension is the same symbol in every input."""
    if dynamic_dims is None:
        return None
    count = len(example_inputs)
    if isinstance(dynamic_dims, int):
        per_input = [None if not isinstance(x, torch.Tensor) else
                     [dynamic_dims] for x in example_inputs]
    else:
        per_input = list(dynamic_dims)
        if len(per_input) != count:
            raise ValueError(f"dynamic_dims has {len(per_input)} entries for "
                             f"{count} example inputs")
    symbols = {}
    shapes = []
    for index, (value, dims) in enumerate(zip(example_inputs, per_input)):
        if dims is None:
            shapes.append(None)
            continue
        if isinstance(dims, int):
            dims = [dims]
        if not isinstance(value, torch.Tensor):
            raise ValueError(f"dynamic_dims names dimensions of input "
                             f"#{index}, which is not a tensor")
        spec = {}
        for dim in dims:
            if not -value.dim() <= dim < value.dim():
                raise ValueError(f"dynamic_dims: input #{index} has rank "
                                 f"{value.dim()}, no dimension {dim}")
            dim %= value.dim()
            if value.shape[dim] < 2:
                raise ValueError(
                    f"dynamic_dims: dimension {dim} of input #{index} has "
                    f"size {value.shape[dim]} in the example; torch.export "
                    f"specializes sizes 0 and 1, so give an example of size "
                    f"2 or more")
            if dim not in symbols:
                symbols[dim] = torch.export.Dim(f"d{dim}")
            spec[dim] = symbols[dim]
        shapes.append(spec)
    return tuple(shapes)


_FAILED_TO_LEGALIZE = re.compile(
    r"failed to legalize operation '([a-z_]+\.[A-Za-z_0-9.]+)'(.*)")
# torch.operator holds ops torch-mlir has no definition of: their name is an
# attribute.
_OPERATOR_NAME = re.compile(r'"torch\.operator"\(.*?name = "([^"]+)"')


def _unlowered_ops(text):
    ops = set()
    for name, rest in _FAILED_TO_LEGALIZE.findall(text):
        operator = _OPERATOR_NAME.search(rest) if name == "torch.operator" \
            else None
        ops.add(operator.group(1) if operator else name)
    return sorted(ops)


_UNCONVERTED_DTYPE = re.compile(
    r"conversion of dtype '([^']+)' to builtin tensor element type")
_TYPE_NOTES = {"!torch.str": " (a tensor of strings)"}


def _run_pipeline(PassManager, operation, pipeline, stage):
    """Runs a torch-mlir pass pipeline on the module `operation`, raising a
    FrontendError (UnsupportedOpError when ops were left unlowered) with its
    diagnostics."""
    context = operation.context
    diagnostics = []

    def collect(diagnostic):
        notes = "".join(f"\n    note: {n.message}" for n in diagnostic.notes)
        diagnostics.append(f"{diagnostic.location}: {diagnostic.message}"
                           f"{notes}")
        return True

    handler = context.attach_diagnostic_handler(collect)
    try:
        with context:
            PassManager.parse(pipeline).run(operation)
    except Exception as error:  # torch-mlir raises a bare MLIRError
        text = "\n  ".join(diagnostics) or str(error)
        ops = _unlowered_ops(text)
        # A value of a type the backend has none for (an ONNX tensor of
        # strings) fails the conversion of every op that has one, the
        # function included: the type is the reason, not those ops.
        types = sorted(set(_UNCONVERTED_DTYPE.findall(text)))
        if types:
            ops = [op for op in ops if op != "func.func"]
        message = (f"torch-mlir could not lower the model ({stage})"
                   + (f": unsupported op{'s' if len(ops) > 1 else ''} "
                      f"{', '.join(ops)}" if ops else "")
                   + (f": no tensor element type for "
                      + ", ".join(f"{t}{_TYPE_NOTES.get(t, '')}"
                                  for t in types) if types else "")
                   + f"\n  {text}")
        if ops:
            raise UnsupportedOpError(message, ops) from None
        raise FrontendError(message) from None
    finally:
        handler.detach()


_GENERIC_OP = re.compile(r'"([A-Za-z_][A-Za-z_0-9]*\.[A-Za-z_0-9.]+)"\(')


def unsupported_ops(generic_text):
    """The op names of a module in generic form whose dialect amp-mlir does
    not support (torch-mlir's tm_tensor, torch, torch_c, ...), sorted."""
    names = {n for n in _GENERIC_OP.findall(generic_text)
             if n.split(".", 1)[0] not in supported_dialects()}
    # Terminators (tm_tensor.yield) say nothing their parent does not.
    return sorted(n for n in names if not n.endswith(".yield")
                  or not any(m.split(".", 1)[0] == n.split(".", 1)[0]
                             and m != n for m in names))


# A dense i1 constant written in hex: `dense<"0x..."> : tensor<AxBxi1>`.
_I1_HEX = re.compile(
    r'dense<"0x([0-9A-Fa-f]+)">(\s*:\s*tensor<((?:\d+x)+)i1>)')


def pack_i1_hex(generic_text):
    """Dense i1 constants in hex, from torch-mlir's MLIR to MLIR 22's layout.

    torch-mlir's MLIR (LLVM main of August 2026) writes the hex data of an
    i1 tensor with one byte per element; MLIR 22 packs eight elements into
    a byte (element i in bit i % 8 of byte i / 8) and refuses the byte
    form ("elements hex data size is invalid for provided type"). A
    constant mask folded by an importer is such a tensor (a 128 x 128
    attention mask of a Hugging Face model exported to ONNX). Hex data of
    one byte per element (and more than one element) is packed; anything
    else is left as it is."""
    def pack(match):
        data = bytes.fromhex(match.group(1))
        count = 1
        for size in match.group(3).split("x")[:-1]:
            count *= int(size)
        if count <= 1 or len(data) != count:
            return match.group(0)
        packed = bytearray((count + 7) // 8)
        for index, byte in enumerate(data):
            if byte:
                packed[index >> 3] |= 1 << (index & 7)
        return f'dense<"0x{packed.hex().upper()}">{match.group(2)}'
    return _I1_HEX.sub(pack, generic_text)


def reprint_with_mlir22(generic_text, name="<torch-mlir>"):
    """The module printed by amp-opt (MLIR 22) from generic-form text, or a
    FrontendError with MLIR 22's diagnostics. Dense i1 constants are first
    brought to MLIR 22's layout (pack_i1_hex)."""
    command = [str(_paths.tool("amp-opt")), "-"]
    result = subprocess.run(command, input=pack_i1_hex(generic_text),
                            capture_output=True, text=True)
    if result.returncode != 0:
        diagnostics = result.stderr.replace("<stdin>", name).strip()
        raise FrontendError(
            f"MLIR 22 cannot parse what torch-mlir produced (version skew "
            f"between torch-mlir's MLIR and LLVM 22):\n{diagnostics[:4000]}")
    return result.stdout


def from_torch(module, *example_inputs, dynamic_dims=None, func_name="main"):
    """Imports a torch.nn.Module as MLIR text that amp-mlir compiles.

    module: the nn.Module, exported in eval mode (its training flag is
    restored afterwards). example_inputs: tensors of the shapes and dtypes
    the model is called with. dynamic_dims: None (all shapes as in the
    examples), an int (that dimension of every input is dynamic, e.g. 0
    for the batch) or one entry per input (None or a list of dimensions).

    Returns MLIR text in upstream dialects (func, linalg, tensor, arith,
    math, ...), printed by MLIR 22: one function `func_name` taking the
    inputs and returning the outputs, with the parameters and buffers as
    `dense_resource` constants. Parse it with amp-opt or mlir-opt, or pass
    it to amp_mlir.compile.

    Raises UnsupportedOpError naming the ops that do not lower (its `ops`),
    FrontendError for other import failures, ImportError when torch or
    torch-mlir is not installed.
    """
    torch, fx, _, PassManager = _import_torch_mlir()
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"from_torch takes a torch.nn.Module, got "
                        f"{type(module).__name__}")
    dynamic_shapes = _dynamic_shapes(torch, example_inputs, dynamic_dims)
    training = module.training
    module.eval()
    try:
        program = export_program(torch, module, example_inputs,
                                 dynamic_shapes)
        # The decompositions ran in export_program: none again here.
        imported = fx.export_and_import(program, output_type="raw",
                                        decomposition_table={},
                                        func_name=func_name)
    except Exception as error:
        # torch.export's errors, or the FX importer's NotImplementedError.
        raise FrontendError(
            f"torch.export or torch-mlir's FX importer failed on "
            f"{type(module).__name__}: {type(error).__name__}: "
            f"{str(error)[:4000]}") from error
    finally:
        module.train(training)
    lower_fx_import(PassManager, imported.operation)
    return _finish(imported.operation, f"<{type(module).__name__}>")


def _decompositions(torch):
    """Decompositions applied at export beside torch-mlir's, for ops that
    torch-mlir lowers to its own dialects (which upstream MLIR does not
    have) or not as PyTorch computes them:

    - gelu with approximate="tanh", as ATen computes it: 0.5 x (1 +
      tanh(sqrt(2/pi) (x + 0.044715 x^3))), sqrt(2/pi) in double.
      torch-mlir's lowering multiplies by 0.797724 instead of 0.7978846 (a
      relative error of 2e-4 in the tanh's argument). The exact GELU
      (approximate="none") is torch-mlir's (NotImplemented here).

    - cumsum (torch-mlir: `tm_tensor.scan`): along a dimension of size n,
      the sum of x[j] over j <= i, as an n x n lower-triangular mask and a
      sum; exact for integers (Hugging Face's decoders take the cumsum of
      positions and masks), a different order of summation for floats. It
      makes an n x n intermediate per row: fine for sequence lengths,
      wasteful for long dimensions."""
    def cumsum(x, dim, dtype=None):
        if dtype is not None:
            x = x.to(dtype)
        elif not (x.is_floating_point() or x.is_complex()):
            x = x.to(torch.int64)   # as torch.cumsum promotes
        if x.dim() == 0:
            return x.clone()
        dim = dim % x.dim()
        moved = x.movedim(dim, -1)
        index = torch.arange(moved.shape[-1], device=x.device)
        lower = index.unsqueeze(1) >= index.unsqueeze(0)   # [i, j]: j <= i
        terms = torch.where(lower, moved.unsqueeze(-2),
                            torch.zeros((), dtype=x.dtype, device=x.device))
        return terms.sum(-1).movedim(-1, dim)

    beta, kappa = math.sqrt(2.0 / math.pi), 0.044715

    def gelu(x, approximate="none"):
        if approximate != "tanh":
            return NotImplemented
        # The cube as pow(x, 3): from_torch_training's gelu_backward writes
        # x^2 as x * x, which common subexpression elimination must not
        # share with the forward.
        return 0.5 * x * (1.0 + torch.tanh(beta * (x + kappa * x.pow(3))))

    return {torch.ops.aten.cumsum.default: cumsum,
            torch.ops.aten.gelu.default: gelu}


def export_program(torch, module, example_inputs, dynamic_shapes=None):
    """torch.export of `module` (non-strict, as torch-mlir's
    export_and_import does) with torch-mlir's decompositions applied, and
    its non-persistent buffers frozen like the other buffers.

    Attention is exported with PyTorch's math backend (`sdpa_kernel(MATH)`),
    the form torch-mlir lowers it to. With the CPU's default (flash)
    backend, torch.export records the strides of the flash kernel's output,
    and a `.contiguous()` after its transpose is then a no-op that is not
    recorded; once the decompositions replace the kernel by the math form,
    the `view` that follows fails ("Cannot view a tensor with shape ...",
    transformers' GPT-2).

    torch.export keeps a buffer registered with `persistent=False` (not in
    the module's state_dict: Hugging Face's `position_ids` and
    `token_type_ids`, rotary embeddings' `inv_freq`, the relative position
    indices of timm's BEiT) among the program's `constants`, not in its
    `state_dict`. torch-mlir's import_frozen_program looks every buffer up
    in the state_dict and fails ("Could not find state mapping for
    buffer"). The value of each such buffer is the one in `constants`: it
    is put under the buffer's name in the program's state_dict, so that it
    becomes a constant of the imported function like every other buffer."""
    from torch.export.graph_signature import InputKind
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table
    table = dict(get_decomposition_table())
    table.update(_decompositions(torch))
    with sdpa_kernel([SDPBackend.MATH]):
        program = torch.export.export(module, tuple(example_inputs),
                                      dynamic_shapes=dynamic_shapes,
                                      strict=False)
        program = program.run_decompositions(table)
    state_dict = program.state_dict
    for spec in program.graph_signature.input_specs:
        if (spec.kind == InputKind.BUFFER and not spec.persistent
                and spec.target not in state_dict):
            state_dict[spec.target] = program.constants[spec.target]
    non_negative_scatter_dims(program.graph_module)
    return program


# ATen ops whose `dim` counts the dimensions of their first operand.
_DIM_OF_FIRST_OPERAND = ("scatter", "scatter_add", "scatter_reduce",
                         "gather")


def non_negative_scatter_dims(gm):
    """Rewrites, in place, a negative `dim` of a scatter or gather in the
    ATen graph module `gm` as the dimension it counts from the end.
    torch-mlir (20261001) crashes the process on `aten.scatter.src` with
    dim=-1 (a model's scatter along the last dimension, the backward of
    sort and topk), which no exception can catch; with the dimension
    counted from the front it refuses the op cleanly (tm_tensor.scatter,
    UnsupportedOpError). Every FX import here goes through it."""
    import torch
    for node in gm.graph.nodes:
        if node.op != "call_function" or \
                not isinstance(node.target, torch._ops.OpOverload) or \
                node.target._schema.name.split("::")[-1] not in \
                _DIM_OF_FIRST_OPERAND:
            continue
        value = getattr(node.args[0], "meta", {}).get("val")
        dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
        if not isinstance(dim, int) or dim >= 0 or \
                not isinstance(value, torch.Tensor):
            continue
        dim %= max(value.dim(), 1)
        if len(node.args) > 1:
            node.update_arg(1, dim)
        else:
            node.update_kwarg("dim", dim)
    gm.recompile()


def lower_fx_import(PassManager, operation):
    """torch-mlir's pipelines from an FX import (torch dialect) to
    linalg-on-tensors, in place; FrontendError naming the stage that
    failed."""
    _run_pipeline(PassManager, operation,
                  "builtin.module(func.func(torch-match-quantized-custom-ops),"
                  " torchdynamo-export-to-torch-backend-pipeline)",
                  "PyTorch FX to the torch backend")
    _run_pipeline(PassManager, operation, _LINALG_PIPELINE,
                  "torch backend to linalg-on-tensors")


_LINALG_PIPELINE = ("builtin.module(torch-backend-to-linalg-on-tensors-"
                    "backend-pipeline{allow-non-finites=true})")


def _finish(operation, name):
    """The lowered module as MLIR 22 text, or UnsupportedOpError."""
    generic = operation.get_asm(print_generic_op_form=True)
    leftover = unsupported_ops(generic)
    if leftover:
        raise UnsupportedOpError(
            f"the model needs ops that upstream MLIR does not have: "
            f"{', '.join(leftover)} (torch-mlir lowers sort/topk, "
            f"scatter/index_put and attention this way; amp-mlir supports "
            f"the dialects registered by amp-mlir, `amp_mlir.frontends."
            f"SUPPORTED_DIALECTS`)",
            leftover)
    return reprint_with_mlir22(generic, name)


# from_onnx converts ONNX models of older opsets (onnx.version_converter)
# before torch-mlir's importer sees them. torch-mlir lowers each ONNX op only
# from an opset of its own (onOp(name, since, ...) in its
# lib/Conversion/TorchOnnxToTorch): an op of an older opset stays a
# torch.operator and the import fails. _TORCH_MLIR_ONNX_SINCE holds the ops
# that ONNX had before torch-mlir lowers them, each with the smallest `since`
# of its handlers, read from torch-mlir's sources of August 2026 (those of
# the pinned wheel, 20261001; MaxPool, Softmax, BatchNormalization and
# Softsign are checked against it by test/Frontends/onnx-old-opset.test).
# All but LpPool, DFT and Softsign are lowered from opset 17 on, and the
# handlers registered from opset 1 read the newer forms of ops whose inputs
# changed (Pad's pads is an input from opset 11). So a model of an opset
# before ONNX_OPSET is converted to it, and a model with an op lowered only
# from a later opset to that opset.
ONNX_OPSET = 17
_TORCH_MLIR_ONNX_SINCE = {
    "GlobalLpPool": 2, "Reshape": 5, "Elu": 6, "Exp": 6, "HardSigmoid": 6,
    "InstanceNormalization": 6, "Selu": 6, "Tile": 6, "Add": 7, "Div": 7,
    "Greater": 7, "Mul": 7, "Shape": 9, "Upsample": 9, "Concat": 11,
    "ConvTranspose": 11, "Flatten": 11, "Resize": 11, "Scan": 11, "TopK": 11,
    "Dropout": 12, "MaxPool": 12, "Ceil": 13, "Erf": 13, "Floor": 13,
    "GatherElements": 13, "GatherND": 13, "Less": 13, "Loop": 13,
    "MeanVarianceNormalization": 13, "Mod": 13,
    "NegativeLogLikelihoodLoss": 13, "NonZero": 13, "ReduceMax": 13,
    "ReduceMin": 13, "ReduceProd": 13, "Slice": 13, "Softmax": 13,
    "Unsqueeze": 13, "BatchNormalization": 15, "GreaterOrEqual": 16,
    "RoiAlign": 16, "GridSample": 17, "LpPool": 18, "DFT": 20,
    "Softsign": 22,
}
_DEFAULT_DOMAINS = ("", "ai.onnx")


def _onnx_nodes(graph):
    """The nodes of an ONNX graph and of its subgraphs (If, Loop, Scan)."""
    for node in graph.node:
        yield node
        for attribute in node.attribute:
            for subgraph in ([attribute.g] if attribute.HasField("g")
                             else []) + list(attribute.graphs):
                yield from _onnx_nodes(subgraph)


def _default_opset(proto):
    return next((o.version for o in proto.opset_import
                 if o.domain in _DEFAULT_DOMAINS), None)


def _onnx_op_types(proto):
    """The op types of the default (ai.onnx) domain in the model, sorted."""
    return sorted({n.op_type for n in _onnx_nodes(proto.graph)
                   if n.domain in _DEFAULT_DOMAINS})


def onnx_target_opset(proto):
    """The opset from_onnx converts `proto` (an onnx.ModelProto) to, or None
    when it imports it as it is: ONNX_OPSET for a model of an older opset,
    or the opset from which torch-mlir lowers one of its ops, when that is
    later than the model's."""
    current = _default_opset(proto)
    if current is None:
        return None
    ops = _onnx_op_types(proto)
    target = max([ONNX_OPSET] + [_TORCH_MLIR_ONNX_SINCE.get(op, 0)
                                 for op in ops])
    return target if current < target else None


def _convert_opset(onnx, proto, opset):
    """`proto` converted by onnx.version_converter as from_onnx's `opset`
    says (None: onnx_target_opset), with an AmpRemark that says so; or
    `proto` itself. UnsupportedOpError naming the ops it cannot convert."""
    current = _default_opset(proto)
    if opset is None:
        target = onnx_target_opset(proto)
    elif not isinstance(opset, int) or isinstance(opset, bool) or opset < 1:
        raise ValueError(f"from_onnx: opset must be None or a positive "
                         f"int, got {opset!r}")
    else:
        target = opset if current is not None and opset != current else None
    if target is None:
        return proto
    ops = _onnx_op_types(proto)
    late = sorted((_TORCH_MLIR_ONNX_SINCE[op], op) for op in ops
                  if current < _TORCH_MLIR_ONNX_SINCE.get(op, 0))
    if opset is not None:
        why = f"opset={opset} was asked"
    else:
        reasons = []
        if late:
            reasons.append("torch-mlir's ONNX importer lowers " + ", ".join(
                f"{op} only from opset {since}" for since, op in late))
        if current < ONNX_OPSET:
            reasons.append(f"from_onnx converts every model of an opset "
                           f"before {ONNX_OPSET}")
        why = "; ".join(reasons)
    keep = (f"; pass opset={current} to import it as it is"
            if opset is None else "")
    # ONNX has no schema of ops removed from it (ImageScaler, Crop, ... of
    # old zoo models) or of ops that never were ONNX's: the converter
    # cannot say what they become.
    unknown = [op for op in ops if not onnx.defs.has(op, "")]
    if unknown:
        raise UnsupportedOpError(
            f"from_onnx: cannot convert the model from opset {current} to "
            f"opset {target} ({why}): ONNX {onnx.__version__} has no op "
            f"{', '.join(unknown)} (removed from ONNX, or a custom op in the "
            f"default domain), so onnx.version_converter cannot convert "
            f"{'them' if len(unknown) > 1 else 'it'}{keep}",
            [f"onnx.{op}" for op in unknown])
    fixed = []
    if current < 7 <= target:
        proto, fixed = _channel_prelu_slopes(onnx, proto)
    try:
        converted = onnx.version_converter.convert_version(proto, target)
    except Exception as error:
        text = str(error)
        # "...convert.cc:101: convert_graph: Assertion `...` failed: <why>"
        reason = text.split(" failed: ", 1)[-1].strip()
        named = [op for op in ops
                 if re.search(rf"\b{re.escape(op)}\b", text)]
        message = (f"from_onnx: onnx.version_converter cannot convert the "
                   f"model from opset {current} to opset {target} ({why})"
                   + (f": op{'s' if len(named) > 1 else ''} "
                      f"{', '.join(named)}" if named else "")
                   + f": {reason[:2000]}{keep}")
        if named:
            raise UnsupportedOpError(message,
                                     [f"onnx.{op}" for op in named]) from None
        raise FrontendError(message) from None
    slopes = (f"; PRelu {', '.join(fixed)}: slope reshaped to apply per "
              f"channel as before opset 7 (onnx.version_converter leaves "
              f"it, and from opset 7 a slope broadcasts from the last "
              f"dimension)" if fixed else "")
    warnings.warn(AmpRemark(
        f"from_onnx: converted the model from opset {current} to opset "
        f"{target} with onnx.version_converter ({why}){slopes}{keep}"),
        stacklevel=_stacklevel())
    return converted


def _channel_prelu_slopes(onnx, proto):
    """(model, names of the PRelu nodes changed): the 1-D constant slopes
    of PRelu reshaped from (C) to (C, 1, ..., 1).

    Before opset 7, PRelu applied a slope of C elements per channel
    (dimension 1 of NCHW; PyTorch exported nn.PReLU(C) so); from opset 7
    the slope broadcasts as NumPy does, from the last dimension.
    onnx.version_converter converts PRelu from 6 to 7 as compatible
    (CompatibleAdapter), so a converted model with a slope of C elements
    for an input of rank 3 or more is wrong, and mostly invalid. Reshaping
    the slope to (C, 1, ..., 1) means the same before and after opset 7.
    A slope that is not an initializer, or that other ops read too, is
    left as it is; so is a slope whose input's rank is unknown."""
    import numpy as np
    from onnx import numpy_helper
    nodes = [n for n in proto.graph.node
             if n.op_type == "PRelu" and n.domain in _DEFAULT_DOMAINS
             and len(n.input) == 2]
    if not nodes:
        return proto, []
    proto = type(proto).FromString(proto.SerializeToString())
    nodes = [n for n in proto.graph.node
             if n.op_type == "PRelu" and n.domain in _DEFAULT_DOMAINS
             and len(n.input) == 2]
    inferred = onnx.shape_inference.infer_shapes(proto)
    ranks = {}
    for info in list(inferred.graph.input) + list(
            inferred.graph.value_info) + list(inferred.graph.output):
        tensor = info.type.tensor_type
        if tensor.HasField("shape"):
            ranks[info.name] = len(tensor.shape.dim)
    initializers = {t.name: t for t in proto.graph.initializer}
    readers = {}
    for node in _onnx_nodes(proto.graph):
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    fixed = []
    for node in nodes:
        slope = initializers.get(node.input[1])
        rank = ranks.get(node.input[0])
        if (slope is None or rank is None or rank < 3 or
                len(slope.dims) != 1 or slope.dims[0] < 2 or
                readers.get(node.input[1]) != 1):
            continue
        shape = [slope.dims[0]] + [1] * (rank - 2)
        value = numpy_helper.to_array(slope).reshape(shape)
        slope.CopyFrom(numpy_helper.from_array(value, slope.name))
        # Models of IR version 3 list their initializers as inputs too.
        for info in proto.graph.input:
            if info.name == slope.name and info.type.HasField(
                    "tensor_type"):
                dims = info.type.tensor_type.shape
                dims.ClearField("dim")
                for size in shape:
                    dims.dim.add().dim_value = size
        fixed.append(node.name or node.output[0])
    return proto, fixed


def from_onnx(model, func_name="main", opset=None):
    """Imports an ONNX model (a path or an onnx.ModelProto) as MLIR text
    that amp-mlir compiles, through torch-mlir's ONNX importer: the
    `torch-onnx-to-torch-backend-pipeline` and the linalg-on-tensors
    pipeline, as `torch-mlir-import-onnx` and `torch-mlir-opt` do. Needs the
    `onnx` package (not torch). Dynamic dimensions of the graph's inputs
    stay `?`. The graph's function is renamed `func_name`.

    opset: None converts a model of an opset older than torch-mlir's
    importer handles (before ONNX_OPSET, 17, or with an op it lowers only
    from a later opset: LpPool 18, DFT 20, Softsign 22) with
    onnx.version_converter first, and issues an AmpRemark that says so; an
    int converts the model to that opset (the model's own opset: no
    conversion). The model passed is not modified.

    Raises UnsupportedOpError naming the ops that do not lower or that the
    version converter cannot convert (their `ops`, e.g. ['onnx.MaxPool']),
    FrontendError for other import failures, ImportError when onnx or
    torch-mlir is not installed."""
    try:
        import onnx
        import onnx.version_converter  # noqa: F401 (not imported by onnx)
        from torch_mlir import ir
        from torch_mlir.dialects import torch as torch_dialect
        from torch_mlir.extras import onnx_importer
        from torch_mlir.passmanager import PassManager
    except ImportError as error:
        raise ImportError(f"amp_mlir.from_onnx needs onnx and torch-mlir "
                          f"({error}); {_INSTALL_HINT}") from error
    proto = model if isinstance(model, onnx.ModelProto) else onnx.load(
        str(model))
    proto = _convert_opset(onnx, proto, opset)
    proto = onnx.shape_inference.infer_shapes(proto, data_prop=True)
    context = ir.Context()
    torch_dialect.register_dialect(context)
    try:
        info = onnx_importer.ModelInfo(proto)
        module = info.create_module(context=context).operation
        importer = onnx_importer.NodeImporter.define_function(
            info.main_graph, module)
        importer.import_all()
    except Exception as error:
        raise FrontendError(f"torch-mlir's ONNX importer failed: "
                            f"{type(error).__name__}: {error}") from error
    graph_name = info.main_graph.graph_proto.name
    for op in module.regions[0].blocks[0].operations:
        if (op.operation.name == "func.func" and "sym_name" in
                op.operation.attributes and ir.StringAttr(
                    op.operation.attributes["sym_name"]).value == graph_name):
            op.operation.attributes["sym_name"] = ir.StringAttr.get(
                func_name, context)
    _run_pipeline(PassManager, module,
                  "builtin.module(torch-onnx-to-torch-backend-pipeline)",
                  "ONNX to the torch backend")
    _run_pipeline(PassManager, module, _LINALG_PIPELINE,
                  "torch backend to linalg-on-tensors")
    name = f"<{Path(str(model)).name}>" if not isinstance(
        model, onnx.ModelProto) else "<onnx>"
    return _finish(module, name)
