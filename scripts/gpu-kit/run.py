#!/usr/bin/env python3
"""The GPU kit's runner: run.sh sets the library paths and calls this.

    run.py [--quick] [--sim] [--only SUBSTRINGS] [--no-torch] [--no-gtests]
           [--deadline EPOCH_SECONDS]

Prints one table (test, pass/fail, max error against the reference, median
time) and writes results.json to $OUT if set, else to the kit's folder,
after every row, so that a crash or a timeout keeps what ran (run.sh then
resumes after the row that crashed, marked 'crashed').

The model rows (baselines.py) get more, in this order, each step skipped
("skipped: budget") when the deadline is too close: PyTorch eager (AMP at
the row's dtype, fp32 for O0) and its CUDA graph beside each row; then a
profile of each row (amp-mlir's kernels and PyTorch's, by torch.profiler);
then torch.compile of each model and dtype in a child process with a time
cap (max-autotune too, without --quick); then a closing table of the
speed-ups.

Needs python3 with numpy; torch (with CUDA) only for the PyTorch columns.
"""

import argparse
import ctypes
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

KIT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, KIT)
import amp_aot  # noqa: E402  the loader: numpy + ctypes
import baselines  # noqa: E402  the model rows' PyTorch side
from seeded import seeded_inputs  # noqa: E402

GTESTS_GPU = ["AmpRuntimeTests", "AmpRuntimeGpuTests", "AmpGpuContractTests"]
GTESTS_SIM = ["AmpRuntimeTests", "AmpGpuSimTests", "AmpGpuContractTests"]

# Tolerances on the relative L2 error against an fp32 reference computed
# on the GPU machine: NumPy's fp32 formulas (the large bench models) or
# PyTorch fp32 with TF32 off ("reference": "torch", the model rows; a
# training step's loss). The CPU reference of the small cases is at the
# same level and has its own tolerance in the manifest.
FP32_TOLERANCE = {"O0": 1e-4, "f16": 1.5e-2, "bf16": 6e-2}

# Model rows: timed calls on both sides, even with --quick (milliseconds
# each), and warm-up calls before them.
MODEL_ITERS = {"quick": 20, "full": 50}
MODEL_WARMUP = {"amp": 3, "torch": 5}
# torch.compile's time caps (seconds, compilation and timing), and the
# least time left to start one; what the end of the run keeps in hand.
COMPILE_CAP_S = {"default": 150, "max-autotune": 300}
COMPILE_MIN_S = 45
CASE_MIN_S = 20
PROFILE_MIN_S = 25
# The longest one row may take (its calls, references and PyTorch's side),
# less where the deadline is nearer: past it the row is recorded 'timeout'
# and the process ends (status ROW_TIMEOUT_STATUS); run.sh resumes after
# it. The first H200 run (2026-12-04) spent its whole budget in the first
# call of one training step.
ROW_CAP_S = {"quick": 90, "full": 600}
ROW_TIMEOUT_STATUS = 3
PROFILE_CALLS = 3


def kit_path(relative):
    return os.path.join(KIT, relative)


def unpack(kit=KIT):
    """Unpacks the kit's xz-compressed files (build_kit.py packs the large
    case libraries and data) next to themselves, once; returns how many
    were unpacked now."""
    import lzma
    count = 0
    for sub in ("lib", "sim", "data"):
        for root, _, names in os.walk(os.path.join(kit, sub)):
            for name in names:
                if not name.endswith(".xz"):
                    continue
                target = os.path.join(root, name[:-3])
                if os.path.exists(target):
                    continue
                with open(os.path.join(root, name), "rb") as f:
                    data = lzma.decompress(f.read())
                with open(target + ".tmp", "wb") as f:
                    f.write(data)
                os.chmod(target + ".tmp", 0o755 if sub != "data" else 0o644)
                os.replace(target + ".tmp", target)
                count += 1
    return count


#===----------------------------------------------------------------------===#
# Results, written as they come
#===----------------------------------------------------------------------===#


