"""TensorFlow grappler's auto_mixed_precision on the benchmark's ONNX model.

There is no maintained converter from PyTorch or ONNX to TensorFlow that
installs beside these pins (onnx-tf was last released in 2022; onnx2tf
pins TensorFlow 2.19, onnx 1.19 and onnxruntime 1.23). So the exported
ONNX graph is rebuilt here as a TensorFlow 1.x-style graph, node by node,
with the same weights (a small translator for the ONNX ops the benchmark
models use; convolutions and pooling run in NHWC, the layout TensorFlow's
CPU kernels take, between two transposes), and grappler rewrites that
graph:

- bf16: `auto_mixed_precision_onednn_bfloat16` (oneDNN's bf16 lists);
- f16: `auto_mixed_precision_cpu`, grappler's only f16 mode for CPUs in
  TensorFlow 2.21: it *emulates* f16 (each op stays f32, between casts
  to f16 and back), as its source says. (`auto_mixed_precision` is the
  CUDA mode and does nothing without a GPU.)

The time of grappler's whole optimisation (the AMP pass and the others it
runs by default) is the convert time. The rewritten GraphDef is run with
the meta-optimizer off and measured by graph_tf.
"""

import os
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402
import tensorflow as tf  # noqa: E402

MODES = {"bf16": "auto_mixed_precision_onednn_bfloat16",
         "f16": "auto_mixed_precision_cpu"}


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a)
            for a in node.attribute}


class Translator:
    """Builds TF ops for ONNX nodes. Values are TF tensors or, for
    initializers and constants, NumPy arrays (made TF constants where a
    TF op reads them)."""

    def __init__(self):
        self.v = {}

    def t(self, name):
        value = self.v[name]
        if isinstance(value, np.ndarray):
            value = tf.constant(value)
            self.v[name] = value
        return value

    def np(self, name):
        value = self.v[name]
        if not isinstance(value, np.ndarray):
            raise NotImplementedError(f"{name} must be a constant")
        return value

    def shape(self, name):
        value = self.v[name]
        return list(value.shape) if isinstance(value, np.ndarray) else \
            value.shape.as_list()

    def node(self, n):
        a = _attrs(n)
        op = n.op_type
        i = list(n.input)
        t, npv = self.t, self.np
        if op == "Constant":
            return [numpy_helper.to_array(a["value"])]
        if op in ("Add", "Sub", "Mul", "Div"):
            f = {"Add": tf.add, "Sub": tf.subtract, "Mul": tf.multiply,
                 "Div": tf.divide}[op]
            return [f(t(i[0]), t(i[1]))]
        if op == "Relu":
            return [tf.nn.relu(t(i[0]))]
        if op == "Clip":
            lo = npv(i[1]) if len(i) > 1 and i[1] else -np.inf
            hi = npv(i[2]) if len(i) > 2 and i[2] else np.inf
            return [tf.clip_by_value(t(i[0]), float(lo), float(hi))]
        if op == "Erf":
            return [tf.math.erf(t(i[0]))]
        if op == "Tanh":
            return [tf.math.tanh(t(i[0]))]
        if op == "Sigmoid":
            return [tf.math.sigmoid(t(i[0]))]
        if op == "Sqrt":
            return [tf.math.sqrt(t(i[0]))]
        if op == "Pow":
            return [tf.math.pow(t(i[0]), t(i[1]))]
        if op == "Gelu":
            return [tf.nn.gelu(t(i[0]), approximate=a.get(
                "approximate", b"none") in (b"tanh", "tanh"))]
        if op == "Softmax":
            return [tf.nn.softmax(t(i[0]), axis=a.get("axis", -1))]
        if op == "Transpose":
            return [tf.transpose(t(i[0]), a["perm"])]
        if op == "MatMul":
            return [tf.linalg.matmul(t(i[0]), t(i[1]))]
        if op == "Gemm":
            y = tf.linalg.matmul(t(i[0]), t(i[1]),
                                 transpose_a=bool(a.get("transA", 0)),
                                 transpose_b=bool(a.get("transB", 0)))
            if a.get("alpha", 1.0) != 1.0:
                y = y * a["alpha"]
            if len(i) > 2 and i[2]:
                y = y + t(i[2]) * a.get("beta", 1.0)
            return [y]
        if op == "Reshape":
            target = [int(d) for d in npv(i[1])]
            src = self.shape(i[0])
            target = [src[k] if d == 0 else d for k, d in enumerate(target)]
            return [tf.reshape(t(i[0]), target)]
        if op == "Flatten":
            s = self.shape(i[0])
            axis = a.get("axis", 1)
            return [tf.reshape(t(i[0]), [int(np.prod(s[:axis])), -1])]
        if op in ("Squeeze", "Unsqueeze"):
            axes = [int(d) for d in npv(i[1])] if len(i) > 1 else a["axes"]
            x = t(i[0])
            if op == "Squeeze":
                return [tf.squeeze(x, axes)]
            rank = len(self.shape(i[0])) + len(axes)
            for ax in sorted(d % rank for d in axes):
                x = tf.expand_dims(x, ax)
            return [x]
        if op == "Gather":
            return [tf.gather(t(i[0]), t(i[1]), axis=a.get("axis", 0))]
        if op == "GatherElements":
            axis = a.get("axis", 0)
            if all(isinstance(self.v[name], np.ndarray) for name in i):
                return [np.take_along_axis(npv(i[0]), npv(i[1]), axis)]
            return [tf.experimental.numpy.take_along_axis(t(i[0]), t(i[1]),
                                                          axis)]
        if op == "Where":
            if all(isinstance(self.v[name], np.ndarray) for name in i):
                return [np.where(npv(i[0]), npv(i[1]), npv(i[2]))]
            return [tf.where(t(i[0]), t(i[1]), t(i[2]))]
        if op == "IsNaN":
            return [tf.math.is_nan(t(i[0]))]
        if op == "ReduceMean":
            axes = [int(d) for d in npv(i[1])] if len(i) > 1 else \
                a.get("axes")
            return [tf.reduce_mean(t(i[0]), axis=axes,
                                   keepdims=bool(a.get("keepdims", 1)))]
        if op == "GlobalAveragePool":
            return [tf.reduce_mean(t(i[0]), axis=[2, 3], keepdims=True)]
        if op == "LayerNormalization":
            x = t(i[0])
            axis = a.get("axis", -1)
            rank = len(self.shape(i[0]))
            axes = list(range(axis % rank, rank))
            mean = tf.reduce_mean(x, axis=axes, keepdims=True)
            centered = x - mean
            var = tf.reduce_mean(tf.square(centered), axis=axes,
                                 keepdims=True)
            y = centered * tf.math.rsqrt(var + a.get("epsilon", 1e-5))
            y = y * t(i[1])
            if len(i) > 2 and i[2]:
                y = y + t(i[2])
            return [y]
        if op in ("Conv", "MaxPool", "AveragePool"):
            return [self.spatial(op, i, a)]
        raise NotImplementedError(f"ONNX op {op} has no translation")

    def spatial(self, op, i, a):
        x = tf.transpose(self.t(i[0]), [0, 2, 3, 1])          # NCHW->NHWC
        pads = a.get("pads", [0, 0, 0, 0])
        strides = a.get("strides", [1, 1])
        if any(pads):
            value = -np.inf if op == "MaxPool" else 0.0
            x = tf.pad(x, [[0, 0], [pads[0], pads[2]], [pads[1], pads[3]],
                           [0, 0]], constant_values=value)
        if op == "Conv":
            w = self.np(i[1])                                  # O, I/g, kh, kw
            group = a.get("group", 1)
            dil = a.get("dilations", [1, 1])
            if group == 1:
                y = tf.nn.conv2d(x, np.transpose(w, (2, 3, 1, 0)),
                                 [1] + strides + [1], "VALID",
                                 dilations=[1] + dil + [1])
            elif w.shape[1] == 1 and group == w.shape[0]:
                y = tf.nn.depthwise_conv2d(
                    x, np.transpose(w, (2, 3, 0, 1)), [1] + strides + [1],
                    "VALID", dilations=dil)
            else:
                raise NotImplementedError("grouped convolution")
            if len(i) > 2 and i[2]:
                y = tf.nn.bias_add(y, self.t(i[2]))
        else:
            k = a["kernel_shape"]
            pool = tf.nn.max_pool2d if op == "MaxPool" else tf.nn.avg_pool2d
            y = pool(x, k, strides, "VALID")
        return tf.transpose(y, [0, 3, 1, 2])                   # NHWC->NCHW


