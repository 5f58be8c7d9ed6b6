"""The GPU kit's runner on the CPU (scripts/gpu-kit: seeded.py, baselines.py,
run.py, report.py): seeded integer inputs, the statistics, the profile
aggregation, the closing table, its rendering in performance.md, the rows
of a case without a library or without time left, and the torch.compile
child's protocol. What needs torch is in test/Frontends/gpu-kit-baselines
.test; what needs a GPU runs on the GPU machine only."""

import importlib.util
import json
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np
import pytest

KIT = Path(__file__).resolve().parents[2] / "scripts" / "gpu-kit"
sys.path.insert(0, str(KIT))

import baselines  # noqa: E402
import report  # noqa: E402
import seeded  # noqa: E402


@pytest.fixture(scope="module")
def run():
    """run.py as the kit imports it: the loader under the name amp_aot."""
    if "amp_aot" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "amp_aot", KIT.parents[1] / "python" / "amp_mlir" / "aot.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["amp_aot"] = module
    import run as run_module
    return run_module


#===----------------------------------------------------------------------===#
# seeded.py
#===----------------------------------------------------------------------===#


def test_seeded_integers_and_floats_by_index():
    specs = [
        {"name": "x", "shape": [3, 4], "dtype": "f32", "init": "uniform",
         "scale": 0.5},
        {"name": "ids", "shape": [2, 5], "dtype": "i64", "init": "integers",
         "high": 7},
        {"name": "g", "shape": [4], "dtype": "f32", "init": "ones",
         "scale": 0.1},
    ]
    x, ids, g = seeded.seeded_inputs(specs)
    assert ids.dtype == np.int64 and ids.shape == (2, 5)
    assert ids.min() >= 0 and ids.max() < 7
    np.testing.assert_array_equal(
        ids, np.random.default_rng(1).integers(0, 7, size=(2, 5),
                                               dtype=np.int64))
    # The float draws are what they were: each index its own generator.
    np.testing.assert_array_equal(x, np.random.default_rng(0).uniform(
        -0.5, 0.5, size=(3, 4)).astype(np.float32))
    np.testing.assert_array_equal(g, (np.random.default_rng(2).uniform(
        -0.1, 0.1, size=(4,)) + 1.0).astype(np.float32))
    assert x.dtype == g.dtype == np.float32
    again = seeded.seeded_inputs(specs)
    for a, b in zip((x, ids, g), again):
        np.testing.assert_array_equal(a, b)
    # Another seed, other tokens.
    assert not np.array_equal(seeded.seeded_inputs(specs, seed=1)[1], ids)


def test_seeded_fill_keeps_its_type():
    # A training step's initial state: a loss scale, counters, a flag.
    scale, steps, count, flag = seeded.seeded_inputs([
        {"name": "scaler:scale", "shape": [], "init": "fill",
         "value": 65536.0, "dtype": "f32"},
        {"name": "optimizer_state:step", "shape": [], "init": "fill",
         "value": 0, "dtype": "i32"},
        {"name": "bn.num_batches_tracked", "shape": [2], "init": "fill",
         "value": 3, "dtype": "i64"},
        {"name": "flag", "shape": [1], "init": "fill", "value": 1,
         "dtype": "i1"}])
    assert scale.dtype == np.float32 and scale.shape == () and \
        scale == 65536.0
    assert steps.dtype == np.int32 and steps == 0
    assert count.dtype == np.int64 and count.tolist() == [3, 3]
    assert flag.dtype == np.bool_ and flag.tolist() == [True]
    with pytest.raises(KeyError):
        seeded.seeded_inputs([{"shape": [], "init": "fill", "value": 1,
                               "dtype": "f64"}])