class Results:
    def __init__(self, path, mode, resume, crashed_status="crashed"):
        """mode None: the run in `path`, whatever its mode."""
        self.path = path
        self.progress = path + ".running"
        self.data = {"mode": mode, "rows": [], "started":
                     time.strftime("%Y-%m-%d %H:%M:%S")}
        if resume and os.path.exists(path):
            with open(path) as f:
                old = json.load(f)
            if mode is None or old.get("mode") == mode:
                self.data = old
        self.done = {row["test"] for row in self.data["rows"]}
        running = self.data.pop("running_step", None)
        if running:
            self.data.setdefault("crashed_steps", []).append(running)
        self.in_flight = None
        if resume and os.path.exists(self.progress):
            with open(self.progress) as f:
                self.in_flight = f.read().strip() or None
            if crashed_status and self.in_flight and \
                    self.in_flight not in self.done:
                self.add({"test": self.in_flight, "status": crashed_status,
                          "note": "the process died in this row (run.sh "
                                  "resumed after it)"})

    def start(self, test):
        with open(self.progress, "w") as f:
            f.write(test)

    def step(self, key, work):
        """work() for a step that could kill the process (a CUDA graph
        capture, a profiler session), marked in the file while it runs: a
        resumed run records the step that died instead of running it
        again (the rows of the same model would die the same way)."""
        if key in self.data.get("crashed_steps", ()):
            return {"error": "the process died in this step (run.sh "
                             "resumed without it)"}
        self.data["running_step"] = key
        self.save()
        try:
            return work()
        finally:
            self.data.pop("running_step", None)
            self.save()

    def add(self, row):
        self.data["rows"].append(row)
        self.done.add(row["test"])
        self.save()
        print_row(row)

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1, default=float)
        os.replace(tmp, self.path)

    def finish(self):
        self.data["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
        self.save()
        if os.path.exists(self.progress):
            os.remove(self.progress)


class RowWatchdog:
    """A row's time cap: past it the row is recorded 'timeout' and the
    process ends at once (a call into the GPU libraries cannot be
    interrupted; run.sh resumes after the row)."""

    def __init__(self, results, case, seconds):
        self.results = results
        self.case = case
        self.seconds = seconds
        self.timer = None

    def expire(self):
        case = self.case
        self.results.add({
            "test": case_test(case), "id": case["id"],
            "group": case["group"], "level": case["level"],
            "status": "timeout", "seconds": round(self.seconds),
            "note": f"the row outlasted its cap of {self.seconds:.0f} s; "
                    f"the process ended (run.sh resumed after it)"})
        sys.stdout.flush()
        os._exit(ROW_TIMEOUT_STATUS)

    def __enter__(self):
        self.timer = threading.Timer(self.seconds, self.expire)
        self.timer.daemon = True
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        return False


def row_cap(args):
    """The cap of the next row: ROW_CAP_S, less where the deadline is
    nearer (at least CASE_MIN_S, the least a row is started with)."""
    cap = args.row_cap
    left = args.budget.left()
    return cap if left is None else max(min(cap, left), CASE_MIN_S)


def close_timed_out(path):
    """run.sh, after its time limit ended run.py: the row in flight (the
    progress file) recorded 'timeout', and the summary written, as a
    finished run would have."""
    results = Results(path, None, resume=True, crashed_status=None)
    test = results.in_flight
    if test and test not in results.done:
        results.add({"test": test, "status": "timeout",
                     "note": "the run's time limit ended the process in "
                             "this row"})
    write_summary(results, None)
    results.data["summary"]["stopped"] = "time limit"
    results.finish()
    # Not a finish of the run: the time this was written.
    results.data["closed"] = results.data.pop("finished")
    results.save()


class Budget:
    """The time left before a deadline (epoch seconds; None: no limit)."""

    def __init__(self, deadline):
        self.deadline = deadline

    def left(self):
        return None if self.deadline is None else self.deadline - time.time()

    def allows(self, seconds):
        left = self.left()
        return left is None or left >= seconds

    def why_not(self):
        return f"skipped: budget ({max(self.left(), 0):.0f} s left)"


COLUMNS = [("test", 44), ("status", 9), ("max abs err", 11), ("rel L2", 9),
           ("tol", 7), ("median ms", 10), ("x O0", 6), ("torch ms", 9),
           ("x torch", 7)]


def fmt(value, width, digits=3):
    if value is None or value == "":
        text = "-"
    elif isinstance(value, float):
        text = f"{value:.{digits}g}" if abs(value) >= 1e-3 or value == 0 \
            else f"{value:.2e}"
    else:
        text = str(value)
    return text[:width].ljust(width)


def print_header():
    line = " ".join(name.ljust(width) for name, width in COLUMNS) + " note"
    print(line)
    print("-" * len(line))
    sys.stdout.flush()


def print_row(row):
    tol = row.get("tolerance")
    cells = [fmt(row.get("test"), 44), fmt(row.get("status"), 9),
             fmt(row.get("max_abs_err"), 11), fmt(row.get("rel_l2"), 9),
             fmt(f"{tol:.0e}" if tol else None, 7),
             fmt(row.get("median_ms"), 10),
             fmt(row.get("speedup_vs_O0"), 6), fmt(row.get("torch_ms"), 9),
             fmt(row.get("speedup_vs_torch"), 7)]
    print(" ".join(cells) + " " + str(row.get("note", "")))
    sys.stdout.flush()


#===----------------------------------------------------------------------===#
# gtests
#===----------------------------------------------------------------------===#


def run_gtest(results, name, label, env, timeout, extra=()):
    test = f"gtest {label}"
    if test in results.done:
        return
    results.start(test)
    binary = kit_path(os.path.join("bin", name))
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        start = time.time()
        try:
            proc = subprocess.run([binary, f"--gtest_output=json:{report}",
                                   *extra], env=env, capture_output=True,
                                  text=True, timeout=timeout)
            code, output = proc.returncode, proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as e:
            code = "timeout"
            output = (e.stdout or b"").decode(errors="replace") if \
                isinstance(e.stdout, bytes) else (e.stdout or "")
        elapsed = time.time() - start
        passed = failed = skipped = 0
        failures = []
        if os.path.exists(report):
            with open(report) as f:
                data = json.load(f)
            for suite in data.get("testsuites", []):
                for t in suite.get("testsuite", []):
                    full = f"{suite['name']}.{t['name']}"
                    if t.get("failures"):
                        failed += 1
                        failures.append(full)
                    elif t.get("result") == "SKIPPED":
                        skipped += 1
                    else:
                        passed += 1
    ok = code == 0 and failed == 0
    row = {"test": test, "status": "pass" if ok else "FAIL",
           "passed": passed, "failed": failed, "skipped": skipped,
           "seconds": round(elapsed, 2),
           "note": f"{passed} passed, {failed} failed, {skipped} skipped"
                   + (f"; exit {code}" if code != 0 else "")
                   + (f"; failed: {', '.join(failures[:6])}" if failures
                      else "")}
    if not ok:
        row["output_tail"] = output[-4000:]
    results.add(row)
    if not ok:
        print("    " + output[-1500:].replace("\n", "\n    "))


#===----------------------------------------------------------------------===#
# Cases
#===----------------------------------------------------------------------===#


def as_f64(array):
    if str(array.dtype) == "bfloat16":
        return array.astype(np.float32).astype(np.float64)
    if array.dtype == np.uint16:  # bf16 bit patterns without ml_dtypes
        return (array.astype(np.uint32) << 16).view(np.float32) \
            .astype(np.float64)
    return array.astype(np.float64)


def compare(outputs, references):
    """Max abs error and relative L2 over all outputs; NaN/Inf must match."""
    max_abs, num, den, mismatched = 0.0, 0.0, 0.0, 0
    for out, ref in zip(outputs, references):
        a, b = as_f64(out), as_f64(ref)
        if a.shape != b.shape:
            return None, None, f"shape {a.shape} vs {b.shape}"
        finite = np.isfinite(a) & np.isfinite(b)
        same_special = (~np.isfinite(a)) & (~np.isfinite(b)) & (
            (np.isnan(a) & np.isnan(b)) | (a == b))
        mismatched += int(np.count_nonzero(~finite & ~same_special))
        diff = np.abs(a[finite] - b[finite])
        if diff.size:
            max_abs = max(max_abs, float(diff.max()))
        num += float(np.sum(diff ** 2))
        den += float(np.sum(b[finite] ** 2))
    rel = (num ** 0.5) / (den ** 0.5) if den > 0 else (0.0 if num == 0
                                                        else float("inf"))
    note = f"{mismatched} NaN/Inf mismatches" if mismatched else ""
    return max_abs, rel, note


def compare_groups(outputs, references, groups):
    """compare() of each group of outputs on its own ({name: [positions]}):
    the largest max abs error and relative L2 error, and the notes, each
    naming its group."""
    if len(outputs) != len(references):
        return None, None, (f"{len(outputs)} outputs for "
                            f"{len(references)} references")
    worst_abs, worst_rel, notes = 0.0, 0.0, []
    for name, positions in groups.items():
        max_abs, rel, note = compare([outputs[i] for i in positions],
                                     [references[i] for i in positions])
        if rel is None:
            return None, None, f"{name}: {note}"
        worst_abs, worst_rel = max(worst_abs, max_abs), max(worst_rel, rel)
        if note:
            notes.append(f"{name}: {note}")
    return worst_abs, worst_rel, "; ".join(notes)


class NumpyReferences:
    """bench/gpu's formulas (models.py) in fp32 NumPy, once per model."""

    def __init__(self):
        self.cache = {}

    def get(self, case, inputs):
        key = case["name"]
        if key not in self.cache:
            import models
            ops = models.NumpyOps()
            model = case["reference"].split(":", 1)[1]
            extra = {k: v for k, v in case.get("torch", {}).items()
                     if k != "model"}
            if model == "gemm":
                out = inputs[0] @ inputs[1]
            elif model == "chain":
                out = models.chain_forward(ops, *inputs)
            elif model == "mlp":
                out = models.mlp_forward(ops, *inputs)
            else:
                out = models.transformer_forward(ops, *inputs, **extra)
            self.cache[key] = [np.asarray(out, dtype=np.float32)]
        return self.cache[key]


class TorchBaselines:
    """PyTorch eager on the same shapes and weights: fp32 with TF32 off, and
    autocast f16/bf16; times by CUDA events (median). The rows that are not
    model rows of baselines.py (the bench models, the small frontend
    models), as every kit run measured them."""

    def __init__(self, repeat):
        self.repeat = repeat
        self.cache = {}
        self.error = None
        try:
            import torch
            if not torch.cuda.is_available():
                raise RuntimeError("torch.cuda.is_available() is False")
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            self.torch = torch
            self.version = torch.__version__
        except Exception as error:  # noqa: BLE001 - any import problem
            self.torch = None
            self.error = f"{type(error).__name__}: {error}"

    def time(self, case, inputs, mode):
        if self.torch is None:
            return None
        key = (case["name"], mode)
        if key in self.cache:
            return self.cache[key]
        torch = self.torch
        import models
        ops = models.TorchOps(torch)
        spec = case["torch"]
        model = spec["model"]
        extra = {k: v for k, v in spec.items() if k != "model"}
        tensors = [torch.from_numpy(np.ascontiguousarray(a)).cuda()
                   for a in inputs]
        net = None
        if model == "frontend":
            import frontend_models
            net = frontend_models.MODELS[spec["name"]]()
            weights = np.load(kit_path(spec["weights"]))
            net.load_state_dict({k: torch.from_numpy(weights[k])
                                 for k in weights.files})
            net = net.cuda().eval()

        def forward():
            if net is not None:
                return net(*tensors)
            if model == "gemm":
                return tensors[0] @ tensors[1]
            if model == "chain":
                return models.chain_forward(ops, *tensors)
            if model == "mlp":
                return models.mlp_forward(ops, *tensors)
            return models.transformer_forward(ops, *tensors, **extra)

        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}.get(mode)
        times = []
        with torch.no_grad():
            for i in range(self.repeat + 2):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                if dtype is None:
                    forward()
                else:
                    with torch.autocast("cuda", dtype=dtype):
                        forward()
                end.record()
                end.synchronize()
                if i >= 2:
                    times.append(start.elapsed_time(end))
        del tensors
        torch.cuda.empty_cache()
        self.cache[key] = float(np.median(times))
        return self.cache[key]


