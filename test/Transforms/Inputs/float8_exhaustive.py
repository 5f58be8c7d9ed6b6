"""amp-expand-float8 against ml_dtypes, run through the CPU pipeline
(amp_mlir.compile at O0, whose --lower-to-cpu runs the pass): every f8 code
widened (extf, all 256 of each format), every f16 value narrowed (truncf
from f16, all 65536), and f32 values at and around every rounding boundary
of each format (the representable values, the exact midpoints between
neighbours, the f32 values next to those midpoints, the overflow
threshold, infinities, NaN, zeros, f32 subnormals) plus random f32 values
over the whole exponent range. Codes must match ml_dtypes bit for bit,
except that a NaN need only be a NaN (the payload and sign of a NaN are not
specified by arith). Prints one line per check; exits 1 on a mismatch."""

import sys

import ml_dtypes
import numpy as np

import amp_mlir

FORMATS = {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}


def generic(name, in_type, out_type, body, n):
    return f"""
func.func @{name}(%x: tensor<{n}x{in_type}>) -> tensor<{n}x{out_type}> {{
  %init = tensor.empty() : tensor<{n}x{out_type}>
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}}
      ins(%x : tensor<{n}x{in_type}>) outs(%init : tensor<{n}x{out_type}>) {{
  ^bb0(%a: {in_type}, %o: {out_type}):
{body}
  }} -> tensor<{n}x{out_type}>
  return %0 : tensor<{n}x{out_type}>
}}"""


def module(n_f32):
    text = []
    for f8 in FORMATS:
        text.append(generic(f"ext_{f8}", "i32", "f32", f"""
    %b = arith.trunci %a : i32 to i8
    %f = arith.bitcast %b : i8 to {f8}
    %w = arith.extf %f : {f8} to f32
    linalg.yield %w : f32""", 256))
        for src, n in (("f32", n_f32), ("f16", 65536)):
            text.append(generic(f"trunc_{src}_{f8}", src, "i32", f"""
    %f = arith.truncf %a : {src} to {f8}
    %b = arith.bitcast %f : {f8} to i8
    %c = arith.extui %b : i8 to i32
    linalg.yield %c : i32""", n))
    return "\n".join(text)


def boundary_values():
    """f32 values at and around every rounding boundary of both formats."""
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38,
              3.0e38, -3.0e38]
    for dtype in FORMATS.values():
        finite = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float32)
        finite = np.unique(finite[np.isfinite(finite)])
        info = ml_dtypes.finfo(dtype)
        top = np.float32(info.max) + np.float32(
            info.max - np.float32(np.nextafter(info.max, 0, dtype=np.float32)))
        mids = (finite[:-1].astype(np.float64) + finite[1:]) / 2
        mids = mids.astype(np.float32)  # exact: f32 holds them
        # The midpoint above the largest value (the overflow threshold).
        ulp = finite[-1] - finite[-2]
        over = np.float32(finite[-1] + ulp / 2)
        edges = np.concatenate([finite, mids, [over, finite[-1] + ulp, top]])
        up = np.nextafter(edges, np.float32(np.inf), dtype=np.float32)
        down = np.nextafter(edges, np.float32(-np.inf), dtype=np.float32)
        values.extend(edges)
        values.extend(up)
        values.extend(down)
    rng = np.random.default_rng(0)
    random = (rng.standard_normal(50000) *
              np.exp2(rng.integers(-30, 30, 50000))).astype(np.float32)
    values = np.concatenate([np.asarray(values, np.float32), random])
    return np.concatenate([values, -values])


def codes_match(got, want_bits, dtype):
    want_nan = np.isnan(want_bits.view(dtype).astype(np.float32))
    got_bits = got.astype(np.uint8)
    got_nan = np.isnan(got_bits.view(dtype).astype(np.float32))
    bad = (want_nan != got_nan) | (~want_nan & (got_bits != want_bits))
    return bad


def main():
    values = boundary_values()
    compiled = amp_mlir.compile(module(len(values)), level="O0")
    failed = False
    for f8, dtype in FORMATS.items():
        codes = np.arange(256, dtype=np.int32)
        got = compiled[f"ext_{f8}"](codes)
        want = codes.astype(np.uint8).view(dtype).astype(np.float32)
        nan = np.isnan(want)
        bad = (np.isnan(got) != nan) | (~nan & (got.view(np.uint32) !=
                                                want.view(np.uint32)))
        print(f"{f8} extf: 256 codes, {int(nan.sum())} NaN, "
              f"{int(bad.sum())} mismatches")
        failed |= bool(bad.any())
        for src, x in (("f32", values),
                       ("f16", np.arange(65536, dtype=np.uint16).view(
                           np.float16))):
            got = compiled[f"trunc_{src}_{f8}"](x)
            with np.errstate(invalid="ignore"):  # NaN and Inf inputs
                want_bits = x.astype(dtype).view(np.uint8)
            bad = codes_match(got, want_bits, dtype)
            print(f"{f8} truncf from {src}: {len(x)} values, "
                  f"{int(bad.sum())} mismatches")
            for i in np.flatnonzero(bad)[:5]:
                print(f"  {x[i]!r}: got 0x{int(got[i]):02x}, "
                      f"ml_dtypes 0x{int(want_bits[i]):02x}")
            failed |= bool(bad.any())
    print("float8: all match" if not failed else "float8: MISMATCH")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