def test_split_inputs_finds_the_data_by_name():
    # An inference row: the data first. A training step (the step's own
    # argument order): the parameters and state first, "data" and
    # "labels" last.
    specs = [{"name": "x"}, {"name": "fc.weight"}]
    data, labels, named = baselines.split_inputs(
        {"seeded_inputs": specs}, ["X", "W"])
    assert (data, labels, named) == ("X", None, [("fc.weight", "W")])
    specs = [{"name": "fc.weight"}, {"name": "scaler:scale"},
             {"name": "data"}, {"name": "labels"}]
    data, labels, named = baselines.split_inputs(
        {"seeded_inputs": specs}, ["W", "S", "D", "L"])
    assert (data, labels) == ("D", "L")
    assert named == [("fc.weight", "W"), ("scaler:scale", "S")]
    with pytest.raises(ValueError):
        baselines.split_inputs({"seeded_inputs": specs}, ["W"])


def test_compare_groups_each_on_its_own(run):
    # A loss scale of 65536 beside the parameters: the joint norm hides
    # the parameters' error, their group's own does not.
    scale = np.array(65536.0, np.float32)
    param = np.ones(4, np.float32)
    wrong = param * 1.01
    _, joint, _ = run.compare([scale, wrong], [scale, param])
    assert joint < 1e-6
    groups = {"scaler": [0], "param": [1, 2]}
    max_abs, rel, note = run.compare_groups(
        [scale, wrong, param], [scale, param, param], groups)
    assert rel == pytest.approx(0.01 / 2 ** 0.5, rel=1e-4) and not note
    assert max_abs == pytest.approx(0.01, rel=1e-4)
    # A flag that differs (a step skipped on one side only) fails.
    _, rel, _ = run.compare_groups([np.array(True)], [np.array(False)],
                                   {"found_inf": [0]})
    assert rel == float("inf")
    _, rel, note = run.compare_groups(
        [np.array(np.nan, np.float32)], [np.array(1.0, np.float32)],
        {"loss": [0]})
    assert "loss: 1 NaN/Inf mismatches" in note
    _, rel, note = run.compare_groups([param], [param, param], groups)
    assert rel is None and "1 outputs for 2 references" in note


#===----------------------------------------------------------------------===#
# baselines.py: statistics, profiles
#===----------------------------------------------------------------------===#


def test_summarize():
    assert baselines.summarize([3.0, 1.0, 2.0, 10.0]) == {
        "median_ms": 2.5, "min_ms": 1.0, "max_ms": 10.0, "n": 4}
    assert baselines.summarize([5]) == {"median_ms": 5.0, "min_ms": 5.0,
                                        "max_ms": 5.0, "n": 1}
    assert baselines.summarize([])["n"] == 0
    assert baselines.items_per_second({"unit": "images", "per_call": 256},
                                      32.0) == pytest.approx(8000.0)
    assert baselines.items_per_second(None, 32.0) is None


def test_time_calls_with_a_wall_timer():
    calls = []
    times = baselines.time_calls(lambda: calls.append(1),
                                 baselines.WallTimer(), warmup=2, iters=5)
    assert len(calls) == 7 and len(times) == 5
    assert all(t >= 0 for t in times)


def test_aggregate_kernels():
    events = [("gemm", 30.0), ("relu", 10.0), ("gemm", 30.0),
              ("Memcpy HtoD (Pageable -> Device)", 5.0), ("relu", 10.0),
              ("softmax", 20.0), ("Memset (Device)", 1.0)]
    summary = baselines.aggregate_kernels(events, calls=2, top=2)
    assert summary["kernel_us_per_call"] == pytest.approx(50.0)
    assert summary["launches_per_call"] == pytest.approx(2.5)
    assert summary["distinct_kernels"] == 3
    assert summary["copy_us_per_call"] == pytest.approx(3.0)
    assert summary["copies_per_call"] == pytest.approx(1.0)
    # relu and softmax tie (20 us each): by name.
    assert [k["name"] for k in summary["top"]] == ["gemm", "relu"]
    gemm = summary["top"][0]
    assert gemm["us_per_call"] == pytest.approx(30.0)
    assert gemm["launches_per_call"] == pytest.approx(1.0)
    assert gemm["share"] == pytest.approx(0.6)
    # Nothing at all is no division by zero.
    assert baselines.aggregate_kernels([], calls=3)["top"] == []
    long = "void cutlass::Kernel<" + "x" * 300 + ">"
    name = baselines.aggregate_kernels([(long, 1.0)], 1)["top"][0]["name"]
    assert len(name) == 100 and name.endswith("…")


