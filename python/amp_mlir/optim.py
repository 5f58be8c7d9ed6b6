"""Optimizers with fp32 master weights, over libamp_runtime.

Each parameter is an fp32 master array, updated in place, optionally with a
low-precision working copy (float16, or uint16 bfloat16 bits) written in the
same pass (round to nearest even). Gradients are set on ``opt.grads`` (or
passed to ``step``) in float32, float16 or bfloat16 bits:

    opt = amp_mlir.optim.AdamW(masters, lowp=f16_copies, lr=1e-3)
    opt.grads = grads
    scaler.step(opt)      # unscale, skip on Inf/NaN, else opt.step()
"""

import ctypes

import numpy as np

from . import _abi, _runtime

SGD_KIND, MOMENTUM_KIND, ADAM_KIND, ADAMW_KIND = 0, 1, 2, 3


class Optimizer:
    """A runtime optimizer (use SGD, Adam or AdamW)."""

    def __init__(self, kind, params, lowp=None, **settings):
        lib = _runtime.lib()
        config = _runtime.OptimizerConfig()
        if lib.ampOptimizerConfigDefault(kind, ctypes.byref(config)):
            raise ValueError(f"unknown optimizer kind {kind}")
        for name, value in settings.items():
            if value is not None:
                setattr(config, name, value)
        self._handle = lib.ampOptimizerCreate(ctypes.byref(config))
        if not self._handle:
            raise ValueError(f"invalid optimizer configuration: "
                             f"{_runtime.last_error()}")
        self.params = list(params)
        if not self.params:
            raise ValueError("the optimizer has no parameters")
        for index, master in enumerate(self.params):
            _runtime.check_buffer(master, f"parameter #{index}")
            if master.dtype != np.float32:
                raise TypeError(f"parameter #{index} has dtype "
                                f"{master.dtype}; masters are float32")
        self.lowp = list(lowp) if lowp is not None else None
        if self.lowp is not None:
            if len(self.lowp) != len(self.params):
                raise ValueError(f"{len(self.lowp)} low-precision copies for "
                                 f"{len(self.params)} parameters")
            for index, (copy, master) in enumerate(zip(self.lowp,
                                                       self.params)):
                _runtime.check_buffer(copy, f"low-precision copy #{index}")
                if _abi.dtype_code(copy, f"low-precision copy #{index}") \
                        == _abi.F32 or copy.shape != master.shape:
                    raise TypeError(f"low-precision copy #{index} must be "
                                    f"float16, ml_dtypes.bfloat16 or uint16 "
                                    f"(bfloat16 bits) of shape "
                                    f"{master.shape}")
        # Momentum: velocity; Adam/AdamW: m and v.
        self.state = [[np.zeros_like(p) for _ in range(self._state_count(
            kind))] for p in self.params]
        self.kind = kind
        # As given (with the class's defaults): from_torch_training reads
        # them for the amp.optimizer attribute.
        self.settings = dict(settings)
        self.grads = None
        self._lr = float(np.float32(config.lr))

    @staticmethod
    def _state_count(kind):
        return {SGD_KIND: 0, MOMENTUM_KIND: 1}.get(kind, 2)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _runtime.lib.loaded is not None:
            _runtime.lib.loaded.ampOptimizerDestroy(handle)

    @property
    def lr(self):
        """The learning rate (settable, for schedules)."""
        return self._lr

    @lr.setter
    def lr(self, value):
        if _runtime.lib().ampOptimizerSetLearningRate(self._handle, value):
            raise ValueError(f"invalid learning rate {value!r}: "
                             f"{_runtime.last_error()}")
        self._lr = float(np.float32(value))

    @property
    def step_count(self):
        """Applied steps so far."""
        return int(_runtime.lib().ampOptimizerGetStep(self._handle))

    def step(self, grads=None, inv_scale=1.0, found_inf=False):
        """One step with `grads` (default: self.grads), each multiplied by
        inv_scale first. Skipped (nothing written, returns False) when
        found_inf; returns True when applied."""
        grads = self.grads if grads is None else grads
        if grads is None:
            raise ValueError("no gradients: set optimizer.grads or pass them")
        grads = list(grads)
        if len(grads) != len(self.params):
            raise ValueError(f"{len(grads)} gradients for "
                             f"{len(self.params)} parameters")
        params = (_runtime.OptimizerParam * len(self.params))()
        keep = []
        for index, (master, grad) in enumerate(zip(self.params, grads)):
            grad = np.asarray(grad)
            if grad.shape != master.shape:
                raise ValueError(f"gradient #{index} has shape {grad.shape}, "
                                 f"its parameter {master.shape}")
            code = _abi.dtype_code(grad, f"gradient #{index}")
            grad = np.ascontiguousarray(grad)
            keep.append(grad)
            entry = params[index]
            entry.master = master.ctypes.data
            if self.lowp is not None:
                entry.lowp = self.lowp[index].ctypes.data
                entry.lowp_type = _abi.dtype_code(self.lowp[index], "")
            else:
                entry.lowp, entry.lowp_type = None, _abi.F32
            entry.grad = grad.ctypes.data
            entry.grad_type = code
            states = self.state[index]
            entry.state0 = states[0].ctypes.data if len(states) > 0 else None
            entry.state1 = states[1].ctypes.data if len(states) > 1 else None
            entry.numel = master.size
        result = _runtime.lib().ampOptimizerStep(
            self._handle, params, len(self.params), inv_scale, int(found_inf))
        if result < 0:
            raise ValueError(f"optimizer step: {_runtime.last_error()}")
        return result == 1

    def _save(self):
        lib = _runtime.lib()
        size = lib.ampOptimizerSaveState(self._handle, None, 0)
        blob = ctypes.create_string_buffer(size)
        lib.ampOptimizerSaveState(self._handle, blob, size)
        return blob.raw

    def state_dict(self):
        """The runtime state (config, step count, bias-correction powers) as
        `state` bytes, and copies of the per-parameter state arrays. The
        parameters themselves are the caller's to save."""
        return {"state": self._save(), "lr": self._lr,
                "buffers": [[s.copy() for s in states]
                            for states in self.state]}

    def load_state_dict(self, state):
        blob = bytes(state["state"])
        buffers = state.get("buffers")
        if buffers is not None:
            if len(buffers) != len(self.state) or any(
                    len(b) != len(s) or any(x.shape != y.shape
                                            for x, y in zip(b, s))
                    for b, s in zip(buffers, self.state)):
                raise ValueError("the saved state buffers do not match "
                                 "this optimizer's parameters")
        if _runtime.lib().ampOptimizerLoadState(self._handle, blob,
                                                len(blob)):
            raise ValueError(f"cannot load the optimizer state: "
                             f"{_runtime.last_error()}")
        if "lr" in state:
            self._lr = float(state["lr"])
        if buffers is not None:
            for saved, states in zip(buffers, self.state):
                for source, target in zip(saved, states):
                    target[...] = source


class SGD(Optimizer):
    """PyTorch's SGD: plain, or with momentum (dampening, nesterov)."""

    def __init__(self, params, lr, momentum=0.0, dampening=0.0,
                 weight_decay=0.0, nesterov=False, lowp=None):
        kind = MOMENTUM_KIND if momentum else SGD_KIND
        super().__init__(kind, params, lowp, lr=lr, momentum=momentum,
                         dampening=dampening, weight_decay=weight_decay,
                         nesterov=int(bool(nesterov)))


class Adam(Optimizer):
    """Adam with L2 weight decay coupled into the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0.0, lowp=None):
        super().__init__(ADAM_KIND, params, lowp, lr=lr, beta1=betas[0],
                         beta2=betas[1], eps=eps, weight_decay=weight_decay)


class AdamW(Optimizer):
    """AdamW: decoupled weight decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2, lowp=None):
        super().__init__(ADAMW_KIND, params, lowp, lr=lr, beta1=betas[0],
                         beta2=betas[1], eps=eps, weight_decay=weight_decay)
