"""Adapter: a TVM Relax IRModule (after ToMixedPrecision) to the neutral
Graph. Needs `tvm` (apache-tvm).

Walks the bindings of the function's dataflow blocks, with each tensor's
type from its Relax type. `relax.astype` is a conversion;
`relax.reshape`, `flatten`, `squeeze`, `expand_dims`, tuple construction
and tuple access are views; every other operator call computes, with
Relax constants (the weights) as constant values. `relax.matmul`,
`relax.linear` and the `relax.nn.conv*` operators are contractions.
"""

from tvm import relax

try:                                  # TVM 0.27: constants are tvm.ir's
    from tvm.ir.expr import Constant as _Constant
except ImportError:
    _Constant = relax.Constant

from metrics import Graph, numel

_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16",
           "float64": "f64"}
VIEWS = {"relax.reshape", "relax.flatten", "relax.squeeze",
         "relax.expand_dims"}
CONVERTS = {"relax.astype"}
# FuseOps fuses an elementwise consumer into a reduction (kCommReduce):
# a narrowing of a reduction's result is its epilogue (metrics.py).
REDUCTIONS = {"relax.sum", "relax.mean", "relax.max", "relax.min",
              "relax.prod", "relax.variance", "relax.std"}


def _is_contraction(name):
    return name in ("relax.matmul", "relax.linear", "relax.nn.dense") or \
        name.startswith("relax.nn.conv")


def _tensor_type(ty):
    dtype = _DTYPES.get(str(ty.dtype), str(ty.dtype))
    shape = getattr(ty, "shape", None)
    try:
        dims = [int(d) for d in shape.values] if hasattr(shape, "values") \
            else [int(d) for d in shape]
    except (TypeError, ValueError):
        dims = []
    return dtype, numel(dims)


def from_relax(mod, func_name="main"):
    """The neutral Graph of `mod[func_name]`."""
    f = mod[func_name]
    g = Graph()
    names = {}          # Relax expression -> list of value names
    counter = [0]

    def fresh(hint):
        counter[0] += 1
        return f"{hint}.{counter[0]}"

    def declare(expr_ty, hint, const=False):
        if hasattr(expr_ty, "fields"):        # a tuple
            out = []
            for i, field in enumerate(expr_ty.fields):
                out += declare(field, f"{hint}#{i}", const)
            return out
        if hasattr(expr_ty, "dtype") and hasattr(expr_ty, "shape"):
            dtype, n = _tensor_type(expr_ty)
            return [g.value(fresh(hint), dtype, n, const)]
        return []                             # shapes, primitive values

    def lookup(expr):
        if expr in names:
            return names[expr]
        if isinstance(expr, _Constant):
            names[expr] = declare(expr.ty, "const", const=True)
            return names[expr]
        if isinstance(expr, relax.Tuple):
            out = []
            for field in expr.fields:
                out += lookup(field)
            return out
        return []                             # shape expressions, etc.

    for p in f.params:
        names[p] = declare(p.ty, p.name)
    for block in f.body.blocks:
        for binding in block.bindings:
            var, value = binding.var, binding.value
            if isinstance(value, relax.Call) and hasattr(value.op, "name"):
                name = value.op.name
                ins = []
                for a in value.args:
                    ins += lookup(a)
                outs = declare(var.ty, var.name)
                names[var] = outs
                if name in CONVERTS:
                    kind = "convert"
                elif name in VIEWS:
                    kind = "view"
                else:
                    kind = "compute"
                g.op(name, kind, ins, outs,
                     contraction=_is_contraction(name),
                     reduction=name in REDUCTIONS)
            elif isinstance(value, relax.TupleGetItem):
                fields = lookup(value.tuple_value)
                names[var] = [fields[value.index]] if value.index < len(
                    fields) else []
            else:                             # Tuple, Var, Constant
                names[var] = lookup(value)
    g.outputs = lookup(f.body.body)
    return g