def test_device_events_keeps_one_device():
    cpu = types.SimpleNamespace(device_type="DeviceType.CPU", name="aten::mm",
                                time_range=types.SimpleNamespace(
                                    elapsed_us=lambda: 7.0))
    gpu = types.SimpleNamespace(device_type="DeviceType.CUDA", name="gemm",
                                time_range=types.SimpleNamespace(
                                    elapsed_us=lambda: 3.0))
    prof = types.SimpleNamespace(events=lambda: [cpu, gpu, gpu])
    assert baselines.device_events(prof) == [("gemm", 3.0), ("gemm", 3.0)]
    assert baselines.device_events(prof, "CPU") == [("aten::mm", 7.0)]


def test_names_of_rows():
    assert baselines.chip_of("NVIDIA H200") == "h200"
    assert baselines.chip_of("NVIDIA H100 80GB HBM3") == "h100-sxm"
    assert baselines.chip_of(None) == "h100-sxm"
    assert baselines.precision_of("O0") == "fp32"
    assert baselines.precision_of("O2 bf16") == "bf16"
    assert baselines.wants_baselines(
        {"group": "model", "torch": {"model": "gpt2", "config": {}}})
    assert not baselines.wants_baselines(
        {"group": "model", "torch": {"model": "frontend", "name": "mlp"}})
    assert not baselines.wants_baselines(
        {"group": "bench", "torch": {"model": "gemm"}})


#===----------------------------------------------------------------------===#
# The closing table and its rendering
#===----------------------------------------------------------------------===#


def _stats(median, **extra):
    return dict({"median_ms": median, "min_ms": median * 0.9,
                 "max_ms": median * 1.2, "n": 20}, **extra)


def synthetic_results():
    """A run in the new format: a bench row, a legacy model row, three rows
    of resnet50 (O0, O2 f16, a failed O2 bf16) and a model not built."""
    items = {"unit": "images", "per_call": 256}
    return {
        "started": "2026-12-02 10:00:00", "device": "NVIDIA H200",
        "compute_capability": 90, "kit_commit": "abc1234",
        "torch": "2.11.0+cu130",
        "rows": [
            {"test": "bench/gemm4096 O2 f16", "group": "bench",
             "level": "O2 f16", "status": "pass", "rel_l2": 1e-3,
             "median_ms": 0.4, "speedup_vs_O0": 7.2, "torch_ms": 0.3,
             "speedup_vs_torch": 0.75, "note": ""},
            {"test": "model/mlp O0", "group": "model", "level": "O0",
             "status": "pass", "rel_l2": 1e-7, "median_ms": 0.1,
             "torch_ms": 0.3, "speedup_vs_torch": 3.0, "note": ""},
            {"test": "model/resnet50 O0", "group": "model", "level": "O0",
             "status": "pass", "rel_l2": 2e-6, "median_ms": 10.0,
             "items": items, "items_per_s": 25600.0, "peak_mem_MiB": 900.0,
             "torch": {"fp32": _stats(20.0, items_per_s=12800.0,
                                      peak_mem_MiB=1200.0),
                       "cuda_graph": _stats(15.0)}, "note": ""},
            {"test": "model/resnet50 O2 f16", "group": "model",
             "level": "O2 f16", "status": "pass", "rel_l2": 4e-3,
             "median_ms": 4.0, "speedup_vs_O0": 2.5, "items": items,
             "graph_median_ms": 3.2,
             "items_per_s": 64000.0, "peak_mem_MiB": 500.0,
             "estimate_us": {"h100-sxm": 2500.0, "h200": 2000.0},
             "estimate_chip": "h200", "estimate_pct": 50.0,
             "torch": {"eager_amp": _stats(6.0, items_per_s=42666.7,
                                           peak_mem_MiB=700.0),
                       "cuda_graph": _stats(5.0),
                       "compile": _stats(3.0, compile_s=40.0),
                       "compile_max_autotune": {"error":
                                                "skipped: --quick"}},
             "profile": {
                 "amp": {"method": "torch.profiler (CUPTI)",
                         "launches_per_call": 180.0,
                         "kernel_us_per_call": 3900.0,
                         "top": [{"name": "gemm|nt", "share": 0.6},
                                 {"name": "main_kernel_3", "share": 0.1}]},
                 "torch": {"method": "torch.profiler (CUPTI)",
                           "launches_per_call": 160.0,
                           "kernel_us_per_call": 5800.0,
                           "top": [{"name": "sm90_xmma_fprop", "share": 0.7}
                                   ]}},
             "note": ""},
            {"test": "model/resnet50 O2 bf16", "group": "model",
             "level": "O2 bf16", "status": "FAIL", "rel_l2": 0.5,
             "median_ms": 4.2, "items": items,
             "torch": {"eager_amp": _stats(6.3), "cuda_graph": {
                 "error": "RuntimeError: capture failed"}},
             "note": ""},
            {"test": "model/gpt2_train O2 bf16", "group": "model",
             "level": "O2 bf16", "status": "not built",
             "note": "amp-compile ran out of memory"},
        ]}


