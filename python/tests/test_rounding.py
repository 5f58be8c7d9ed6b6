"""rounding='once' and rounding='per-op': where low-precision values are
rounded. per-op is eager parity (bit for bit the result of rounding after
every op); once rounds only what is stored, so a fused chain computes in
f32."""

import numpy as np
import pytest

import amp_mlir

# An elementwise chain of correctly rounded ops (IEEE add, mul, sub, div,
# sqrt, max): numpy's float16 ufuncs compute each in f32 and round the
# result to f16, which is what rounding after every op means.
CHAIN = """
func.func @chain(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %a = arith.mulf %x, %y : tensor<64xf32>
  %b = arith.addf %a, %x : tensor<64xf32>
  %c = arith.subf %b, %y : tensor<64xf32>
  %d = arith.divf %c, %y : tensor<64xf32>
  %e = arith.mulf %d, %d : tensor<64xf32>
  %f = math.sqrt %e : tensor<64xf32>
  %g = arith.maximumf %f, %b : tensor<64xf32>
  return %g : tensor<64xf32>
}
"""


def chain(x, y):
    a = x * y
    b = a + x
    c = b - y
    d = c / y
    e = d * d
    f = np.sqrt(e)
    return np.maximum(f, b)


@pytest.fixture
def xy():
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, 64).astype(np.float32)
    y = rng.uniform(0.5, 3, 64).astype(np.float32)
    return x, y


@pytest.mark.parametrize("target", ["cpu", "gpu-sim"])
def test_per_op_is_bit_exact_eager(xy, target):
    x, y = xy
    m = amp_mlir.compile(CHAIN, level="O2", rounding="per-op", target=target)
    got = m.chain(x, y)
    eager = chain(x.astype(np.float16), y.astype(np.float16)).astype(
        np.float32)
    np.testing.assert_array_equal(got, eager)


@pytest.mark.parametrize("target", ["cpu", "gpu-sim"])
def test_once_rounds_where_stored(xy, target):
    x, y = xy
    # The whole chain is one loop nest that reads and writes f32: nothing is
    # stored in f16, so nothing is rounded, and the result is fp32's.
    once = amp_mlir.compile(CHAIN, level="O2", target=target).chain(x, y)
    np.testing.assert_array_equal(once, chain(x, y))
    per_op = amp_mlir.compile(CHAIN, level="O2", rounding="per-op",
                              target=target).chain(x, y)
    assert not np.array_equal(once, per_op)


def test_bad_rounding_is_a_value_error():
    with pytest.raises(ValueError, match="rounding must be"):
        amp_mlir.compile(CHAIN, level="O2", rounding="twice")