class TorchModels:
    """The PyTorch side of the model rows (baselines.py), in this process:
    the model of one case at a time on the GPU, its fp32 reference, its
    eager and CUDA-graph variants by precision, and its profile."""

    def __init__(self, iters, warmup, device="cuda"):
        self.iters, self.warmup, self.device = iters, warmup, device
        self.key, self.setup = None, None
        self.failed, self.references, self.cache = {}, {}, {}
        self.error = None
        try:
            import torch
            if device == "cuda" and not torch.cuda.is_available():
                raise RuntimeError("torch.cuda.is_available() is False")
            baselines.set_flags(torch)
            self.torch = torch
            self.version = torch.__version__
        except Exception as error:  # noqa: BLE001 - any import problem
            self.torch = None
            self.error = f"{type(error).__name__}: {error}"

    def get(self, case, inputs):
        """The case's Setup (built once; building fails loudly, once)."""
        if self.torch is None:
            raise RuntimeError(f"no PyTorch: {self.error}")
        key = case["name"]
        if key in self.failed:
            raise RuntimeError(self.failed[key])
        if self.key != key:
            self.release()
            try:
                self.setup = baselines.Setup(case, inputs, self.device)
            except Exception as error:  # noqa: BLE001 - kept for its rows
                self.failed[key] = "building the PyTorch model: " + \
                    baselines.error_text(error)
                raise RuntimeError(self.failed[key]) from None
            self.key = key
        return self.setup

    def reference(self, case, inputs):
        if case["name"] not in self.references:
            self.references[case["name"]] = self.get(case, inputs).reference()
        return self.references[case["name"]]

    def variants(self, case, inputs, precision, results):
        """{variant: figures}: eager (AMP at `precision`, or fp32) and its
        CUDA graph, once per model and precision."""
        key = ("variants", case["name"], precision)
        if key in self.cache:
            return {k: dict(v) for k, v in self.cache[key].items()}
        try:
            setup = self.get(case, inputs)
        except RuntimeError as error:
            return {"error": str(error)}
        eager = "fp32" if precision == "fp32" else "eager_amp"
        out = {}
        for variant in (eager, "cuda_graph"):
            out[variant] = results.step(
                f"torch {variant} {case['name']} {precision}",
                lambda v=variant: baselines.measure(
                    setup, v, precision, self.warmup, self.iters))
        self.cache[key] = out
        return {k: dict(v) for k, v in out.items()}

    def profile(self, case, inputs, precision, results):
        """The eager call's kernels, once per model and precision."""
        key = ("profile", case["name"], precision)
        if key not in self.cache:
            def work():
                try:
                    return baselines.profile_setup(
                        self.get(case, inputs), precision, PROFILE_CALLS)
                except Exception as error:  # noqa: BLE001 - recorded
                    return {"error": baselines.error_text(error)}
            self.cache[key] = results.step(
                f"profile torch {case['name']} {precision}", work)
        return self.cache[key]

    def release(self):
        self.key, self.setup = None, None
        if self.torch is not None and self.device == "cuda":
            self.torch.cuda.empty_cache()