def test_closing_rows_ratios():
    lines = {r["test"]: r for r in baselines.closing_rows(
        synthetic_results())}
    assert list(lines) == ["model/resnet50 O0", "model/resnet50 O2 f16",
                           "model/resnet50 O2 bf16",
                           "model/gpt2_train O2 bf16"]
    o0 = lines["model/resnet50 O0"]
    assert o0["eager"] == "fp32" and o0["x_eager"] == pytest.approx(2.0)
    assert o0["x_graph"] == pytest.approx(1.5) and o0["x_compile"] is None
    o2 = lines["model/resnet50 O2 f16"]
    assert o2["eager"] == "eager_amp"
    assert o2["x_O0"] == pytest.approx(2.5)
    assert o2["x_eager"] == pytest.approx(1.5)
    assert o2["x_graph"] == pytest.approx(1.25)
    assert o2["x_compile"] == pytest.approx(0.75)
    assert o2["x_max_autotune"] is None  # skipped: no figure
    assert o2["items_per_s"] == 64000.0
    assert o2["torch_items_per_s"] == pytest.approx(42666.7)
    assert (o2["peak_MiB"], o2["torch_peak_MiB"]) == (500.0, 700.0)
    assert o2["estimate_pct"] == 50.0 and o2["unit"] == "images"
    # A failed row has no speed-up; a row not built is kept, with why.
    failed = lines["model/resnet50 O2 bf16"]
    assert failed["median_ms"] is None and failed["x_eager"] is None
    assert lines["model/gpt2_train O2 bf16"]["status"] == "not built"
    text = baselines.format_closing(list(lines.values()))
    assert "model/resnet50 O2 f16" in text and "1.50" in text
    assert "2.00*" in text  # fp32 eager for O0
    assert "amp-compile ran out of memory" in text


def test_report_renders_the_model_rows():
    table = report.render(synthetic_results())
    # The bf16 row failed; the row not built is no failure.
    assert "6 rows, 1 failed." in table
    # amp-mlir's own CUDA graph: 3.2 ms, PyTorch's graph (5 ms) over it.
    assert ("| model/resnet50 O2 f16 | pass | 4.000 | 2.50× | 1.50× | 1.25× "
            "| 3.200 (1.56×) | 0.75× | 64,000 / 42,667 images | 500 / 700 "
            "| 50 |" in table)
    assert ("| model/resnet50 O0 | pass | 10.000 | – | 2.00×* | 1.50× | – "
            "| – |" in table)
    assert "| model/gpt2_train O2 bf16 | not built: amp-compile ran out of " \
           "memory | – |" in table
    assert "simulator's roofline estimate for h200" in table
    assert "Where the time goes, model/resnet50 O2 f16: amp-mlir 180 " \
           "launches, 3900 µs of kernels a call" in table
    assert "| 1 | `gemm\\|nt` | 60% | `sm90_xmma_fprop` | 70% |" in table
    assert "| 2 | `main_kernel_3` | 10% |  |  |" in table


