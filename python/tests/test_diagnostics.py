"""What a compilation says goes through Python, never to file descriptor 2:
warnings and remarks as AmpWarning/AmpRemark (warnings.warn), reports to
sys.stderr/sys.stdout, errors as exceptions."""

import contextlib
import io
import os
import sys
import tempfile
import types
import warnings

import numpy as np
import pytest

import amp_mlir

# A constant that overflows f16: its users stay in f32, with a warning.
OVERFLOWING = """
func.func @scaled(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<100000.0> : tensor<2xf32>
  %y = arith.mulf %a, %c : tensor<2xf32>
  return %y : tensor<2xf32>
}
"""


@contextlib.contextmanager
def captured():
    """Captures file descriptors 1 and 2 (what bypasses Python) apart from
    sys.stdout and sys.stderr (what Python code writes): .fd_out, .fd_err,
    .py_out, .py_err once the block ends."""
    result = types.SimpleNamespace()
    py_out, py_err = io.StringIO(), io.StringIO()
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    os.dup2(files[0].fileno(), 1)
    os.dup2(files[1].fileno(), 2)
    try:
        with contextlib.redirect_stdout(py_out), \
                contextlib.redirect_stderr(py_err):
            yield result
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)
        for f in files:
            f.seek(0)
        result.fd_out, result.fd_err = (f.read().decode() for f in files)
        result.py_out, result.py_err = py_out.getvalue(), py_err.getvalue()
        for f in files:
            f.close()


def _line_of(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1)
                if needle in line)


def test_warning_is_amp_warning_not_fd2(tmp_path):
    path = tmp_path / "overflow.mlir"
    path.write_text(OVERFLOWING)
    with captured() as out, pytest.warns(
            amp_mlir.AmpWarning,
            match="constant does not fit in f16") as record:
        m = amp_mlir.compile(path, level="O2", entries=["scaled"])
    warning = [w for w in record
               if issubclass(w.category, amp_mlir.AmpWarning)]
    assert len(warning) == 1
    # It points at the caller, not at the package.
    assert warning[0].filename == __file__
    warning = warning[0].message
    assert warning.op == "arith.constant"
    line = _line_of(OVERFLOWING, "arith.constant")
    assert warning.location == f"{path}:{line}:8"
    assert str(warning).startswith(f"{path}:{line}:8: arith.constant: amp:")
    np.testing.assert_allclose(m.scaled(np.ones(2, np.float32)),
                               [100000.0, 100000.0])
    assert (out.fd_out, out.fd_err, out.py_err) == ("", "", "")


def test_explain_remarks_name_op_location_decision(tmp_path, module_text):
    path = tmp_path / "dense.mlir"
    path.write_text(module_text)
    with captured() as out, warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        amp_mlir.compile(path, level="O1", explain=True)
    remarks = [w.message for w in record
               if issubclass(w.category, amp_mlir.AmpRemark)]
    # One remark per decision of the report, saying the same.
    decisions = amp_mlir.report(path, level="O1")["decisions"]
    assert decisions
    expected = []
    for d in decisions:
        decided = (f"amp: {d['precision']} ({d['reason']})"
                   if d["precision"] else f"amp: {d['reason']}")
        expected.append((d["op"], d["location"], decided))
    got = sorted((r.op, r.location, r.diagnostic) for r in remarks)
    expected.sort()
    assert [g[:2] for g in got] == [e[:2] for e in expected]
    # The remark may add what the report has no field for (", accumulates
    # in f32").
    assert all(g[2].startswith(e[2]) for g, e in zip(got, expected)), got
    matmul = [r for r in remarks if r.op == "linalg.matmul"]
    assert len(matmul) == 1 and matmul[0].diagnostic.startswith("amp: f16 (")
    line = _line_of(module_text, "linalg.matmul")
    assert matmul[0].location.startswith(f"{path}:{line}:")
    # All functions were compiled at compile(); nothing printed.
    assert (out.fd_out, out.fd_err, out.py_err) == ("", "", "")


