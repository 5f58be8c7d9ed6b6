"""Trainer: runs the training step that amp-training builds, step by step.

    fb = amp_mlir.from_torch_training(net, F.cross_entropy, opt, x, y)
    trainer = amp_mlir.Trainer(fb, amp_mlir.parameters_of(net), level="O2")
    for x, y in batches:
        loss, skipped = trainer.step(x, y)
    trainer.save("state.npz")          # parameters, optimizer and scaler
    trainer.load("state.npz")          # ... resumes bit for bit

The module is a forward-backward function of the training convention
(docs/loss-scaling.md#training-from-a-frontend). `make_training_step` runs
the AMP pipeline's training stage (amp-training) on it in-process, through
the C API, which adds the loss scaling, the fp32 master weights, the
optimizer update and the step skip; the result is compiled at
the level asked for and called once per step with the state the Trainer
keeps (numpy arrays, threaded through the pure step function).
"""

import json
import numbers
import inspect
import re

import numpy as np

from . import _capi, compiler, philox
from .compiler import AmpError

# The roles amp-training gives the step's arguments and results.
_ROLE = re.compile(
    r'amp\.(param|buffer|optimizer_state|scaler|fp8) = "([^"]*)"')
_ARGUMENT = re.compile(r"%arg\d+: ([^ ,)]+)(?: \{([^}]*)\})?")


def make_training_step(module, scaler="pytorch", data_parallel=False):
    """The training step (MLIR text) of a forward-backward function: the
    training stage of the AMP pipeline (amp-training, what
    `amp-opt --amp-training` runs), in-process through the C API.
    scaler: the loss-scaler preset (pytorch, paddle, deepspeed, ..., or
    bf16 for a scale of 1) of functions without an amp.loss_scaling
    attribute. data_parallel: all-reduce found_inf, the
    gradients and the loss across the ranks (amp.all_reduce)."""
    text, name = compiler._read_module(module)
    if "amp.loss_seed" not in text:
        raise ValueError(f"{name} has no forward-backward function (no "
                         f"argument with amp.loss_seed): see "
                         f"docs/loss-scaling.md#training-from-a-frontend")
    options = _capi.compile_options({"amp_values": {
        "scaler": scaler, "data-parallel": bool(data_parallel)}})
    parsed = compiler._ParsedModule(text, name)
    steps = _capi.lib().ampRunnerModuleBuildTrainingSteps(parsed.handle,
                                                          options)
    error = None if steps is not None else _capi.last_error()
    # Its warnings and remarks as Python warnings, as compile() issues them.
    reported = json.loads(_capi.last_diagnostics())
    compiler._emit(reported.get("diagnostics", []))
    if steps is None:
        raise AmpError(f"amp-training failed on {name}:\n{error}")
    return steps.decode()


def _header(text, func_name):
    """The signature line of @func_name, split at its results: (arguments,
    results) as text."""
    for line in text.splitlines():
        if re.match(rf"\s*func\.func (?:\w+ )?@{re.escape(func_name)}\(", line):
            arrow = line.index(") -> (")
            return line[line.index("("):arrow + 1], line[arrow + len(") -> ("):]
    raise AmpError(f"the training step has no function @{func_name}")


def _signature(text, func_name):
    """[(role, label)] of the arguments and of the results of @func_name:
    role is 'param', 'buffer' (a model buffer: batch norm's running
    statistics), 'optimizer_state', 'scaler', 'fp8' (the FP8 scales and
    amax histories of dtype='fp8'), 'batch', 'loss' or 'found_inf'."""
    header, body = _header(text, func_name)
    arguments = []
    for match in _ARGUMENT.finditer(header):
        attrs = match.group(2) or ""
        role = _ROLE.search(attrs)
        arguments.append((role.group(1), role.group(2)) if role else
                         ("batch", None))
    results = []
    for part in re.finditer(r"(tensor<[^>]*>)(?: \{([^}]*)\})?", body):
        attrs = part.group(2) or ""
        role = _ROLE.search(attrs)
        if role:
            results.append((role.group(1), role.group(2)))
        elif "amp.loss" in attrs:
            results.append(("loss", None))
        elif "amp.found_inf" in attrs:
            results.append(("found_inf", None))
        else:
            raise AmpError(f"result of @{func_name} without a role: "
                           f"{part.group(0)}")
    return arguments, results


