"""amp-approximate-math's erf, tanh and exp against the correctly rounded ones,
run through the CPU pipeline (amp_mlir.compile at O0, whose --lower-to-cpu
runs the pass; `approximate-math=false` keeps libm's erff and tanhf for
comparison): every f32 in [-10, 10] on a grid of 2^-12 (erf is 1 in f32
from about 3.92, tanh from about 9.01), f32 values spread over the whole
exponent range, and the special values (zeros, infinities, the smallest
subnormal, NaN). The reference is Python's math.erf/math.tanh (numpy's exp) in double
precision rounded to f32. Prints, per function, the largest error in units
in the last place of the reference and the largest absolute error, for the
approximation and for libm; exits 1 when an approximation exceeds the
bounds its pass states."""

import math
import sys

import numpy as np

import amp_mlir

# exp's results below the normal range (x < -87.3) are flushed towards 0 by
# the approximation: at most 2^-126 off there, as erf's.
EXP_ULP = 2

# The bounds amp-approximate-math's description states (include/amp/
# Transforms/Passes.td): (ulp, absolute).
BOUNDS = {"erf": (4, 2.5e-7), "tanh": (4, 2.5e-7), "exp": (EXP_ULP, None)}


def exp(value):
    """exp in double precision, inf past its range (math.exp raises)."""
    with np.errstate(over="ignore"):
        return float(np.exp(np.float64(value)))


REFERENCE = {"erf": math.erf, "tanh": math.tanh, "exp": exp}


def module(function, n):
    return f"""
func.func @f(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %init = tensor.empty() : tensor<{n}xf32>
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}}
      ins(%x : tensor<{n}xf32>) outs(%init : tensor<{n}xf32>) {{
  ^bb0(%a: f32, %o: f32):
    %e = math.{function} %a : f32
    linalg.yield %e : f32
  }} -> tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}"""


def ulp(values):
    """The spacing of f32 at each value (its unit in the last place); that
    of the largest finite f32 at the infinities."""
    a = np.minimum(np.abs(values.astype(np.float32)),
                   np.finfo(np.float32).max)
    return np.spacing(np.where(a == 0, np.float32(1e-45), a))


def widen(values):
    """f32 values as f64, an infinity as 2^128 (one unit in the last place
    beyond the largest finite f32), so that an overflow one ulp early or
    late counts as one ulp."""
    wide = values.astype(np.float64)
    return np.where(np.isinf(wide), np.copysign(2.0 ** 128, wide), wide)


def main():
    grid = np.arange(-10.0, 10.0 + 2.0 ** -12, 2.0 ** -12)
    rng = np.random.default_rng(0)
    spread = (rng.standard_normal(20000) *
              10.0 ** rng.uniform(-38, 4, 20000))
    specials = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1e-30, 30.0,
                -30.0, 3.4e38]
    x = np.concatenate([grid, spread, specials]).astype(np.float32)
    failed = False
    for function, reference_of in REFERENCE.items():
        with np.errstate(over="ignore"):
            reference = np.array([reference_of(float(v)) for v in x],
                                 dtype=np.float32)
        text = module(function, len(x))
        for name, options in (("approximation", None),
                              ("libm", "approximate-math=false")):
            got = amp_mlir.compile(text, level="O0", cpu_options=options).f(x)
            same = (got == reference) | (np.isnan(got) & np.isnan(reference))
            error = np.where(same, 0.0, np.abs(widen(got) - widen(reference)))
            # Results below the smallest normal f32 (erf of a subnormal x):
            # at most 2^-126 off, not counted in ulp.
            normal = ~(np.abs(reference) < np.finfo(np.float32).tiny)
            flushed = np.where(normal, 0.0, error).max()
            with np.errstate(over="ignore"):
                ulps = np.where(normal, error / ulp(reference), 0.0)
            finite = np.isfinite(reference) & (np.abs(reference) <= 1)
            print(f"{function} {name}: {len(x)} values, largest error "
                  f"{ulps.max():.2f} ulp (at x = {x[ulps.argmax()]:.6g}), "
                  f"{error[finite].max():.2e} absolute where |f(x)| <= 1, "
                  f"{flushed:.1e} below the normal range")
            max_ulp, max_abs = BOUNDS[function]
            if name == "approximation" and (
                    ulps.max() > max_ulp or
                    (max_abs is not None and error[finite].max() > max_abs)
                    or flushed > np.finfo(np.float32).tiny):
                failed = True
        nan = amp_mlir.compile(module(function, 1), level="O0").f(
            np.array([np.nan], dtype=np.float32))
        print(f"{function} approximation: {function}(NaN) is "
              f"{'NaN' if np.isnan(nan[0]) else nan[0]}")
        failed |= not np.isnan(nan[0])
    print("math: FAILED" if failed else "math: within bounds")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
