"""GradScaler: dynamic loss scaling over libamp_runtime's host scaler.

It accepts PyTorch's and Paddle's argument names, keeps the scale and its
counters in the runtime (the state machine the compiled code and the CUDA
kernels share), and unscales gradients in place in one pass:

    scaler = amp_mlir.GradScaler(init_scale=2.0**16)   # or init_loss_scaling
    loss = scaler.scale(loss)                           # backward on this
    scaler.step(optimizer)          # unscale_, skip the step on Inf/NaN
    scaler.update()                 # grow or back off the scale

Gradients are numpy arrays: float32, float16, or uint16 holding bfloat16
bits. See docs/python.md.
"""

import ctypes
import math

import numpy as np

from . import _abi, _runtime

# Config field -> the names users pass (ours, PyTorch's, Paddle's,
# DeepSpeed's).
_ALIASES = {
    "init_scale": ("init_scale", "init_loss_scaling", "initial_scale"),
    "growth_factor": ("growth_factor", "incr_ratio"),
    "backoff_factor": ("backoff_factor", "decr_ratio"),
    "growth_interval": ("growth_interval", "incr_every_n_steps",
                        "loss_scale_window"),
    "backoff_interval": ("backoff_interval", "decr_every_n_nan_or_inf"),
    "hysteresis": ("hysteresis",),
    "consecutive_hysteresis": ("consecutive_hysteresis",),
    "min_scale": ("min_scale", "min_loss_scale"),
    "max_scale": ("max_scale",),
    "dynamic": ("dynamic", "use_dynamic_loss_scaling"),
    "enabled": ("enabled", "enable"),
}
_NAME_TO_FIELD = {name: field for field, names in _ALIASES.items()
                  for name in names}


def _resolve(kwargs):
    """{field: value} from the user's keyword arguments, rejecting unknown
    names and contradicting aliases."""
    fields, given = {}, {}
    for name, value in kwargs.items():
        if name not in _NAME_TO_FIELD:
            raise TypeError(f"GradScaler got an unexpected argument {name!r}; "
                            f"known: {', '.join(sorted(_NAME_TO_FIELD))}")
        if value is None:
            continue
        field = _NAME_TO_FIELD[name]
        if field in fields and fields[field] != value:
            raise ValueError(f"{given[field]}={fields[field]!r} and "
                             f"{name}={value!r} set the same thing")
        fields[field], given[field] = value, name
    return fields


