"""amp_mlir.compile: numpy in and out, levels, options, and errors that are
Python exceptions, never crashes."""

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import amp_mlir
from conftest import dense_reference


def inputs(rng):
    return (rng.uniform(-1, 1, (4, 8)).astype(np.float32),
            rng.uniform(-1, 1, (8, 3)).astype(np.float32),
            rng.uniform(-1, 1, 3).astype(np.float32))


def test_o0_matches_numpy(module_text, rng):
    m = amp_mlir.compile(module_text, level="O0")
    x, w, b = inputs(rng)
    y = m.dense(x, w, b)
    assert y.dtype == np.float32 and y.shape == (4, 3)
    np.testing.assert_allclose(y, dense_reference(x, w, b), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("dtype,bound", [("float16", 2e-3),
                                         ("bfloat16", 2e-2)])
def test_o2_is_low_precision_but_close(module_text, rng, dtype, bound):
    x, w, b = inputs(rng)
    exact = dense_reference(x, w, b)
    y = amp_mlir.compile(module_text, level="O2", dtype=dtype)["dense"](x, w,
                                                                        b)
    error = np.abs(y - exact).max()
    # Rounded inputs move the result: not bit-equal to fp32, yet close.
    assert 0 < error < bound


def test_fp8_quantizes_the_matmul(module_text, rng):
    """dtype='fp8': the matmul's operands in E4M3 with per-tensor scales,
    the rest in bf16: further from fp32 than bf16, still close."""
    x, w, b = inputs(rng)
    exact = dense_reference(x, w, b)
    m = amp_mlir.compile(module_text, level="O2", dtype="fp8")
    assert m.dense.low_precision_type == "fp8" and "O2 fp8" in repr(m)
    fp8 = np.abs(m.dense(x, w, b) - exact).max()
    bf16 = np.abs(amp_mlir.compile(module_text, level="O2", dtype="bf16")
                  .dense(x, w, b) - exact).max()
    assert bf16 < fp8 < 0.2


def test_o1_custom_black_list_keeps_fp32(module_text, rng):
    x, w, b = inputs(rng)
    o0 = amp_mlir.compile(module_text, level="O0").dense(x, w, b)
    # With matmul black-listed, nothing in @dense is computed in f16.
    kept = amp_mlir.compile(module_text, level="O1",
                            custom_black_list=["linalg.matmul"]).dense(x, w, b)
    np.testing.assert_array_equal(kept, o0)
    o1 = amp_mlir.compile(module_text, level="O1").dense(x, w, b)
    assert np.abs(o1 - o0).max() > 0


def test_several_results_and_functions(module_text):
    m = amp_mlir.compile(module_text, level="O2")
    assert m.function_names == ["dense", "two", "halves"]
    a = np.arange(5, dtype=np.float32)
    s, p = m["two"](a, a + 1)
    np.testing.assert_array_equal(s, 2 * a + 1)
    np.testing.assert_array_equal(p, a * (a + 1))
    # Lists and scalars convert to the argument's dtype.
    s, _ = m.two([1, 2, 3, 4, 5], [0.5] * 5)
    np.testing.assert_array_equal(s, [1.5, 2.5, 3.5, 4.5, 5.5])
    with pytest.raises(TypeError, match="3 functions"):
        m(a, a)


def test_f16_and_bf16_at_the_boundary(module_text):
    f = amp_mlir.compile(module_text, level="O0").halves
    assert [t.element for t in f.arguments] == ["f16", "bf16"]
    h = np.array([0.5, 1, 1.5, -2, 65504 / 2, 3e-5], dtype=np.float16)
    g = amp_mlir.to_bfloat16([0.5, 1, 1.5, -2, 1.0e38, 1e-3])
    h2, g2 = f(h, g)
    # bf16 results: ml_dtypes.bfloat16 where installed, else uint16 bits.
    try:
        import ml_dtypes
        bf16 = np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        bf16 = np.dtype(np.uint16)
    assert h2.dtype == np.float16 and g2.dtype == bf16
    np.testing.assert_array_equal(h2, h + h)
    np.testing.assert_array_equal(amp_mlir.from_bfloat16(g2),
                                  2 * amp_mlir.from_bfloat16(g))


def test_signature_errors_are_exceptions(module_text):
    f = amp_mlir.compile(module_text, level="O2").dense
    x = np.zeros((4, 8), np.float32)
    w = np.zeros((8, 3), np.float32)
    b = np.zeros(3, np.float32)
    with pytest.raises(amp_mlir.SignatureError,
                       match=r"takes 3 arguments, got 2(.|\n)*expected: "
                             r"@dense\(tensor<4x8xf32>"):
        f(x, w)
    with pytest.raises(TypeError, match="argument #0 has dtype float64"):
        f(x.astype(np.float64), w, b)
    with pytest.raises(TypeError, match=r"argument #1 has shape \(3, 8\)"):
        f(x, w.T.copy(), b)
    with pytest.raises(TypeError, match="cannot be converted"):
        f(x, w, "bias")
    halves = amp_mlir.compile(module_text, level="O0").halves
    with pytest.raises(TypeError, match="to_bfloat16"):
        halves(np.zeros(6, np.float16), np.zeros(6, np.float32))


def test_non_contiguous_inputs_are_copied(module_text, rng):
    x, w, b = inputs(rng)
    f = amp_mlir.compile(module_text, level="O0").dense
    wt = np.asfortranarray(w)
    np.testing.assert_array_equal(f(x, wt, b), f(x, w, b))


ZERO_COPY = """
#id = affine_map<(d0) -> (d0)>
func.func @update(%x: tensor<6xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0 : index
  %v = arith.constant -1.0 : f32
  %0 = tensor.insert %v into %x[%c0] : tensor<6xf32>
  return %0 : tensor<6xf32>
}
func.func @double(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<6xf32>) outs(%x : tensor<6xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
func.func @same(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  return %x, %x : tensor<6xf32>, tensor<6xf32>
}
func.func @twice(%x: tensor<6xbf16>) -> (tensor<6xbf16>, tensor<6xbf16>) {
  %0 = arith.addf %x, %x : tensor<6xbf16>
  return %0, %0 : tensor<6xbf16>, tensor<6xbf16>
}
"""


def test_cpu_calls_read_inputs_in_place_and_hand_over_results():
    """On the CPU a call copies nothing: the compiled code reads the
    caller's arrays and does not write them (amp-read-only-arguments), and
    each result is the buffer the code returned. What the runner must
    copy is a buffer returned as two results."""
    m = amp_mlir.compile(ZERO_COPY, level="O0", target="cpu")
    x = np.arange(6, dtype=np.float32)
    before = x.copy()
    # Updates of an argument, in place in the IR, leave the caller's alone.
    y = m.update(x)
    np.testing.assert_array_equal(y, [-1, 1, 2, 3, 4, 5])
    z = m.double(x)
    np.testing.assert_array_equal(z, 2 * before)
    np.testing.assert_array_equal(x, before)
    assert not np.shares_memory(y, x) and not np.shares_memory(z, x)
    assert y.flags.writeable and y.flags.c_contiguous
    for name in ("update", "double"):
        assert m[name].host_copies() == {"calls": 1, "input_bytes": 0,
                                         "result_bytes": 0}
    # An argument returned (twice) comes back as copies that the compiled
    # code made (the deallocation pipeline clones what the function does
    # not own), not the caller's array.
    a, b = m.same(x)
    np.testing.assert_array_equal(a, x)
    assert not np.shares_memory(a, x) and not np.shares_memory(a, b)
    assert m.same.host_copies()["result_bytes"] == 0
    # One buffer of the function's returned twice: the runner copies it into
    # two arrays of their own (bf16 too).
    h = amp_mlir.to_bfloat16([0.5, 1, 1.5, -2, 3, 4])
    p, q = m.twice(h)
    assert not np.shares_memory(p, q)
    np.testing.assert_array_equal(amp_mlir.from_bfloat16(p),
                                  2 * amp_mlir.from_bfloat16(h))
    assert m.twice.host_copies()["result_bytes"] == 2 * 6 * 2
    # A result outlives the call, the function and the module; its buffer
    # goes back with the last array that views it.
    view = z[2:]
    del m, z
    import gc
    gc.collect()
    np.testing.assert_array_equal(view, 2 * before[2:])
    view[0] = 7
    assert view[0] == 7


def test_converted_arguments_are_the_copies_counted(module_text, rng):
    x, w, b = inputs(rng)
    f = amp_mlir.compile(module_text, level="O2", dtype="float16",
                         arg_precision="low").dense
    f(x, w, b)
    f(x, w, b)
    # Each call's f32 arguments are rounded into f16 copies: the only
    # copies of a CPU call.
    assert f.host_copies() == {
        "calls": 2, "input_bytes": 2 * (x.nbytes + w.nbytes + b.nbytes),
        "result_bytes": 0}


def test_compile_errors(module_text, tmp_path):
    with pytest.raises(amp_mlir.AmpError, match=r"<string>:1:\d+: error"):
        amp_mlir.compile("func.func @f( {\n", level="O1")
    with pytest.raises(FileNotFoundError):
        amp_mlir.compile(str(tmp_path / "missing.mlir"))
    with pytest.raises(ValueError, match="unknown level"):
        amp_mlir.compile(module_text, level="O3")
    with pytest.raises(ValueError, match="unknown dtype"):
        amp_mlir.compile(module_text, dtype="float4")
    with pytest.raises(ValueError, match="unknown target"):
        amp_mlir.compile(module_text, target="tpu")
    with pytest.raises(ValueError, match="not an op name"):
        amp_mlir.compile(module_text, custom_black_list=["a b"])
    m = amp_mlir.compile(module_text, level="O1")
    with pytest.raises(KeyError, match="no function '@nope'"):
        m["nope"]
    with pytest.raises(AttributeError, match="functions: dense, two, halves"):
        m.nope
    # Options the pipeline rejects are a ValueError with its message, at
    # compile().
    with pytest.raises(ValueError, match="custom-white-list"):
        amp_mlir.compile(module_text, level="O1",
                         custom_white_list=["linalg.matmul"],
                         custom_black_list=["linalg.matmul"])
    # Unsupported signatures are reported when the function is compiled.
    unsigned = "func.func @u(%a: tensor<2xui8>) -> tensor<2xui8> {\n" \
               "  return %a : tensor<2xui8>\n}\n"
    with pytest.raises(amp_mlir.AmpError, match="ranked tensors with f32"):
        amp_mlir.compile(unsigned).u


def test_dynamic_shapes(repo):
    """`?` dimensions take the call's sizes; several results, i64, weights in
    an ml_program global, a strided slice (memrefCopy in the JIT)."""
    path = repo / "test" / "amp-run" / "Inputs" / "frontend-signature.mlir"
    w = np.array([[1, 2, 3], [0.5, -1, 0.25], [-2, 1.5, 1], [0, 1, -0.5]],
                 np.float32)
    for level in ("O0", "O2"):
        f = amp_mlir.compile(path, level=level).main
        assert f.signature == ("@main(tensor<?x4xf32>, tensor<?xi64>) -> "
                               "(tensor<?x3xf32>, tensor<?x2xf32>, "
                               "tensor<?xi64>)")
        assert f.arguments[0].shape == (None, 4)
        for batch in (1, 5, 0):
            x = np.arange(batch * 4, dtype=np.float32).reshape(batch, 4) / 8
            i = np.arange(batch + 1, dtype=np.int64) - 3
            y, s, j = f(x, i)
            assert y.shape == (batch, 3) and s.shape == (batch, 2)
            assert j.dtype == np.int64 and (j == i + 1).all()
            tolerance = 1e-6 if level == "O0" else 1e-2
            assert np.allclose(y, x @ w, rtol=tolerance, atol=tolerance)
        assert f.time(x, i, repeat=2) > 0
    with pytest.raises(amp_mlir.SignatureError,
                       match=r"argument #0 has shape \(2, 3\), expected "
                             r"\(None, 4\) for tensor<\?x4xf32>"):
        f(np.zeros((2, 3), np.float32), i)


def test_module_from_path_and_time(repo, rng):
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    m = amp_mlir.compile(path, level="O2", entries=["classifier_loss"])
    f = m.classifier_loss
    args = [rng.uniform(-1, 1, t.shape).astype(t.dtype) for t in f.arguments]
    probabilities, loss = m(*args)
    assert probabilities.shape == (1, 8, 4) and loss.shape == (1, 1, 1)
    np.testing.assert_allclose(probabilities.sum(-1), 1, rtol=2e-3)
    assert f.time(*args, repeat=3) > 0
    assert "@classifier_loss(tensor<1x8x16xf32>" in f.signature


def test_policy_file_dtype_applies_unless_dtype_given(module_text, tmp_path):
    policy = tmp_path / "h100.json"
    policy.write_text('{"dtype": "bf16"}')
    m = amp_mlir.compile(module_text, level="O2", policy_file=policy)
    assert m.dense.low_precision_type == "bf16"
    m = amp_mlir.compile(module_text, level="O2", dtype="float16",
                         policy_file=policy)
    assert m.dense.low_precision_type == "f16"
    assert amp_mlir.compile(module_text).dense.low_precision_type == "f16"
    assert amp_mlir.compile(module_text,
                            level="O0").dense.low_precision_type is None
    tosa = Path(__file__).parents[2] / "examples" / "tosa_mlp_classifier.mlir"
    assert amp_mlir.report(tosa, policy_file=policy)[
        "low_precision_type"] == "bf16"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_arg_precision_low_takes_float32_inputs(module_text, rng, dtype):
    # The compiled @dense takes f16 (bf16) x and w; it is still called with
    # float32 arrays, rounded to nearest even at the call, which is what the
    # per-call conversion of arg-precision=keep computes when every op
    # rounds (rounding once, keep's conversions fused into a loop nest are
    # not rounded at all).
    x, w, b = inputs(rng)
    low = amp_mlir.compile(module_text, level="O2", dtype=dtype,
                           arg_precision="low", rounding="per-op")
    keep = amp_mlir.compile(module_text, level="O2", dtype=dtype,
                            rounding="per-op")
    assert [str(t) for t in low.dense.arguments] == [
        "tensor<4x8xf32>", "tensor<8x3xf32>", "tensor<3xf32>"]
    np.testing.assert_array_equal(low.dense(x, w, b), keep.dense(x, w, b))
    # The module itself takes the low type, and converts nothing per call
    # but its result.
    element = "f16" if dtype == "float16" else "bf16"
    text = amp_mlir.transform(module_text, level="O2", dtype=dtype,
                              arg_precision="low")
    assert (f"func.func @dense(%arg0: tensor<4x8x{element}>, "
            f"%arg1: tensor<8x3x{element}>") in text
    assert (amp_mlir.report(module_text, level="O2", dtype=dtype,
                            arg_precision="low")["bytes_converted"]
            < amp_mlir.report(module_text, level="O2",
                              dtype=dtype)["bytes_converted"])


def test_arg_precision_errors(module_text):
    with pytest.raises(ValueError, match="arg_precision must be 'keep' or "
                       "'low', got 'half'"):
        amp_mlir.compile(module_text, level="O2", arg_precision="half")
    # The raw option reaches amp-opt's validation, at compile().
    with pytest.raises(ValueError,
                       match="arg-precision must be keep or low, got 'x'"):
        amp_mlir.compile(module_text, level="O2",
                         amp_options="arg-precision=x")


OVERFLOW = """
func.func @square(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = arith.constant dense<300.0> : tensor<8xf32>
  %y = arith.mulf %x, %c : tensor<8xf32>
  %z = arith.mulf %y, %y : tensor<8xf32>
  return %z : tensor<8xf32>
}
"""


def test_check_nan_inf_names_the_first_op():
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    # Rounding per-op, the f16 products overflow; rounding once, the chain
    # is one loop nest computed in f32 and its f32 result is finite.
    plain = amp_mlir.compile(OVERFLOW, level="O2", rounding="per-op")
    assert np.isinf(plain.square(x)).any()
    assert np.isfinite(amp_mlir.compile(OVERFLOW, level="O2").square(x)).all()
    # The checks look at every op's rounded result: they compile per-op.
    with pytest.raises(amp_mlir.AmpError, match="rounding once"):
        amp_mlir.compile(OVERFLOW, level="O2", check_nan_inf=True,
                         rounding="once").square(x)
    checked = amp_mlir.compile(OVERFLOW, level="O2", check_nan_inf=True)
    with pytest.raises(amp_mlir.AmpError,
                       match=r"first Inf or NaN was produced by 'arith.mulf' "
                             r"at .*:5:8"):
        checked.square(x)
    # Finite values pass the checks, and so does bf16 (fp32's range).
    np.testing.assert_array_equal(checked.square(x * 0.1),
                                  plain.square(x * 0.1))
    bf16 = amp_mlir.compile(OVERFLOW, level="O2", dtype="bf16",
                            check_nan_inf="all")
    assert np.isfinite(bf16.square(x)).all()


def test_check_nan_inf_errors():
    with pytest.raises(ValueError, match="check_nan_inf must be"):
        amp_mlir.compile(OVERFLOW, check_nan_inf="some")
    with pytest.raises(ValueError, match="CPU only"):
        amp_mlir.compile(OVERFLOW, check_nan_inf=True, target="gpu")


EXP = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = math.exp %x : tensor<2xf32>
  return %y : tensor<2xf32>
}"""


def test_bad_options_raise_at_compile():
    # A misspelt op name or option is a ValueError with amp-opt's message at
    # compile(), not an error at the first call of a function (nor a
    # message on the raw stderr).
    with pytest.raises(ValueError, match="unknown operation 'math.expo' in "
                                         "custom-black-list"):
        amp_mlir.compile(EXP, custom_black_list=["math.expo"])
    with pytest.raises(ValueError, match="no such option dtyp"):
        amp_mlir.compile(EXP, amp_options="dtyp=bf16")
    # Valid options are accepted. O0 reads no option's value, but the text
    # is parsed where it enters: an unknown option fails at any level.
    m = amp_mlir.compile(EXP, custom_black_list=["math.exp"])
    assert m.f(np.zeros(2, np.float32)).tolist() == [1.0, 1.0]
    amp_mlir.compile(EXP, level="O0", amp_options="placement=best")
    with pytest.raises(ValueError, match="no such option dtyp"):
        amp_mlir.compile(EXP, level="O0", amp_options="dtyp=bf16")


def test_paths_with_mlir_characters_are_paths(tmp_path):
    # "net(v2).mlir" has a '(' but names a file: it is read, not parsed.
    path = tmp_path / "net(v2).mlir"
    path.write_text(EXP)
    m = amp_mlir.compile(str(path), level="O0")
    assert m.name == str(path)
    assert m.f(np.zeros(2, np.float32)).tolist() == [1.0, 1.0]
    with pytest.raises(FileNotFoundError, match="no such module file"):
        amp_mlir.compile(str(tmp_path / "missing(v3).mlir"))
    # One-line MLIR text is still text.
    one_line = EXP.replace("\n", " ")
    assert amp_mlir.compile(one_line, level="O0").name == "<string>"


@pytest.mark.parametrize("level", ["O1", "O2"])
@pytest.mark.parametrize("placement", ["greedy", "optimal"])
def test_f64_layer_norm_demoted_whole(repo, rng, level, placement):
    """torch-mlir's layer norm computes its variance in f64 (a generic that
    widens with arith.extf, f64 generics, arith.truncf back). In this
    library (not amp-opt) its demotion to f32 once left the widening
    generic's body in f64 and, at O1 with greedy placement, invalid IR."""
    path = (repo / "test" / "Dialect" / "Amp" / "Transforms" / "Inputs" /
            "torch-layer-norm.mlir")
    x = rng.uniform(-1, 1, (2, 4, 8)).astype(np.float32)
    exact = amp_mlir.compile(path, level="O0").main(x)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        y = amp_mlir.compile(path, level=level, dtype="bf16",
                             placement=placement, explain=True).main(x)
    np.testing.assert_allclose(y, exact, rtol=0.05, atol=0.05)
    # The whole chain, its entry the extf of the widening generic, as with
    # amp-opt.
    demoted = [str(w.message) for w in record
               if "f64 computation demoted" in str(w.message)]
    assert any(m.startswith(f"{path}:18:13: ") and "(29 ops" in m
               for m in demoted), demoted