def test_report_keeps_the_old_runs(repo):
    """A kept run has no model rows of the new kind: its rendering is the
    table alone (gpu-kit-report.test compares it with performance.md)."""
    results = repo / "bench" / "gpu" / "results" / \
        "h100-2026-11-27-kit-7f98dc4.json"
    table = report.render(json.loads(results.read_text()))
    assert "against PyTorch on the same weights" not in table
    assert "Where the time goes" not in table


#===----------------------------------------------------------------------===#
# run.py: rows without a library or without time, the compile step
#===----------------------------------------------------------------------===#


def _args(run, deadline=None, quick=True):
    return types.SimpleNamespace(sim=False, quick=quick, model_rows=True,
                                 torch_allocator=None,
                                 budget=run.Budget(deadline), chip="h100-sxm",
                                 torch_error=None)


def test_row_not_built_and_row_out_of_time(run, tmp_path, capsys):
    results = run.Results(str(tmp_path / "results.json"), "gpu-quick", False)
    case = {"id": "model.gpt2.O2-bf16", "group": "model", "name": "gpt2",
            "level": "O2 bf16", "not_built": "no library: out of memory",
            "items": {"unit": "tokens", "per_call": 8192}}
    run.run_case(results, case, _args(run), None, None, {})
    row = results.data["rows"][0]
    assert row["status"] == "not built"
    assert row["note"] == "no library: out of memory"
    assert row["items"]["per_call"] == 8192
    # Past the deadline, a case is skipped (its library is not even read).
    late = dict(case, id="model.gpt2.O0", level="O0", library="lib/none.so")
    del late["not_built"]
    run.run_case(results, late, _args(run, deadline=time.time() - 1), None,
                 None, {})
    row = results.data["rows"][1]
    assert row["status"] == "skipped" and row["note"].startswith(
        "skipped: budget")
    saved = json.loads((tmp_path / "results.json").read_text())
    assert [r["status"] for r in saved["rows"]] == ["not built", "skipped"]
    assert "not built" in capsys.readouterr().out
    lines = baselines.closing_rows(saved)
    assert [r["status"] for r in lines] == ["not built", "skipped"]


def _compile_rows():
    rows, cases = [], {}
    for name, level in (("resnet50", "O0"), ("resnet50", "O2 f16"),
                        ("resnet50", "O2 bf16"), ("gpt2", "O2 bf16"),
                        ("gpt2", "O1 bf16")):
        case = {"id": f"model.{name}.{level}", "group": "model",
                "name": name, "level": level,
                "torch": {"model": "gpt2" if name == "gpt2" else
                          "torchvision"}}
        cases[case["id"]] = case
        eager = "fp32" if level == "O0" else "eager_amp"
        rows.append({"test": f"model/{name} {level}", "id": case["id"],
                     "group": "model", "level": level, "status": "pass",
                     "median_ms": 2.0, "torch": {eager: _stats(3.0)}})
    return rows, cases


def test_compile_jobs_order(run, tmp_path):
    results = run.Results(str(tmp_path / "r.json"), "gpu-quick", False)
    rows, cases = _compile_rows()
    results.data["rows"] = rows
    jobs = run.compile_jobs(results, cases)
    # Every model once first, then its other dtypes; O0 is not compiled.
    assert [(j[1], j[2], len(j[3])) for j in jobs] == [
        ("resnet50", "f16", 1), ("gpt2", "bf16", 2), ("resnet50", "bf16", 1)]


def test_compile_step_out_of_budget(run, tmp_path, capsys):
    results = run.Results(str(tmp_path / "r.json"), "gpu-quick", False)
    rows, cases = _compile_rows()
    results.data["rows"] = rows
    models = types.SimpleNamespace(torch=object(), device="cuda",
                                   release=lambda: None)
    run.compile_models(results, cases, _args(run, time.time() + 10), models)
    for row in rows[1:]:
        assert row["torch"]["compile"]["error"].startswith("skipped: budget")
        assert row["torch"]["compile_max_autotune"] == {
            "error": "skipped: --quick"}
    assert "compile" not in rows[0]["torch"]
    assert "torch.compile gpt2 bf16 (default): skipped: budget" in \
        capsys.readouterr().out


