"""pytest set-up: import the package from this checkout, and find the build
through AMP_MLIR_ROOT (the lit test sets it; default: the repository's
build/)."""

import os
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO = PYTHON_DIR.parent
sys.path.insert(0, str(PYTHON_DIR))
os.environ.setdefault("AMP_MLIR_ROOT", str(REPO / "build"))

# matmul + bias + tanh, a sum, and a function taking and returning f16 and
# bf16: enough to see O0/O1/O2 differ and the boundary types work.
MODULE = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @dense(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x3xf32>) outs(%init : tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4x3xf32>, tensor<3xf32>) outs(%e : tensor<4x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

func.func @two(%a: tensor<5xf32>, %b: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %s = arith.addf %a, %b : tensor<5xf32>
  %p = arith.mulf %a, %b : tensor<5xf32>
  return %s, %p : tensor<5xf32>, tensor<5xf32>
}

func.func @halves(%h: tensor<6xf16>, %g: tensor<6xbf16>) -> (tensor<6xf16>, tensor<6xbf16>) {
  %h2 = arith.addf %h, %h : tensor<6xf16>
  %g2 = arith.addf %g, %g : tensor<6xbf16>
  return %h2, %g2 : tensor<6xf16>, tensor<6xbf16>
}
"""


@pytest.fixture(scope="session")
def module_text():
    return MODULE


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(0)


def dense_reference(x, w, b):
    import numpy as np
    return np.tanh(x.astype(np.float64) @ w + b)