# numpy's dtype of an MLIR element type a buffer may have.
_NUMPY_TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
                "i64": np.int64, "i32": np.int32, "i1": np.bool_}


def _tensor_type(text):
    """(shape, element type) of `tensor<2x?x3xf32>`: a dynamic dimension
    is None."""
    parts = text[len("tensor<"):-1].split("x")
    return [None if d == "?" else int(d) for d in parts[:-1]], parts[-1]


def _buffer_types(text, func_name):
    """{name: (shape, numpy dtype)} of the amp.buffer arguments of
    @func_name."""
    types = {}
    for match in _ARGUMENT.finditer(_header(text, func_name)[0]):
        role = _ROLE.search(match.group(2) or "")
        if not role or role.group(1) != "buffer":
            continue
        shape, element = _tensor_type(match.group(1))
        if element not in _NUMPY_TYPES:
            raise AmpError(f"buffer {role.group(2)!r} of @{func_name} has "
                           f"element type {element}, which the Trainer "
                           f"does not keep")
        types[role.group(2)] = (tuple(shape),
                                np.dtype(_NUMPY_TYPES[element]))
    return types


def parameters_of(model):
    """A torch.nn.Module's trainable parameters as {name: float32 array},
    in named_parameters() order (the order from_torch_training uses)."""
    return {name: p.detach().cpu().numpy().astype(np.float32, copy=True)
            for name, p in model.named_parameters() if p.requires_grad}


def _host(value):
    """A state value as a host array (a copy of a device array)."""
    return value.numpy() if isinstance(value, compiler.DeviceArray) else value


