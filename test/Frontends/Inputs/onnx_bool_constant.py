"""An ONNX graph with a constant boolean mask of 12 x 12 (more elements than
MLIR prints without hex), as importers fold attention masks: y = Where(mask,
x, -1). Imports it with amp_mlir.from_onnx, runs it at O0 and compares with
NumPy; prints the i1 constant's line of the imported text."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

import amp_mlir

mask = np.tril(np.ones((12, 12), dtype=bool))
mask[3, 11] = True   # not a pattern a bit layout could get right by chance
graph = helper.make_graph(
    [helper.make_node("Constant", [], ["mask"],
                      value=numpy_helper.from_array(mask, "mask")),
     helper.make_node("Constant", [], ["fill"],
                      value=numpy_helper.from_array(
                          np.array(-1.0, np.float32), "fill")),
     helper.make_node("Where", ["mask", "x", "fill"], ["y"])],
    "masked",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 12, 12])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 12, 12])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
text = amp_mlir.from_onnx(model)
print(next(line.strip() for line in text.splitlines() if "xi1>" in line
           and "arith.constant" in line))
x = np.random.default_rng(0).standard_normal((2, 12, 12)).astype(np.float32)
y = amp_mlir.compile(text, level="O0").main(x)
expected = np.where(mask, x, np.float32(-1.0))
print("bool mask:", "same as NumPy" if np.array_equal(y, expected) else
      f"differs from NumPy in {int((y != expected).sum())} elements")
