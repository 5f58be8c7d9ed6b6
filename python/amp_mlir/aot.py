"""Libraries compiled ahead of time by amp-compile, called with numpy arrays.

    lib = amp_mlir.load("model.so")         # or aot.load, without the package
    y = lib.forward(x, w)                   # numpy in, numpy out
    times = lib.forward.time(x, w, repeat=20)   # seconds per call

This module needs only numpy and ctypes (no amp-mlir tools, no MLIR), so
that it can be copied next to the libraries and used on a machine that has
nothing else of amp-mlir (the GPU kit does that). A library describes its
functions itself (``amp_module_info()``, JSON); calls follow the C interface
amp-run's JIT uses: memref descriptors by pointer, the results first.
Dynamic dimensions (``?``) take the sizes of the arrays given, as in the JIT.

For target ``gpu`` the arrays are copied to device buffers of
libamp_runtime.so (the one next to the library) and the results back;
``gpu-sim`` libraries do the same with the GPU simulator's buffers.
"""

import ctypes
import json
import os
import time as _time

import numpy as np

__all__ = ["AotError", "AotFunction", "AotLibrary", "load"]


class AotError(RuntimeError):
    """A library that cannot be loaded or called, or a runtime error."""


try:  # bf16 arrays where ml_dtypes is installed, else uint16 bit patterns
    import ml_dtypes as _ml_dtypes
    _BF16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - depends on the environment
    _BF16 = np.dtype(np.uint16)

_DTYPES = {
    "f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
    "bf16": _BF16, "f64": np.dtype(np.float64), "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64), "i1": np.dtype(np.bool_),
}


def _bf16_bits_from_f32(array):
    """float32 -> bf16 bit patterns, rounded to nearest even (NaN stays)."""
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
    rounded = ((bits.astype(np.uint64) + 0x7FFF + ((bits >> 16) & 1))
               >> 16).astype(np.uint16)
    nan = np.isnan(array)
    rounded[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
    return rounded


class TensorSpec:
    """An argument or result type: shape (None where dynamic) and element."""

    def __init__(self, info):
        self.element = info["element"]
        self.shape = tuple(None if d < 0 else d for d in info["shape"])
        self.dtype = _DTYPES[self.element]
        self.type = info["type"]

    def accepts(self, shape):
        return len(shape) == len(self.shape) and all(
            d is None or d == s for d, s in zip(self.shape, shape))

    def __repr__(self):
        return self.type


def _descriptor_class(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


# The GPU simulator's C structures (AmpGpuSim.h), as ctypes mirrors.
_SIM_STATS_FIELDS = (
    "allocations", "frees", "liveBuffers", "liveBytes", "peakBytes",
    "launches", "threads", "libraryCalls", "copies", "synchronizations",
    "kernelBytesRead", "kernelBytesWritten", "kernelFlops", "libraryBytes",
    "libraryFlops", "copyBytes", "hostBytes", "idealBytes", "graphLaunches")


class _SimStats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in _SIM_STATS_FIELDS]


class _SimChip(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("description", ctypes.c_char_p)] \
        + [(name, ctypes.c_double) for name in (
            "bandwidth", "fp32Flops", "tf32Flops", "f16Flops", "fp8Flops",
            "hostBandwidth", "launchSeconds", "libraryEfficiency")]


class _SimRecord(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 160), ("kind", ctypes.c_int32),
                ("bound", ctypes.c_int32), ("calls", ctypes.c_int64),
                ("launches", ctypes.c_int64), ("threads", ctypes.c_int64),
                ("grid", ctypes.c_int64 * 3), ("block", ctypes.c_int64 * 3),
                ("bytesRead", ctypes.c_int64),
                ("bytesWritten", ctypes.c_int64),
                ("hostBytes", ctypes.c_int64), ("flops", ctypes.c_int64),
                ("loads", ctypes.c_int64 * 5), ("stores", ctypes.c_int64 * 5),
                ("seconds", ctypes.c_double)]


class _SimEstimate(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_double),
                ("kernelSeconds", ctypes.c_double),
                ("librarySeconds", ctypes.c_double),
                ("copySeconds", ctypes.c_double),
                ("launches", ctypes.c_int64)]


class _SimLaunch(ctypes.Structure):
    _fields_ = [("record", ctypes.c_int64), ("kind", ctypes.c_int32),
                ("peak", ctypes.c_int32), ("library", ctypes.c_int32),
                ("reserved", ctypes.c_int32)] + [
        (name, ctypes.c_int64) for name in ("bytesRead", "bytesWritten",
                                            "hostBytes", "flops")]


