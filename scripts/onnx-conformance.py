#!/usr/bin/env python3
"""ONNX's own backend test models through amp_mlir.from_onnx and compile.

    AMP_MLIR_ROOT=build PYTHONPATH=python .venv-frontends/bin/python \\
        scripts/onnx-conformance.py [--suites simple,light] [--cases NAME,...]
        [--json bench/results/onnx-conformance.json]
        [--update-doc docs/frontends.md]
    scripts/onnx-conformance.py --from-json FILE --update-doc DOC [--check]

The cases are the model tests of the data that the `onnx` wheel ships
(onnx/backend/test/data; nothing is downloaded): the suites `simple`,
`pytorch-converted`, `pytorch-operator` (each case a folder with model.onnx
and test_data_set_N/{input_K,output_K}.pb) and `light` (nine model-zoo CNNs
whose weights are constants, with a reference output; the input is the one
onnx's backend runner makes for them: arange(n) / n in the input's shape).

Each case is imported with `amp_mlir.from_onnx` (which converts opsets
older than torch-mlir's importer handles, and says so), compiled with
`amp_mlir.compile` for the CPU at O0, O1 and O2 in f16 and bf16, and run on
each data set:

- O0 is checked as onnx's backend runner checks a backend: the same shape
  and dtype as the reference, and `np.testing.assert_allclose` with the
  case's rtol and atol (1e-3 and 1e-7; densenet121 2e-3, from onnx's
  data.json): a case passes or mismatches.
- O1 and O2 by the relative L2 error against the same reference outputs:
  within REL_L2_BOUND (f16 1e-2, bf16 5e-2) and finite, or documented (a
  reason in KNOWN, or an f16 overflow that the run shows: f16 gives Inf or
  NaN, bf16 is finite and within its bound, and the model's fp32
  activations, measured at O0 with every intermediate value an output, go
  beyond f16's largest finite value).

Each case runs in a worker process (restarted after a crash or a timeout,
which are verdicts of their own). --json keeps the run, --update-doc writes
the table between the onnx-conformance markers of DOC; --from-json renders
a kept run without running anything (no onnx needed), and with --check
fails when DOC's table is not that rendering
(test/Frontends/onnx-conformance-table.test).
"""

import argparse
import datetime
import json
import os
import platform
import selectors
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
sys.path.insert(0, str(HERE))
import doctables  # noqa: E402

BLOCK = "onnx-conformance"
SCRIPT = "scripts/onnx-conformance.py"
SUITES = ("simple", "pytorch-converted", "pytorch-operator", "light")
LEVELS = ("O0", "O1 f16", "O1 bf16", "O2 f16", "O2 bf16")
REL_L2_BOUND = {"f16": 1e-2, "bf16": 5e-2}
F16_MAX = 65504.0
# The goal of issue 45, item 1.
GOAL_PASS_O0 = 130
# Cases whose verdict was looked into, with what was found. A reason here
# documents a case that does not pass (at O0, or at O1/O2 outside the
# bounds); the verdict itself is still the run's.
KNOWN = {
    "simple/test_sequence_model8":
        "torch-mlir's lowering of SplitToSequence (TorchOnnxToTorch) splits "
        "by the shape of its `split` input, [3], instead of by its values: "
        "one piece, so SequenceLength folds to the constant 1 whatever the "
        "input; onnx's reference makes 3 pieces",
}
RESULT = "@@onnx-conformance-result "


def data_dir():
    import onnx.backend.test.loader as loader
    return Path(loader.DATA_DIR)


def list_cases(suites):
    """[{id, suite, name, model, data_sets, rtol, atol, dummy_input}]: the
    on-disk model tests of onnx's backend test data, in the suites asked
    for, sorted by name."""
    from onnx.backend.test.loader import load_model_tests
    root = data_dir()
    cases = []
    for suite in suites:
        if suite == "light":
            for test in load_model_tests(kind="real"):
                if not (test.url or "").startswith(
                        "onnx/backend/test/data/light/"):
                    continue
                model = root / "light" / Path(test.url).name
                output = model.with_name(model.stem + "_output_0.pb")
                if model.exists() and output.exists():
                    cases.append({"suite": suite, "name": test.name,
                                  "model": str(model), "rtol": test.rtol,
                                  "atol": test.atol, "dummy_input": True,
                                  "outputs": [str(output)]})
        else:
            for test in load_model_tests(kind=suite):
                if test.model_dir is None:
                    continue
                cases.append({"suite": suite, "name": test.name,
                              "model": str(Path(test.model_dir) /
                                            "model.onnx"),
                              "rtol": test.rtol, "atol": test.atol,
                              "dummy_input": False})
    for case in cases:
        case["id"] = f"{case['suite']}/{case['name']}"
    return sorted(cases, key=lambda c: (SUITES.index(c["suite"]),
                                        c["name"]))