def test_enumerated_keywords_use_the_one_table(module_text):
    # The accepted values come from the C++ spelling table (the C API), and
    # a wrong value is a ValueError naming the keyword and those values.
    from amp_mlir import _capi
    assert _capi.option_values("placement") == ["auto", "optimal", "greedy",
                                                "autocast"]
    with pytest.raises(ValueError, match=r"placement must be 'auto', "
                       r"'optimal', 'greedy' or 'autocast', got 'best'"):
        amp_mlir.compile(module_text, level="O1", placement="best")
    with pytest.raises(ValueError, match=r"loss_scaling must be 'auto', 'on' "
                       r"or 'off', got 'maybe'"):
        amp_mlir.build_amp_options(loss_scaling="maybe")
    with pytest.raises(ValueError, match=r"use_fp16_guard must be None, "
                       r"True, False or one of 'true', 'false' or 'auto'"):
        amp_mlir.transform(module_text, use_fp16_guard="yes")
    with pytest.raises(ValueError, match=r"unknown target 'tpu': expected "
                       r"'cpu', 'gpu' or 'gpu-sim'"):
        amp_mlir.compile(module_text, target="tpu")
    with pytest.raises(ValueError, match=r"unknown level 'O3': expected "
                       r"'O0', 'O1' or 'O2'"):
        amp_mlir.compile(module_text, level="O3")
    with pytest.raises(ValueError, match="is not an enumerated option"):
        _capi.option_values("custom-white-list")
    # Every enumerated option of the pipelines is listed (Options.h's
    # AmpEnumeratedOptions), the FP8 recipe's too.
    assert _capi.option_values("fp8-format") == ["e4m3", "hybrid", "e5m2"]
    assert _capi.option_values("fp8-amax-compute") == ["max", "most_recent"]
    assert _capi.option_values("calibration-fallback") == ["f32", "bf16"]


