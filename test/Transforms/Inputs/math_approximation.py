"""amp-approximate-math's erf against the correctly rounded one, run
through the CPU pipeline (amp_mlir.compile at O0, whose --lower-to-cpu runs
the pass; `approximate-erf=false` keeps libm's erff for comparison): every
f32 in [-4, 4] on a grid of 2^-12 (32769 values; erf is 1 in f32 from
about 3.92), f32 values spread over the whole exponent range, and the
special values (zeros, infinities, NaN, the smallest subnormal). The
reference is math.erf in double precision rounded to f32. Prints the
largest error in units in the last place of the reference and the largest
absolute error, for the approximation and for libm; exits 1 when the
approximation's largest error exceeds the bounds the docs state."""

import math
import sys

import numpy as np

import amp_mlir

# The bounds the pass's description states (include/amp/Transforms/
# Passes.td, amp-approximate-math).
MAX_ULP = 4
MAX_ABS = 2.5e-7


def module(n):
    return f"""
func.func @erf(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %init = tensor.empty() : tensor<{n}xf32>
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}}
      ins(%x : tensor<{n}xf32>) outs(%init : tensor<{n}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %e = math.erf %a : f32
    linalg.yield %e : f32
  }} -> tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}"""


def ulp(values):
    """The spacing of f32 at each value (its unit in the last place)."""
    a = np.abs(values.astype(np.float32))
    return np.spacing(np.where(a == 0, np.float32(1e-45), a))


def main():
    grid = np.arange(-4.0, 4.0 + 2.0 ** -12, 2.0 ** -12)
    rng = np.random.default_rng(0)
    spread = (rng.standard_normal(20000) *
              10.0 ** rng.uniform(-38, 4, 20000))
    specials = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1e-30, 10.0,
                -10.0, 3.4e38]
    x = np.concatenate([grid, spread, specials]).astype(np.float32)
    reference = np.array([math.erf(float(v)) for v in x], dtype=np.float32)
    text = module(len(x))
    failed = False
    for name, options in (("approximation", None),
                          ("libm", "approximate-erf=false")):
        got = amp_mlir.compile(text, level="O0",
                               cpu_options=options).erf(x)
        error = np.abs(got.astype(np.float64) - reference.astype(np.float64))
        ulps = error / ulp(reference)
        print(f"{name}: {len(x)} values, largest error "
              f"{ulps.max():.2f} ulp (at x = {x[ulps.argmax()]:.6g}), "
              f"{error.max():.2e} absolute")
        if name == "approximation" and (ulps.max() > MAX_ULP or
                                        error.max() > MAX_ABS):
            failed = True
    nan = amp_mlir.compile(module(1), level="O0").erf(
        np.array([np.nan], dtype=np.float32))
    print(f"approximation: erf(NaN) is {'NaN' if np.isnan(nan[0]) else nan[0]}")
    failed |= not np.isnan(nan[0])
    print("erf: FAILED" if failed else "erf: within bounds")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