class DeviceMemory:
    """amp-mlir's device memory, which is not PyTorch's: the runtime
    allocates with cuMemAllocAsync from the device's default memory pool
    (arguments, temporaries, results, cuBLAS/cuDNN workspaces; constants
    are cuMemAlloc'ed once for the process and not counted), so the pool's
    used-memory high watermark (CU_MEMPOOL_ATTR_USED_MEM_HIGH), reset
    before the timed calls, is the peak of a call. Where the pool says
    nothing, the free memory lost over the first call (cuMemGetInfo)."""

    USED_MEM_HIGH = 8  # CUmemPool_attribute
    POOL = "memory pool high watermark (cuMemAllocAsync)"
    FIRST_CALL = "free memory lost over the first call (cuMemGetInfo)"

    def __init__(self):
        c = ctypes
        self.cuda = cuda = c.CDLL("libcuda.so.1")
        device, pool = c.c_int(), c.c_void_p()
        if cuda.cuDeviceGet(c.byref(device), 0) != 0 or \
                cuda.cuDeviceGetDefaultMemPool(c.byref(pool), device) != 0:
            pool = None
        self.pool = pool
        for name in ("cuMemPoolGetAttribute", "cuMemPoolSetAttribute"):
            getattr(cuda, name).argtypes = [c.c_void_p, c.c_int, c.c_void_p]
        cuda.cuMemPoolTrimTo.argtypes = [c.c_void_p, c.c_size_t]
        self.info = getattr(cuda, "cuMemGetInfo_v2", None) or cuda.cuMemGetInfo

    def reset_peak(self):
        if self.pool is not None:
            zero = ctypes.c_uint64(0)
            self.cuda.cuMemPoolSetAttribute(self.pool, self.USED_MEM_HIGH,
                                            ctypes.byref(zero))

    def peak_bytes(self):
        if self.pool is None:
            return None
        value = ctypes.c_uint64(0)
        if self.cuda.cuMemPoolGetAttribute(self.pool, self.USED_MEM_HIGH,
                                           ctypes.byref(value)) != 0:
            return None
        return value.value or None

    def trim(self):
        """Hands the pool's unused memory back (the runtime keeps it for
        its next calls): before torch.compile's child processes."""
        if self.pool is not None:
            self.cuda.cuMemPoolTrimTo(self.pool, ctypes.c_size_t(0))

    def free_bytes(self):
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        if self.info(ctypes.byref(free), ctypes.byref(total)) != 0:
            return None
        return free.value


_SEEDED = {}


def _seeded_cache(case):
    """The seeded inputs of the model of `case`, drawn once for its levels
    (the cases of one model follow each other; one model is kept)."""
    key = json.dumps(case["seeded_inputs"], sort_keys=True)
    if key not in _SEEDED:
        _SEEDED.clear()
        _SEEDED[key] = seeded_inputs(case["seeded_inputs"])
    return _SEEDED[key]


def case_test(case):
    return f"{case['group']}/{case['name']} {case['level']}"


def _add_note(row, text):
    text = " ".join(text.split())  # one line (a table cell)
    row["note"] = (row["note"] + "; " if row.get("note") else "") + text


def case_order(cases, quick):
    """The cases in the order they run: the manifest's, except that --quick
    runs the model rows (what the kit is for, issue 42) first, and among
    them the training steps (issue 43's measure) first, each model's
    levels still in order (O0 first, for x O0), so that a run that reaches
    its deadline skips bench and test rows rather than models."""
    if not quick:
        return list(cases)
    return sorted(cases, key=lambda case: (
        case["group"] != "model",
        not (case.get("torch") or {}).get("train")))


def sim_bounds(library, function, inputs):
    """The static bounds of one call in the simulator (issue 42, item 5; as
    bench/gpu/sim_bounds.py measures them): launches, library calls, host
    synchronizations, device allocations, device memory bytes moved
    against the ideal, and the roofline estimate of the call's kernels and
    library calls (µs; uploads and downloads are not timed on a GPU
    either)."""
    library.reset_simulator()
    function(*inputs)
    stats = library.simulator_stats()
    estimates = {chip: library.estimate(chip) for chip in ("h100-sxm",
                                                           "h200")}
    records = estimates["h100-sxm"]["records"]
    return {"launches": stats["launches"],
            "library_calls": stats["libraryCalls"],
            "syncs": stats["synchronizations"],
            "allocations": stats["allocations"],
            "bytes_moved": sum(r["bytes_read"] + r["bytes_written"]
                               for r in records),
            "ideal_bytes": stats["idealBytes"],
            "estimate_us": {chip: round((e["kernel_seconds"] +
                                         e["library_seconds"]) * 1e6, 3)
                            for chip, e in estimates.items()}}


def graph_row(library, function, inputs, args, repeat, warmup):
    """amp-mlir's side of the CUDA-graph column: the call captured once
    (AotFunction.capture) and its replays timed as the calls are (GPU), or
    in the simulator one replay's counts: graph launches, and the kernels,
    library calls, waits and allocations inside it. An error is the row's
    note, not a failure: the call itself passed."""
    try:
        graph = function.capture(*inputs)
    except Exception as error:  # noqa: BLE001 - reported in the row
        return {"graph_error": f"{type(error).__name__}: {error}"[:200]}
    try:
        if not args.sim:
            times = graph.time(repeat=repeat, warmup=warmup)
            return {"graph_median_ms": float(np.median(times)) * 1e3,
                    "graph_timer": graph.timer}
        library.reset_simulator()
        graph.replay()
        stats = library.simulator_stats()
        return {"graph_sim": {"graph_launches": stats["graphLaunches"],
                              "launches": stats["launches"],
                              "library_calls": stats["libraryCalls"],
                              "syncs": stats["synchronizations"],
                              "allocations": stats["allocations"]}}
    except Exception as error:  # noqa: BLE001 - reported in the row
        return {"graph_error": f"{type(error).__name__}: {error}"[:200]}
    finally:
        graph.close()


