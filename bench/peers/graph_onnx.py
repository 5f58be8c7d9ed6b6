"""Adapter: an ONNX model (after onnxconverter-common) to the neutral
Graph. Needs the `onnx` package.

Types and shapes come from ONNX shape inference. `Cast` and `CastLike` are
conversions; `Reshape`, `Flatten`, `Squeeze`, `Unsqueeze` and `Identity`
are views; `Constant`, `Shape`, `Size`, `ConstantOfShape` and `Range` are
left out (their outputs and the initializers are constants); every other
node computes. Conv, ConvTranspose, MatMul, Gemm, Einsum and ONNX Runtime's
FusedMatMul are contractions. Nodes inside subgraphs (If, Loop, Scan) are
not looked at (none of the benchmark models has them).
"""

import onnx

from metrics import Graph, numel

_DTYPES = {onnx.TensorProto.FLOAT: "f32", onnx.TensorProto.FLOAT16: "f16",
           onnx.TensorProto.BFLOAT16: "bf16", onnx.TensorProto.DOUBLE: "f64"}
VIEWS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}
OTHER = {"Constant", "Shape", "Size", "ConstantOfShape", "Range"}
CONVERTS = {"Cast", "CastLike"}
CONTRACTIONS = {"Conv", "ConvTranspose", "MatMul", "Gemm", "Einsum",
                "FusedMatMul", "FusedGemm", "FusedConv"}


def _type_of(value_info):
    t = value_info.type.tensor_type
    dtype = _DTYPES.get(t.elem_type, f"onnx{t.elem_type}")
    dims = [d.dim_value if d.HasField("dim_value") else -1
            for d in t.shape.dim]
    return dtype, numel(dims)


def from_onnx(model, infer_shapes=True):
    """The neutral Graph of an onnx.ModelProto."""
    if infer_shapes:
        model = onnx.shape_inference.infer_shapes(model)
    graph = model.graph
    g = Graph()
    for init in graph.initializer:
        g.value(init.name, _DTYPES.get(init.data_type,
                                       f"onnx{init.data_type}"),
                numel(init.dims), const=True)
    for vi in list(graph.input) + list(graph.value_info) + \
            list(graph.output):
        if vi.name not in g.values:
            dtype, n = _type_of(vi)
            g.value(vi.name, dtype, n)
    for node in graph.node:
        for v in list(node.input) + list(node.output):
            if v and v not in g.values:
                g.value(v, "unknown", 1)
        if node.op_type == "Constant":
            for v in node.output:
                g.values[v][2] = True
        if node.op_type in CONVERTS:
            kind = "convert"
        elif node.op_type in VIEWS:
            kind = "view"
        elif node.op_type in OTHER:
            kind = "other"
        else:
            kind = "compute"
        g.op(node.op_type, kind, [v for v in node.input if v],
             [v for v in node.output if v],
             contraction=node.op_type in CONTRACTIONS)
    g.outputs = [o.name for o in graph.output]
    return g