def _fake_kit(tmp_path, body):
    (tmp_path / "baselines.py").write_text(textwrap.dedent(body))
    return str(tmp_path)


def test_compile_child_result_cap_and_failure(tmp_path):
    (tmp_path / "ok").mkdir()
    ok = _fake_kit(tmp_path / "ok", """\
        import json, sys
        print("compiling", sys.argv[1:])
        print("BASELINE-RESULT " + json.dumps({"median_ms": 1.5, "n": 20}))
        """)
    stats = baselines.compile_in_child(ok, "model.x.O2-f16", "f16",
                                       "default", 30, 2, 20)
    assert stats["median_ms"] == 1.5 and stats["cap_s"] == 30
    (tmp_path / "slow").mkdir()
    slow = _fake_kit(tmp_path / "slow", """\
        import time
        time.sleep(60)
        """)
    start = time.time()
    stats = baselines.compile_in_child(slow, "x", "f16", "default", 1, 2, 20)
    assert stats["error"] == "skipped: over the cap of 1 s"
    assert time.time() - start < 30
    (tmp_path / "bad").mkdir()
    bad = _fake_kit(tmp_path / "bad", """\
        raise SystemExit("inductor: no C compiler")
        """)
    stats = baselines.compile_in_child(bad, "x", "f16", "default", 30, 2, 20)
    assert stats["error"].startswith("the child exited 1 without a result")
    assert "no C compiler" in stats["error"]


def test_a_step_that_killed_the_process_is_not_run_again(run, tmp_path):
    path = str(tmp_path / "results.json")
    results = run.Results(path, "gpu-quick", False)
    assert results.step("torch cuda_graph gpt2 f16", lambda: {"n": 20}) == \
        {"n": 20}
    assert "running_step" not in json.loads(Path(path).read_text())

    def dies():  # as a segfault would: the file says where it was
        saved = json.loads(Path(path).read_text())
        assert saved["running_step"] == "torch cuda_graph gpt2 bf16"
        raise SystemExit
    with pytest.raises(SystemExit):
        results.step("torch cuda_graph gpt2 bf16", dies)
    # A real crash leaves the marker in the file.
    data = json.loads(Path(path).read_text())
    assert "running_step" not in data
    data["running_step"] = "torch cuda_graph gpt2 bf16"
    Path(path).write_text(json.dumps(data))
    resumed = run.Results(path, "gpu-quick", True)
    assert resumed.data["crashed_steps"] == ["torch cuda_graph gpt2 bf16"]
    ran = []
    stats = resumed.step("torch cuda_graph gpt2 bf16", lambda: ran.append(1))
    assert not ran and stats["error"].startswith("the process died")
    assert resumed.step("torch cuda_graph gpt2 f16", lambda: 5) == 5


def test_quick_runs_the_model_rows_first(run):
    """--quick: the model rows first, their training steps before the
    others, in the manifest's order within each part (O0 before a model's
    other levels); a full run keeps the manifest's order."""
    cases = [{"id": i, "group": g} for i, g in enumerate(
        ["test", "model", "bench", "model", "test", "model", "model"])]
    cases[5]["torch"] = {"train": {"optimizer": "sgd"}}
    cases[6]["torch"] = {"train": {"optimizer": "sgd"}}
    cases[3]["torch"] = {"dtype": "f16"}
    assert [c["id"] for c in run.case_order(cases, quick=True)] == \
        [5, 6, 1, 3, 0, 2, 4]
    assert [c["id"] for c in run.case_order(cases, quick=False)] == \
        [0, 1, 2, 3, 4, 5, 6]