def run_case(results, case, args, numpy_refs, torch_baselines, o0_times,
             models=None, memory=None):
    test = case_test(case)
    if test in results.done:
        return
    results.start(test)
    row = {"test": test, "id": case["id"], "group": case["group"],
           "level": case["level"]}
    for key in ("items", "estimate_us"):
        if case.get(key):
            row[key] = case[key]
    if case.get("not_built"):
        # No library (the build said why): a row of the table, no failure.
        row.update({"status": "not built", "note": case["not_built"]})
        results.add(row)
        return
    if not args.budget.allows(CASE_MIN_S):
        row.update({"status": "skipped", "note": args.budget.why_not()})
        results.add(row)
        return
    model_row = baselines.wants_baselines(case) and args.model_rows
    train = bool((case.get("torch") or {}).get("train"))
    library_path = case.get("sim_library") if args.sim else case["library"]
    try:
        library = amp_aot.load(kit_path(library_path))
        function = library[case["function"]]
        if "references" in case:
            inputs = [np.load(kit_path(p)) for p in case["inputs"]] \
                if "inputs" in case else _seeded_cache(case)
            references = [np.load(kit_path(p)) for p in case["references"]]
            tol = case["tolerance"]
            row["reference"] = "cpu (same level)"
        elif case.get("reference") == "torch":
            inputs = _seeded_cache(case)
            if models is None:
                raise RuntimeError("no PyTorch here for the torch reference"
                                   + (f" ({args.torch_error})"
                                      if args.torch_error else ""))
            references = models.reference(case, inputs)
            level = case["level"].split()
            tol = FP32_TOLERANCE["O0" if len(level) == 1 else level[1]]
            row["reference"] = "torch fp32 (TF32 off)" + \
                (", the step's loss" if train else "")
        else:
            inputs = _seeded_cache(case)
            references = numpy_refs.get(case, inputs)
            level = case["level"].split()
            tol = FP32_TOLERANCE["O0" if len(level) == 1 else level[1]]
            row["reference"] = "numpy fp32"
        free_before = memory.free_bytes() if memory else None
        started = time.perf_counter()
        outputs = function(*inputs)
        checked_s = time.perf_counter() - started
        free_after = memory.free_bytes() if memory else None
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        if train and row["reference"].startswith("torch"):
            # A training step: its first result is the loss.
            outputs = outputs[:1]
            references = [np.reshape(references[0], np.shape(outputs[0]))]
        if "reference_outputs" in case:
            # A training step against the CPU: the outputs the kit kept,
            # each role's on their own (the loss scale would swamp a joint
            # norm of all).
            max_abs, rel, note = compare_groups(
                [outputs[i] for i in case["reference_outputs"]], references,
                case["reference_groups"])
        else:
            max_abs, rel, note = compare(outputs, references)
        ok = rel is not None and rel <= tol and not note
        row.update({"status": "pass" if ok else "FAIL", "max_abs_err": max_abs,
                    "rel_l2": rel, "tolerance": tol, "note": note})
        repeat, warmup = case["repeat"], 1
        if args.quick:
            repeat = max(2, min(repeat, 5))
        if model_row:
            repeat = max(case["repeat"], MODEL_ITERS["quick" if args.quick
                                                     else "full"])
            warmup = MODEL_WARMUP["amp"]
        if memory:
            memory.reset_peak()
        if args.sim:
            # The simulator's time means nothing: the checked call's wall
            # time, not another call (a ResNet-50 step takes a minute).
            repeat, times, timer = 1, [checked_s], "wall"
        else:
            times = function.time(*inputs, repeat=repeat, warmup=warmup)
            timer = function.timer
        median = float(np.median(times)) * 1e3
        row.update({"median_ms": median, "timer": timer, "repeat": repeat})
        if args.sim:
            row["sim"] = sim_bounds(library, function, inputs)
            bounds = row["sim"]
            row["note"] = (row["note"] + "; " if row["note"] else "") + (
                f"sim: {bounds['launches']} launches, "
                f"{bounds['library_calls']} library calls, "
                f"{bounds['syncs']} syncs, {bounds['allocations']} "
                f"allocations, {bounds['bytes_moved'] / 1e6:.3f} / "
                f"{bounds['ideal_bytes'] / 1e6:.3f} MB moved / ideal, "
                f"H100 est. {bounds['estimate_us']['h100-sxm']:.1f} us")
        if case["group"] == "model":
            row.update(graph_row(library, function, inputs, args, repeat,
                                 warmup))
            if row.get("graph_sim"):
                g = row["graph_sim"]
                _add_note(row, f"graph: {g['graph_launches']} launch, "
                          f"{g['launches']} kernels, {g['library_calls']} "
                          f"library calls, {g['syncs']} syncs, "
                          f"{g['allocations']} allocations")
            elif row.get("graph_error"):
                _add_note(row, "graph " + row["graph_error"])
        if model_row:
            row.update(baselines.summarize([t * 1e3 for t in times]))
            row["items_per_s"] = baselines.items_per_second(
                case.get("items"), median)
            peak = memory.peak_bytes() if memory else None
            if peak:
                row.update(peak_mem_MiB=peak / 2**20,
                           peak_mem_method=DeviceMemory.POOL)
                if args.torch_allocator == "cudaMallocAsync":
                    # PyTorch's tensors come from the same pool then.
                    row["peak_mem_method"] += " (PyTorch's tensors included:" \
                        " its allocator is cudaMallocAsync)"
            elif free_before is not None and free_after is not None:
                row.update(peak_mem_MiB=(free_before - free_after) / 2**20,
                           peak_mem_method=DeviceMemory.FIRST_CALL)
            estimate = (case.get("estimate_us") or {}).get(args.chip)
            if estimate:
                row.update(estimate_chip=args.chip,
                           estimate_pct=estimate / (median * 1e3) * 100)
        base = f"{case['group']}/{case['name']}"
        if case["level"] == "O0":
            o0_times[base] = median
        elif base in o0_times:
            row["speedup_vs_O0"] = o0_times[base] / median
        if case["name"].startswith("chain") and not args.sim:
            moved = sum(a.nbytes for a in inputs) + sum(
                o.nbytes for o in outputs)
            row["effective_GBps"] = moved / (median * 1e-3) / 1e9
            row["note"] = (row["note"] + " " if row["note"] else "") + \
                f"{row['effective_GBps']:.0f} GB/s"
        precision = baselines.precision_of(case["level"])
        if model_row and precision in ("fp32", "f16", "bf16"):
            variants = models.variants(case, inputs, precision, results) \
                if models else {"error": f"no PyTorch: {args.torch_error}"}
            row["torch"] = variants
            eager = variants.get("fp32" if precision == "fp32"
                                 else "eager_amp") or {}
            if eager.get("median_ms") and not eager.get("error"):
                row["torch_ms"] = eager["median_ms"]
                row["torch_mode"] = ("eager fp32 (TF32 off)"
                                     if precision == "fp32" else
                                     f"eager autocast {precision}") + \
                    (", channels_last" if eager.get("channels_last")
                     else "") + ", cudnn.benchmark"
                row["speedup_vs_torch"] = eager["median_ms"] / median
            errors = [f"{k}: {v['error']}" if isinstance(v, dict) else
                      f"{k}: {v}" for k, v in variants.items()
                      if not isinstance(v, dict) or v.get("error")]
            if errors:
                _add_note(row, "torch " + "; ".join(errors)[:200])
        elif case.get("torch") and torch_baselines and not args.sim:
            level = case["level"].split()
            mode = "fp32" if len(level) == 1 else level[1]
            try:
                torch_ms = torch_baselines.time(case, inputs, mode)
            except Exception as error:  # noqa: BLE001 - not amp-mlir's row
                torch_ms = None
                row["note"] = (row["note"] + "; " if row["note"] else "") + \
                    f"torch failed: {type(error).__name__}: {error}"[:200]
            if torch_ms:
                row["torch_ms"] = torch_ms
                row["torch_mode"] = "eager fp32 (TF32 off)" if mode == "fp32" \
                    else f"autocast {mode}"
                row["speedup_vs_torch"] = torch_ms / median
    except Exception as error:  # noqa: BLE001 - one row, then the next
        row.update({"status": "FAIL", "note": f"{type(error).__name__}: "
                    f"{str(error)[:300]}"})
    results.add(row)