def build_graph(model, shape):
    """A tf.Graph computing the ONNX model: placeholder `x`, result `y`."""
    graph = tf.Graph()
    tr = Translator()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape, name="x")
        tr.v[model.graph.input[0].name] = x
        for init in model.graph.initializer:
            tr.v[init.name] = numpy_helper.to_array(init)
        for node in model.graph.node:
            outs = tr.node(node)
            for name, value in zip(node.output, outs):
                tr.v[name] = value
        tf.identity(tr.t(model.graph.output[0].name), name="y")
    return graph


def optimize(graph, level):
    """Grappler with the AMP mode of `level` on; returns (GraphDef, s)."""
    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
    from tensorflow.python.grappler import tf_optimizer
    meta = tf.compat.v1.train.export_meta_graph(graph=graph)
    meta.collection_def["train_op"].node_list.value.append("y")
    config = config_pb2.ConfigProto()
    rewrite = config.graph_options.rewrite_options
    setattr(rewrite, MODES[level], rewriter_config_pb2.RewriterConfig.ON)
    rewrite.min_graph_nodes = -1
    start = time.perf_counter()
    try:
        graph_def = tf_optimizer.OptimizeGraph(config, meta)
    except Exception as error:
        raise RuntimeError(f"grappler with {MODES[level]} failed: "
                           f"{type(error).__name__}: {error}") from error
    return graph_def, time.perf_counter() - start


def execute(graph_def, x):
    """Runs a GraphDef as it is (grappler off)."""
    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = -1   # L0
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph, config=config) as session:
        return session.run("y:0", {"x:0": x}), graph


def run(level, work):
    """(graph, y, convert_s, compile_s, note) for systems.py."""
    from graph_tf import from_tf_graph
    tf.compat.v1.disable_eager_execution()
    model = onnx.load(os.path.join(work, "model.onnx"))
    x = np.load(os.path.join(work, "x.npy"))
    start = time.perf_counter()
    graph = build_graph(model, list(x.shape))
    # The translation itself must be exact: the fp32 graph, run as it is,
    # against PyTorch's output.
    from metrics import rel_l2
    y32, _ = execute(graph.as_graph_def(), x)
    error = rel_l2(y32, np.load(os.path.join(work, "ref.npy")))
    if error > 1e-4:
        raise RuntimeError(f"the TensorFlow rebuild of the model is off by "
                           f"rel L2 {error:.1e} in fp32")
    start = time.perf_counter()
    graph_def, convert_s = optimize(graph, level)
    compile_s = time.perf_counter() - start   # grappler, the graph built
    y, imported = execute(graph_def, x)
    note = "f16 emulated: the ops stay f32 between casts" \
        if level == "f16" else ""
    return (from_tf_graph(imported), y, convert_s, compile_s, note,
            from_tf_graph(graph))