def test_dtype_spellings_come_from_the_one_table():
    # Every alias of the C++ table (Options.h), and fp8's, with its value;
    # dtype's keyword reads them, in any case.
    from amp_mlir import _capi
    from amp_mlir.dtypes import low_precision_name
    spellings = _capi.option_spellings("dtype")
    assert spellings == {"f16": "f16", "bf16": "bf16", "fp16": "f16",
                         "float16": "f16", "half": "f16", "bfloat16": "bf16",
                         "fp8": "fp8", "float8": "fp8"}
    assert _capi.option_spellings("rounding") == {"once": "once",
                                                  "per-op": "per-op"}
    assert low_precision_name("Half") == "f16"
    assert low_precision_name("BFloat16") == "bf16"
    assert low_precision_name("FLOAT8") == "fp8"
    with pytest.raises(ValueError, match="unknown dtype 'f32': expected one "
                       "of bf16, bfloat16, f16, float16, float8, fp16, fp8, "
                       "half"):
        low_precision_name("f32")
    with pytest.raises(ValueError, match="is not an enumerated option"):
        _capi.option_spellings("custom-black-list")


def test_options_are_checked_in_process(module_text, monkeypatch):
    # compile() validates through the C API: no amp-opt subprocess, and the
    # message is the located one of the check.
    import subprocess

    def no_subprocess(*args, **kwargs):
        raise AssertionError(f"compile() ran a subprocess: {args[0]}")

    monkeypatch.setattr(subprocess, "run", no_subprocess)
    with pytest.raises(ValueError, match=r"invalid AMP options \(placement="
                       r"greedy loss-scaling=maybe\): .*error: amp: "
                       r"loss-scaling must be auto, on or off, got 'maybe'"):
        amp_mlir.compile(module_text, level="O1", placement="greedy",
                         amp_options="loss-scaling=maybe")
    with pytest.raises(ValueError, match="unknown operation 'math.expo' in "
                                         "custom-black-list"):
        amp_mlir.compile(module_text, custom_black_list=["math.expo"])
    m = amp_mlir.compile(module_text, level="O1", placement="greedy",
                         arg_precision="keep")
    s, p = m.two(np.ones(5, np.float32), np.ones(5, np.float32))
    assert s.tolist() == [2.0] * 5 and p.tolist() == [1.0] * 5