class Trainer:
    """Compiles the training step of a forward-backward function and keeps
    its state: the fp32 parameters, the model's buffers, the optimizer
    state and the loss scaler's state.

    module: a forward-backward function (from_torch_training's text or a
    path); params: {name: float32 array} (parameters_of(model)), every
    amp.param of the function; buffers: {name: array}, the initial value of
    every amp.buffer of the function (state its forward pass updates, such
    as batch norm's running statistics), of its type. level/dtype/target as amp_mlir.compile;
    dtype='fp8' trains with FP8 contractions (E4M3 forward, E5M2 gradients,
    delayed scaling), whose amax histories and scales are state too
    ('fp8:...' keys). scaler: the loss-scaler preset; None: 'pytorch' for
    float16, 'bf16' (a scale of 1, no dynamic scaling) at O0 and for
    bfloat16 and fp8. data_parallel:
    all-reduce across the MPI ranks (run under mpirun). func_name: the
    function (default: the one with amp.loss_seed). seed: where the step
    draws random numbers (dropout: from_torch_training's
    philox.RNG_BUFFER), its generator starts at (seed, 0) unless buffers
    give its state; step n then draws from (seed, n), skipped steps
    included, as PyTorch's generator advances on a skipped step.
    cuda_graph (targets gpu and gpu-sim): the first step captures the
    training step as a CUDA graph (CompiledFunction.capture), with the
    state fed back on the device, and every step is then one graph launch
    after the batch's upload; reading the loss and the skip flag are the
    step's host waits."""

    def __init__(self, module, params, level="O2", dtype=None, target="cpu",
                 scaler=None, data_parallel=False, func_name=None,
                 buffers=None, seed=0, cuda_graph=False, **compile_options):
        if cuda_graph and target not in ("gpu", "gpu-sim"):
            raise ValueError(f"cuda_graph=True needs target 'gpu' or "
                             f"'gpu-sim', not {target!r}")
        if cuda_graph and data_parallel:
            raise ValueError("cuda_graph=True cannot be data-parallel: the "
                             "all-reduce waits for the device on the host "
                             "(NCCL is not used), which a CUDA graph cannot "
                             "hold")
        self.cuda_graph = bool(cuda_graph)
        self._graph = None
        level = compiler._level_name(level)
        low = None if dtype is None else compiler.low_precision_name(dtype)
        if scaler is None:
            scaler = ("bf16" if level == "O0" or low in ("bf16", "fp8")
                      else "pytorch")
        self.level = level
        self.scaler_preset = scaler
        self.step_text = make_training_step(module, scaler, data_parallel)
        # The training steps amp-training made: their results end with
        # {amp.found_inf}.
        steps = re.findall(r"func\.func (?:\w+ )?@([\w$.]+)\([^\n]*"
                           r"\{amp\.found_inf\}", self.step_text)
        if func_name is None:
            if len(steps) != 1:
                raise ValueError(f"the module has {len(steps)} "
                                 f"forward-backward functions ({steps}): "
                                 f"name one with func_name")
            func_name = steps[0]
        elif func_name not in steps:
            raise ValueError(f"@{func_name} is not a forward-backward "
                             f"function of the module (those are {steps})")
        self.func_name = func_name
        roles_text = self.step_text
        if low == "fp8":
            # The level adds the FP8 state (amax histories and scales) to
            # the step: its roles are read from the step after the level.
            accepted = inspect.signature(compiler.transform).parameters
            amp_settings = {key: value for key, value in
                            compile_options.items() if key in accepted}
            roles_text = compiler.transform(self.step_text, level=level,
                                            dtype=dtype, **amp_settings)
        self._arguments, self._results = _signature(roles_text, func_name)
        self.module = compiler.compile(self.step_text, level=level,
                                       dtype=dtype, target=target,
                                       **compile_options)
        self._step = self.module[func_name]
        # On a GPU (and in the simulator) the state stays on the device
        # between steps: each step takes the device arrays the last one
        # returned, and only the batch, the loss and the skip flag cross
        # the host link.
        self._keep = None
        if target in ("gpu", "gpu-sim"):
            self._keep = [role not in ("loss", "found_inf")
                          for role, _ in self._results]
        init = self.module[f"{func_name}_init"]()
        init = init if isinstance(init, tuple) else (init,)
        state_roles = [role for role in self._arguments
                       if role[0] in ("optimizer_state", "scaler", "fp8")]
        self._state = {}
        for (role, label), value in zip(state_roles, init):
            self._state[f"{role}:{label}"] = np.array(value, copy=True)
        names = [label for role, label in self._arguments if role == "param"]
        missing = [name for name in names if name not in params]
        unknown = [name for name in params if name not in names]
        if missing or unknown:
            raise ValueError(
                f"params must name every parameter of @{func_name}: "
                f"missing {missing}, unknown {unknown}")
        for name in names:
            value = np.asarray(params[name])
            if value.dtype != np.float32:
                raise TypeError(f"parameter {name!r} has dtype "
                                f"{value.dtype}; the masters are float32")
            self._state[f"param:{name}"] = np.array(value, copy=True)
        buffers = dict(buffers or {})
        if philox.RNG_BUFFER in _buffer_types(self.step_text, func_name):
            if not isinstance(seed, numbers.Integral) or \
                    not 0 <= seed < 2 ** 63:
                raise ValueError(f"seed must be an integer in [0, 2^63), "
                                 f"got {seed!r}")
            buffers.setdefault(philox.RNG_BUFFER,
                               np.array([seed, 0], dtype=np.int64))
        self._set_buffers(buffers)
        self.batch_count = sum(1 for role, _ in self._arguments
                               if role == "batch")
        self.steps = 0
        self.skipped = 0

    @property
    def state(self):
        """{role:label: array}: every state value the step carries
        (parameters, buffers, optimizer, scaler), as host arrays (copies of
        what the device holds for targets gpu and gpu-sim)."""
        return {key: _host(value) for key, value in self._state.items()}

    @property
    def params(self):
        """{name: float32 array}: the fp32 master parameters."""
        return self._state_of("param")

    def _set_buffers(self, buffers):
        types = _buffer_types(self.step_text, self.func_name)
        missing = [name for name in types if name not in buffers]
        unknown = [name for name in buffers if name not in types]
        if missing or unknown:
            raise ValueError(
                f"buffers must name every amp.buffer of @{self.func_name}: "
                f"missing {missing}, unknown {unknown}")
        for name, (shape, dtype) in types.items():
            value = np.asarray(buffers[name])
            if value.shape != shape or value.dtype != dtype:
                raise TypeError(f"buffer {name!r} is {value.dtype}"
                                f"{list(value.shape)}; the step takes "
                                f"{dtype}{list(shape)}")
            self._state[f"buffer:{name}"] = np.array(value, copy=True)

    def _state_of(self, role):
        """{label: array} of the state of one role (host copies of what is
        on the device)."""
        return {key.split(":", 1)[1]: _host(value) for key, value in
                self._state.items() if key.startswith(f"{role}:")}

    @property
    def buffers(self):
        """{name: array}: the model's buffers (batch norm's running
        statistics) as the last step left them."""
        return self._state_of("buffer")

    @property
    def scale(self):
        """The current loss scale."""
        return float(_host(self._state["scaler:scale"]))

    def step(self, *batch):
        """One training step on a batch (the batch tensors of the
        forward-backward function, in order). Returns (loss, skipped):
        the loss of this step (averaged over the ranks when data-parallel)
        and whether the update was skipped because a gradient was not
        finite."""
        if len(batch) != self.batch_count:
            raise TypeError(f"step takes {self.batch_count} batch tensors, "
                            f"got {len(batch)}")
        arguments = []
        batch = iter(batch)
        for role, label in self._arguments:
            arguments.append(next(batch) if role == "batch" else
                             self._state[f"{role}:{label}"])
        if self.cuda_graph:
            results = self._replay(arguments)
        else:
            results = self._step.call(*arguments, keep=self._keep)
        loss = found = None
        for (role, label), value in zip(self._results, results):
            if role == "loss":
                loss = float(_host(value))
            elif role == "found_inf":
                found = bool(_host(value))
            elif not self.cuda_graph:
                self._state[f"{role}:{label}"] = value
        self.steps += 1
        self.skipped += int(found)
        return loss, found

    def _replay(self, arguments):
        """One step as a replay of the captured step (captured on the
        first call, or after load_state_dict): the state stays in the
        graph's argument buffers, which each replay updates in place. The
        loss and the skip flag come back as DeviceArrays."""
        if self._graph is None:
            where = {role: index for index, role in
                     enumerate(self._arguments) if role[0] != "batch"}
            feedback = [where.get(role, -1) for role in self._results]
            self._graph = self._step.capture(*arguments, feedback=feedback)
            for index, (role, label) in enumerate(self._arguments):
                if role != "batch":
                    self._state[f"{role}:{label}"] = \
                        self._graph.argument(index)
        self._graph.replay(*[value if role == "batch" else None for
                             value, (role, _) in zip(arguments,
                                                     self._arguments)])
        return [self._graph.result(index) if role in ("loss", "found_inf")
                else None for index, (role, _) in enumerate(self._results)]

    def state_dict(self):
        """Everything a resumed run needs: parameters, optimizer state,
        scaler state and the step/skip counts, as numpy arrays."""
        state = {key: np.array(_host(value), copy=True)
                 for key, value in self._state.items()}
        state["trainer:steps"] = np.array(self.steps, dtype=np.int64)
        state["trainer:skipped"] = np.array(self.skipped, dtype=np.int64)
        return state

    def load_state_dict(self, state):
        """Restores a state_dict(): the next step continues exactly where
        the saved run was."""
        expected = set(self._state) | {"trainer:steps", "trainer:skipped"}
        if set(state) != expected:
            raise ValueError(
                f"the state does not belong to this training step: missing "
                f"{sorted(expected - set(state))}, unknown "
                f"{sorted(set(state) - expected)}")
        for key in self._state:
            value = np.asarray(state[key])
            if value.shape != self._state[key].shape or \
                    value.dtype != self._state[key].dtype:
                raise ValueError(f"{key}: {value.dtype}{list(value.shape)} "
                                 f"where the step has "
                                 f"{self._state[key].dtype}"
                                 f"{list(self._state[key].shape)}")
            self._state[key] = np.array(value, copy=True)
        # A captured step holds the old state in its buffers: the next step
        # captures again, from this one.
        self._graph = None
        self.steps = int(state["trainer:steps"])
        self.skipped = int(state["trainer:skipped"])

    def save(self, path):
        """np.savez of state_dict()."""
        np.savez(path, **self.state_dict())

    def load(self, path):
        """Loads what save() wrote."""
        with np.load(path) as data:
            self.load_state_dict({key: data[key] for key in data.files})
