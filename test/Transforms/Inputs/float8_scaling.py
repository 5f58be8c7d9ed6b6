"""amp.quantize, amp.dequantize and amp.amax compiled for the CPU
(amp_mlir.compile at O0: amp-float8-scaling-to-linalg, then amp-expand-float8)
against a reference written with ml_dtypes: saturate(x * scale) rounded to
nearest even in f8E4M3FN and f8E5M2, q / scale, max |x|. The inputs are the
f32 values at and around every rounding boundary of both formats divided by
the scale (so that x * scale lands on them), values beyond the largest
finite one, infinities, NaN and random values over the exponent range;
scales of 1, 2^-3 and 3. Prints one line per check; exits 1 on a mismatch."""

import sys

import ml_dtypes
import numpy as np

import amp_mlir

FORMATS = {"f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2}


def module(n):
    text = []
    for f8 in FORMATS:
        text.append(f"""
func.func @roundtrip_{f8}(%x: tensor<{n}xf32>, %s: tensor<f32>)
    -> (tensor<{n}xf32>, tensor<f32>) {{
  %q = amp.quantize %x by %s : tensor<{n}xf32>, tensor<f32> -> tensor<{n}x{f8}>
  %y = amp.dequantize %q by %s : tensor<{n}x{f8}>, tensor<f32> -> tensor<{n}xf32>
  %a = amp.amax %x : tensor<{n}xf32> -> tensor<f32>
  return %y, %a : tensor<{n}xf32>, tensor<f32>
}}""")
    return "\n".join(text)


def reference(x, scale, dtype):
    """q / scale with q = saturate(x * scale) in `dtype`, computed in f32."""
    largest = np.float32(ml_dtypes.finfo(dtype).max)
    v = (x * np.float32(scale)).astype(np.float32)
    v = np.where(np.isnan(v), v, np.clip(v, -largest, largest))
    q = v.astype(dtype).astype(np.float32)
    return (q / np.float32(scale)).astype(np.float32)


def inputs(rng):
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.0e38, -3.0e38,
              1e6, -1e6, 448.0, 449.0, 464.0, 465.0, 57344.0, 61440.0]
    for dtype in FORMATS.values():
        codes = np.arange(256, dtype=np.uint8).view(dtype).astype(np.float32)
        finite = np.unique(codes[np.isfinite(codes)])
        mids = (finite[:-1].astype(np.float64) + finite[1:]) / 2
        values += list(finite) + list(mids.astype(np.float32))
        values += list(np.nextafter(mids.astype(np.float32), np.float32(np.inf)))
        values += list(np.nextafter(mids.astype(np.float32), np.float32(-np.inf)))
    randoms = rng.standard_normal(4096) * np.exp2(rng.uniform(-30, 20, 4096))
    return np.concatenate([np.array(values, np.float32),
                           randoms.astype(np.float32)])


def main():
    rng = np.random.default_rng(0)
    base = inputs(rng)
    n = base.size
    compiled = amp_mlir.compile(module(n), level="O0")
    failed = False
    for f8, dtype in FORMATS.items():
        for scale in (1.0, 0.125, 3.0):
            # x * scale lands on the boundaries for every scale.
            with np.errstate(over="ignore"):
                x = (base / np.float32(scale)).astype(np.float32)
            got, amax = compiled[f"roundtrip_{f8}"](x, np.array(scale, np.float32))
            want = reference(x, scale, dtype)
            bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
            # A signed zero must keep its sign.
            bad |= (got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want))
            want_amax = np.float32(np.nan) if np.isnan(x).any() else np.abs(x).max()
            amax_ok = (np.isnan(amax) and np.isnan(want_amax)) or amax == want_amax
            print(f"{f8} scale {scale}: {n} values, {int(bad.sum())} "
                  f"mismatches, amax {'ok' if amax_ok else 'WRONG'}")
            if bad.any():
                i = np.flatnonzero(bad)[:5]
                print("  x", x[i], "got", got[i], "want", want[i])
            failed |= bool(bad.any()) or not amax_ok
        # Without NaN, amax is the largest magnitude.
        finite = base[np.isfinite(base)]
        pad = np.full(n - finite.size, 0.5, np.float32)
        x = np.concatenate([finite, pad])
        _, amax = compiled[f"roundtrip_{f8}"](x, np.array(1.0, np.float32))
        ok = amax == np.abs(x).max()
        print(f"{f8} amax of finite values: {'ok' if ok else 'WRONG'}")
        failed |= not ok
    print("float8 scaling: " + ("MISMATCH" if failed else "all match"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