def test_module_is_compiled_once(module_text):
    # The first use of a function compiles every function that can be, in
    # one run of the pipelines and one JIT; the others are then ready.
    m = amp_mlir.compile(module_text, level="O2")
    assert m._functions == {}
    m.two
    assert sorted(m._functions) == ["dense", "halves", "two"]
    halves = m._functions["halves"]
    assert m.halves is halves
    # A function that cannot be compiled keeps its own error, and does not
    # keep the others from compiling.
    bad = module_text + """
func.func @u(%a: tensor<2xui8>) -> tensor<2xui8> {
  return %a : tensor<2xui8>
}"""
    m = amp_mlir.compile(bad, level="O1")
    with pytest.raises(amp_mlir.AmpError, match="@u"):
        m.u
    assert m.dense is m._functions["dense"]
    assert sorted(m._functions) == ["dense", "halves", "two"]


def test_capi_shares_mlir_type_ids(repo):
    """libAmpRunnerCAPI must share libMLIR's TypeIDs (lib/CAPI/CMakeLists.txt).
    With its own hidden copies, the FloatType interface of amp.cast's
    verifier did not match f16 there, and this example, which amp-opt
    parses, failed to parse through the C API ("'amp.cast' op operand #0
    must be floating-point-like")."""
    path = repo / "examples" / "amp_training_step.mlir"
    m = amp_mlir.compile(path, level="O0")
    assert m.function_names == ["train_step"]


