"""check_nan_inf on ONNX's own backend test models (issue 45, item 2): the
three max-pool cases whose -inf padding raised false alarms at O2 give no
alarm and finite outputs, in f16 and bf16; on the light ResNet-50 (every
weight 0.02, f16 activations that truly overflow) the alarm names the first
op whose result is not finite while its operands are: the batch norm's
scaling by 1/sqrt(var + eps) after a convolution whose own f16 output is
still finite. Prints one line per check."""
import glob
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper

import amp_mlir

warnings.simplefilter("ignore")
DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")


def case(name):
    folder = glob.glob(os.path.join(DATA, "*", name))[0]
    inputs = [numpy_helper.to_array(onnx.load_tensor(p)) for p in sorted(
        glob.glob(os.path.join(folder, "test_data_set_0", "input_*.pb")))]
    return onnx.load(os.path.join(folder, "model.onnx")), inputs


for name in ("test_MaxPool2d", "test_MaxPool2d_stride_padding_dilation",
             "test_operator_maxpool"):
    model, inputs = case(name)
    text = amp_mlir.from_onnx(model)
    for dtype in ("f16", "bf16"):
        main = amp_mlir.compile(text, level="O2", dtype=dtype,
                                check_nan_inf=True).main
        try:
            outputs = main(*inputs)
        except amp_mlir.AmpError as error:
            print(f"{name} O2 {dtype}: FAIL alarm: {error}")
            continue
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        finite = all(np.isfinite(np.asarray(o, np.float32)).all()
                     for o in outputs)
        print(f"{name} O2 {dtype}: no alarm, outputs "
              f"{'finite' if finite else 'not finite FAIL'}")

model = onnx.load(os.path.join(DATA, "light", "light_resnet50.onnx"))
graph_input = [i for i in model.graph.input
               if i.name not in {t.name for t in model.graph.initializer}][0]
shape = tuple(d.dim_value for d in graph_input.type.tensor_type.shape.dim)
# onnx's backend runner's input for the light models.
x = (np.arange(np.prod(shape)).reshape(shape) / np.prod(shape)).astype(
    np.float32)
main = amp_mlir.compile(amp_mlir.from_onnx(model), level="O2", dtype="f16",
                        check_nan_inf=True).main
try:
    main(x)
    print("light_resnet50 O2 f16: no alarm FAIL")
except amp_mlir.AmpError as error:
    print(f"light_resnet50 O2 f16: {error}")
sys.exit(0)
