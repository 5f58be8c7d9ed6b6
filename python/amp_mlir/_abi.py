"""The runtime ABI's element-type codes (AmpDType), as Python sees them.

A copy of runtime/include/amp/runtime/DTypes.def, the one table that the
runtime and the compiler read; python/tests/test_dtypes.py checks that the
two agree. The codes are what the runtime's C functions take as `dtype`.
"""

import numpy as np

from .dtypes import is_bfloat16

# AmpDType: MLIR spelling -> code (DTypes.def; values are ABI).
DTYPES = {"f32": 0, "f16": 1, "bf16": 2, "i32": 3, "i1": 4, "f8E4M3FN": 5,
          "f8E5M2": 6}

F32, F16, BF16, I32, I1, F8E4M3FN, F8E5M2 = (
    DTYPES[name] for name in
    ("f32", "f16", "bf16", "i32", "i1", "f8E4M3FN", "f8E5M2"))

# The floating-point types that every dtype-taking entry point accepts; the
# collectives also take i32 and i1, the GEMM f8E4M3FN and f8E5M2.
FLOAT_TYPES = ("f32", "f16", "bf16")


def dtype_name(array):
    """The MLIR spelling of a numpy array's element type as the runtime
    takes it (bf16: ml_dtypes.bfloat16, or uint16 holding the bits), or
    None."""
    if array.dtype == np.float32:
        return "f32"
    if array.dtype == np.float16:
        return "f16"
    if array.dtype == np.uint16 or is_bfloat16(array.dtype):
        return "bf16"
    if array.dtype == np.int32:
        return "i32"
    if array.dtype == np.bool_:
        return "i1"
    return None


def dtype_code(array, what):
    """The AmpDType of a numpy array: float32, float16, and for bfloat16
    ml_dtypes.bfloat16 or uint16 holding the bits; TypeError otherwise."""
    name = dtype_name(array)
    if name not in FLOAT_TYPES:
        raise TypeError(f"{what} has dtype {array.dtype}; expected float32, "
                        f"float16, ml_dtypes.bfloat16 or uint16 (bfloat16 "
                        f"bits)")
    return DTYPES[name]