class GradScaler:
    """Dynamic (or static) loss scaling with fp16 gradients.

    preset: the starting configuration: 'pytorch' (default), 'paddle',
    'paddle-static', 'deepspeed', 'megatron', 'apex', 'colossalai' or 'bf16'
    (scale 1, static). Keyword arguments override it, under PyTorch's
    (init_scale, growth_factor, backoff_factor, growth_interval, enabled),
    Paddle's (init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
    decr_every_n_nan_or_inf, use_dynamic_loss_scaling, enable) or
    DeepSpeed's (loss_scale_window, hysteresis, min_loss_scale) names.
    """

    def __init__(self, preset="pytorch", **kwargs):
        fields = _resolve(kwargs)
        self._enabled = bool(fields.pop("enabled", True))
        self._preset = preset
        config = _runtime.LossScalerConfig()
        lib = _runtime.lib()
        if lib.ampLossScalerConfigPreset(str(preset).encode(),
                                         ctypes.byref(config)):
            raise ValueError(f"unknown preset {preset!r}: expected pytorch, "
                             f"paddle, paddle-static, deepspeed, megatron, "
                             f"apex, colossalai or bf16")
        for field, value in fields.items():
            if field in ("dynamic", "consecutive_hysteresis"):
                value = int(bool(value))
            setattr(config, field, value)
        self._handle = None
        self._create(config)
        self._unscaled = set()
        self._found_inf = None

    def _create(self, config):
        lib = _runtime.lib()
        handle = lib.ampLossScalerCreate(ctypes.byref(config))
        if not handle:
            raise ValueError(f"invalid loss-scaler configuration: "
                             f"{_runtime.last_error()}")
        if self._handle:
            lib.ampLossScalerDestroy(self._handle)
        self._handle = handle

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _runtime.lib.loaded is not None:
            _runtime.lib.loaded.ampLossScalerDestroy(handle)

    #===-------------------------------------------------------------------===#
    # Queries
    #===-------------------------------------------------------------------===#

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return float(_runtime.lib().ampLossScalerGetScale(self._handle))

    # Paddle's name.
    get_loss_scaling = get_scale

    @property
    def config(self):
        """The configuration, as a dict of the runtime's field names."""
        config = _runtime.LossScalerConfig()
        _runtime.lib().ampLossScalerGetConfig(self._handle,
                                              ctypes.byref(config))
        return _runtime.as_dict(config)

    @property
    def stats(self):
        """Counters: scale, good_steps, bad_steps, hysteresis, steps,
        skipped_steps, overflows_at_min_scale."""
        stats = _runtime.LossScalerStats()
        _runtime.lib().ampLossScalerGetStats(self._handle,
                                             ctypes.byref(stats))
        return _runtime.as_dict(stats)

    @property
    def found_inf(self):
        """Whether the gradients unscaled since the last update held an Inf
        or NaN (None before the first unscale_ of a step)."""
        return self._found_inf

    #===-------------------------------------------------------------------===#
    # The training step
    #===-------------------------------------------------------------------===#

    def scale(self, loss):
        """loss * scale, computed in float32 and returned in the loss's own
        float type (a Python float for a scalar)."""
        if not self._enabled:
            return loss
        scale = np.float32(self.get_scale())
        if isinstance(loss, np.ndarray):
            if loss.dtype == np.uint16:
                raise TypeError("scale a bfloat16 loss as float32 "
                                "(amp_mlir.from_bfloat16) and convert back")
            return (loss.astype(np.float32) * scale).astype(loss.dtype)
        return float(np.float32(loss) * scale)

    def unscale_(self, grads):
        """Divides the gradients by the scale in place (one pass; 1/scale in
        float32) and records whether any of them held an Inf or NaN.

        grads: an optimizer of amp_mlir.optim (its .grads), or a list of
        C-contiguous, writable numpy arrays (float32, float16, uint16 as
        bfloat16 bits). Once per optimizer (or list) per step, as in
        PyTorch. Returns found_inf.
        """
        if not self._enabled:
            return False
        key, arrays = self._grads_of(grads)
        if key in self._unscaled:
            raise RuntimeError("unscale_() has already been called on these "
                               "gradients since the last update()")
        groups = {}
        for index, array in enumerate(arrays):
            _runtime.check_buffer(array, f"gradient #{index}")
            groups.setdefault(_abi.dtype_code(array, f"gradient #{index}"),
                              []).append(array)
        lib = _runtime.lib()
        functions = {_abi.F32: lib.ampCheckFiniteAndUnscaleF32,
                     _abi.F16: lib.ampCheckFiniteAndUnscaleF16,
                     _abi.BF16: lib.ampCheckFiniteAndUnscaleBF16}
        scale = self.get_scale()
        found = False
        for code, group in groups.items():
            pointers = (ctypes.c_void_p * len(group))(
                *[a.ctypes.data for a in group])
            numels = (ctypes.c_int64 * len(group))(*[a.size for a in group])
            result = functions[code](pointers, numels, len(group), scale)
            if result < 0:
                raise ValueError(f"unscale_: {_runtime.last_error()}")
            found = found or result == 1
        self._unscaled.add(key)
        self._found_inf = bool(self._found_inf) or found
        return found

    @staticmethod
    def _grads_of(grads):
        if hasattr(grads, "grads"):
            arrays = grads.grads
            if arrays is None:
                raise ValueError("the optimizer has no gradients: set "
                                 "optimizer.grads before unscaling")
            return id(grads), list(arrays)
        if isinstance(grads, np.ndarray):
            return id(grads), [grads]
        arrays = list(grads)
        return tuple(id(a) for a in arrays), arrays

    def step(self, optimizer, *args, **kwargs):
        """Unscales optimizer.grads (unless unscale_ was called) and calls
        optimizer.step(*args, **kwargs) unless they held an Inf or NaN.
        Returns what optimizer.step returns, or None for a skipped step."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        if self._found_inf:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Advances the scaler by one step: grows the scale after
        growth_interval clean steps, backs it off after an overflow. With
        new_scale, sets the scale instead (the counters restart)."""
        if not self._enabled:
            return
        if new_scale is not None:
            if not (isinstance(new_scale, (int, float)) and
                    math.isfinite(new_scale) and new_scale > 0):
                raise ValueError(f"new_scale must be a positive finite "
                                 f"number, got {new_scale!r}")
            config = _runtime.LossScalerConfig(**self.config)
            config.init_scale = new_scale
            self._create(config)
        else:
            if self._found_inf is None:
                raise RuntimeError("no gradients were unscaled (unscale_ or "
                                   "step) since the last update()")
            _runtime.lib().ampLossScalerUpdate(self._handle,
                                               int(self._found_inf))
        self._unscaled.clear()
        self._found_inf = None

    def minimize(self, optimizer, *args, **kwargs):
        """Paddle's form: step(optimizer) then update(). Extra arguments
        (Paddle passes the scaled loss) are not used."""
        result = self.step(optimizer)
        self.update()
        return result

    #===-------------------------------------------------------------------===#
    # Checkpoints
    #===-------------------------------------------------------------------===#

    def state_dict(self):
        """The scale, the configuration under PyTorch's names, the counters,
        and `state`: the runtime's versioned, checksummed blob (bytes) that
        load_state_dict restores exactly."""
        lib = _runtime.lib()
        size = lib.ampLossScalerSaveState(self._handle, None, 0)
        blob = ctypes.create_string_buffer(size)
        lib.ampLossScalerSaveState(self._handle, blob, size)
        config, stats = self.config, self.stats
        return {
            "scale": stats["scale"],
            "growth_factor": config["growth_factor"],
            "backoff_factor": config["backoff_factor"],
            "growth_interval": config["growth_interval"],
            "_growth_tracker": stats["good_steps"],
            "enabled": self._enabled,
            "state": blob.raw,
        }

    def load_state_dict(self, state):
        """Restores a state_dict(). A dict without `state` (PyTorch's
        GradScaler.state_dict(): scale, growth_factor, backoff_factor,
        growth_interval, _growth_tracker) sets the scale, the configuration
        and the count of clean steps since the last growth, so that the next
        growth comes at the same step; the other counters restart."""
        lib = _runtime.lib()
        if "state" in state:
            blob = bytes(state["state"])
            if lib.ampLossScalerLoadState(self._handle, blob, len(blob)):
                raise ValueError(f"cannot load the scaler state: "
                                 f"{_runtime.last_error()}")
        else:
            config = _runtime.LossScalerConfig(**self.config)
            names = {"scale": "init_scale", "growth_factor": "growth_factor",
                     "backoff_factor": "backoff_factor",
                     "growth_interval": "growth_interval"}
            for key, field in names.items():
                if key in state:
                    setattr(config, field, state[key])
            tracker = state.get("_growth_tracker")
            if tracker is not None:
                if isinstance(tracker, (bool, str)) or \
                        int(tracker) != tracker:
                    raise ValueError(f"_growth_tracker must be an integer, "
                                     f"got {tracker!r}")
                tracker = int(tracker)
                if not 0 <= tracker < config.growth_interval:
                    raise ValueError(
                        f"_growth_tracker {tracker} is outside [0, "
                        f"growth_interval {config.growth_interval})")
            self._create(config)
            if tracker is not None and lib.ampLossScalerSetGrowthTracker(
                    self._handle, tracker):
                raise ValueError(f"cannot load the scaler state: "
                                 f"{_runtime.last_error()}")
        if "enabled" in state:
            self._enabled = bool(state["enabled"])
        self._unscaled.clear()
        self._found_inf = None

    def __repr__(self):
        return (f"<amp_mlir.GradScaler scale={self.get_scale():g} "
                f"enabled={self._enabled}>")
