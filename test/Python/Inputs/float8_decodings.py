"""The runtime's FP8 decodings (ampF8E4M3FNToF32, ampF8E5M2ToF32: how the
GEMM widens FP8 operands on the CPU), all 256 codes of each format against
ml_dtypes, bit for bit (NaN for NaN). test/Python/float8-decodings.test."""

import numpy as np
import ml_dtypes

from amp_mlir import _runtime

codes = np.arange(256, dtype=np.uint8)
for name, dtype in (("ampF8E4M3FNToF32", ml_dtypes.float8_e4m3fn),
                    ("ampF8E5M2ToF32", ml_dtypes.float8_e5m2)):
    decode = getattr(_runtime.lib(), name)
    got = np.array([decode(int(c)) for c in codes], np.float32)
    want = codes.view(dtype).astype(np.float32)
    nan = np.isnan(want)
    mismatches = int((np.isnan(got) != nan).sum()) + int(
        (got[~nan].view(np.uint32) != want[~nan].view(np.uint32)).sum())
    print(f"{name}: 256 codes, {int(nan.sum())} NaN, {mismatches} mismatches")
