"""Adapter: a TensorFlow graph (the GraphDef grappler returns, imported
into a tf.Graph for its shapes) to the neutral Graph. Needs tensorflow.

`Cast` is a conversion; `Reshape`, `Squeeze`, `ExpandDims`, `Identity`,
`IdentityN` and `Snapshot` are views; `Const`, `Placeholder`, `NoOp` and
`Shape` are left out (Const outputs are constants); every other op
computes. `Conv2D`, `DepthwiseConv2dNative`, `MatMul`, `BatchMatMul*`,
`Einsum` and grappler's fused forms (`_FusedConv2D`, `_FusedMatMul`, ...)
are contractions.
"""

from metrics import Graph, numel

_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16",
           "float64": "f64"}
VIEWS = {"Reshape", "Squeeze", "ExpandDims", "Identity", "IdentityN",
         "Snapshot"}
OTHER = {"Const", "Placeholder", "NoOp", "Shape"}
CONTRACTIONS = {"Conv2D", "DepthwiseConv2dNative", "MatMul",
                "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum",
                "_FusedConv2D", "_FusedMatMul", "_FusedBatchMatMulV2",
                "_FusedDepthwiseConv2dNative"}


def from_tf_graph(graph, output="y"):
    g = Graph()

    def declare(tensor, const=False):
        if tensor.name not in g.values:
            dims = tensor.shape.as_list() if tensor.shape.rank is not None \
                else []
            g.value(tensor.name, _DTYPES.get(tensor.dtype.name,
                                             tensor.dtype.name),
                    numel([d if d is not None else -1 for d in dims]), const)
        return tensor.name

    for op in graph.get_operations():
        ins = [declare(t) for t in op.inputs]
        outs = [declare(t, const=op.type == "Const") for t in op.outputs]
        if op.type == "Cast":
            kind = "convert"
        elif op.type in VIEWS:
            kind = "view"
        elif op.type in OTHER:
            kind = "other"
        else:
            kind = "compute"
        g.op(op.type, kind, ins, outs, contraction=op.type in CONTRACTIONS)
    g.outputs = [f"{output}:0"]
    return g