def test_cpu_options_choose_the_lowering(module_text):
    # cpu_options are --lower-to-cpu's options: libraries=false keeps the
    # generated loops, where the default calls the CPU library's GEMM (the
    # library-call pass is in the pipeline's pass report only then).
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32)
    b = np.zeros(3, np.float32)
    library = amp_mlir.compile(module_text, level="O2", timing="passes",
                               entries=["dense"])
    loops = amp_mlir.compile(module_text, level="O2", timing="passes",
                             entries=["dense"],
                             cpu_options="libraries=false")
    assert "AmpLinalgToLibraryCallsPass" in library.timing.pass_report
    assert "AmpLinalgToLibraryCallsPass" not in loops.timing.pass_report
    np.testing.assert_allclose(loops.dense(x, w, b), library.dense(x, w, b),
                               rtol=1e-2, atol=1e-2)
    # The same options as a dict of typed values: the C API's setters.
    typed = amp_mlir.compile(module_text, level="O2", timing="passes",
                             entries=["dense"],
                             cpu_options={"libraries": False})
    assert "AmpLinalgToLibraryCallsPass" not in typed.timing.pass_report
    np.testing.assert_array_equal(typed.dense(x, w, b), loops.dense(x, w, b))
    # A bad option fails at compile(), naming the option.
    with pytest.raises(ValueError, match=r"^cpu_options: libraries must be "
                       r"true or false, got 'maybe'$"):
        amp_mlir.compile(module_text, cpu_options="libraries=maybe")
    with pytest.raises(ValueError, match=r"^cpu_options: unknown option "
                       r"'no-such-option' of the CPU lowering; it has "
                       r"c-interface, "):
        amp_mlir.compile(module_text, level="O0",
                         cpu_options="no-such-option=1")
    with pytest.raises(ValueError, match=r"^cpu_options: libraries takes a "
                       r"bool, not an integer$"):
        amp_mlir.compile(module_text, cpu_options={"libraries": 1})
    with pytest.raises(ValueError, match=r"^cpu_options: split-reductions "
                       r"must be an integer, got 'many'$"):
        amp_mlir.compile(module_text, cpu_options="split-reductions=many")
    with pytest.raises(ValueError, match="target='gpu-sim' does not read"):
        amp_mlir.compile(module_text, target="gpu-sim",
                         cpu_options="libraries=false")
    with pytest.raises(ValueError, match="cpu_options must be a dict"):
        amp_mlir.compile(module_text, cpu_options=["libraries=false"])


