"""Element types at the boundary, and bfloat16 with or without ml_dtypes.

numpy has no bfloat16. Where the ml_dtypes package is importable, bf16
tensors are ``ml_dtypes.bfloat16`` arrays (the functions also take ``uint16``
arrays of the bit patterns); without it, they are ``uint16`` arrays holding
the bit patterns. :func:`to_bfloat16` and :func:`from_bfloat16` convert from
and to float32 with the runtime's exact conversions (round to nearest even,
NaN kept quiet).
"""

import numpy as np

_BFLOAT16 = []


def bfloat16_dtype():
    """numpy's dtype of ``ml_dtypes.bfloat16``, or None without ml_dtypes."""
    if not _BFLOAT16:
        try:
            import ml_dtypes
            _BFLOAT16.append(np.dtype(ml_dtypes.bfloat16))
        except ImportError:
            _BFLOAT16.append(None)
    return _BFLOAT16[0]


def bf16_dtype():
    """The dtype of bf16 arrays this package returns: ml_dtypes.bfloat16
    where installed, else uint16 (bit patterns)."""
    return bfloat16_dtype() or np.dtype(np.uint16)


def is_bfloat16(dtype):
    """True for ml_dtypes.bfloat16 (False without ml_dtypes)."""
    bf16 = bfloat16_dtype()
    return bf16 is not None and np.dtype(dtype) == bf16


def as_bf16_bits(array):
    """A bf16 array as its uint16 bit patterns (a view of an
    ml_dtypes.bfloat16 array; a uint16 array as it is)."""
    return array.view(np.uint16) if is_bfloat16(array.dtype) else array


def from_bf16_bits(bits):
    """uint16 bit patterns as the package's bf16 arrays (a view):
    ml_dtypes.bfloat16 where installed, else the bits."""
    bf16 = bfloat16_dtype()
    return bits.view(bf16) if bf16 is not None else bits

# Element types of the C API (AmpRunnerElementType), as numpy dtypes and as
# MLIR spells them.
ELEMENT_TYPES = {
    0: (np.dtype(np.float32), "f32"),
    1: (np.dtype(np.float16), "f16"),
    2: (np.dtype(np.uint16), "bf16"),
    3: (np.dtype(np.float64), "f64"),
    4: (np.dtype(np.int32), "i32"),
    5: (np.dtype(np.int64), "i64"),
    6: (np.dtype(np.bool_), "i1"),
}


def low_precision_name(dtype):
    """'f16', 'bf16' or 'fp8' for the spellings users write (as Paddle,
    PyTorch and amp-opt spell them, any case; the one table is amp-mlir's,
    read through the C API), numpy's float16 too."""
    if dtype is np.float16 or (isinstance(dtype, np.dtype) and
                               dtype == np.float16):
        return "f16"
    from . import _capi
    spellings = _capi.option_spellings("dtype")
    key = str(dtype).lower()
    if key not in spellings:
        raise ValueError(f"unknown dtype {dtype!r}: expected one of "
                         f"{', '.join(sorted(spellings))}")
    return spellings[key]


def to_bfloat16(values):
    """float32 values (any array-like) as bfloat16 bit patterns (uint16),
    rounded to nearest even; NaN stays NaN (quiet), overflow goes to Inf.
    The runtime's conversion (ampConvertF32ToBF16) does the work."""
    from . import _runtime
    x = np.ascontiguousarray(values, dtype=np.float32)
    out = np.empty(x.shape, np.uint16)
    _runtime.lib().ampConvertF32ToBF16(x.ctypes.data, out.ctypes.data,
                                       x.size)
    return out


def from_bfloat16(bits):
    """bfloat16 values (uint16 bit patterns, or ml_dtypes.bfloat16) as
    float32 values (exact)."""
    b = np.asarray(bits)
    if is_bfloat16(b.dtype):
        b = b.view(np.uint16)
    if b.dtype != np.uint16:
        raise TypeError(f"bfloat16 values are uint16 bit patterns or "
                        f"ml_dtypes.bfloat16, got dtype {b.dtype}")
    b = np.ascontiguousarray(b)
    out = np.empty(b.shape, np.float32)
    from . import _runtime
    _runtime.lib().ampConvertBF16ToF32(b.ctypes.data, out.ctypes.data, b.size)
    return out