_RECORD_KINDS = ("kernel", "library", "copy")
_BOUNDS = ("memory", "compute", "launch")
_PEAKS = ("fp32", "tf32", "f16", "fp8")
# A launch's counts, as simulator_launches names them.
LAUNCH_COUNTS = ("bytes_read", "bytes_written", "host_bytes", "flops")


def simulator_stats(lib):
    """The GPU simulator's counters (AmpSimStats) as a dict; `lib` is
    libamp_runtime_gpusim.so loaded with ctypes."""
    stats = _SimStats()
    lib.ampSimGetStats(ctypes.byref(stats))
    return {name: getattr(stats, name) for name in _SIM_STATS_FIELDS}


def simulator_estimate(lib, chip):
    """The GPU simulator's roofline estimate for `chip` of what ran since
    its last reset (ampSimEstimate, ampSimGetRecords; docs/gpu.md), as a
    dict. The name is checked here, against ampSimChipNames, so that no
    error goes through the runtime's error handler (which may be another
    caller's): an unknown chip raises ValueError."""
    if not hasattr(lib, "ampSimEstimate"):
        raise AotError("this GPU simulator has no roofline estimate "
                       "(ampSimEstimate): an older library")
    lib.ampSimChipNames.restype = ctypes.c_char_p
    known = lib.ampSimChipNames().decode()
    if chip not in known.split(", "):
        raise ValueError(f"unknown chip {chip!r} (known: {known})")
    name = str(chip).encode()
    info, total = _SimChip(), _SimEstimate()
    lib.ampSimGetChip(name, ctypes.byref(info))
    lib.ampSimEstimate(name, ctypes.byref(total))
    lib.ampSimGetRecords.restype = ctypes.c_int64
    lib.ampSimGetRecords.argtypes = [ctypes.c_char_p, ctypes.c_void_p,
                                     ctypes.c_int64]
    count = lib.ampSimGetRecords(name, None, 0)
    array = (_SimRecord * max(count, 1))()
    count = min(count, lib.ampSimGetRecords(name, array, count))
    widths = (1, 2, 4, 8, 16)
    records = [{
        "name": r.name.decode(errors="replace"),
        "kind": _RECORD_KINDS[r.kind], "bound": _BOUNDS[r.bound],
        "calls": r.calls, "launches": r.launches, "threads": r.threads,
        "grid": tuple(r.grid), "block": tuple(r.block),
        "bytes_read": r.bytesRead, "bytes_written": r.bytesWritten,
        "host_bytes": r.hostBytes, "flops": r.flops,
        "loads_by_width": dict(zip(widths, r.loads)),
        "stores_by_width": dict(zip(widths, r.stores)),
        "seconds": r.seconds} for r in array[:count]]
    return {"chip": info.name.decode(),
            "description": info.description.decode(),
            "peaks": {"bandwidth": info.bandwidth,
                      "fp32_flops": info.fp32Flops,
                      "tf32_flops": info.tf32Flops,
                      "f16_flops": info.f16Flops,
                      "fp8_flops": info.fp8Flops,
                      "host_bandwidth": info.hostBandwidth,
                      "launch_seconds": info.launchSeconds,
                      "library_efficiency": info.libraryEfficiency},
            "seconds": total.seconds,
            "kernel_seconds": total.kernelSeconds,
            "library_seconds": total.librarySeconds,
            "copy_seconds": total.copySeconds,
            "launches": total.launches, "records": records}


def simulator_launches(lib):
    """Every launch since the simulator's last reset, in order
    (ampSimGetLaunches): a list of dicts with 'record' (the index of its
    record in simulator_estimate's 'records'), 'kind', 'peak' ('fp32',
    'tf32', 'f16', 'fp8'), 'library', and the counts of LAUNCH_COUNTS."""
    lib.ampSimGetLaunches.restype = ctypes.c_int64
    lib.ampSimGetLaunches.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    count = lib.ampSimGetLaunches(None, 0)
    array = (_SimLaunch * max(count, 1))()
    count = min(count, lib.ampSimGetLaunches(array, count))
    return [{"record": a.record, "kind": _RECORD_KINDS[a.kind],
             "peak": _PEAKS[a.peak], "library": bool(a.library),
             "bytes_read": a.bytesRead, "bytes_written": a.bytesWritten,
             "host_bytes": a.hostBytes, "flops": a.flops}
            for a in array[:count]]