def test_lowering_options_are_listed_with_their_kinds():
    # The C API's table, made from the one declaration of each option.
    gpu = amp_mlir.lowering_options("gpu")
    assert list(gpu)[:3] == ["chip", "features", "format"]
    assert gpu["chip"] == "string" and gpu["libraries"] == "bool"
    assert gpu["block-size"] == "integer"
    cpu = amp_mlir.lowering_options("cpu")
    assert cpu["split-reductions"] == "integer" and "chip" not in cpu
    with pytest.raises(ValueError, match="unknown lowering 'tpu'"):
        amp_mlir.lowering_options("tpu")


def test_the_c_enums_follow_the_spelling_tables():
    # _capi's mirrors of the C enums are the tables' order, as the C API's
    # static_asserts check on its side.
    from amp_mlir import _capi
    assert list(_capi.LEVELS) == _capi.option_values("level")
    assert list(_capi.TARGETS) == _capi.option_values("target")
    assert list(_capi.ROUNDINGS) == _capi.option_values("rounding")
    assert list(_capi.DTYPES)[:2] == _capi.option_values("dtype")
    assert list(_capi.CHECK_NAN_INF)[1:] == \
        _capi.option_values("check-nan-inf")
    options = _capi.Options()
    with pytest.raises(ValueError, match="7 is not a value of level"):
        options.set("SetLevel", 7)
    with pytest.raises(ValueError, match="chip 'volta' is not of the form"):
        options.set("SetLoweringString", _capi.LOWERINGS["gpu"], b"chip",
                    b"volta")