# The worker ------------------------------------------------------------------

def _load_value(path, type_proto):
    """A test data file as onnx's backend runner reads it: a tensor as a
    NumPy array, a sequence as a list."""
    import onnx
    from onnx import numpy_helper
    data = Path(path).read_bytes()
    if type_proto.HasField("sequence_type"):
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return numpy_helper.to_list(proto)
    if type_proto.HasField("optional_type"):
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return numpy_helper.to_optional(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    return numpy_helper.to_array(proto)


def _dummy_input(value_info):
    """onnx's backend runner's input for the light models
    (Runner.generate_dummy_data with random=False)."""
    import numpy as np
    shape = tuple(d.dim_value if d.HasField("dim_value") else 1
                  for d in value_info.type.tensor_type.shape.dim)
    n = int(np.prod(shape))
    return (np.arange(n).reshape(shape) / n).astype(np.float32)


def load_data_sets(case, proto):
    """[(inputs, reference outputs)] of a case."""
    initializers = {t.name for t in proto.graph.initializer}
    inputs = [i for i in proto.graph.input if i.name not in initializers]
    if case["dummy_input"]:
        return [([_dummy_input(i) for i in inputs],
                 [_load_value(p, o.type) for p, o in
                  zip(case["outputs"], proto.graph.output)])]
    sets = []
    for folder in sorted(Path(case["model"]).parent.glob("test_data_set*")):
        count = len(list(folder.glob("input_*.pb")))
        feeds = [_load_value(folder / f"input_{i}.pb",
                             proto.graph.input[i].type)
                 for i in range(count)]
        count = len(list(folder.glob("output_*.pb")))
        refs = [_load_value(folder / f"output_{i}.pb",
                            proto.graph.output[i].type)
                for i in range(count)]
        sets.append((feeds, refs))
    return sets


def _first_line(text, limit=300):
    line = next((l.strip() for l in str(text).splitlines() if l.strip()),
                "")
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _error(error):
    """An exception as a table can show it: its type, its ops where it
    names them, its first line."""
    ops = getattr(error, "ops", None)
    return {"error": f"{type(error).__name__}: {_first_line(error)}",
            **({"ops": list(ops)} if ops else {})}


def do_import(case):
    import warnings
    import onnx
    import amp_mlir
    proto = onnx.load(case["model"])
    opset = next((o.version for o in proto.opset_import
                  if o.domain in ("", "ai.onnx")), None)
    result = {"opset": opset}
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            text = amp_mlir.from_onnx(
                proto, opset=opset if case.get("keep_opset") else None)
        except Exception as error:  # a verdict, with the reason
            result.update(_error(error))
            text = None
    result["import_s"] = round(time.perf_counter() - start, 3)
    # A reference that is one value repeated (the light models': constant
    # weights make every logit equal) checks little arithmetic.
    import numpy as np
    values, elements = set(), 0
    for _, refs in load_data_sets(case, proto):
        for ref in refs:
            if isinstance(ref, np.ndarray) and ref.dtype.kind in "fc":
                values.update(np.unique(ref)[:2].tolist())
                elements += ref.size
    result["reference_one_value"] = len(values) == 1 and elements > 1
    remarks = [str(w.message) for w in caught
               if str(w.message).startswith("from_onnx: converted")]
    if remarks:
        # "from_onnx: converted the model from opset 9 to opset 17 ..."
        result["converted_to"] = int(
            remarks[0].split(" to opset ", 1)[1].split()[0])
    return result, text, proto


def _compare_o0(outs, refs, rtol, atol):
    """onnx's backend runner's check (assert_similar_outputs): None when
    the outputs pass, else why not."""
    import numpy as np
    if len(outs) != len(refs):
        return f"{len(outs)} outputs, the reference has {len(refs)}"
    for index, (out, ref) in enumerate(zip(outs, refs)):
        if isinstance(ref, list):
            return f"output {index} is a sequence"
        out = np.asarray(out)
        if out.shape != ref.shape:
            return (f"output {index} has shape {list(out.shape)}, the "
                    f"reference {list(ref.shape)}")
        if ref.dtype == object:
            if not np.array_equal(out, ref):
                return f"output {index}: strings differ"
            continue
        if out.dtype != ref.dtype:
            return (f"output {index} is {out.dtype}, the reference "
                    f"{ref.dtype}")
        try:
            np.testing.assert_allclose(out, ref, rtol=rtol, atol=atol)
        except AssertionError:
            o = out.astype(np.float64).ravel()
            r = ref.astype(np.float64).ravel()
            bad = ~np.isclose(o, r, rtol=rtol, atol=atol, equal_nan=True)
            diff = np.abs(o - r)
            return (f"output {index}: {int(bad.sum())} of {r.size} "
                    f"elements beyond rtol {rtol:g}, atol {atol:g} "
                    f"(largest |difference| {float(np.nanmax(diff)):.3g}"
                    + (f"; {o[0]:g} where the reference has {r[0]:g}"
                       if r.size == 1 else "") + ")")
    return None


def _finite_where_reference_is(out, ref):
    """No Inf or NaN in `out` where `ref` is finite (sqrt of a negative is
    NaN in the reference too)."""
    import numpy as np
    out, ref = np.asarray(out), np.asarray(ref)
    if out.dtype.kind not in "fc" or out.shape != ref.shape or \
            ref.dtype.kind not in "fc":
        return True
    return bool(np.all(np.isfinite(out) | ~np.isfinite(ref)))


def rel_l2(outs, refs):
    """The largest relative L2 error over the outputs (float64; inf when an
    output has Inf or NaN that the reference does not; the absolute L2 norm
    of the output where the reference is all zeros)."""
    import numpy as np
    worst = 0.0
    for out, ref in zip(outs, refs):
        o = np.asarray(out, dtype=np.float64).ravel()
        r = np.asarray(ref, dtype=np.float64).ravel()
        if o.shape != r.shape:
            return float("inf")
        if not np.all(np.isfinite(o) | ~np.isfinite(r)):
            return float("inf")
        finite = np.isfinite(r)
        o, r = o[finite], r[finite]
        norm = float(np.linalg.norm(r))
        error = float(np.linalg.norm(o - r))
        worst = max(worst, error / norm if norm else error)
    return worst


def do_level(case, level, text, proto):
    """Compiles and runs a case at one level ('O0', 'O1 f16', ...)."""
    import numpy as np
    import amp_mlir
    name, _, dtype = level.partition(" ")
    dtype, _, calibrated = dtype.partition(" ")
    result = {}
    start = time.perf_counter()
    try:
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # Calibrated on the case's own inputs (all its data sets),
            # measured once for the compilation and its report.
            ranges = (amp_mlir.record_ranges(
                text, [tuple(inputs) for inputs, _ in
                       load_data_sets(case, proto)], "main")
                      if calibrated else None)
            module = amp_mlir.compile(text, level=name, dtype=dtype or None,
                                      entries=["main"], calibration=ranges)
            module.main  # compiles now, for its remarks
        if calibrated:
            result["kept_by_calibration"] = sum(
                1 for w in caught if "by calibration" in str(w.message))
            result["calibrated_ops"] = _decided_ops(text, name, dtype,
                                                    ranges)
    except Exception as error:
        result.update(verdict="compile fails", **_error(error))
        result["seconds"] = round(time.perf_counter() - start, 3)
        return result
    result["compile_s"] = round(time.perf_counter() - start, 3)
    worst, problem, finite = 0.0, None, True
    try:
        for inputs, refs in load_data_sets(case, proto):
            if any(isinstance(x, list) or x is None for x in inputs):
                raise TypeError("a sequence or optional input")
            outs = module.main(*inputs)
            outs = [] if outs is None else list(outs) if isinstance(
                outs, tuple) else [outs]
            finite &= all(_finite_where_reference_is(o, r)
                          for o, r in zip(outs, refs))
            if name == "O0":
                problem = problem or _compare_o0(outs, refs, case["rtol"],
                                                 case["atol"])
            worst = max(worst, rel_l2(outs, refs)
                        if len(outs) == len(refs) else float("inf"))
    except Exception as error:
        result.update(verdict="run fails", **_error(error))
        result["seconds"] = round(time.perf_counter() - start, 3)
        return result
    result["seconds"] = round(time.perf_counter() - start, 3)
    result["rel_l2"] = worst
    result["finite"] = bool(finite)
    if name == "O0":
        result["verdict"] = "mismatch" if problem else "pass"
        if problem:
            result["detail"] = problem
    else:
        bound = REL_L2_BOUND[dtype]
        result["verdict"] = ("within" if finite and worst <= bound
                             else "outside")
    return result


def _decided_ops(text, level, dtype, ranges):
    """(ops decided low, ops decided in all) of the level calibrated with
    `ranges`, from its precision report."""
    import tempfile
    import amp_mlir
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ranges.json"
        path.write_text(json.dumps(ranges))
        report = amp_mlir.report(text, level=level, dtype=dtype,
                                 amp_options=f"calibration={path}")
    return [report["low_precision_ops"], report["float_ops"]]


def do_activations(case, proto):
    """The largest |value| of the model's float intermediate results in
    fp32: the model with every float value an output, imported as the case
    is, at O0."""
    import warnings
    import numpy as np
    import onnx
    import amp_mlir
    model = onnx.shape_inference.infer_shapes(proto)
    known = {v.name: v for v in model.graph.value_info}
    outputs = {o.name for o in model.graph.output}
    for node in model.graph.node:
        for name in node.output:
            info = known.get(name)
            if (info is not None and name not in outputs and
                    info.type.tensor_type.elem_type ==
                    onnx.TensorProto.FLOAT):
                model.graph.output.append(info)
                outputs.add(name)
    opset = next((o.version for o in proto.opset_import
                  if o.domain in ("", "ai.onnx")), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = amp_mlir.from_onnx(
            model, opset=opset if case.get("keep_opset") else None)
        module = amp_mlir.compile(text, level="O0", entries=["main"])
    largest = 0.0
    for inputs, _ in load_data_sets(case, proto):
        outs = module.main(*inputs)
        for out in (outs if isinstance(outs, tuple) else [outs]):
            out = np.asarray(out)
            if out.dtype.kind == "f" and out.size:
                largest = max(largest, float(np.max(np.abs(out))))
    return {"fp32_largest": largest, "intermediates": len(outputs)}


def worker():
    """Reads one JSON request a line ({case, what}: what is 'import', a
    level, or 'activations'), writes one result line each (RESULT ...)."""
    import warnings
    warnings.simplefilter("ignore")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    cache = {}
    for line in sys.stdin:
        request = json.loads(line)
        case, what = request["case"], request["what"]
        if case["id"] not in cache:
            cache.clear()
        start = time.perf_counter()
        try:
            if what == "import":
                result, text, proto = do_import(case)
                cache[case["id"]] = (text, proto)
            else:
                if case["id"] not in cache:
                    _, text, proto = do_import(case)
                    cache[case["id"]] = (text, proto)
                text, proto = cache[case["id"]]
                result = (do_activations(case, proto)
                          if what == "activations"
                          else do_level(case, what, text, proto))
        except Exception as error:  # the script's own trouble: say it
            result = {"verdict": "fails", **_error(error)}
        result.setdefault("seconds", round(time.perf_counter() - start, 3))
        sys.stdout.write(RESULT + json.dumps(result) + "\n")
        sys.stdout.flush()


class Worker:
    """A worker process (this script with --worker), restarted after a
    crash or a timeout."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.process = None

    def _start(self):
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def ask(self, case, what):
        if self.process is None or self.process.poll() is not None:
            self._start()
        self.process.stdin.write(json.dumps({"case": case, "what": what})
                                 + "\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + self.timeout
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.stop()
                    return {"verdict": "timeout",
                            "error": f"no result in {self.timeout} s"}
                line = self.process.stdout.readline()
                if not line:
                    code = self.process.wait()
                    self.process = None
                    return {"verdict": "crash",
                            "error": f"the worker died (exit status "
                                     f"{code})"}
                if line.startswith(RESULT):
                    return json.loads(line[len(RESULT):])
        finally:
            selector.close()


def measure(cases, levels, timeout, log=sys.stdout):
    worker = Worker(timeout)
    rows = []
    started = time.perf_counter()
    try:
        for case in cases:
            row = {"id": case["id"], "suite": case["suite"],
                   "rtol": case["rtol"], "atol": case["atol"]}
            imported = worker.ask(case, "import")
            row.update(imported)
            row["levels"] = {}
            if "error" not in imported:
                for level in levels:
                    row["levels"][level] = worker.ask(case, level)
                f16 = [r for l, r in row["levels"].items() if "f16" in l
                       and "bf16" not in l]
                if (row["levels"].get("O0", {}).get("verdict") == "pass"
                        and any(r.get("finite") is False for r in f16)):
                    found = worker.ask(case, "activations")
                    if "fp32_largest" in found:
                        row["fp32_largest"] = found["fp32_largest"]
                    else:
                        row["activations_error"] = found.get("error")
                    # Range calibration (compile(..., calibration=)) at
                    # the f16 levels that were not finite.
                    row["calibrated"] = {
                        f"{l} calibrated": worker.ask(case, f"{l} calibrated")
                        for l, r in row["levels"].items()
                        if l.endswith(" f16") and r.get("finite") is False}
            rows.append(row)
            print(f"{case['id']:60s} " + (
                imported["error"][:60] if "error" in imported else " ".join(
                    f"{l}:{r.get('verdict')}" +
                    (f"({r['rel_l2']:.1e})" if "rel_l2" in r and l != "O0"
                     else "") for l, r in row["levels"].items())),
                file=log, flush=True)
    finally:
        worker.stop()
    return rows, time.perf_counter() - started


# The table -------------------------------------------------------------------

def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def o0_verdict(row):
    if "error" in row and not row.get("levels"):
        return "import fails"
    return row["levels"].get("O0", {}).get("verdict", "not run")


def reason(row):
    """Why a case does not pass at O0."""
    verdict = o0_verdict(row)
    known = KNOWN.get(row["id"])
    if verdict == "import fails":
        found = row["error"]
    else:
        o0 = row["levels"].get("O0", {})
        found = o0.get("detail") or o0.get("error", "")
    return f"{found}. {known}" if known else found


def f16_overflow(row):
    """An f16 overflow that the run shows (see the module's docstring)."""
    levels = row.get("levels", {})
    f16 = [levels[l] for l in levels if l.endswith(" f16")]
    bf16 = [levels[l] for l in levels if l.endswith(" bf16")]
    return (row.get("fp32_largest", 0) > F16_MAX
            and any(r.get("finite") is False for r in f16)
            and bf16 and all(r.get("verdict") == "within" for r in bf16))


def low_precision_notes(row):
    """[(levels, what, reason or None)] of the O1/O2 runs outside the
    bounds of a case that passes at O0; reason None: undocumented."""
    levels = {l: r for l, r in row.get("levels", {}).items() if l != "O0"}
    outside = [l for l, r in levels.items() if r.get("verdict") != "within"]
    if not outside:
        return []
    what = ", ".join(
        f"{l}: " + ("Inf/NaN" if levels[l].get("finite") is False else
                    f"rel L2 {levels[l]['rel_l2']:.1e}" if "rel_l2" in
                    levels[l] else levels[l].get("verdict", "?"))
        for l in outside)
    if f16_overflow(row) and all(l.endswith(" f16") for l in outside):
        bf16 = max(levels[l]["rel_l2"] for l in levels if
                   l.endswith(" bf16"))
        why = (f"overflows f16: its fp32 activations reach "
               f"{row['fp32_largest']:.1e}, beyond f16's largest finite "
               f"value (65504); bf16 is finite and within its bound (rel "
               f"L2 up to {bf16:.1e})" + calibration_note(row))
        return [(what, why)]
    return [(what, KNOWN.get(row["id"]))]


def calibration_note(row):
    """What range calibration made of a case's overflowing f16 levels."""
    runs = row.get("calibrated") or {}
    if not runs:
        return ""
    parts = []
    for level, r in runs.items():
        name = level.replace(" calibrated", "")
        if "rel_l2" not in r:
            parts.append(f"{name}: {r.get('verdict')}")
            continue
        low, total = r.get("calibrated_ops", [0, 0])
        parts.append(
            f"{name} {'finite' if r.get('finite') else 'Inf/NaN'}, rel L2 "
            f"{r['rel_l2']:.1e}, {low} of {total} float ops low")
    return ("; with range calibration on the case's input "
            "(`compile(..., calibration=[inputs])`): " + ", ".join(parts))


def calibrated_rows(rows):
    """(cases calibrated, those finite at every calibrated level)."""
    mine = [r for r in rows if r.get("calibrated")]
    finite = [r for r in mine if all(c.get("finite") is True
                                     for c in r["calibrated"].values())]
    return mine, finite


def render(run):
    rows = run["rows"]
    levels = [l for l in LEVELS if l in run["levels"]]
    low = [l for l in levels if l != "O0"]
    suites = [s for s in SUITES if any(r["suite"] == s for r in rows)]
    seconds = run["seconds"]
    took = (f"{seconds / 60:.0f} minutes" if seconds >= 120
            else f"{seconds:.0f} s")
    others = [f"{r['id']} rtol {r['rtol']:g}, atol {r['atol']:g}"
              for r in rows if (r["rtol"], r["atol"]) != (1e-3, 1e-7)]
    lines = [
        f"Measured by `{SCRIPT}` on {run['date']} ({run['machine']}; "
        f"onnx {run['versions']['onnx']}, torch-mlir "
        f"{run['versions']['torch-mlir']}; {took} in all), on the CPU"
        + (", each model imported as it is (--keep-opset: no opset "
           "conversion)" if run.get("keep_opset") else "") + ". O0 "
        "passes as onnx's backend runner checks a backend: the "
        f"reference's shape and dtype, and `assert_allclose` with the "
        f"case's tolerances (rtol 1e-3, atol 1e-7"
        + "".join(f"; {o}" for o in others) + ")."
        + (f" {', '.join(low)}: rel L2 against the same reference "
           f"outputs, within {REL_L2_BOUND['f16']:g} in f16 and "
           f"{REL_L2_BOUND['bf16']:g} in bf16, and finite where the "
           f"reference is." if low else ""),
        "",
        "| " + " | ".join(
            ["suite", "cases", "pass at O0", "import fails",
             "mismatch at O0", "compile or run fails",
             "imported after an opset conversion"]
            + [f"{l} within" for l in low]) + " |",
        "|---|" + "---:|" * (6 + len(low)),
    ]
    totals = None
    for suite in suites + ["all"]:
        mine = [r for r in rows if suite in ("all", r["suite"])]
        verdicts = [o0_verdict(r) for r in mine]
        ran = [r for r in mine if o0_verdict(r) == "pass"]
        cells = [len(mine), verdicts.count("pass"),
                 verdicts.count("import fails"), verdicts.count("mismatch"),
                 len(mine) - verdicts.count("pass") -
                 verdicts.count("import fails") - verdicts.count("mismatch"),
                 sum(1 for r in mine if r.get("converted_to")
                     and "error" not in r)]
        for level in low:
            within = sum(1 for r in ran if r["levels"].get(level, {}).get(
                "verdict") == "within")
            cells.append(f"{within}/{len(ran)}")
        name = "**all**" if suite == "all" else suite
        lines.append(f"| {name} | " + " | ".join(map(str, cells)) + " |")
        if suite == "all":
            totals = (len(mine), verdicts.count("pass"))
    passing = [r for r in rows if o0_verdict(r) == "pass"]
    if low:
        lines += ["", "The largest rel L2 error of the cases that pass at "
                  "O0, those outside the bounds (below) aside:", "",
                  "| | " + " | ".join(low) + " |",
                  "|---|" + "---:|" * len(low)]
        cells = []
        for l in low:
            values = [r["levels"][l]["rel_l2"] for r in passing
                      if r["levels"].get(l, {}).get("verdict") == "within"]
            cells.append(f"{max(values):.1e}" if values else "–")
        lines.append("| largest rel L2 | " + " | ".join(cells) + " |")
    failing = [r for r in rows if o0_verdict(r) != "pass"]
    if failing:
        lines += ["", "The cases that do not pass at O0, and why:", "",
                  "| case | opset | O0 | reason |", "|---|---:|---|---|"]
        for r in failing:
            opset = str(r.get("opset", "")) + (
                f" → {r['converted_to']}" if r.get("converted_to") else "")
            lines.append(f"| {r['id']} | {opset} | {o0_verdict(r)} | "
                         f"{_cell(reason(r))} |")
    notes = [(r, n) for r in passing for n in low_precision_notes(r)]
    undocumented = sum(1 for _, (_, why) in notes if not why)
    if notes:
        lines += ["", "O1 and O2 outside the bounds, of the cases that "
                  "pass at O0:", "", "| case | outside | reason |",
                  "|---|---|---|"]
        for r, (what, why) in notes:
            lines.append(f"| {r['id']} | {what} | "
                         f"{_cell(why or 'not documented')} |")
    one_value = [r for r in passing if r.get("reference_one_value")]
    if one_value:
        lines += ["", f"In {len(one_value)} of the cases that pass, the "
                  f"reference output is one value repeated ("
                  + ", ".join(r["id"] for r in one_value) + "): there O0 "
                  "checks the import, the shapes, that the run is finite "
                  "and that value, but little arithmetic, and a rel L2 of 0 "
                  "at O1/O2 says no more."]
    count, passed = totals
    if run.get("subset"):
        lines += ["", f"(A subset of the cases: {SCRIPT} without --cases, "
                  f"--suites and --levels judges issue 45's goals.)"]
        return "\n".join(lines)
    lines += ["", "Issue 45's goals, from the rows above:", "",
              f"- **At least {GOAL_PASS_O0} cases pass at O0**: {passed} "
              f"of {count}: "
              f"{'met' if passed >= GOAL_PASS_O0 else 'not met'}."]
    if low:
        lines.append(
            f"- **Every O1/O2 run of a case that passes at O0 finite and "
            f"within the bounds, or documented**: {len(notes)} case"
            f"{'s' if len(notes) != 1 else ''} outside, "
            f"{undocumented} not documented: "
            f"{'met' if not undocumented else 'not met'}.")
        calibrated, finite = calibrated_rows(rows)
        if calibrated:
            lines.append(
                f"- **The cases that overflow f16 run without Inf or NaN "
                f"with range calibration**: {len(finite)} of "
                f"{len(calibrated)} ("
                + ", ".join(r["id"].split("/")[-1] for r in calibrated)
                + f"): {'met' if len(finite) == len(calibrated) else 'not met'}.")
    return "\n".join(lines)


# Main ------------------------------------------------------------------------

def machine():
    name = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            name = next((l.split(":", 1)[1].strip() for l in f
                         if l.startswith("model name")), name)
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs, {name}"


def versions():
    from importlib.metadata import version
    return {"onnx": version("onnx"), "torch-mlir": version("torch-mlir")}


def main():
    if sys.argv[1:] == ["--worker"]:
        return worker()
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", default=",".join(SUITES),
                        help="comma-separated, of: " + ", ".join(SUITES))
    parser.add_argument("--cases", default="",
                        help="only these cases (suite/name or name, "
                        "comma-separated)")
    parser.add_argument("--levels", default=",".join(LEVELS),
                        help="comma-separated, of: " + ", ".join(LEVELS))
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds for one import or one level of a "
                        "case (default 900)")
    parser.add_argument("--keep-opset", action="store_true",
                        help="import each model as it is (from_onnx's "
                        "opset= the model's own), to see what the opset "
                        "conversion adds")
    doctables.add_arguments(parser)
    args = parser.parse_args()
    doctables.check_arguments(parser, args)

    def measure_run():
        suites = [s for s in args.suites.split(",") if s]
        levels = [l for l in args.levels.split(",") if l]
        for name in suites:
            if name not in SUITES:
                parser.error(f"--suites: unknown suite '{name}'")
        for name in levels:
            if name not in LEVELS:
                parser.error(f"--levels: unknown level '{name}'")
        cases = list_cases(suites)
        if args.cases:
            wanted = set(args.cases.split(","))
            cases = [c for c in cases
                     if c["id"] in wanted or c["name"] in wanted]
            missing = wanted - {c["id"] for c in cases} - {
                c["name"] for c in cases}
            if missing:
                parser.error(f"--cases: no case {', '.join(sorted(missing))}")
        for case in cases:
            case["keep_opset"] = args.keep_opset
        rows, seconds = measure(cases, levels, args.timeout, sys.stderr)
        return {"date": datetime.date.today().isoformat(),
                "machine": machine(), "versions": versions(),
                "levels": levels, "seconds": round(seconds, 1),
                "subset": bool(args.cases) or suites != list(SUITES)
                or levels != list(LEVELS) or args.keep_opset,
                **({"keep_opset": True} if args.keep_opset else {}),
                "rows": rows}

    run = doctables.load_or_measure(args, measure_run)
    return doctables.publish(args, {BLOCK: render(run)}, SCRIPT)


if __name__ == "__main__":
    sys.exit(main())