def simulator_estimate_launches(lib, chip, launches):
    """The roofline estimate for `chip` of `launches` (dicts as
    simulator_launches gives them, counts possibly derived, e.g.
    extrapolated): ampSimEstimateLaunches, the model of ampSimEstimate.
    A dict with 'seconds', 'kernel_seconds', 'library_seconds',
    'copy_seconds' and 'launches'. ValueError for an unknown chip or a
    launch with a negative count."""
    lib.ampSimChipNames.restype = ctypes.c_char_p
    known = lib.ampSimChipNames().decode()
    if chip not in known.split(", "):
        raise ValueError(f"unknown chip {chip!r} (known: {known})")
    array = (_SimLaunch * max(len(launches), 1))()
    for out, launch in zip(array, launches):
        if any(int(launch[k]) < 0 for k in LAUNCH_COUNTS):
            raise ValueError(f"a launch with a negative count: {launch}")
        out.record = int(launch.get("record", 0))
        out.kind = _RECORD_KINDS.index(launch["kind"])
        out.peak = _PEAKS.index(launch["peak"])
        out.library = int(bool(launch["library"]))
        out.bytesRead, out.bytesWritten, out.hostBytes, out.flops = (
            int(launch[k]) for k in LAUNCH_COUNTS)
    total = _SimEstimate()
    lib.ampSimEstimateLaunches.argtypes = [
        ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
    if lib.ampSimEstimateLaunches(str(chip).encode(), array, len(launches),
                                  ctypes.byref(total)) != 0:
        raise AotError("ampSimEstimateLaunches failed")
    return {"seconds": total.seconds, "kernel_seconds": total.kernelSeconds,
            "library_seconds": total.librarySeconds,
            "copy_seconds": total.copySeconds, "launches": total.launches}


def _row_major_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return list(reversed(strides))


class _Runtime:
    """The device side of a GPU library: libamp_runtime.so or the
    simulator, loaded from the library's directory before the library (so
    that its NEEDED entry resolves to this same instance)."""

    _loaded = {}

    @classmethod
    def get(cls, path):
        path = os.path.realpath(path)
        if path not in cls._loaded:
            cls._loaded[path] = cls(path)
        return cls._loaded[path]

    def __init__(self, path):
        if not os.path.isfile(path):
            raise AotError(f"the runtime library {path} does not exist (it "
                           f"goes next to the compiled library)")
        try:
            self.lib = lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as error:
            raise AotError(f"cannot load {path}: {error}") from None
        self.path = path
        self.simulator = hasattr(lib, "ampSimGetStats")
        c = ctypes
        # The mgpu* functions called here, as MgpuAbi.def declares them
        # (test/Python/aot-mgpu-abi.test compares the two).
        lib.mgpuMemAlloc.restype = c.c_void_p
        lib.mgpuMemAlloc.argtypes = [c.c_uint64, c.c_void_p, c.c_bool]
        lib.mgpuMemFree.argtypes = [c.c_void_p, c.c_void_p]
        lib.mgpuMemcpy.argtypes = [c.c_void_p, c.c_void_p, c.c_size_t,
                                   c.c_void_p]
        lib.mgpuStreamCreate.restype = c.c_void_p
        lib.mgpuStreamSynchronize.argtypes = [c.c_void_p]
        lib.ampLastError.restype = c.c_char_p
        # CUDA graphs (AmpRuntime.h); absent from an older runtime.
        self.graphs = hasattr(lib, "ampGpuGraphBeginCapture")
        if self.graphs:
            lib.ampGpuGraphEndCapture.restype = c.c_void_p
            lib.ampGpuGraphLaunch.argtypes = [c.c_void_p]
            lib.ampGpuGraphDestroy.argtypes = [c.c_void_p]
        # Errors are recorded, not fatal (the default handler aborts): the
        # entry point returns without its work and the call raises.
        self._handler = c.CFUNCTYPE(None, c.c_char_p)(self._record)
        lib.ampSetErrorHandler.restype = c.c_void_p
        lib.ampSetErrorHandler.argtypes = [c.c_void_p]
        lib.ampSetErrorHandler(c.cast(self._handler, c.c_void_p))
        self._errors = []
        self._stream = None
        self._events = None

    def _record(self, message):
        self._errors.append(message.decode(errors="replace"))

    def check(self, what):
        if self._errors:
            errors, self._errors = self._errors, []
            first = errors[0] if errors[0].startswith(what) else \
                f"{what}: {errors[0]}"
            raise AotError(first +
                           (f" (and {len(errors) - 1} more errors)"
                            if len(errors) > 1 else ""))

    @property
    def stream(self):
        if self._stream is None:
            self._stream = self.lib.mgpuStreamCreate()
            self.check("mgpuStreamCreate")
        return self._stream

    def upload(self, array):
        size = array.nbytes
        pointer = self.lib.mgpuMemAlloc(size, self.stream, False)
        if size:
            self.lib.mgpuMemcpy(pointer, array.ctypes.data, size, self.stream)
        return pointer

    def download(self, pointer, size):
        staging = np.empty(size, dtype=np.uint8)
        if size:
            self.lib.mgpuMemcpy(staging.ctypes.data, pointer, size,
                                self.stream)
        self.synchronize()
        return staging

    def free(self, pointer):
        self.lib.mgpuMemFree(pointer, self.stream)

    def free_frame(self, frame):
        """Frees the arguments AotFunction._prepare uploaded."""
        self.synchronize()
        for pointer in frame["device"]:
            self.free(pointer)

    def live_buffers(self):
        """The simulator's count of live device buffers, else None."""
        if not self.simulator:
            return None
        stats = _SimStats()
        self.lib.ampSimGetStats(ctypes.byref(stats))
        return stats.liveBuffers

    def simulator_stats(self):
        """AmpSimStats as a dict (field names as in AmpGpuSim.h)."""
        self._need_simulator("simulator_stats")
        return simulator_stats(self.lib)

    def reset_simulator(self):
        self._need_simulator("reset_simulator")
        self.lib.ampSimResetStats()

    def estimate(self, chip):
        self._need_simulator("estimate")
        return simulator_estimate(self.lib, chip)

    def launches(self):
        self._need_simulator("launches")
        return simulator_launches(self.lib)

    def estimate_launches(self, launches, chip):
        self._need_simulator("estimate_launches")
        return simulator_estimate_launches(self.lib, chip, launches)

    def set_count_only(self, enabled):
        self._need_simulator("count_only")
        self.lib.ampSimSetCountOnly(int(bool(enabled)))

    def _need_simulator(self, what):
        if not self.simulator:
            raise AotError(f"{what}: {self.path} is not the GPU simulator "
                           f"(compile with target='gpu-sim')")

    def synchronize(self):
        self.lib.mgpuStreamSynchronize(self.stream)

    def events(self):
        """CUDA events on the runtime's stream (libcuda.so.1 through
        ctypes), or None (the simulator, or no event API)."""
        if self._events is None:
            self._events = False
            if not self.simulator:
                try:
                    self._events = _CudaEvents(self.stream)
                except (OSError, AttributeError, AotError):
                    self._events = False
        return self._events or None


class _CudaEvents:
    def __init__(self, stream):
        cuda = ctypes.CDLL("libcuda.so.1")
        self.cuda, self.stream = cuda, ctypes.c_void_p(stream)
        self.elapsed = getattr(cuda, "cuEventElapsedTime_v2", None) or \
            cuda.cuEventElapsedTime
        self.start, self.end = ctypes.c_void_p(), ctypes.c_void_p()
        for event in (self.start, self.end):
            if cuda.cuEventCreate(ctypes.byref(event), 0) != 0:
                raise AotError("cuEventCreate failed")

    def record_start(self):
        self.cuda.cuEventRecord(self.start, self.stream)

    def record_end(self):
        self.cuda.cuEventRecord(self.end, self.stream)

    def seconds(self):
        self.cuda.cuEventSynchronize(self.end)
        ms = ctypes.c_float()
        if self.elapsed(ctypes.byref(ms), self.start, self.end) != 0:
            raise AotError("cuEventElapsedTime failed")
        return ms.value / 1e3


class AotFunction:
    """One exported function: call it with one array per argument."""

    def __init__(self, library, info):
        self.library = library
        self.name = info["name"]
        self.arguments = [TensorSpec(t) for t in info["arguments"]]
        self.call_arguments = [TensorSpec(t) for t in info["call_arguments"]]
        self.results = [TensorSpec(t) for t in info["results"]]
        self._entry = getattr(library._lib, info["symbol"])
        self._entry.restype = None
        self._entry.argtypes = None
        # "events" (CUDA events on the runtime's stream) or "wall" (a
        # synchronised wall clock), after time().
        self.timer = None

    @property
    def signature(self):
        args = ", ".join(t.type for t in self.arguments)
        results = ", ".join(t.type for t in self.results)
        if len(self.results) != 1:
            results = f"({results})"
        return f"@{self.name}({args}) -> {results}"

    def __repr__(self):
        return f"<AotFunction {self.signature} from {self.library.path}>"

    def _convert(self, index, value):
        declared = self.arguments[index]
        call = self.call_arguments[index]
        array = np.asarray(value)
        if call.element == "bf16":
            if array.dtype == np.float32 and declared.element == "f32" or \
                    array.dtype == np.float32 and _BF16 == np.uint16:
                array = _bf16_bits_from_f32(array).view(_BF16)
            elif array.dtype in (np.uint16, _BF16):
                array = array.view(_BF16)
        elif array.dtype != call.dtype and (
                declared.element == "f32" and array.dtype == np.float32 or
                array.dtype.kind == call.dtype.kind == "f" and
                np.can_cast(array.dtype, call.dtype, "same_kind")
                and array.dtype.itemsize <= call.dtype.itemsize):
            # arg-precision=low: f32 rounded to nearest even at the call.
            array = array.astype(call.dtype)
        if array.dtype != call.dtype or not call.accepts(array.shape):
            raise TypeError(
                f"argument #{index} of '@{self.name}' is {declared.type}, "
                f"got an array of shape {array.shape} and dtype "
                f"{array.dtype}")
        return np.ascontiguousarray(array)

    def _prepare(self, args):
        if len(args) != len(self.arguments):
            raise TypeError(f"'@{self.name}' takes {len(self.arguments)} "
                            f"arguments, got {len(args)}")
        runtime = self.library._runtime
        frame = {"arrays": [], "device": [], "descriptors": []}
        for index, value in enumerate(args):
            array = self._convert(index, value)
            if not runtime:
                # A function may write into an argument's buffer (outs of an
                # argument): it gets a copy, as in the JIT.
                array = array.copy()
            frame["arrays"].append(array)
            pointer = runtime.upload(array) if runtime else array.ctypes.data
            if runtime:
                frame["device"].append(pointer)
            descriptor = _descriptor_class(array.ndim)()
            descriptor.allocated = descriptor.aligned = pointer
            descriptor.offset = 0
            if array.ndim:
                descriptor.sizes[:] = list(array.shape)
                descriptor.strides[:] = _row_major_strides(array.shape)
            frame["descriptors"].append(descriptor)
        if runtime:
            runtime.synchronize()
            runtime.check(f"copying the arguments of '@{self.name}'")
        words = sum(3 + 2 * len(t.shape) for t in self.results)
        frame["results"] = (ctypes.c_int64 * max(words, 1))()
        pointers = [ctypes.c_void_p(ctypes.addressof(d))
                    for d in frame["descriptors"]]
        if self.results:
            pointers.insert(0, ctypes.c_void_p(
                ctypes.addressof(frame["results"])))
        frame["pointers"] = pointers
        return frame

    def _invoke(self, frame):
        self._entry(*frame["pointers"])
        runtime = self.library._runtime
        if runtime:
            runtime.synchronize()
            runtime.check(f"'@{self.name}'")

    def _result_descriptors(self, frame):
        """(allocated, aligned, offset, sizes, strides) of each result
        descriptor the call wrote into `frame`."""
        words, word = frame["results"], 0
        for type_ in self.results:
            rank = len(type_.shape)
            yield (words[word], words[word + 1], words[word + 2],
                   list(words[word + 3:word + 3 + rank]),
                   list(words[word + 3 + rank:word + 3 + 2 * rank]))
            word += 3 + 2 * rank

    def _collect(self, frame, copy):
        runtime = self.library._runtime
        inputs = set(frame["device"]) if runtime else {
            a.ctypes.data for a in frame["arrays"]}
        results, to_free = [], set()
        for type_, (allocated, aligned, offset, sizes, strides) in zip(
                self.results, self._result_descriptors(frame)):
            rank = len(type_.shape)
            if allocated and allocated not in inputs:
                to_free.add(allocated)
            if not copy:
                continue
            if not type_.accepts(sizes) or any(s < 0 for s in sizes):
                raise AotError(f"'@{self.name}' returned a descriptor of "
                               f"shape {sizes} for {type_.type}")
            itemsize = type_.dtype.itemsize
            count = int(np.prod(sizes)) if rank else 1
            if count == 0:
                results.append(np.empty(sizes, dtype=type_.dtype))
                continue
            span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
            base = aligned + offset * itemsize
            if runtime:
                raw = runtime.download(base, span * itemsize)
            else:
                raw = np.ctypeslib.as_array(
                    (ctypes.c_uint8 * (span * itemsize)).from_address(base))
            flat = raw.view(type_.dtype)
            view = np.lib.stride_tricks.as_strided(
                flat, shape=sizes, strides=[s * itemsize for s in strides])
            results.append(np.array(view, copy=True))
        for pointer in to_free:
            if runtime:
                runtime.free(pointer)
            else:
                self.library._libc.free(ctypes.c_void_p(pointer))
        if runtime:
            for pointer in frame["device"]:
                runtime.free(pointer)
            runtime.synchronize()
            runtime.check(f"freeing the buffers of '@{self.name}'")
        return results

    def __call__(self, *args):
        runtime = self.library._runtime
        live = runtime.live_buffers() if runtime else None
        frame = self._prepare(args)
        self._invoke(frame)
        results = self._collect(frame, copy=True)
        if live is not None and runtime.live_buffers() > live:
            raise AotError(f"'@{self.name}' left "
                           f"{runtime.live_buffers() - live} device buffers "
                           f"allocated (the simulator's count)")
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def capture(self, *args, feedback=None):
        """The call on `args` captured as a CUDA graph (targets gpu and
        gpu-sim), after one call on the same arguments that builds plans
        and uploads constants: an AotGraph, whose replay() runs the whole
        call with one launch on the arguments uploaded here. `feedback`:
        None, or one entry per result: the argument whose buffer the
        result is copied into at the end of each replay (a training step's
        new state), or -1. The other results are freed in the graph (the
        kit times the call on the same inputs)."""
        runtime = self.library._runtime
        if not runtime:
            raise AotError(f"'@{self.name}' runs on the CPU: only a GPU "
                           f"library's functions are captured")
        if not runtime.graphs:
            raise AotError(f"{runtime.path} has no CUDA graph entry points "
                           f"(ampGpuGraphBeginCapture): rebuild the kit")
        feedback = self._check_feedback(feedback)
        warm = self._prepare(args)
        self._invoke(warm)
        self._collect(warm, copy=False)
        frame = self._prepare(args)
        lib = runtime.lib
        if lib.ampGpuGraphBeginCapture() != 0:
            runtime.free_frame(frame)
            raise AotError(f"capturing '@{self.name}': "
                           f"{lib.ampLastError().decode()}")
        self._entry(*frame["pointers"])
        problem = self._feed_back(frame, feedback)
        graph = lib.ampGpuGraphEndCapture()
        if graph and problem:
            lib.ampGpuGraphDestroy(graph)
            runtime.free_frame(frame)
            runtime.check(f"capturing '@{self.name}'")
            raise AotError(f"capturing '@{self.name}': {problem}")
        error = None if graph else lib.ampLastError().decode()
        try:
            runtime.check(f"capturing '@{self.name}'")
        except AotError:
            if graph:
                lib.ampGpuGraphDestroy(graph)
            runtime.free_frame(frame)
            raise
        if not graph:
            runtime.free_frame(frame)
            raise AotError(f"capturing '@{self.name}': {error}")
        return AotGraph(self, frame, graph)

    def _check_feedback(self, feedback):
        """`feedback` checked against the signature (one entry per result,
        each argument fed once, of the result's type), or all -1."""
        if feedback is None:
            return [-1] * len(self.results)
        if len(feedback) != len(self.results):
            raise ValueError(f"feedback has {len(feedback)} entries; "
                             f"'@{self.name}' has {len(self.results)} "
                             f"results")
        fed = [a for a in feedback if a != -1]
        for index, argument in enumerate(feedback):
            if argument == -1:
                continue
            if not 0 <= argument < len(self.arguments):
                raise ValueError(f"result #{index} feeds argument "
                                 f"#{argument}, which does not exist")
            if fed.count(argument) > 1:
                raise ValueError(f"argument #{argument} is fed by two "
                                 f"results")
            result, target = self.results[index], \
                self.call_arguments[argument]
            if result.type != target.type:
                raise ValueError(f"result #{index} ({result.type}) cannot "
                                 f"feed argument #{argument} "
                                 f"({target.type})")
        return list(feedback)

    def _feed_back(self, frame, feedback):
        """In a capture: queues the copy of each fed-back result into the
        buffer of the argument it feeds; the problem that prevents it, or
        None."""
        runtime, inputs = self.library._runtime, frame["device"]
        for index, (type_, (allocated, aligned, offset, sizes,
                            strides)) in enumerate(zip(
                self.results, self._result_descriptors(frame))):
            argument = feedback[index]
            if argument < 0:
                continue
            array = frame["arrays"][argument]
            dense = all(size == 1 or stride == expected for size, stride,
                        expected in zip(sizes, strides,
                                        _row_major_strides(sizes)))
            if sizes != list(array.shape) or not dense:
                return (f"result #{index} is not a dense buffer of the "
                        f"shape of argument #{argument}")
            source = aligned + offset * type_.dtype.itemsize
            if allocated in inputs and allocated != inputs[argument]:
                return (f"result #{index} returns argument "
                        f"#{inputs.index(allocated)}'s buffer, which the "
                        f"graph may overwrite before it is copied")
            if source != inputs[argument] and array.nbytes:
                runtime.lib.mgpuMemcpy(inputs[argument], source,
                                       array.nbytes, runtime.stream)
        return None

    def time(self, *args, repeat=10, warmup=1):
        """Seconds per call, `repeat` calls after `warmup`: CUDA events
        around each call on the runtime's stream for target gpu (self.timer
        says "events"), else a wall clock around the synchronised call
        ("wall"). Copies in and out are not timed."""
        runtime = self.library._runtime
        events = runtime.events() if runtime else None
        self.timer = "events" if events else "wall"
        durations = []
        for i in range(warmup + repeat):
            frame = self._prepare(args)
            if events:
                events.record_start()
            start = _time.perf_counter()
            self._invoke(frame)
            end = _time.perf_counter()
            if events:
                events.record_end()
                elapsed = events.seconds()
            else:
                elapsed = end - start
            self._collect(frame, copy=False)
            if i >= warmup:
                durations.append(elapsed)
        return durations


class AotGraph:
    """A call captured as a CUDA graph (AotFunction.capture)."""

    def __init__(self, function, frame, graph):
        self.function, self._frame, self._graph = function, frame, graph
        self._runtime = function.library._runtime

    def argument(self, index):
        """Argument `index`'s buffer now (its value for the next replay;
        waits for the device), as an array."""
        array = self._frame["arrays"][index]
        raw = self._runtime.download(self._frame["device"][index],
                                     array.nbytes)
        return raw.view(array.dtype).reshape(array.shape).copy()

    def replay(self):
        """Queues one launch of the graph (no wait)."""
        if self._runtime.lib.ampGpuGraphLaunch(self._graph) != 0:
            raise AotError(f"replaying '@{self.function.name}': "
                           f"{self._runtime.lib.ampLastError().decode()}")
        self._runtime.check(f"replaying '@{self.function.name}'")

    def time(self, repeat=10, warmup=1):
        """Seconds per replay, as AotFunction.time times calls (CUDA
        events around each launch, else a wall clock around the launch
        and a wait)."""
        runtime = self._runtime
        events = runtime.events()
        self.timer = "events" if events else "wall"
        durations = []
        for i in range(warmup + repeat):
            if events:
                events.record_start()
            start = _time.perf_counter()
            self.replay()
            if events:
                events.record_end()
                elapsed = events.seconds()
            else:
                runtime.synchronize()
                elapsed = _time.perf_counter() - start
            if i >= warmup:
                durations.append(elapsed)
        return durations

    def close(self):
        """Destroys the graph and frees the arguments it reads."""
        graph, self._graph = self._graph, None
        if graph:
            self._runtime.lib.ampGpuGraphDestroy(graph)
            self._runtime.free_frame(self._frame)

    def __del__(self):
        if getattr(self, "_graph", None):
            self.close()


class AotLibrary:
    """A library written by amp-compile. Its functions are attributes (and
    items); a library of one function is callable itself."""

    def __init__(self, path, runtime_dir=None):
        self.path = os.path.abspath(path)
        if not os.path.isfile(self.path):
            raise AotError(f"no such library: {path}")
        directory = runtime_dir or os.path.dirname(self.path)
        # A GPU library's runtime is loaded before it, from `directory`, so
        # that its NEEDED entry binds to that instance.
        self._runtime = None
        for name in ("libamp_runtime.so", "libamp_runtime_gpusim.so"):
            if _needs(self.path, name):
                self._runtime = _Runtime.get(os.path.join(directory, name))
                break
        try:
            self._lib = ctypes.CDLL(self.path)
        except OSError as error:
            raise AotError(f"cannot load {path}: {error}") from None
        try:
            describe = self._lib.amp_module_info
        except AttributeError:
            raise AotError(f"{path} was not written by amp-compile (no "
                           f"amp_module_info)") from None
        describe.restype = ctypes.c_char_p
        info = json.loads(describe().decode())
        self.info = info
        self.target = info["target"]
        self.level = info["level"]
        self.low_precision_type = info["low_precision_type"] or None
        if self.target == "cpu":
            self._runtime = None
        elif self._runtime is None:
            self._runtime = _Runtime.get(os.path.join(directory,
                                                      info["runtime"]))
        self._libc = ctypes.CDLL(None)
        self._libc.free.argtypes = [ctypes.c_void_p]
        self.functions = {f["name"]: AotFunction(self, f)
                          for f in info["functions"]}

    @property
    def function_names(self):
        return list(self.functions)

    def _simulator(self, what):
        if self._runtime is None or not self._runtime.simulator:
            raise AotError(f"{what}: {self.path} was not compiled for the "
                           f"GPU simulator (target='gpu-sim')")
        return self._runtime

    def simulator_stats(self):
        """target='gpu-sim': what the simulator counted since it was loaded
        or last reset (AmpSimStats, AmpGpuSim.h), as a dict: launches,
        libraryCalls, allocations, synchronizations, kernelBytesRead,
        kernelFlops, libraryBytes, idealBytes, ..."""
        return self._simulator("simulator_stats").simulator_stats()

    def reset_simulator(self):
        """target='gpu-sim': zeroes the simulator's counters and the
        estimate's records (live buffers stay counted)."""
        self._simulator("reset_simulator").reset_simulator()

    def estimate(self, chip="h100-sxm"):
        """target='gpu-sim': the roofline estimate of what ran since the
        last reset, for `chip` ('h100-sxm' or 'h200'; docs/gpu.md): a dict
        with the chip's peaks, 'seconds' (the total), its kernel, library
        and copy parts, 'launches', and 'records' (one per kernel, library
        call shape and kind of copy: calls, grid, block, bytes_read,
        bytes_written, flops, accesses by width, seconds, bound). An
        unknown chip raises ValueError."""
        return self._simulator("estimate").estimate(chip)

    def launches(self):
        """target='gpu-sim': every launch since the last reset, in order
        (kernels, each kernel of a library call, copies), with its bytes,
        FLOPs and compute peak: what estimate() adds up, launch by
        launch."""
        return self._simulator("launches").launches()

    def estimate_launches(self, launches, chip="h100-sxm"):
        """target='gpu-sim': the roofline estimate for `chip` of a list of
        launches as launches() gives them, with counts of one's own (e.g.
        extrapolated to a larger batch): the same model as estimate()."""
        return self._simulator("estimate_launches").estimate_launches(
            launches, chip)

    def count_only(self, enabled=True):
        """target='gpu-sim': with `enabled`, library calls (GEMMs,
        convolutions) are counted and checked but not computed, and their
        outputs are zero: for the counts and estimate of a model too large
        to compute on the CPU. The results are then meaningless."""
        self._simulator("count_only").set_count_only(enabled)

    def __getitem__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise KeyError(f"no function '@{name}' in {self.path} (functions:"
                           f" {', '.join(self.functions)})") from None

    def __getattr__(self, name):
        if name.startswith("_") or "functions" not in self.__dict__:
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as error:
            raise AttributeError(str(error)) from None

    def __call__(self, *args):
        if len(self.functions) != 1:
            raise TypeError(f"{self.path} has several functions: call one of"
                            f" {', '.join(self.functions)}")
        return next(iter(self.functions.values()))(*args)

    def __repr__(self):
        return (f"<AotLibrary {self.path}: {self.level}, target "
                f"{self.target}, {', '.join(self.functions)}>")


def _needs(path, soname):
    """Whether the ELF file at `path` names `soname` in its dynamic section
    (a byte search of the string table is enough for our own libraries)."""
    with open(path, "rb") as f:
        data = f.read()
    return (soname.encode() + b"\0") in data


def load(path, runtime_dir=None):
    """Loads a library written by amp-compile (or compile(..., output=)).
    runtime_dir: where libamp_runtime.so is (default: next to it)."""
    return AotLibrary(path, runtime_dir)
