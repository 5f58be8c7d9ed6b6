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


# bf16 as ml_dtypes.bfloat16 arrays where ml_dtypes is installed (Debian's
# python3 has no package for it: these are skipped there; the frontend
# environment has it, through onnx).

HALVES = """
func.func @halves(%g: tensor<6xbf16>) -> tensor<6xbf16> {
  %g2 = arith.addf %g, %g : tensor<6xbf16>
  return %g2 : tensor<6xbf16>
}
"""
VALUES = [0.5, 1, 1.5, -2, 1.0e38, 1e-3]


def test_compiled_functions_take_and_return_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = np.dtype(ml_dtypes.bfloat16)
    f = amp_mlir.compile(HALVES, level="O0").halves
    assert f.arguments[0].dtype == bf16 and f.results[0].dtype == bf16
    x = np.array(VALUES, np.float32).astype(bf16)
    y = f(x)
    assert y.dtype == bf16
    np.testing.assert_array_equal(y.astype(np.float32),
                                  2 * x.astype(np.float32))
    # uint16 bit patterns and Python lists are still taken.
    bits = amp_mlir.to_bfloat16(VALUES)
    np.testing.assert_array_equal(bits, x.view(np.uint16))
    np.testing.assert_array_equal(f(bits).view(np.uint16), y.view(np.uint16))
    np.testing.assert_array_equal(f(VALUES).view(np.uint16),
                                  y.view(np.uint16))
    # from_bfloat16 takes both forms.
    np.testing.assert_array_equal(amp_mlir.from_bfloat16(y),
                                  amp_mlir.from_bfloat16(y.view(np.uint16)))
    with pytest.raises(TypeError, match="ml_dtypes.bfloat16 arrays or "
                                        "uint16 bit patterns"):
        f(np.array(VALUES, np.float32))


def test_without_ml_dtypes_bf16_is_uint16_bits(monkeypatch):
    from amp_mlir import dtypes
    monkeypatch.setattr(dtypes, "_BFLOAT16", [None])
    f = amp_mlir.compile(HALVES, level="O0").halves
    assert f.results[0].dtype == np.uint16
    y = f(amp_mlir.to_bfloat16(VALUES))
    assert y.dtype == np.uint16
    np.testing.assert_array_equal(amp_mlir.from_bfloat16(y),
                                  2 * amp_mlir.from_bfloat16(
                                      amp_mlir.to_bfloat16(VALUES)))
    with pytest.raises(TypeError, match="uint16 bit patterns: use "
                                        "amp_mlir.to_bfloat16"):
        f(np.array(VALUES, np.float32))


def test_grad_scaler_and_optimizer_take_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = np.dtype(ml_dtypes.bfloat16)
    scaler = amp_mlir.GradScaler(init_scale=1024.0)
    grads = np.array([4096.0, -1024.0, 3.0], np.float32).astype(bf16)
    bits = grads.view(np.uint16).copy()
    assert scaler.unscale_([grads]) is False
    assert grads.dtype == bf16
    # The same bits as the uint16 path.
    amp_mlir.GradScaler(init_scale=1024.0).unscale_([bits])
    np.testing.assert_array_equal(grads.view(np.uint16), bits)
    np.testing.assert_array_equal(grads.astype(np.float32),
                                  [4.0, -1.0, 3.0 / 1024])
    scaled = scaler.scale(np.array([0.5], np.float32).astype(bf16))
    assert scaled.dtype == bf16 and scaled.astype(np.float32)[0] == 512.0
    # An overflow in a bfloat16 gradient is found.
    inf = np.array([np.inf, 1.0], np.float32).astype(bf16)
    assert amp_mlir.GradScaler().unscale_([inf]) is True
    # Optimizer: bfloat16 working copy and gradients.
    w = np.array([1.0, -1.0], np.float32)
    lowp = w.astype(bf16)
    opt = amp_mlir.optim.SGD([w], lr=1.0, lowp=[lowp])
    opt.step([np.array([0.5, 0.25], np.float32).astype(bf16)])
    np.testing.assert_array_equal(w, [0.5, -1.25])
    np.testing.assert_array_equal(lowp.astype(np.float32), [0.5, -1.25])


def test_dtype_codes_match_the_runtime_table(repo):
    """Python's AmpDType codes (amp_mlir/_abi.py) are those of the one table
    that the runtime and the compiler read."""
    import re
    from amp_mlir import _abi
    table = (repo / "runtime" / "include" / "amp" / "runtime" /
             "DTypes.def").read_text()
    rows = re.findall(r'^AMP_DTYPE\((\w+), (\d+), "(\w+)", (\d+)\)$', table,
                      re.MULTILINE)
    assert rows, "no AMP_DTYPE rows found in DTypes.def"
    assert {spelling: int(code) for _, code, spelling, _ in rows} == \
        _abi.DTYPES
    for name, code, _, _ in rows:
        assert getattr(_abi, name) == int(code)


def test_dtypes_and_runtime_do_not_import_each_other(repo):
    """dtypes.py may use the runtime's conversions; the runtime bindings
    import nothing from the dtype helpers (no import cycle)."""
    import ast
    package = repo / "python" / "amp_mlir"

    def imported(module):
        tree = ast.parse((package / f"{module}.py").read_text())
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names.add(node.module or "")
                names.update(alias.name for alias in node.names
                             if node.module is None)
        return names

    assert "_runtime" in imported("dtypes")
    assert not {"dtypes", "_abi"} & imported("_runtime")
    assert "_runtime" not in imported("_abi")