def test_timing_reports_each_stage(module_text):
    # compile(timing=True) compiles at once and says what each stage took,
    # as amp-run --timing does; 'passes' adds the per-pass reports.
    m = amp_mlir.compile(module_text, level="O2", timing=True)
    assert sorted(m._functions) == ["dense", "halves", "two"]
    names = [name for name, _, _ in m.timing.stages]
    assert names == ["parse", "AMP passes", "lowering", "LLVM IR translation",
                     "LLVM optimization", "machine code"]
    assert all(wall >= 0 and cpu >= 0 for _, wall, cpu in m.timing.stages)
    assert m.timing.total == pytest.approx(
        sum(wall for _, wall, _ in m.timing.stages))
    assert m.timing.llvm_opt_level in (1, 2)
    assert m.timing.largest_function > 0
    assert m.timing.pass_report == ""
    text = str(m.timing)
    assert text.splitlines()[1].split() == ["stage", "wall", "CPU"]
    assert "\nLLVM optimization " in text and "\ntotal " in text
    # O0 runs no AMP passes.
    o0 = amp_mlir.compile(module_text, level="O0", timing=True)
    assert "AMP passes" not in [name for name, _, _ in o0.timing.stages]
    passes = amp_mlir.compile(module_text, level="O2", timing="passes",
                              entries=["dense"])
    assert "AmpPrecisionPipelinePass" in passes.timing.pass_report
    assert "Pass execution timing report" in passes.timing.pass_report
    # Without timing=True, the stages are recorded at the first compilation.
    lazy = amp_mlir.compile(module_text, level="O2")
    assert lazy.timing is None
    lazy.dense
    assert lazy.timing.stages[0][0] == "parse"
    for bad in ("all", 1, 0.5):
        with pytest.raises(ValueError, match="timing must be"):
            amp_mlir.compile(module_text, timing=bad)


