"""ctypes bindings of the host side of libamp_runtime's loss-scaling C API
(runtime/include/amp/runtime/AmpLossScaling.h)."""

import ctypes

import numpy as np

from ._library import SharedLibrary


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


_p, _i64, _int, _size, _float = (ctypes.c_void_p, ctypes.c_int64, ctypes.c_int,
                                ctypes.c_size_t, ctypes.c_float)
_cfg = ctypes.POINTER(LossScalerConfig)
_unscale = (_int, [ctypes.POINTER(_p), ctypes.POINTER(_i64), _i64, _float])
SIGNATURES = {
    "ampLastError": (ctypes.c_char_p, []),
    "ampClearError": (None, []),
    "ampLossScalerConfigPreset": (_int, [ctypes.c_char_p, _cfg]),
    "ampLossScalerConfigValidate": (_int, [_cfg]),
    "ampLossScalerCreate": (_p, [_cfg]),
    "ampLossScalerDestroy": (None, [_p]),
    "ampLossScalerGetScale": (_float, [_p]),
    "ampLossScalerGetInvScale": (_float, [_p]),
    "ampLossScalerGetConfig": (_int, [_p, _cfg]),
    "ampLossScalerGetStats": (_int, [_p, ctypes.POINTER(LossScalerStats)]),
    "ampLossScalerUpdate": (_int, [_p, _int]),
    "ampLossScalerSaveState": (_size, [_p, _p, _size]),
    "ampLossScalerLoadState": (_int, [_p, _p, _size]),
    "ampLossScalerSetGrowthTracker": (_int, [_p, ctypes.c_int32]),
    "ampCheckFiniteAndUnscaleF32": _unscale,
    "ampCheckFiniteAndUnscaleF16": _unscale,
    "ampCheckFiniteAndUnscaleBF16": _unscale,
    "ampOptimizerConfigDefault": (_int, [ctypes.c_int32,
                                         ctypes.POINTER(OptimizerConfig)]),
    "ampOptimizerCreate": (_p, [ctypes.POINTER(OptimizerConfig)]),
    "ampOptimizerDestroy": (None, [_p]),
    "ampOptimizerGetStep": (_i64, [_p]),
    "ampOptimizerSetLearningRate": (_int, [_p, _float]),
    "ampOptimizerStep": (_int, [_p, ctypes.POINTER(OptimizerParam), _i64,
                                _float, _int]),
    "ampOptimizerSaveState": (_size, [_p, _p, _size]),
    "ampConvertF32ToBF16": (None, [_p, _p, _i64]),
    "ampConvertBF16ToF32": (None, [_p, _p, _i64]),
    "ampF8E4M3FNToF32": (_float, [ctypes.c_uint8]),
    "ampF8E5M2ToF32": (_float, [ctypes.c_uint8]),
    "ampOptimizerLoadState": (_int, [_p, _p, _size]),
    # AmpCollectives.h
    "ampAllReduce": (None, [_p, _i64, ctypes.c_int32, ctypes.c_int32]),
    "ampCollectiveRank": (ctypes.c_int32, []),
    "ampCollectiveWorldSize": (ctypes.c_int32, []),
    "ampCollectiveBackend": (ctypes.c_char_p, []),
    "ampCollectiveFinalize": (None, []),
}

lib = SharedLibrary("libamp_runtime.so", SIGNATURES)


def last_error():
    return lib.last_error("ampLastError")


def as_dict(struct):
    """A ctypes structure's fields as a dict."""
    return {name: getattr(struct, name) for name, _ in struct._fields_}


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
