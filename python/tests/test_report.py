"""amp_mlir.report and amp_mlir.transform (through amp-opt)."""

import shutil

import pytest

import amp_mlir


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
    with pytest.raises(amp_mlir.AmpError, match="amp-opt failed on <string>"):
        amp_mlir.transform("func.func @f(", level="O1")
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
