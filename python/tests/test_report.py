"""amp_mlir.report, amp_mlir.transform and amp_mlir.precision_graph
(in-process, through the C API's ampRunnerModuleTransform)."""

import json
import shutil

import pytest

import amp_mlir
from amp_mlir import _capi


def test_report_counts_follow_the_level(repo):
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    o0 = amp_mlir.report(path, level="O0")
    o1 = amp_mlir.report(path, level="O1")
    o2 = amp_mlir.report(path, level="O2")
    assert o0["low_precision_ops"] == 0 and o0["casts"] == 0
    assert o1["title"] == "amp-o1" and o2["title"] == "amp-o2"
    assert 0 < o1["low_precision_ops"] < o2["low_precision_ops"]
    assert o1["float_ops"] == o2["float_ops"] == o0["float_ops"]
    assert o1["low_precision_type"] == "f16"
    assert amp_mlir.report(path, dtype="bf16")["low_precision_type"] == "bf16"
    # Optimal placement never converts more than one cast per use.
    assert o1["bytes_converted"] <= o1["per_use_bytes_converted"]


def test_report_counts_fp8(repo):
    # A 64x128 by 128x96 linear: both operands quantized, one byte each.
    path = repo / "test" / "amp-run" / "Inputs" / "linear.mlir"
    fp8 = amp_mlir.report(path, level="O2", dtype="fp8")
    bf16 = amp_mlir.report(path, level="O2", dtype="bf16")
    assert fp8["fp8_quantizations"] == 2
    assert fp8["fp8_bytes"] == 64 * 128 + 128 * 96
    assert bf16["fp8_quantizations"] == 0 and bf16["fp8_bytes"] == 0
    # The recipe's scales are not model ops; the weight's transpose to
    # cuBLASLt's TN layout moves data, in FP8; the matmul becomes one
    # amp.scaled_matmul, which overwrites its destination: the zero fill
    # goes.
    assert fp8["float_ops"] == bf16["float_ops"]
    assert bf16["ops"]["linalg.fill"] == {"f32": 1}
    assert "linalg.fill" not in fp8["ops"]
    assert "linalg.matmul" not in fp8["ops"]
    assert fp8["ops"]["amp.scaled_matmul"] == {"f8E4M3FN": 1}
    assert fp8["ops"]["linalg.transpose"] == {"f8E4M3FN": 1}
    stage = [d for d in fp8["decisions"]
             if d["reason"].startswith("FP8 stage: ")]
    assert [(d["op"], d["precision"]) for d in stage] == [
        ("amp.scaled_matmul", "f8E4M3FN")]


def test_report_black_list(repo):
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    base = amp_mlir.report(path, level="O1")
    black = amp_mlir.report(path, level="O1",
                            custom_black_list=["tosa.matmul"])
    assert black["low_precision_ops"] < base["low_precision_ops"]


def test_transform(module_text):
    o2 = amp_mlir.transform(module_text, level="O2")
    o0 = amp_mlir.transform(module_text, level="O0")
    # @halves is f16/bf16 as written; O2 adds the matmul's f16 operands.
    assert "tensor<4x8xf16>, tensor<8x3xf16>) outs(" in o2
    assert "tensor<4x8xf16>" not in o0
    lowered = amp_mlir.transform(module_text, level="O2", lower="cpu")
    assert "llvm.func @_mlir_ciface_dense" in lowered
    with pytest.raises(amp_mlir.AmpError, match="cannot parse <string>") \
            as error:
        amp_mlir.transform("func.func @f(", level="O1")
    # The parser's error, located.
    assert error.value.location.startswith("<string>:1:")
    assert [d.severity for d in error.value.diagnostics] == ["error"]
    with pytest.raises(ValueError, match="lower must be"):
        amp_mlir.transform(module_text, lower="tpu")


def test_build_amp_options(tmp_path):
    policy = tmp_path / "p.json"
    policy.write_text("{}")
    text = amp_mlir.build_amp_options(["math.tanh"], "tosa.exp", False,
                                      "greedy", policy, "off")
    assert text == ("custom-white-list=math.tanh custom-black-list=tosa.exp "
                    f"use-fp16-guard=false placement=greedy "
                    f"policy-file={policy} loss-scaling=off")
    with pytest.raises(ValueError, match="use_fp16_guard"):
        amp_mlir.build_amp_options(use_fp16_guard="yes")


