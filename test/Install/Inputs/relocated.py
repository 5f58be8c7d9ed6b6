"""Run from a moved install prefix (PYTHONPATH=<moved>/python, no
AMP_MLIR_ROOT): the package must find that prefix, and nothing else.

  relocated.py PREFIX          compile and call a model on the CPU
  relocated.py PREFIX gpu-lib  with lib/libamp_runtime.so moved away: the C
                               API's default GPU runtime library (NULL
                               runtimeLibrary) is the one next to
                               libAmpRunnerCAPI.so in PREFIX/lib
"""

import sys
from pathlib import Path

import numpy as np

import amp_mlir
from amp_mlir import _capi, _paths

prefix = Path(sys.argv[1]).resolve()
assert "AMP_MLIR_ROOT" not in __import__("os").environ
assert Path(amp_mlir.__file__).resolve().is_relative_to(prefix), amp_mlir.__file__
print("root", amp_mlir.find_root())
print("amp-opt", _paths.tool("amp-opt"))
print("capi", _paths.library("libAmpRunnerCAPI.so"))

MODULE = """
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = arith.mulf %a, %b : tensor<3xf32>
  %1 = math.exp %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}
"""

if sys.argv[2:] == ["gpu-lib"]:
    lib = _capi.lib()
    module = lib.ampRunnerModuleParse(MODULE.encode(), len(MODULE), b"m")
    assert module, _capi.last_error()
    options = _capi.compile_options({"level": "O2", "target": "gpu"})
    executable = lib.ampRunnerCompile(module, b"f", options)
    assert not executable
    print("gpu error:", _capi.last_error())
    lib.ampRunnerModuleDestroy(module)
    sys.exit(0)

m = amp_mlir.compile(MODULE, level="O2")
a = np.array([0.5, 1.0, 2.0], np.float32)
b = np.array([2.0, -1.0, 0.25], np.float32)
print("result", " ".join(f"{v:.2f}" for v in m.f(a, b)))
print("capi loaded", Path(_capi.lib()._name).resolve())