#===----------------------------------------------------------------------===#
# The model rows after every case: profiles, torch.compile, the closing
# table
#===----------------------------------------------------------------------===#


def profile_amp(torch, function, inputs, calls=PROFILE_CALLS, device="cuda"):
    """amp-mlir's kernels in `calls` calls, seen by torch.profiler (CUPTI
    records every kernel of the process, the runtime's driver-API launches
    and its cuBLAS/cuDNN calls too); the arguments are copied in before
    and the results freed after, outside the profile. Where the profiler
    saw none, the call's time by CUDA events, and that said."""
    frames = [function._prepare(inputs) for _ in range(calls)]
    try:
        events = baselines.profile_calls(
            torch, [lambda f=frame: function._invoke(f) for frame in frames],
            device)
    finally:
        for frame in frames:
            function._collect(frame, copy=False)
    summary = baselines.aggregate_kernels(events, calls)
    if summary["launches_per_call"] and summary["kernel_us_per_call"]:
        summary["method"] = "torch.profiler (CUPTI), in run.py's process"
        return summary
    times = function.time(*inputs, repeat=calls, warmup=0)
    timer = "CUDA events" if function.timer == "events" else "a wall clock"
    return {"method": f"{timer} around the call: torch.profiler saw no "
                      f"kernel of amp-mlir's", "calls": calls,
            "call_us": float(np.median(times)) * 1e6, "top": []}


def profile_models(results, cases, args, models):
    """Each model row's profile: amp-mlir's kernels and PyTorch's (eager at
    the row's dtype), the top ones by time with their share. After every
    timing: a profiler session could slow what follows it."""
    for row in results.data["rows"]:
        case = cases.get(row.get("id"))
        if case is None or not baselines.wants_baselines(case) or \
                "profile" in row or row["status"] not in ("pass", "FAIL") \
                or "median_ms" not in row:
            continue
        if not args.budget.allows(PROFILE_MIN_S):
            row["profile"] = {"error": args.budget.why_not()}
            results.save()
            continue
        profile = {}
        if models is None or models.torch is None:
            profile["error"] = f"no PyTorch: {args.torch_error}"
        else:
            inputs = _seeded_cache(case)

            def amp_side():
                try:
                    library = amp_aot.load(kit_path(
                        case["sim_library"] if args.sim else case["library"]))
                    return profile_amp(models.torch,
                                       library[case["function"]], inputs,
                                       device=models.device)
                except Exception as error:  # noqa: BLE001 - recorded
                    return {"error": baselines.error_text(error)}
            profile["amp"] = results.step(f"profile {row['test']}", amp_side)
            precision = baselines.precision_of(case["level"])
            if precision in ("fp32", "f16", "bf16"):
                profile["torch"] = models.profile(case, inputs, precision,
                                                  results)
        row["profile"] = profile
        results.save()
        print_profile(row)


def print_profile(row, top=3):
    profile = row.get("profile") or {}
    parts = []
    for side in ("amp", "torch"):
        entry = profile.get(side) or {}
        if entry.get("error"):
            parts.append(f"{side}: {entry['error'][:60]}")
            continue
        kernels = ", ".join(f"{k['share'] * 100:.0f}% {k['name'][:40]}"
                            for k in entry.get("top", [])[:top])
        if "kernel_us_per_call" in entry:
            parts.append(f"{side}: {entry['launches_per_call']:.0f} "
                         f"launches, {entry['kernel_us_per_call']:.0f} us "
                         f"of kernels/call ({kernels})")
        elif entry:
            parts.append(f"{side}: {entry.get('method', '')}")
    if profile.get("error"):
        parts.append(profile["error"])
    print(f"profile {row['test']}: " + " | ".join(parts))
    sys.stdout.flush()


