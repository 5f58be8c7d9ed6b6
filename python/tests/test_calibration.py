"""Range calibration: amp_mlir.record_ranges and compile(..., calibration=)
keep the ops whose tensors outgrow the low type in f32 (or bf16)."""

import json
import warnings

import numpy as np
import pytest

import amp_mlir

# Two linear layers; the first one's outputs reach about 2e5, beyond f16's
# 65504, and are stored in f16 for the second at O2.
MODEL = "test/amp-run/Inputs/calibration-overflow.mlir"


def inputs(seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (4, 64)).astype(np.float32)


def test_record_ranges_measures_every_float_tensor(repo):
    x = inputs(0)
    ranges = amp_mlir.record_ranges(repo / MODEL, [x])
    assert ranges["function"] == "forward"
    absmax = ranges["absmax"]
    # %x, the two splats, the scaled input, the fills (0), the products, %w2.
    assert len(absmax) == 9
    assert absmax[0] == pytest.approx(np.abs(x).max(), rel=1e-6)
    assert absmax[1] == 100 and absmax[3] == 200
    assert absmax[4] == 0 and absmax[7] == 0
    first = np.abs((x * np.float32(100)).sum(axis=1)).max() * 200
    assert absmax[5] == pytest.approx(first, rel=1e-4)
    assert absmax[5] > 65504
    # Several inputs: the largest of each.
    y = inputs(1)
    both = amp_mlir.record_ranges(repo / MODEL, [x, (y,)])
    alone = amp_mlir.record_ranges(repo / MODEL, [y])
    assert both["absmax"] == [max(a, b) for a, b in
                              zip(absmax, alone["absmax"])]


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_calibration_keeps_overflowing_layers_in_f32(repo, level):
    x = inputs(0)
    plain = amp_mlir.compile(repo / MODEL, level=level)
    assert not np.isfinite(plain(x)).all()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calibrated = amp_mlir.compile(repo / MODEL, level=level,
                                      calibration=[x], entries=["forward"])
    kept = [str(w.message) for w in caught
            if issubclass(w.category, amp_mlir.AmpRemark)]
    assert len(kept) == 2, kept
    assert "linalg.matmul: amp: kept in f32 by calibration: its result #0" \
        in kept[0]
    assert "its operand #0" in kept[1]
    out = calibrated(x)
    assert np.isfinite(out).all()
    fp32 = amp_mlir.compile(repo / MODEL, level="O0")(x)
    assert np.abs(out - fp32).max() <= 1e-3 * np.abs(fp32).max()
    # The ranges of other inputs of the same distribution cover this one.
    assert np.isfinite(calibrated(inputs(2))).all()


def test_calibration_from_a_file_or_dict_and_bf16_fallback(repo, tmp_path):
    x = inputs(0)
    ranges = amp_mlir.record_ranges(repo / MODEL, [x])
    path = tmp_path / "ranges.json"
    path.write_text(json.dumps(ranges))
    for calibration in (ranges, path, str(path)):
        out = amp_mlir.compile(repo / MODEL, level="O2",
                               calibration=calibration)(x)
        assert np.isfinite(out).all()
    text = amp_mlir.transform(
        repo / MODEL, level="O2",
        amp_options=f"calibration={path} calibration-fallback=bf16")
    assert text.count("tensor<4x64xbf16>, tensor<64x16xbf16>") == 1
    assert "tensor<4x16xbf16>, tensor<16x8xbf16>" in text


def test_calibration_errors(repo, tmp_path):
    x = inputs(0)
    with pytest.raises(ValueError, match="level O0 has no low type"):
        amp_mlir.compile(repo / MODEL, level="O0", calibration=[x])
    with pytest.raises(ValueError, match="give calibration once"):
        amp_mlir.compile(repo / MODEL, calibration=[x],
                         amp_options="calibration=x.json")
    with pytest.raises(ValueError, match="at least one input"):
        amp_mlir.record_ranges(repo / MODEL, [])
    with pytest.raises(ValueError, match="no function '@nope' to calibrate"):
        amp_mlir.record_ranges(repo / MODEL, [x], entry="nope")
    with pytest.raises(amp_mlir.SignatureError):
        amp_mlir.record_ranges(repo / MODEL, [np.zeros((2, 2), np.float32)])
    # A file recorded on another module.
    path = tmp_path / "ranges.json"
    path.write_text(json.dumps({"function": "forward", "absmax": [1.0]}))
    with pytest.raises(amp_mlir.AmpError,
                       match="holds 1 ranges, but '@forward' has 9"):
        amp_mlir.compile(repo / MODEL, calibration=path)(x)
    two = tmp_path / "two.mlir"
    two.write_text("func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                   "  return %x : tensor<2xf32>\n}\n"
                   "func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                   "  return %x : tensor<2xf32>\n}\n")
    with pytest.raises(ValueError, match="the module has 2"):
        amp_mlir.record_ranges(two, [np.zeros(2, np.float32)])
    ranges = amp_mlir.record_ranges(two, [np.ones(2, np.float32)], entry="b")
    assert ranges == {"function": "b", "absmax": [1.0]}


def test_calibration_ahead_of_time(repo, tmp_path):
    # amp-compile reads the calibration file while it compiles.
    x = inputs(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        library = amp_mlir.compile(repo / MODEL, level="O2", calibration=[x],
                                   output=tmp_path / "calibrated.so")
        plain = amp_mlir.compile(repo / MODEL, level="O2",
                                 output=tmp_path / "plain.so")
    assert np.isfinite(library.forward(x)).all()
    assert not np.isfinite(plain.forward(x)).all()
