"""bfloat16 helpers: bit-identical to the runtime's exact conversion."""

import ctypes

import numpy as np
import pytest

import amp_mlir
from amp_mlir import _runtime


def runtime_bf16(values):
    lib = _runtime.lib()
    lib.ampF32ToBF16.restype = ctypes.c_uint16
    lib.ampF32ToBF16.argtypes = [ctypes.c_float]
    return np.array([lib.ampF32ToBF16(float(v)) for v in values], np.uint16)


def test_matches_runtime_on_edge_cases_and_random_bits():
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0x3F808000, 0x3F818000, 0x3F80FFFF, 0x7F7FFFFF,
                      0x7F7F7FFF, 0x00000001, 0x80008000, 0x7F800000,
                      0xFF800000, 0x7FC00000, 0x7F800001, 0x00000000,
                      0x80000000], np.uint32)
    values = np.concatenate([edges, bits]).view(np.float32)
    ours = amp_mlir.to_bfloat16(values)
    theirs = runtime_bf16(values)
    nan = np.isnan(values)
    np.testing.assert_array_equal(ours[~nan], theirs[~nan])
    # NaNs stay NaNs (quiet), as in the runtime.
    assert np.isnan(amp_mlir.from_bfloat16(ours[nan])).all()


def test_ties_to_even_and_round_trip():
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to even (1).
    assert amp_mlir.from_bfloat16(amp_mlir.to_bfloat16([1 + 2**-8]))[0] == 1
    assert amp_mlir.from_bfloat16(
        amp_mlir.to_bfloat16([1 + 3 * 2**-8]))[0] == 1 + 2**-6
    exact = amp_mlir.from_bfloat16(np.arange(0, 2**16, 7, dtype=np.uint16))
    finite = np.isfinite(exact)
    np.testing.assert_array_equal(
        amp_mlir.from_bfloat16(amp_mlir.to_bfloat16(exact[finite])),
        exact[finite])
    with pytest.raises(TypeError, match="uint16"):
        amp_mlir.from_bfloat16(np.zeros(2, np.float32))