def compile_jobs(results, cases):
    """[(case id, model, precision, rows)] of the model rows at f16/bf16:
    one precision of each model first (the first in the manifest), then
    the others, so that a short budget still compiles every model once."""
    jobs, seen = [], {}
    for row in results.data["rows"]:
        case = cases.get(row.get("id"))
        if case is None or not baselines.wants_baselines(case) or \
                not isinstance(row.get("torch"), dict) or not any(
                    isinstance(v, dict) and v.get("median_ms")
                    for v in row["torch"].values()):
            continue
        precision = baselines.precision_of(case["level"])
        if precision not in ("f16", "bf16"):
            continue
        key = (case["name"], precision)
        if key not in seen:
            seen[key] = (case["id"], case["name"], precision, [])
            jobs.append(seen[key])
        seen[key][3].append(row)
    first, rest, models = [], [], set()
    for job in jobs:
        (rest if job[1] in models else first).append(job)
        models.add(job[1])
    return first + rest


def compile_models(results, cases, args, models, memory=None):
    """torch.compile of each model and dtype (baselines.compile_in_child):
    mode default, then max-autotune (not with --quick), each capped."""
    jobs = compile_jobs(results, cases)
    if jobs and memory:
        memory.trim()
    iters = MODEL_ITERS["quick" if args.quick else "full"]
    for mode, variant in (("default", "compile"),
                          ("max-autotune", "compile_max_autotune")):
        for case_id, name, precision, rows in jobs:
            if all(variant in row["torch"] for row in rows):
                continue
            if models is None or models.torch is None:
                stats = {"error": f"no PyTorch: {args.torch_error}"}
            elif models.device != "cuda":
                stats = {"error": "skipped: torch.compile on the GPU only"}
            elif mode == "max-autotune" and args.quick:
                stats = {"error": "skipped: --quick"}
            elif not args.budget.allows(COMPILE_MIN_S):
                stats = {"error": args.budget.why_not()}
            else:
                cap = COMPILE_CAP_S[mode]
                left = args.budget.left()
                if left is not None:
                    cap = min(cap, left - CASE_MIN_S)
                models.release()
                stats = baselines.compile_in_child(
                    KIT, case_id, precision, mode, cap,
                    MODEL_WARMUP["torch"], iters)
            for row in rows:
                row["torch"][variant] = stats
                median = stats.get("median_ms")
                if median and row.get("median_ms") and \
                        row["status"] == "pass":
                    row[f"speedup_vs_{variant}"] = median / row["median_ms"]
            results.save()
            print(f"torch.compile {name} {precision} ({mode}): " + (
                f"{stats['median_ms']:.3f} ms, compiled in "
                f"{stats.get('compile_s', 0):.0f} s"
                if stats.get("median_ms") and not stats.get("error")
                else stats.get("error", "no figures")))
            sys.stdout.flush()


def copy_bandwidth(results, runtime):
    """Device-to-device mgpuMemcpy of 512 MiB, CUDA events, median of 10:
    bytes read + written per second."""
    test = "copy bandwidth (d2d 512 MiB)"
    if test in results.done:
        return None
    results.start(test)
    size = 512 << 20
    events = runtime.events()
    a = runtime.lib.mgpuMemAlloc(size, runtime.stream, False)
    b = runtime.lib.mgpuMemAlloc(size, runtime.stream, False)
    times = []
    for i in range(12):
        if events:
            events.record_start()
        start = time.perf_counter()
        runtime.lib.mgpuMemcpy(b, a, size, runtime.stream)
        if events:
            events.record_end()
            elapsed = events.seconds()
        else:
            runtime.synchronize()
            elapsed = time.perf_counter() - start
        if i >= 2:
            times.append(elapsed)
    runtime.free(a)
    runtime.free(b)
    runtime.synchronize()
    runtime.check("copy bandwidth")
    median = float(np.median(times))
    gbps = 2 * size / median / 1e9
    results.add({"test": test, "status": "info", "median_ms": median * 1e3,
                 "effective_GBps": gbps, "timer": "events" if events
                 else "wall", "note": f"{gbps:.0f} GB/s (read + write)"})
    return gbps


def _allocator_backend(torch):
    try:
        return torch.cuda.get_allocator_backend()
    except Exception as error:  # noqa: BLE001 - an older torch
        return f"unknown ({type(error).__name__})"


# Statuses that fail a run (runs.py counts the same).
FAILED = ("FAIL", "crashed", "timeout")