def test_precision_graph(repo, tmp_path):
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    o0 = amp_mlir.precision_graph(path, level="O0")
    o2 = amp_mlir.precision_graph(path, level="O2", path=tmp_path / "g.dot")
    assert o0.startswith("digraph") and o2.startswith("digraph")
    assert (tmp_path / "g.dot").read_text() == o2
    # Written as is, no op is filled f16 (orange) and there is no
    # conversion (hexagon); at O2 there are both.
    f16_fill = 'fillcolor="#fdae6b"'
    assert f16_fill not in o0 and "shape=hexagon," not in o0
    assert o2.count(f16_fill) >= 10 and "shape=hexagon," in o2
    with pytest.raises(ValueError, match="cannot write a graph"):
        amp_mlir.precision_graph(path, path=tmp_path / "g.txt")


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs graphviz")
def test_precision_graph_svg(repo, tmp_path):
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    amp_mlir.precision_graph(path, level="O1", path=tmp_path / "g.svg")
    assert "<svg" in (tmp_path / "g.svg").read_text()


def test_report_decisions_are_explain_per_op(repo):
    # explain=true's remarks, as data: one entry per decided op with its
    # location, precision and reason.
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    decisions = amp_mlir.report(path, level="O1")["decisions"]
    matmuls = [d for d in decisions if d["op"] == "tosa.matmul"]
    assert [d["precision"] for d in matmuls] == ["f16", "f16"]
    assert all(d["reason"] == "white list" for d in matmuls)
    assert all(d["location"].startswith(str(path)) or
               "tosa_mlp_classifier.mlir:" in d["location"] for d in matmuls)
    exp = [d for d in decisions if d["op"] == "tosa.exp"]
    assert exp and exp[0]["precision"] == "f32" and exp[0]["reason"] == "black list"


def test_transform_matches_amp_opt(repo, module_text):
    """The in-process transformation prints what amp-opt prints."""
    import subprocess
    amp_opt = amp_mlir.find_root() / "bin" / "amp-opt"
    for level, flag in (("O0", []), ("O2", ["--amp-o2=dtype=bf16"])):
        expected = subprocess.run([str(amp_opt), "-", *flag], input=module_text,
                                  capture_output=True, text=True,
                                  check=True).stdout
        assert amp_mlir.transform(module_text, level=level,
                                  dtype="bf16") == expected


def test_capi_transform_outputs_and_located_errors(module_text):
    """C API v7 (v9 now): ampRunnerModuleTransform gives the module, the report or
    the graph, and its errors as located diagnostics in
    ampRunnerGetLastDiagnostics()."""
    lib = _capi.lib()
    assert lib.ampRunnerGetApiVersion() == 15 == _capi.API_VERSION
    data = module_text.encode()
    module = lib.ampRunnerModuleParse(data, len(data), b"dense.mlir")
    assert module
    try:
        options = _capi.compile_options({"level": "O1"})
        text = lib.ampRunnerModuleTransform(module, options, 0,
                                            _capi.TRANSFORM_MODULE)
        assert b"func.func @dense" in text
        report = json.loads(lib.ampRunnerModuleTransform(
            module, options, 0, _capi.TRANSFORM_REPORT))
        assert report["title"] == "amp-o1"
        graph = lib.ampRunnerModuleTransform(
            module, options, 0, _capi.TRANSFORM_GRAPH)
        assert graph.startswith(b"digraph")
        lowered = lib.ampRunnerModuleTransform(
            module, _capi.compile_options({"level": "O0"}), 1,
            _capi.TRANSFORM_MODULE)
        assert b"llvm.func @dense" in lowered
        assert lib.ampRunnerModuleTransform(module, options, 0,
                                            7) is None
        assert "unknown output 7" in _capi.last_error()
    finally:
        lib.ampRunnerModuleDestroy(module)
    # A function of the training convention without an optimizer: the
    # training stage of O2 fails at the function.
    bad = (b'func.func @step(%p: tensor<2xf32> {amp.param = "p"}, '
           b'%s: tensor<f32> {amp.loss_seed})\n'
           b'    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}) {\n'
           b'  return %s, %p : tensor<f32>, tensor<2xf32>\n}\n')
    module = lib.ampRunnerModuleParse(bad, len(bad), b"step.mlir")
    try:
        options = _capi.compile_options({"level": "O2"})
        assert lib.ampRunnerModuleTransform(module, options, 0,
                                            _capi.TRANSFORM_MODULE) is None
        assert "needs an 'amp.optimizer'" in _capi.last_error()
        errors = [d for d in json.loads(_capi.last_diagnostics())[
            "diagnostics"] if d["severity"] == "error"]
        assert [e["location"] for e in errors] == ["step.mlir:1:1"]
        assert "needs an 'amp.optimizer'" in errors[0]["message"]
    finally:
        lib.ampRunnerModuleDestroy(module)