def test_a_row_past_its_cap_is_recorded_and_ends_the_process(run, tmp_path):
    """RowWatchdog: a row (here a sleep) that outlasts its cap is kept as
    'timeout' and the process ends with ROW_TIMEOUT_STATUS, which run.sh
    resumes after; a row within its cap is untouched."""
    path = tmp_path / "results.json"
    program = textwrap.dedent(f"""\
        import sys, time
        sys.path.insert(0, {str(KIT)!r})
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "amp_aot", {str(KIT.parents[1] / "python" / "amp_mlir" /
                            "aot.py")!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["amp_aot"] = module
        import run
        results = run.Results({str(path)!r}, "gpu-quick", False)
        fast = {{"id": 1, "group": "model", "name": "mlp", "level": "O0"}}
        slow = {{"id": 2, "group": "model", "name": "resnet50_train_b128",
                 "level": "O0"}}
        with run.RowWatchdog(results, fast, 30):
            results.add({{"test": run.case_test(fast), "status": "pass"}})
        with run.RowWatchdog(results, slow, 0.5):
            results.start(run.case_test(slow))
            time.sleep(30)
        print("not reached")
        """)
    child = subprocess.run([sys.executable, "-c", program],
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == run.ROW_TIMEOUT_STATUS, child.stderr
    assert "not reached" not in child.stdout
    rows = json.loads(path.read_text())["rows"]
    assert [(r["test"], r["status"]) for r in rows] == [
        ("model/mlp O0", "pass"),
        ("model/resnet50_train_b128 O0", "timeout")]
    assert "outlasted its cap" in rows[1]["note"]
    # The resumed run does not record the row again as crashed.
    resumed = run.Results(str(path), "gpu-quick", True)
    assert [r["status"] for r in resumed.data["rows"]] == ["pass", "timeout"]


def test_the_row_in_flight_at_the_time_limit_is_kept(run, tmp_path):
    """run.sh --quick stopped by its time limit: run.py --close-timeout
    records the row in flight as 'timeout' and writes the summary that
    runs.py checks."""
    path = tmp_path / "results.json"
    results = run.Results(str(path), "gpu-quick", False)
    results.add({"test": "gtest AmpRuntimeTests", "status": "pass"})
    results.start("model/resnet50_train_b128 O0")
    run.close_timed_out(str(path))
    data = json.loads(path.read_text())
    assert [(r["test"], r["status"]) for r in data["rows"]] == [
        ("gtest AmpRuntimeTests", "pass"),
        ("model/resnet50_train_b128 O0", "timeout")]
    assert data["summary"] == {"rows": 2, "failed": 1,
                               "stopped": "time limit"}
    assert not Path(str(path) + ".running").exists()


def test_row_cap_follows_the_deadline(run):
    args = types.SimpleNamespace(row_cap=90, budget=run.Budget(None))
    assert run.row_cap(args) == 90
    args.budget = run.Budget(time.time() + 40)
    assert 38 <= run.row_cap(args) <= 40
    args.budget = run.Budget(time.time() + 1)
    assert run.row_cap(args) == run.CASE_MIN_S


def test_channels_last_rows_of_the_kit():
    """build_kit's channels-last variant: the O2 f16 row again with
    --lower-to-gpu's channels-last, for the GPU and the simulator alike
    (with the chip where it is not sm_90), its own label and library, the
    same precision for the PyTorch baseline."""
    sys.path.insert(0, str(KIT.parents[1] / "bench" / "gpu"))
    import build_kit
    nchw, last = build_kit.levels("resnet50_b256", "model", "m.mlir", "main",
                                  [("O2", "f16")] + build_kit.CHANNELS_LAST)
    assert (nchw.label, last.label) == ("O2 f16", "O2 f16 channels-last")
    assert (nchw.id, last.id) == ("model.resnet50_b256.O2-f16",
                                  "model.resnet50_b256.O2-f16-channels-last")
    assert not any(a.startswith("--gpu-options") for a in
                   nchw.compile_args("gpu"))
    assert "--gpu-options=channels-last=true" in last.compile_args("gpu")
    assert "--gpu-options=channels-last=true" in last.compile_args("gpu-sim")
    last.chip = "sm_80"
    assert "--gpu-options=chip=sm_80 channels-last=true" in \
        last.compile_args("gpu")
    assert "--gpu-options=channels-last=true" in last.compile_args("gpu-sim")
    assert baselines.precision_of(last.label) == "f16"
