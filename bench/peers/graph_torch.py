"""Adapter: a PyTorch FX graph traced under torch.autocast (make_fx) to
the neutral Graph. Needs torch.

Each node's type and shape come from its `meta["val"]`. `aten._to_copy`,
`aten.to` and `prims.convert_element_type` are conversions; the ops that
return views in PyTorch (view, reshape, t, transpose, permute, expand,
squeeze, unsqueeze, select, slice, detach, alias, split, unbind) and tuple
access are views; parameters and buffers (`get_attr`) are constants; every
other aten op computes. Convolutions, mm, bmm, addmm, baddbmm, matmul and
linear are contractions.
"""

import torch

from metrics import Graph, numel

_DTYPES = {torch.float32: "f32", torch.float16: "f16",
           torch.bfloat16: "bf16", torch.float64: "f64"}
CONVERTS = {"_to_copy", "to", "convert_element_type"}
VIEWS = {"view", "_unsafe_view", "reshape", "t", "transpose", "permute",
         "expand", "squeeze", "unsqueeze", "select", "slice", "detach",
         "alias", "split", "split_with_sizes", "unbind", "as_strided",
         "view_as", "unflatten", "flatten", "getitem", "lift_fresh_copy"}
CONTRACTIONS = {"convolution", "conv2d", "conv1d", "mm", "bmm", "addmm",
                "baddbmm", "matmul", "linear", "_convolution"}


def _base_name(target):
    name = getattr(target, "__name__", str(target))
    # aten.addmm.default -> addmm; operator.getitem -> getitem
    overload = getattr(target, "_overloadpacket", None)
    if overload is not None:
        name = overload.__name__
    return name.split(".")[0]


def from_fx(gm):
    """The neutral Graph of a torch.fx.GraphModule from make_fx."""
    g = Graph()
    names = {}

    def declare(node, val, const=False):
        if isinstance(val, torch.Tensor):
            return [g.value(f"{node.name}", _DTYPES.get(
                val.dtype, str(val.dtype).replace("torch.", "")),
                numel(list(val.shape)), const)]
        if isinstance(val, (tuple, list)):
            out = []
            for i, v in enumerate(val):
                if isinstance(v, torch.Tensor):
                    out.append(g.value(f"{node.name}#{i}", _DTYPES.get(
                        v.dtype, str(v.dtype).replace("torch.", "")),
                        numel(list(v.shape)), const))
                else:
                    out.append(None)
            return out
        return []

    def inputs_of(node):
        found = []
        torch.fx.node.map_arg((node.args, node.kwargs),
                              lambda a: found.append(a))
        out = []
        for a in found:
            out += [v for v in names.get(a, []) if v]
        return out

    for node in gm.graph.nodes:
        val = node.meta.get("val")
        if node.op == "placeholder":
            names[node] = declare(node, val)
        elif node.op == "get_attr":
            attr = gm
            for part in node.target.split("."):
                attr = getattr(attr, part)
            names[node] = declare(node, attr, const=True)
        elif node.op == "call_function":
            name = _base_name(node.target)
            if name == "getitem":
                source = names.get(node.args[0], [])
                index = node.args[1]
                names[node] = [source[index]] if isinstance(index, int) and \
                    index < len(source) and source[index] else []
                continue
            ins = inputs_of(node)
            declared = declare(node, val)
            names[node] = declared
            outs = [v for v in declared if v]
            if name in CONVERTS:
                kind = "convert"
            elif name in VIEWS:
                kind = "view"
            else:
                kind = "compute"
            g.op(str(node.target), kind, ins, outs,
                 contraction=name in CONTRACTIONS)
        elif node.op == "output":
            g.outputs = inputs_of(node)
    return g
