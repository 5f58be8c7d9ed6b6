#!/usr/bin/env python3
"""The GPU kit's runner: run.sh sets the library paths and calls this.

    run.py [--quick] [--sim] [--only SUBSTRINGS] [--no-torch] [--no-gtests]

Prints one table (test, pass/fail, max error against the reference, median
time) and writes results.json to $OUT if set, else to the kit's folder,
after every row, so that a crash or a timeout keeps what ran (run.sh then
resumes after the row that crashed, marked 'crashed').

Needs python3 with numpy; torch (with CUDA) only for the PyTorch columns.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

KIT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, KIT)
import amp_aot  # noqa: E402  the loader: numpy + ctypes
from seeded import seeded_inputs  # noqa: E402

GTESTS_GPU = ["AmpRuntimeTests", "AmpRuntimeGpuTests", "AmpGpuContractTests"]
GTESTS_SIM = ["AmpRuntimeTests", "AmpGpuSimTests", "AmpGpuContractTests"]

# Tolerances against NumPy's fp32 on the large models (the CPU reference
# of the small ones is at the same level; these are fp32 references).
NUMPY_TOLERANCE = {"O0": 1e-4, "f16": 1.5e-2, "bf16": 6e-2}


def kit_path(relative):
    return os.path.join(KIT, relative)


#===----------------------------------------------------------------------===#
# Results, written as they come
#===----------------------------------------------------------------------===#


class Results:
    def __init__(self, path, mode, resume):
        self.path = path
        self.progress = path + ".running"
        self.data = {"mode": mode, "rows": [], "started":
                     time.strftime("%Y-%m-%d %H:%M:%S")}
        if resume and os.path.exists(path):
            with open(path) as f:
                old = json.load(f)
            if old.get("mode") == mode:
                self.data = old
        self.done = {row["test"] for row in self.data["rows"]}
        if resume and os.path.exists(self.progress):
            with open(self.progress) as f:
                crashed = f.read().strip()
            if crashed and crashed not in self.done:
                self.add({"test": crashed, "status": "crashed",
                          "note": "the process died in this row (run.sh "
                                  "resumed after it)"})

    def start(self, test):
        with open(self.progress, "w") as f:
            f.write(test)

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


COLUMNS = [("test", 44), ("status", 7), ("max abs err", 11), ("rel L2", 9),
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
    cells = [fmt(row.get("test"), 44), fmt(row.get("status"), 7),
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
    autocast f16/bf16; times by CUDA events (median)."""

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
        if model == "torchvision":
            # The image, then the weights in the names of the seeded specs.
            import torchvision
            net = getattr(torchvision.models, spec["name"])(weights=None)
            names = [w["name"] for w in case["seeded_inputs"][1:]]
            net.load_state_dict({n: torch.from_numpy(a) for n, a in
                                 zip(names, inputs[1:])}, strict=False)
            net = net.cuda().eval()
            tensors = tensors[:1]
        elif model == "frontend":
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


_SEEDED = {}


def _seeded_cache(case):
    """The seeded inputs of the model of `case`, drawn once for its levels
    (the cases of one model follow each other; one model is kept)."""
    key = json.dumps(case["seeded_inputs"], sort_keys=True)
    if key not in _SEEDED:
        _SEEDED.clear()
        _SEEDED[key] = seeded_inputs(case["seeded_inputs"])
    return _SEEDED[key]


def run_case(results, case, args, numpy_refs, torch_baselines, o0_times):
    test = f"{case['group']}/{case['name']} {case['level']}"
    if test in results.done:
        return
    results.start(test)
    row = {"test": test, "id": case["id"], "group": case["group"],
           "level": case["level"]}
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
        else:
            inputs = _seeded_cache(case)
            references = numpy_refs.get(case, inputs)
            level = case["level"].split()
            tol = NUMPY_TOLERANCE["O0" if len(level) == 1 else level[1]]
            row["reference"] = "numpy fp32"
        outputs = function(*inputs)
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        max_abs, rel, note = compare(outputs, references)
        ok = rel is not None and rel <= tol and not note
        row.update({"status": "pass" if ok else "FAIL", "max_abs_err": max_abs,
                    "rel_l2": rel, "tolerance": tol, "note": note})
        repeat = case["repeat"]
        if args.quick:
            repeat = max(2, min(repeat, 5))
        if args.sim:
            repeat = 1
        times = function.time(*inputs, repeat=repeat)
        median = float(np.median(times)) * 1e3
        row.update({"median_ms": median, "timer": function.timer,
                    "repeat": repeat})
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
        if case.get("torch") and torch_baselines and not args.sim:
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
    args = parser.parse_args()
    with open(kit_path("manifest.json")) as f:
        manifest = json.load(f)
    out_dir = os.environ.get("OUT") or KIT
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
    if not args.no_torch and not args.sim:
        torch_baselines = TorchBaselines(repeat=5 if args.quick else 20)
        results.data["torch"] = torch_baselines.error or \
            torch_baselines.version
        print("torch: " + (torch_baselines.error or torch_baselines.version))
        if torch_baselines.torch is None:
            torch_baselines = None
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
                      ["--gtest_filter=Contract.Bf16RefusedBeforeSm80"])

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
    for case in manifest["cases"]:
        if args.sim and "sim_library" not in case:
            continue
        if args.quick and not case.get("quick", True):
            continue
        if not selected(f"{case['group']}/{case['name']} {case['level']}"):
            continue
        run_case(results, case, args, numpy_refs, torch_baselines, o0_times)

    rows = results.data["rows"]
    failed = [r["test"] for r in rows if r["status"] in ("FAIL", "crashed")]
    results.data["summary"] = {
        "rows": len(rows), "failed": len(failed),
        "seconds": round(time.time() - started, 1)}
    results.finish()
    print(f"\ngpu-kit: {len(rows)} rows, {len(failed)} failed"
          + (f" ({', '.join(failed[:10])})" if failed else "")
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