def write_summary(results, seconds):
    """The run's summary (rows, failed, seconds, skipped); returns the
    failed rows' tests and the number skipped."""
    rows = results.data["rows"]
    failed = [r["test"] for r in rows if r["status"] in FAILED]
    skipped = sum(r["status"] == "skipped" for r in rows)
    results.data["summary"] = {"rows": len(rows), "failed": len(failed)}
    if seconds is not None:
        results.data["summary"]["seconds"] = round(seconds, 1)
    if skipped:
        results.data["summary"]["skipped"] = skipped
    return failed, skipped


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=
                                     argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sim", action="store_true",
                        help="the simulator runtime (CPU only)")
    parser.add_argument("--only", default=None,
                        help="comma-separated substrings of tests to run")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--no-gtests", action="store_true")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--sim-lib-dir", default=None,
                        help="(run.sh) a folder where libamp_runtime.so is "
                             "the simulator, for the contract tests")
    parser.add_argument("--torch-device", default="cuda",
                        help="(CI) cpu: with --sim, the model rows' PyTorch "
                             "side (not torch.compile) on the CPU")
    parser.add_argument("--deadline", type=float, default=None,
                        help="(run.sh --quick) epoch seconds by which the "
                             "run ends: later steps are skipped, said so")
    parser.add_argument("--close-timeout", action="store_true",
                        help="(run.sh) after its time limit: record the row "
                             "in flight as 'timeout' and the summary")
    args = parser.parse_args()
    out_dir = os.environ.get("OUT") or KIT
    if args.close_timeout:
        close_timed_out(os.path.join(out_dir, "results.json"))
        return 1
    args.budget = Budget(args.deadline)
    args.row_cap = ROW_CAP_S["quick" if args.quick else "full"]
    args.model_rows = not args.sim or args.torch_device == "cpu"
    unpack()
    with open(kit_path("manifest.json")) as f:
        manifest = json.load(f)
    os.makedirs(out_dir, exist_ok=True)
    mode = ("sim" if args.sim else "gpu") + ("-quick" if args.quick else "")
    results = Results(os.path.join(out_dir, "results.json"), mode,
                      args.resume)
    started = time.time()

    runtime = amp_aot._Runtime.get(kit_path(
        "sim/libamp_runtime_gpusim.so" if args.sim
        else "lib/libamp_runtime.so"))
    lib = runtime.lib
    lib.ampGpuAvailable.restype = int
    available = lib.ampGpuAvailable()
    reason = lib.ampLastError().decode(errors="replace") if not available \
        else ""
    runtime._errors.clear()
    name = (amp_aot.ctypes.create_string_buffer(256))
    device = "none"
    if available and lib.ampGpuDeviceName(name, 256) == 0:
        device = name.value.decode()
    runtime._errors.clear()
    capability = lib.ampGpuComputeCapability() if available else 0
    runtime._errors.clear()
    results.data.update({"device": device, "compute_capability": capability,
                         "kit_commit": manifest.get("commit"),
                         "kit_built": manifest.get("built"),
                         "host": platform.node(),
                         "python": platform.python_version(),
                         "numpy": np.__version__})
    print(f"gpu-kit {manifest.get('commit')} ({manifest.get('built')}): "
          f"mode {mode}, device: {device}"
          + (f" (sm_{capability})" if capability else "")
          + (f"; no GPU: {reason}" if not available else ""))
    if not available and not args.sim:
        results.data["error"] = f"no GPU: {reason}"
        results.finish()
        print(f"gpu-kit: no GPU: {reason}", file=sys.stderr)
        return 2

    torch_baselines = None
    models = None
    args.chip = baselines.chip_of(device)
    args.torch_error = "--no-torch" if args.no_torch else None
    args.torch_allocator = None
    if not args.no_torch and not args.sim:
        torch_baselines = TorchBaselines(repeat=5 if args.quick else 20)
        results.data["torch"] = torch_baselines.error or \
            torch_baselines.version
        print("torch: " + (torch_baselines.error or torch_baselines.version))
        args.torch_error = torch_baselines.error
        if torch_baselines.torch is None:
            torch_baselines = None
        else:
            args.torch_allocator = _allocator_backend(torch_baselines.torch)
            results.data["torch_allocator"] = args.torch_allocator
    if not args.no_torch and args.model_rows and (
            torch_baselines or args.sim):
        models = TorchModels(MODEL_ITERS["quick" if args.quick else "full"],
                             MODEL_WARMUP["torch"], args.torch_device)
        if models.torch is None:
            args.torch_error = models.error
            models = None
        elif args.sim:
            results.data["torch"] = f"{models.version} ({args.torch_device})"
    memory = None
    if not args.sim:
        try:
            memory = DeviceMemory()
        except (OSError, AttributeError):
            memory = None
    if args.deadline and "budget_s" not in results.data:
        results.data["budget_s"] = round(args.deadline - started)
    if args.only:
        results.data["only"] = args.only
    print_header()

    def selected(test):
        return not args.only or any(k in test for k in args.only.split(","))

    if not args.no_gtests:
        env = dict(os.environ)
        timeout = 240
        for name in (GTESTS_SIM if args.sim else GTESTS_GPU):
            label = name
            run_env = env
            if args.sim and name == "AmpGpuContractTests":
                label = name + " (simulator)"
                run_env = dict(env, LD_LIBRARY_PATH=args.sim_lib_dir + ":" +
                               env.get("LD_LIBRARY_PATH", ""))
            if selected(f"gtest {label}"):
                run_gtest(results, name, label, run_env, timeout)
        if not args.sim and selected("gtest AmpGpuContractTests (sm_75"):
            run_gtest(results, "AmpGpuContractTests",
                      "AmpGpuContractTests (sm_75 assumed)",
                      dict(env, AMP_RUNTIME_COMPUTE_CAPABILITY="75"), timeout,
                      ["--gtest_filter=Contract.*RefusedBeforeSm80"])

    if not args.sim and selected("copy bandwidth"):
        try:
            copy_bandwidth(results, runtime)
        except amp_aot.AotError as error:
            results.add({"test": "copy bandwidth (d2d 512 MiB)",
                         "status": "FAIL", "note": str(error)})

    numpy_refs = NumpyReferences()
    o0_times = {}
    for row in results.data["rows"]:  # a resumed run keeps its O0 times
        if row.get("level") == "O0" and row.get("median_ms"):
            o0_times[row["test"].rsplit(" ", 1)[0]] = row["median_ms"]
    chosen = {}
    for case in case_order(manifest["cases"], args.quick):
        if args.sim and "sim_library" not in case and \
                not case.get("not_built"):
            continue
        if args.quick and not case.get("quick", True):
            continue
        if not selected(case_test(case)):
            continue
        chosen[case["id"]] = case
        with RowWatchdog(results, case, row_cap(args)):
            run_case(results, case, args, numpy_refs, torch_baselines,
                     o0_times, models, memory)

    if args.model_rows:
        profile_models(results, chosen, args, models)
        compile_models(results, chosen, args, models, memory)
    closing = baselines.closing_rows(results.data)
    if closing:
        print("\nmodel rows (amp-mlir against PyTorch on the same weights "
              "and inputs):")
        print(baselines.format_closing(closing))

    failed, skipped = write_summary(results, time.time() - started)
    rows = results.data["rows"]
    results.finish()
    print(f"\ngpu-kit: {len(rows)} rows, {len(failed)} failed"
          + (f" ({', '.join(failed[:10])})" if failed else "")
          + (f", {skipped} skipped (budget)" if skipped else "")
          + f", {time.time() - started:.0f} s; results in "
          f"{results.path}")
    return 1 if failed else 0


if __name__ == "__main__":
    status = main()
    # The first H100 run (2026-11-27) wrote every row and then died with
    # SIGSEGV while the interpreter tore down (PyTorch's CUDA state and the
    # runtime's loaded side by side; not diagnosed on the device yet), and
    # run.sh then resumed a finished run. The results are complete and
    # flushed by then: leave without the teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
