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


def test_supported_dialects_are_the_registered_ones():
    # From the C API (the context compile() parses in), not a copy: the
    # same set amp-opt registers, with upstream's and amp's dialects and
    # none of torch-mlir's.
    import subprocess
    from amp_mlir import _paths
    names = frontends.SUPPORTED_DIALECTS
    assert names is frontends.supported_dialects()
    shown = subprocess.run([str(_paths.tool("amp-opt")), "--show-dialects"],
                           capture_output=True, text=True, check=True).stdout
    listed = shown.split("Available Dialects:", 1)[1].strip().split(",")
    assert names == frozenset(listed)
    assert {"builtin", "func", "linalg", "tensor", "tosa", "ml_program",
            "amp"} <= names
    assert not {"torch", "torch_c", "tm_tensor"} & names
    # The op check uses it: a tosa op (registered) is supported.
    assert frontends.unsupported_ops('"tosa.add"(%a, %b)') == []


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
    with pytest.raises(ImportError, match=r"torch.compile backend needs "
                                          r"torch and torch-mlir.*pip install"):
        importlib.import_module("amp_mlir.dynamo")
