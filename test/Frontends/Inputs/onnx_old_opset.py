"""from_onnx on models of opsets older than torch-mlir's importer handles.

An opset-9 graph, BatchNormalization -> Relu -> MaxPool -> Softmax(axis=1)
on NCHW, as old model-zoo files have it: torch-mlir lowers MaxPool only
from opset 12, Softmax from 13 and BatchNormalization from 15. Imported as
it is (opset=9), it fails naming those ops; from_onnx's default converts it
to opset 17 with onnx.version_converter, says so in an AmpRemark, and the
result at O0 is NumPy's, computed from the opset-9 definitions. (Softmax
before opset 13 normalizes over all the dimensions from `axis` on, as one
row per batch element; onnx.reference.ReferenceEvaluator applies opset 13's
per-axis definition to it, so NumPy is the reference here.)

Then: Softsign at opset 18 (torch-mlir lowers it from opset 22 only);
PRelu at opset 6 with a slope per channel (which onnx.version_converter
alone gets wrong); an op that ONNX no longer has (ImageScaler, of ONNX
1.3's experimental ops, found in old model-zoo files) is an
UnsupportedOpError naming it; a bad opset= is a ValueError; a tensor of
strings is a FrontendError that says so."""
import warnings

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import amp_mlir

rng = np.random.default_rng(0)
C = 3
scale, bias, mean = (rng.standard_normal(C).astype(np.float32)
                     for _ in range(3))
var = rng.uniform(0.5, 2.0, C).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("BatchNormalization",
                      ["x", "scale", "bias", "mean", "var"], ["bn"],
                      epsilon=1e-5),
     helper.make_node("Relu", ["bn"], ["relu"]),
     helper.make_node("MaxPool", ["relu"], ["pool"], kernel_shape=[2, 2],
                      strides=[2, 2]),
     helper.make_node("Softmax", ["pool"], ["y"], axis=1)],
    "old_cnn",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, C, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, C, 4, 4])],
    [numpy_helper.from_array(a, n) for a, n in
     ((scale, "scale"), (bias, "bias"), (mean, "mean"), (var, "var"))])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
model.ir_version = 4


def show(error):
    print(f"{type(error).__name__} {getattr(error, 'ops', '')}: "
          f"{str(error).splitlines()[0][:300]}")


def import_as_is_then_converted(model, opset, label):
    """Imports MODEL at its own OPSET (printing the error torch-mlir's
    importer gives), then with from_onnx's conversion (printing its
    remarks); the converted module's text."""
    try:
        amp_mlir.from_onnx(model, opset=opset)
        print(f"{label}: imported")
    except amp_mlir.UnsupportedOpError as error:
        show(error)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = amp_mlir.from_onnx(model)
    for w in caught:
        print(f"{w.category.__name__}: {w.message}")
    return text


# As it is: torch-mlir leaves the old ops unlowered.
text = import_as_is_then_converted(model, 9, "opset=9")
print("the model passed is unchanged: opset",
      model.opset_import[0].version)

x = rng.standard_normal((2, C, 8, 8)).astype(np.float32)
y = amp_mlir.compile(text, level="O0").main(x)
bn = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5) \
    * scale[:, None, None] + bias[:, None, None]
pool = np.maximum(bn, 0).reshape(2, C, 4, 2, 4, 2).max(axis=(3, 5))
rows = np.exp(pool.reshape(2, -1) - pool.reshape(2, -1).max(1, keepdims=True))
expected = (rows / rows.sum(1, keepdims=True)).reshape(pool.shape)
print(f"old CNN at O0: max |difference| from NumPy (opset 9) "
      f"{float(np.abs(y - expected).max()):.1e}")
# Softmax per channel (opset 13's definition) is not what the model means.
per_axis = np.exp(pool) / np.exp(pool).sum(1, keepdims=True)
print("differs from a per-axis softmax:",
      bool(np.abs(y - per_axis).max() > 1e-2))

# Softsign at opset 18: lowered by torch-mlir from opset 22 only.
graph = helper.make_graph(
    [helper.make_node("Softsign", ["x"], ["y"])], "softsign",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 5])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 5])])
softsign = helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 18)])
text = import_as_is_then_converted(softsign, 18, "Softsign, opset=18")
x = rng.standard_normal((4, 5)).astype(np.float32)
y = amp_mlir.compile(text, level="O0").main(x)
print(f"Softsign at O0: max |difference| from NumPy "
      f"{float(np.abs(y - x / (1 + np.abs(x))).max()):.1e}")

# PRelu before opset 7 applies a slope of C elements per channel; from
# opset 7 it broadcasts from the last dimension, and onnx.version_converter
# converts it unchanged. PyTorch exported nn.PReLU(3) so at opset 6. With
# 3 x 3 images, the unchanged slope would be a valid opset-7 model that
# applies it per column: a silent difference.
slope = np.array([0.1, 0.2, 0.3], np.float32)
graph = helper.make_graph(
    [helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")],
    "prelu",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 3, 3]),
     helper.make_tensor_value_info("slope", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 3, 3])],
    [numpy_helper.from_array(slope, "slope")])
prelu = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
prelu.ir_version = 3
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    text = amp_mlir.from_onnx(prelu)
for w in caught:
    print(f"{w.category.__name__}: {w.message}")
x = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
y = amp_mlir.compile(text, level="O0").main(x)
expected = np.where(x < 0, slope[:, None, None] * x, x)
print(f"PRelu per channel at O0: max |difference| from NumPy "
      f"{float(np.abs(y - expected).max()):.1e}")
print("the model passed keeps its slope:",
      list(prelu.graph.initializer[0].dims))

# An op the converter has no schema of.
graph = helper.make_graph(
    [helper.make_node("ImageScaler", ["x"], ["y"], scale=2.0,
                      bias=[0.5, 0.5, 0.5])], "scaler",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])])
scaler = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
try:
    amp_mlir.from_onnx(scaler)
    print("ImageScaler: imported")
except amp_mlir.FrontendError as error:
    show(error)

for opset in ("17", 0):
    try:
        amp_mlir.from_onnx(model, opset=opset)
    except ValueError as error:
        show(error)

# A tensor of strings: torch-mlir's backend has no element type for it.
graph = helper.make_graph(
    [helper.make_node("StringNormalizer", ["x"], ["y"],
                      case_change_action="UPPER")], "strings",
    [helper.make_tensor_value_info("x", TensorProto.STRING, [2])],
    [helper.make_tensor_value_info("y", TensorProto.STRING, [2])])
strings = helper.make_model(graph,
                            opset_imports=[helper.make_opsetid("", 17)])
try:
    amp_mlir.from_onnx(strings)
    print("StringNormalizer: imported")
except amp_mlir.FrontendError as error:
    show(error)