def test_amp_options_are_typed_from_the_one_table():
    # The AMP pipeline's options by name with their kinds, from the C API's
    # table of their declarations (amp-tblgen, PassOptions.td); the keywords
    # of compile() are options of that table.
    kinds = amp_mlir.amp_option_kinds()
    assert list(kinds)[0] == "dtype"
    assert kinds["explain"] == "bool"
    assert kinds["custom-black-list"] == "strings"
    assert kinds["calibration-margin"] == "float"
    assert kinds["fp8-amax-history-len"] == "integer"
    for name in ("custom-white-list", "use-fp16-guard", "placement",
                 "policy-file", "loss-scaling", "arg-precision", "calibration"):
        assert kinds[name] in ("string", "strings"), name
    # A dict sets each option through the setter of its kind, as the text
    # does through the pipeline's parser.
    typed = amp_mlir.transform(EXP, amp_options={
        "custom-black-list": ["math.exp"], "placement": "greedy"})
    text = amp_mlir.transform(
        EXP, amp_options="custom-black-list=math.exp placement=greedy")
    assert typed == text
    report = amp_mlir.report(EXP, amp_options={
        "custom-black-list": ["math.exp"]})
    assert [d["reason"] for d in report["decisions"]
            if d["op"] == "math.exp"] == ["custom black list"]
    with pytest.raises(ValueError, match="explain takes a bool, not an "
                                         "integer"):
        amp_mlir.compile(EXP, amp_options={"explain": 1})
    with pytest.raises(ValueError, match="unknown option 'dtyp' of the AMP "
                                         "pipeline"):
        amp_mlir.compile(EXP, amp_options={"dtyp": "bf16"})


STRIDED_SLICE = """
func.func @f(%x: tensor<4x4xf32>) -> tensor<2x2xf32> {
  %0 = tensor.extract_slice %x[0, 1] [2, 2] [2, 2]
      : tensor<4x4xf32> to tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
"""


def test_compile_keeps_llvm_out_of_the_global_namespace():
    # MLIR's C runner utilities, which compiled code may call (memrefCopy),
    # link LLVM 22's and MLIR's shared libraries. Opened RTLD_GLOBAL (as the
    # ExecutionEngine opens its sharedLibPaths) they put LLVM's symbols in
    # the process's global namespace, and another LLVM loaded afterwards
    # binds to them: `import torchvision` (which imports triton) after a
    # compile crashed in triton's static constructors. In a fresh process:
    code = textwrap.dedent(f"""
        import ctypes
        import numpy as np
        import amp_mlir
        m = amp_mlir.compile({STRIDED_SLICE!r}, level="O0")
        x = np.arange(16, dtype=np.float32).reshape(4, 4)
        print(m["f"](x).tolist())
        print(hasattr(ctypes.CDLL(None), "LLVMContextCreate"))
    """)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[[1.0, 3.0], [9.0, 11.0]]",
                                             "False"]
