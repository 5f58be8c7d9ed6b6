"""amp_mlir.frontends without the frontend packages: the package imports,
the op check works on text, and from_torch/from_onnx say how to install
what they need. (The imports themselves are tested in test/Frontends.)"""

import importlib.util

import pytest

import amp_mlir
from amp_mlir import frontends


def test_unsupported_ops():
    text = ('"builtin.module"() ({\n'
            '  "func.func"() ({\n'
            '    %0 = "tm_tensor.sort"(%a) ({\n'
            '      "tm_tensor.yield"(%b) : (i1) -> ()\n'
            '    }) : (tensor<4xf32>) -> tensor<4xf32>\n'
            '    %1 = "torch.aten.histc"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n'
            '    %2 = "linalg.generic"(%1) : (tensor<4xf32>) -> tensor<4xf32>\n'
            '    "func.return"(%2) : (tensor<4xf32>) -> ()\n'
            '  }) : () -> ()\n'
            '}) : () -> ()\n')
    # The yield of a reported parent is not listed again.
    assert frontends.unsupported_ops(text) == ["tm_tensor.sort",
                                               "torch.aten.histc"]
    assert frontends.unsupported_ops(text.replace("tm_tensor.sort",
                                                  "linalg.map")) == [
        "tm_tensor.yield", "torch.aten.histc"]


def test_errors_are_amp_errors():
    assert issubclass(amp_mlir.UnsupportedOpError, amp_mlir.FrontendError)
    assert issubclass(amp_mlir.FrontendError, amp_mlir.AmpError)
    error = amp_mlir.UnsupportedOpError("message", ["tm_tensor.sort"])
    assert error.ops == ["tm_tensor.sort"] and str(error) == "message"


@pytest.mark.skipif(importlib.util.find_spec("torch_mlir") is not None,
                    reason="torch-mlir is installed here")
def test_missing_packages_say_how_to_install():
    with pytest.raises(ImportError, match=r'pip install "./python\[torch\]"'):
        amp_mlir.from_torch(object())
    with pytest.raises(ImportError, match="from_onnx needs onnx and "
                                          "torch-mlir"):
        amp_mlir.from_onnx("model.onnx")
