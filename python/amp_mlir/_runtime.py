"""ctypes bindings of the host side of libamp_runtime's loss-scaling C API
(runtime/include/amp/runtime/AmpLossScaling.h)."""

import ctypes
import threading

import numpy as np

from . import _paths

# AmpDType.
F32, F16, BF16 = 0, 1, 2


class LossScalerConfig(ctypes.Structure):
    _fields_ = [
        ("init_scale", ctypes.c_float),
        ("growth_factor", ctypes.c_float),
        ("backoff_factor", ctypes.c_float),
        ("growth_interval", ctypes.c_int32),
        ("backoff_interval", ctypes.c_int32),
        ("hysteresis", ctypes.c_int32),
        ("consecutive_hysteresis", ctypes.c_int32),
        ("min_scale", ctypes.c_float),
        ("max_scale", ctypes.c_float),
        ("dynamic", ctypes.c_int32),
    ]


class LossScalerStats(ctypes.Structure):
    _fields_ = [
        ("scale", ctypes.c_float),
        ("good_steps", ctypes.c_int32),
        ("bad_steps", ctypes.c_int32),
        ("hysteresis", ctypes.c_int32),
        ("steps", ctypes.c_int64),
        ("skipped_steps", ctypes.c_int64),
        ("overflows_at_min_scale", ctypes.c_int64),
    ]


class OptimizerConfig(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int32),
        ("lr", ctypes.c_float),
        ("weight_decay", ctypes.c_float),
        ("momentum", ctypes.c_float),
        ("dampening", ctypes.c_float),
        ("nesterov", ctypes.c_int32),
        ("beta1", ctypes.c_float),
        ("beta2", ctypes.c_float),
        ("eps", ctypes.c_float),
    ]


class OptimizerParam(ctypes.Structure):
    _fields_ = [
        ("master", ctypes.c_void_p),
        ("lowp", ctypes.c_void_p),
        ("lowp_type", ctypes.c_int32),
        ("grad", ctypes.c_void_p),
        ("grad_type", ctypes.c_int32),
        ("state0", ctypes.c_void_p),
        ("state1", ctypes.c_void_p),
        ("numel", ctypes.c_int64),
    ]


_lock = threading.Lock()
_lib = None


def _declare(lib):
    p, i64, c_int, size = (ctypes.c_void_p, ctypes.c_int64, ctypes.c_int,
                           ctypes.c_size_t)
    cfg = ctypes.POINTER(LossScalerConfig)
    sigs = {
        "ampLastError": (ctypes.c_char_p, []),
        "ampClearError": (None, []),
        "ampLossScalerConfigPreset": (c_int, [ctypes.c_char_p, cfg]),
        "ampLossScalerConfigValidate": (c_int, [cfg]),
        "ampLossScalerCreate": (p, [cfg]),
        "ampLossScalerDestroy": (None, [p]),
        "ampLossScalerGetScale": (ctypes.c_float, [p]),
        "ampLossScalerGetInvScale": (ctypes.c_float, [p]),
        "ampLossScalerGetConfig": (c_int, [p, cfg]),
        "ampLossScalerGetStats": (c_int, [p, ctypes.POINTER(LossScalerStats)]),
        "ampLossScalerUpdate": (c_int, [p, c_int]),
        "ampLossScalerSaveState": (size, [p, p, size]),
        "ampLossScalerLoadState": (c_int, [p, p, size]),
        "ampCheckFiniteAndUnscaleF32": (c_int, [ctypes.POINTER(p),
                                                ctypes.POINTER(i64), i64,
                                                ctypes.c_float]),
        "ampCheckFiniteAndUnscaleF16": (c_int, [ctypes.POINTER(p),
                                                ctypes.POINTER(i64), i64,
                                                ctypes.c_float]),
        "ampCheckFiniteAndUnscaleBF16": (c_int, [ctypes.POINTER(p),
                                                 ctypes.POINTER(i64), i64,
                                                 ctypes.c_float]),
        "ampOptimizerConfigDefault": (c_int, [ctypes.c_int32,
                                              ctypes.POINTER(OptimizerConfig)]),
        "ampOptimizerCreate": (p, [ctypes.POINTER(OptimizerConfig)]),
        "ampOptimizerDestroy": (None, [p]),
        "ampOptimizerGetStep": (i64, [p]),
        "ampOptimizerSetLearningRate": (c_int, [p, ctypes.c_float]),
        "ampOptimizerStep": (c_int, [p, ctypes.POINTER(OptimizerParam), i64,
                                     ctypes.c_float, c_int]),
        "ampOptimizerSaveState": (size, [p, p, size]),
        "ampOptimizerLoadState": (c_int, [p, p, size]),
    }
    for name, (restype, argtypes) in sigs.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def lib():
    """libamp_runtime.so, loaded once."""
    global _lib
    with _lock:
        if _lib is None:
            loaded = ctypes.CDLL(str(_paths.library("libamp_runtime.so")))
            _declare(loaded)
            _lib = loaded
    return _lib


def last_error():
    message = lib().ampLastError()
    return message.decode("utf-8", "replace") if message else ""


def dtype_code(array, what):
    """The AmpDType of a numpy array: float32, float16, or uint16 holding
    bfloat16 bits."""
    if array.dtype == np.float32:
        return F32
    if array.dtype == np.float16:
        return F16
    if array.dtype == np.uint16:
        return BF16
    raise TypeError(f"{what} has dtype {array.dtype}; expected float32, "
                    f"float16 or uint16 (bfloat16 bits)")


def check_buffer(array, what):
    """A C-contiguous, writable numpy array, or TypeError/ValueError."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{what} must be a numpy array, got "
                        f"{type(array).__name__}")
    if not array.flags.c_contiguous:
        raise ValueError(f"{what} must be C-contiguous (it is updated in "
                         f"place; use np.ascontiguousarray and keep that "
                         f"array)")
    if not array.flags.writeable:
        raise ValueError(f"{what} is read-only; it is updated in place")
    return array