def test_remarks_once_per_module_and_filterable(module_text):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        m = amp_mlir.compile(module_text, level="O2", explain=True,
                             entries=["dense"])
        first = len(record)
        m.two  # the AMP level runs again, on the whole module
    assert first > 0 and len(record) == first
    with warnings.catch_warnings():
        warnings.simplefilter("error", amp_mlir.AmpRemark)
        with pytest.raises(amp_mlir.AmpRemark, match="amp: "):
            amp_mlir.compile(module_text, level="O2", explain=True)
    with pytest.raises(ValueError, match="explain must be True or False"):
        amp_mlir.compile(module_text, explain="yes")


def test_text_report_goes_to_sys_stderr(module_text):
    with captured() as out:
        m = amp_mlir.compile(module_text, level="O1",
                             amp_options="report=text")
        before = sys.stderr.getvalue()  # compiled at the first use
        m.dense
        m.two  # the same report again: not repeated
    assert before == ""
    assert out.py_err.startswith("amp-o1: ")
    assert out.py_err.count("amp-o1: ") == 1
    assert "linalg.matmul" in out.py_err
    assert (out.fd_out, out.fd_err, out.py_out) == ("", "", "")


def test_report_to_stdout_goes_to_sys_stdout(module_text):
    with captured() as out:
        amp_mlir.compile(module_text, level="O2", entries=["dense"],
                         amp_options="report=json report-file=-")
    assert '"title": "amp-o2"' in out.py_out
    assert (out.fd_out, out.fd_err, out.py_err) == ("", "", "")


def test_transform_routes_remarks_and_report(tmp_path, module_text):
    path = tmp_path / "dense.mlir"
    path.write_text(module_text)
    with captured() as out, pytest.warns(amp_mlir.AmpRemark) as record:
        text = amp_mlir.transform(path, level="O1",
                                  amp_options="explain=true report=text")
    assert "func.func @dense" in text
    remarks = [w.message for w in record]
    line = _line_of(module_text, "linalg.matmul")
    matmul = [r for r in remarks if r.op == "linalg.matmul"]
    assert len(matmul) == 1 and matmul[0].diagnostic.startswith("amp: f16 (")
    assert matmul[0].location.startswith(f"{path}:{line}:")
    assert out.py_err.startswith("amp-o1: ")
    assert (out.fd_out, out.fd_err, out.py_out) == ("", "", "")


def test_errors_stay_exceptions(module_text):
    with pytest.raises(ValueError, match="invalid AMP options"):
        amp_mlir.compile(module_text, level="O2", amp_options="report=xml")
    with pytest.raises(amp_mlir.AmpError, match="cannot parse"):
        amp_mlir.transform("func.func @f( {", level="O2")


# A function of the training convention without an optimizer: the training
# stage of --amp-o2 fails at the function.
NO_OPTIMIZER = """
func.func @step(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}) {
  return %s, %p : tensor<f32>, tensor<2xf32>
}
"""


@pytest.mark.parametrize("call", [amp_mlir.transform, amp_mlir.report,
                                  amp_mlir.precision_graph])
def test_pipeline_errors_are_located_exceptions(tmp_path, call):
    """An error of an MLIR stage is an AmpError raised by the call that ran
    it, with the diagnostic's file:line:col (no stderr, no subprocess)."""
    path = tmp_path / "step.mlir"
    path.write_text(NO_OPTIMIZER)
    with captured() as out, pytest.raises(
            amp_mlir.AmpError, match="needs an 'amp.optimizer'") as error:
        call(path, level="O2")
    line = _line_of(NO_OPTIMIZER, "func.func @step")
    assert error.value.location == f"{path}:{line}:1"
    [diagnostic] = error.value.diagnostics
    assert diagnostic.severity == "error"
    assert diagnostic.location == f"{path}:{line}:1"
    assert "needs an 'amp.optimizer'" in diagnostic.message
    assert str(error.value).startswith(f"{path}: the AMP O2")
    assert f"{path}:{line}:1: error: " in str(error.value)
    assert (out.fd_out, out.fd_err, out.py_out, out.py_err) == ("", "", "",
                                                                  "")


def test_amp_attributes_reach_llvm_translation_silently(repo):
    """amp.master on a training step's arguments is an annotation for the
    precision passes; LLVM translation drops it without the "Unhandled
    parameter attribute" warning it gave before."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = amp_mlir.compile(repo / "examples" / "mlp_training.mlir",
                             level="O2")
        m.train
    messages = [str(w.message) for w in caught]
    assert not any("Unhandled parameter attribute" in m for m in messages), \
        messages
