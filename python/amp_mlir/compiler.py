"""compile(), transform() and report(): AMP on an MLIR module from Python.

``compile`` parses the module, applies the AMP level, lowers it for the CPU
(or an NVIDIA GPU) and JIT-compiles its functions through libAmpRunnerCAPI;
the result's functions take and return numpy arrays. ``transform``,
``report`` and ``precision_graph`` run the same pipelines in-process
(ampRunnerModuleTransform) and give the rewritten module, the precision
report and the precision graph. Only ``compile(..., output=)`` runs a tool,
``amp-compile``, which links a shared library.
"""

import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
import weakref
from pathlib import Path

import numpy as np

from . import _capi, _paths
from .dtypes import (ELEMENT_TYPES, as_bf16_bits, bf16_dtype,
                     from_bf16_bits, low_precision_name)


class AmpDiagnostic:
    """One located diagnostic of an MLIR stage: `severity` ("error",
    "warning", "remark"), `location` ("file:line:col", or "" if unknown),
    `message`, `op` (the name of the op it is about, or None) and `notes`
    (dicts with "location" and "message")."""

    def __init__(self, severity, location, message, op=None, notes=()):
        self.severity = severity
        self.location = location or ""
        self.message = message
        self.op = op
        self.notes = list(notes)

    @classmethod
    def from_json(cls, item):
        return cls(item.get("severity"), item.get("location") or "",
                   item.get("message", ""), item.get("op"),
                   item.get("notes") or ())

    def __str__(self):
        where = f"{self.location}: " if self.location else ""
        text = f"{where}{self.severity}: {self.message}"
        for note in self.notes:
            at = f"{note['location']}: " if note.get("location") else ""
            text += f"\n  {at}note: {note['message']}"
        return text

    def __repr__(self):
        return f"<AmpDiagnostic {self}>"


class AmpError(RuntimeError):
    """A compilation or execution failure reported by amp-mlir; the message
    carries its diagnostics. `diagnostics` holds the errors behind it, as
    AmpDiagnostic (located: the MLIR diagnostic's file:line:col), where a
    stage reported them; `location` is the first one's ("" if none)."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)
        self.location = next((d.location for d in self.diagnostics
                              if d.location), "")

    @classmethod
    def from_capi(cls, message, reported=None):
        """The error of a failed C API call: `message`, and the errors of
        ampRunnerGetLastDiagnostics() (`reported`: its JSON, parsed)."""
        if reported is None:
            reported = json.loads(_capi.last_diagnostics())
        return cls(message, [AmpDiagnostic.from_json(item)
                             for item in reported.get("diagnostics", [])
                             if item.get("severity") == "error"])


class SignatureError(AmpError, TypeError):
    """Arguments that do not match the compiled function's signature."""


class _Diagnostic:
    """What a diagnostic warning carries besides its text: `diagnostic` (the
    message), `location` ("file:line:col", or "" if unknown), `op` (the name
    of the op it is about, or None) and `notes` (dicts with "location" and
    "message")."""

    def __init__(self, message, location="", op=None, notes=()):
        self.diagnostic = message
        self.location = location
        self.op = op
        self.notes = list(notes)
        text = ": ".join([part for part in (location, op) if part] +
                         [message])
        for note in self.notes:
            where = f"{note['location']}: " if note.get("location") else ""
            text += f"\n  {where}note: {note['message']}"
        super().__init__(text)


class AmpWarning(_Diagnostic, UserWarning):
    """A warning of a compilation stage (an MLIR warning diagnostic), issued
    with warnings.warn instead of printed."""


class AmpRemark(_Diagnostic, UserWarning):
    """A remark of a compilation stage (explain=True's decision per op,
    "kept in f32" notices, lowering choices), issued with warnings.warn
    instead of printed. Silence them with
    ``warnings.simplefilter("ignore", amp_mlir.AmpRemark)``."""


_CATEGORIES = {"warning": AmpWarning, "remark": AmpRemark}


def _stacklevel():
    """The stacklevel of warnings.warn, called by the caller of this
    function, that names the first frame outside this package."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(
            frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def _emit(diagnostics, stderr="", stdout="", seen=None):
    """Issues warnings and remarks (dicts with severity, location, message,
    op, notes) as AmpWarning/AmpRemark and writes report text to sys.stderr
    and sys.stdout, skipping what `seen` (a set, updated) already has."""
    seen = set() if seen is None else seen
    level = _stacklevel()
    for item in diagnostics:
        category = _CATEGORIES.get(item.get("severity"))
        key = (item.get("severity"), item.get("location"),
               item.get("message"))
        if category is None or key in seen:
            continue
        seen.add(key)
        warnings.warn(category(item["message"], item.get("location") or "",
                               item.get("op"), item.get("notes") or ()),
                      stacklevel=level)
    for label, text in (("stderr", stderr), ("stdout", stdout)):
        if text and (label, text) not in seen:
            seen.add((label, text))
            stream = getattr(sys, label)
            stream.write(text)
            stream.flush()


_HEADER = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|remark|note): (.*)$")
_CURRENT_OP = "see current operation: "


def _printed_op_name(text):
    """The op name of an op printed in its custom or generic form."""
    text = text.lstrip()
    if text.startswith("%"):
        equals = text.find(" = ")
        if equals < 0:
            return None
        text = text[equals + 3:]
    match = re.match(r'"([^"]+)"|([^\s(<{]+)', text)
    return (match.group(1) or match.group(2)) if match else None


def _parse_tool_diagnostics(stderr, name):
    """A tool's diagnostics (amp-compile's stderr: headers "file:line:col:
    severity: message", each followed by the source line and a caret,
    notes after their diagnostic) as dicts, and the lines that belong to
    none."""
    diagnostics, other = [], []
    current = None
    for line in stderr.replace("<stdin>", name).splitlines():
        match = _HEADER.match(line)
        if not match:
            (other if current is None else current["lines"]).append(line)
            continue
        path, row, column, severity, message = match.groups()
        location = f"{path}:{row}:{column}"
        if severity == "note" and diagnostics:
            current = diagnostics[-1]
            if message.startswith(_CURRENT_OP):
                current["op"] = _printed_op_name(message[len(_CURRENT_OP):])
                current["lines"] = []
                continue
            current["notes"].append({"location": location,
                                     "message": message})
            continue
        current = {"severity": severity, "location": location,
                   "message": message, "op": None, "notes": [], "lines": []}
        diagnostics.append(current)
    return diagnostics, "".join(line + "\n" for line in other)


def _one_of(values):
    """'a', 'b' or 'c'."""
    quoted = [repr(value) for value in values]
    return (", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1
            else "".join(quoted))


def _check_choice(keyword, option, value):
    """Raises ValueError naming `keyword` and the accepted values unless
    `value` is one of those of the enumerated option `option` of amp-mlir's
    one spelling table (amp/Dialect/Amp/Transforms/Options.h, through the C
    API): a value added there is accepted here too."""
    choices = _capi.option_values(option)
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{keyword} must be {_one_of(choices)}, got "
                         f"{value!r}")


def _level_name(level):
    levels = _capi.option_values("level")
    key = str(level).upper()
    if key not in levels:
        raise ValueError(f"unknown level {level!r}: expected "
                         f"{_one_of(levels)}")
    return key


def _read_module(module):
    """(text, name) of a module given as text, a path, or a Path."""
    if isinstance(module, os.PathLike):
        path = Path(module)
        return path.read_text(), str(path)
    if not isinstance(module, str):
        raise TypeError(f"expected MLIR text or a path, got "
                        f"{type(module).__name__}")
    # One line that names a file is a path, whatever characters it has
    # ("models/net(v2).mlir"); one that ends in .mlir, or has none of the
    # characters MLIR text has ('{', '(', '%', '@'), is a path that does not
    # exist. Anything else is MLIR text. pathlib.Path says it explicitly.
    if "\n" not in module:
        try:
            is_file = Path(module).is_file()
        except (OSError, ValueError):
            is_file = False
        if is_file:
            return Path(module).read_text(), module
        if module.strip().endswith(".mlir") or \
                not any(c in module for c in "{(%@"):
            raise FileNotFoundError(f"no such module file: {module}")
    return module, "<string>"


def _amp_option_values(custom_white_list=None, custom_black_list=None,
                       use_fp16_guard=None, placement=None, policy_file=None,
                       loss_scaling=None, arg_precision=None):
    """{option name: typed value} of the AMP pipeline for these keywords,
    checked: what the C API's typed setters take."""
    values = {}

    def op_list(name, ops):
        if ops is None:
            return
        if isinstance(ops, str):
            ops = [ops]
        ops = list(ops)
        for op in ops:
            if not isinstance(op, str) or not op or any(
                    c in op for c in " ,{}="):
                raise ValueError(f"{name}: {op!r} is not an op name")
        if ops:
            values[name] = ops

    op_list("custom-white-list", custom_white_list)
    op_list("custom-black-list", custom_black_list)
    if use_fp16_guard is not None:
        if isinstance(use_fp16_guard, bool):
            values["use-fp16-guard"] = str(use_fp16_guard).lower()
        else:
            choices = _capi.option_values("use-fp16-guard")
            if not isinstance(use_fp16_guard, str) or \
                    use_fp16_guard not in choices:
                raise ValueError(f"use_fp16_guard must be None, True, False "
                                 f"or one of {_one_of(choices)}, got "
                                 f"{use_fp16_guard!r}")
            values["use-fp16-guard"] = use_fp16_guard
    if placement is not None:
        _check_choice("placement", "placement", placement)
        values["placement"] = placement
    if policy_file is not None:
        path = Path(policy_file)
        if not path.is_file():
            raise FileNotFoundError(f"no such policy file: {policy_file}")
        values["policy-file"] = str(path)
    if loss_scaling is not None:
        _check_choice("loss_scaling", "loss-scaling", loss_scaling)
        values["loss-scaling"] = loss_scaling
    if arg_precision is not None:
        _check_choice("arg_precision", "arg-precision", arg_precision)
        values["arg-precision"] = arg_precision
    return values


def _amp_option_text(values):
    """{name: value} of the AMP pipeline's options in its syntax (for
    amp-compile's --amp-options)."""
    def spell(value):
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, (list, tuple)):
            return ",".join(value)
        return str(value)
    for name, value in values.items():
        if any(c in spell(value) for c in " {}"):
            raise ValueError(f"{name} {spell(value)!r} must not contain "
                             f"spaces or braces in the pipeline's syntax")
    return " ".join(f"{name}={spell(value)}" for name, value in values.items())


class _AmpOptions:
    """The options of the AMP pipeline that a call gives: `values`, the
    keywords' options by name with typed values (the C API's typed setters
    take them), and `text`, the raw amp_options in --amp-o2's syntax, set
    after them (so it wins, as the later option of a command line does)."""

    def __init__(self, values=None, text=None):
        self.values = dict(values or {})
        if isinstance(text, dict):
            # amp_options as a dict of typed values, after the keywords'.
            self.values.update(text)
            text = None
        elif text is not None and not isinstance(text, str):
            raise ValueError(f"amp_options must be a dict of typed values or "
                             f"their text, not {text!r}")
        self.text = text or None

    def with_values(self, **values):
        """A copy with more values (option names spelled with '_' for
        '-')."""
        merged = dict(self.values)
        merged.update({k.replace("_", "-"): v for k, v in values.items()})
        return _AmpOptions(merged, self.text)

    def capi(self):
        """The entries of _capi.compile_options's dict."""
        return {"amp_values": self.values, "amp_options": self.text}

    def __str__(self):
        """The options in --amp-o2's syntax."""
        return " ".join(part for part in (_amp_option_text(self.values),
                                          self.text) if part)

    def __bool__(self):
        return bool(self.values or self.text)


def build_amp_options(custom_white_list=None, custom_black_list=None,
                use_fp16_guard=None, placement=None, policy_file=None,
                loss_scaling=None, extra=None, arg_precision=None):
    """The option string of --amp-o1/--amp-o2 for these arguments."""
    return str(_AmpOptions(_amp_option_values(
        custom_white_list, custom_black_list, use_fp16_guard, placement,
        policy_file, loss_scaling, arg_precision), extra))


#===-----------------------------------------------------------------------===#
# Compiled modules
#===-----------------------------------------------------------------------===#


class TensorType:
    """The type of an argument or result: shape (None for a dynamic
    dimension, MLIR's ``?``), numpy dtype, MLIR name."""

    def __init__(self, shape, dtype, element):
        self.shape = tuple(None if d < 0 else d for d in shape)
        self.dtype = dtype
        self.element = element

    def __str__(self):
        dims = "".join("?x" if d is None else f"{d}x" for d in self.shape)
        return f"tensor<{dims}{self.element}>"

    def accepts(self, shape):
        """True when an array of this shape fits (any size where ``?``)."""
        return len(shape) == len(self.shape) and all(
            d is None or d == s for d, s in zip(self.shape, shape))

    __repr__ = __str__

    def __eq__(self, other):
        return (isinstance(other, TensorType) and self.shape == other.shape
                and self.element == other.element)


class CapturedCall:
    """A call of a compiled function captured as a CUDA graph
    (CompiledFunction.capture): its arguments and its own results live in
    device buffers of this object, which each replay() reads and writes
    with one graph launch and no host wait. On gpu-sim the simulator runs
    what the capture recorded (simulator_stats()['graphLaunches'] counts
    the launches)."""

    def __init__(self, function, handle):
        self._function = function
        self._handle = handle

    def replay(self, *args):
        """Queues one replay. One entry per argument: an array or
        DeviceArray copied into the argument's buffer first (of the captured
        shape and type), or None, which keeps what the buffer holds (the
        state the last replay fed back). Returns without waiting."""
        function = self._function
        count = len(function.arguments)
        if len(args) != count:
            raise function._mismatch(f"@{function.name} takes {count} "
                                     f"arguments, got {len(args)}")
        devices = (ctypes.c_void_p * max(count, 1))()
        hosts = (ctypes.c_void_p * max(count, 1))()
        arrays = []
        shapes = (ctypes.POINTER(ctypes.c_int64) * max(count, 1))()
        for index, value in enumerate(args):
            if value is None:
                continue
            if isinstance(value, DeviceArray):
                devices[index] = value._handle
                continue
            array = function._prepare_one(index, value)
            shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
            arrays.append((array, shape))
            hosts[index] = array.ctypes.data
            shapes[index] = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        if _capi.lib().ampRunnerReplay(self._handle, hosts, shapes, devices):
            raise AmpError(f"@{function.name}: {_capi.last_error()}")
        del arrays

    def argument(self, index):
        """Argument `index`'s buffer (its value for the next replay), as
        a DeviceArray."""
        return self._tensor(_capi.lib().ampRunnerCapturedArgument, index)

    def result(self, index):
        """Result `index` of the last replay, as a DeviceArray (numpy()
        waits for the device); a fed-back result is the argument it
        feeds."""
        return self._tensor(_capi.lib().ampRunnerCapturedResult, index)

    def _tensor(self, get, index):
        handle = get(self._handle, index)
        if not handle:
            raise AmpError(f"@{self._function.name}: {_capi.last_error()}")
        return DeviceArray(handle)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _capi.lib.loaded is not None:
            _capi.lib.loaded.ampRunnerCapturedDestroy(handle)


class DeviceArray:
    """A tensor kept on the device of a compiled function (targets gpu and
    gpu-sim) between calls: a result of CompiledFunction.call(...,
    keep=...), to pass to later calls without copies. numpy() copies it to
    the host. The device buffer is freed when the last DeviceArray holding
    it goes. A function may write into a DeviceArray argument: pass one to a
    call only when its value is no longer needed (a training step's state,
    replaced by the step's results)."""

    def __init__(self, handle):
        self._handle = handle
        element = ctypes.c_int32()
        rank = ctypes.c_int64()
        shape = ctypes.POINTER(ctypes.c_int64)()
        if _capi.lib().ampRunnerDeviceTensorGetType(
                handle, ctypes.byref(element), ctypes.byref(rank),
                ctypes.byref(shape)):
            raise AmpError(_capi.last_error())
        dtype, name = ELEMENT_TYPES[element.value]
        self._element = name
        self.dtype = np.dtype(bf16_dtype() if name == "bf16" else dtype)
        self.shape = tuple(shape[d] for d in range(rank.value))

    @property
    def nbytes(self):
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def numpy(self):
        """A host copy (synchronizes the device)."""
        bf16 = self._element == "bf16"
        output = np.empty(self.shape, np.uint16 if bf16 else self.dtype)
        if _capi.lib().ampRunnerDeviceTensorRead(
                self._handle, ctypes.c_void_p(output.ctypes.data)):
            raise AmpError(_capi.last_error())
        return from_bf16_bits(output) if bf16 else output

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _capi.lib.loaded is not None:
            _capi.lib.loaded.ampRunnerDeviceTensorDestroy(handle)

    def __repr__(self):
        return (f"<amp_mlir.DeviceArray {self.dtype.name}"
                f"{list(self.shape)}>")


class CompiledFunction:
    """A JIT-compiled entry function. Call it with one numpy array per
    argument (or Python scalars/lists, converted to the argument's dtype);
    it returns one array, a tuple of arrays, or None.

    Arrays must have exactly the argument's dtype and shape (any size where
    the signature has ``?``): float32, float16, bfloat16, float64, int32,
    int64. bf16 is ml_dtypes.bfloat16 where ml_dtypes is installed (uint16
    arrays of the bit patterns are taken too) and uint16 bit patterns
    without it (see to_bfloat16); bf16 results come back the same way.
    """

    def __init__(self, handle, module):
        self._handle = handle
        self._module = module  # keeps the parsed module alive
        lib = _capi.lib()
        self.name = lib.ampRunnerGetName(handle).decode()
        # What the level applied: 'f16', 'bf16', or None at O0.
        self.low_precision_type = (
            lib.ampRunnerGetLowPrecisionType(handle).decode() or None)
        self.arguments = [self._type(False, i)
                          for i in range(lib.ampRunnerGetNumArguments(handle))]
        self.results = [self._type(True, i)
                        for i in range(lib.ampRunnerGetNumResults(handle))]

    def _type(self, is_result, index):
        element = ctypes.c_int32()
        rank = ctypes.c_int64()
        shape = ctypes.POINTER(ctypes.c_int64)()
        if _capi.lib().ampRunnerGetTensorType(self._handle, int(is_result),
                                              index, ctypes.byref(element),
                                              ctypes.byref(rank),
                                              ctypes.byref(shape)):
            raise AmpError(_capi.last_error())
        dtype, name = ELEMENT_TYPES[element.value]
        if name == "bf16":
            dtype = bf16_dtype()
        return TensorType([shape[d] for d in range(rank.value)], dtype, name)

    @property
    def signature(self):
        """``@f(tensor<4x8xf32>, ...) -> (tensor<4xf32>, ...)``"""
        args = ", ".join(map(str, self.arguments))
        results = ", ".join(map(str, self.results))
        if len(self.results) != 1:
            results = f"({results})"
        return f"@{self.name}({args}) -> {results}"

    def _mismatch(self, message):
        arrays = ", ".join(
            f"{t.dtype.name}{['?' if d is None else d for d in t.shape]}"
            for t in self.arguments)
        return SignatureError(f"{message}\n  expected: {self.signature}\n"
                              f"  numpy:    ({arrays})")

    def _prepare(self, args):
        if len(args) != len(self.arguments):
            raise self._mismatch(f"@{self.name} takes {len(self.arguments)} "
                                 f"arguments, got {len(args)}")
        return [self._prepare_one(index, value)
                for index, value in enumerate(args)]

    def _prepare_one(self, index, value):
        """Argument `index` as a contiguous array of its type."""
        expected = self.arguments[index]
        if isinstance(value, np.ndarray):
            array = value
        else:
            try:
                array = np.asarray(value, dtype=expected.dtype)
            except (TypeError, ValueError) as error:
                raise self._mismatch(
                    f"argument #{index} ({type(value).__name__}) cannot "
                    f"be converted to {expected.dtype.name}: {error}")
        if expected.element == "bf16" and array.dtype in (
                np.uint16, bf16_dtype()):
            array = as_bf16_bits(array)
        elif array.dtype != expected.dtype:
            hint = ""
            if expected.element == "bf16":
                hint = (" (bf16 values are ml_dtypes.bfloat16 arrays or "
                        "uint16 bit patterns: amp_mlir.to_bfloat16 makes "
                        "them)" if bf16_dtype() != np.uint16 else
                        " (bf16 values are uint16 bit patterns: use "
                        "amp_mlir.to_bfloat16)")
            raise self._mismatch(
                f"argument #{index} has dtype {array.dtype.name}, "
                f"expected {expected.dtype.name} for {expected}{hint}")
        if not expected.accepts(array.shape):
            raise self._mismatch(
                f"argument #{index} has shape {array.shape}, expected "
                f"{expected.shape} for {expected}")
        return np.ascontiguousarray(array)

    @staticmethod
    def _pointers(arrays):
        pointers = (ctypes.c_void_p * max(len(arrays), 1))()
        for index, array in enumerate(arrays):
            pointers[index] = array.ctypes.data
        return pointers

    @staticmethod
    def _shapes(arrays):
        """The shapes of `arrays` as the C API takes them (and the buffers
        that keep them alive)."""
        buffers = [(ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
                   for a in arrays]
        shapes = (ctypes.POINTER(ctypes.c_int64) * max(len(arrays), 1))()
        for index, buffer in enumerate(buffers):
            shapes[index] = ctypes.cast(buffer, ctypes.POINTER(ctypes.c_int64))
        return shapes, buffers

    def __call__(self, *args):
        outputs = self.call(*args)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else outputs

    def call(self, *args, keep=None):
        """__call__ with device arrays (targets gpu and gpu-sim): an argument
        may be a DeviceArray, used in place with no copy, and each result
        whose flag in `keep` (one bool per result) is true stays on the
        device as a DeviceArray (unless the function returns it as a view of
        another buffer: then it comes back as an array). Always returns a
        tuple, one entry per result."""
        count = len(self.arguments)
        if len(args) != count:
            raise self._mismatch(f"@{self.name} takes {count} arguments, "
                                 f"got {len(args)}")
        if keep is not None and len(keep) != len(self.results):
            raise ValueError(f"keep has {len(keep)} flags; @{self.name} has "
                             f"{len(self.results)} results")
        devices, hosts = self._device_arguments(args)
        shapes, keep_shapes = self._shapes(hosts)
        flags = (ctypes.c_int32 * max(len(self.results), 1))(
            *[int(bool(flag)) for flag in (keep or [])])
        lib = _capi.lib()
        results = lib.ampRunnerCallDevice(
            self._handle, self._pointers(hosts), shapes, devices,
            flags if keep is not None else None)
        if not results:
            raise AmpError(f"@{self.name}: {_capi.last_error()}")
        try:
            outputs = []
            for index, expected in enumerate(self.results):
                handle = lib.ampRunnerResultsGetDevice(results, index)
                if handle:
                    outputs.append(DeviceArray(handle))
                    continue
                outputs.append(self._result(results, index, expected))
        finally:
            lib.ampRunnerResultsDestroy(results)
        del keep_shapes
        return tuple(outputs)

    def _device_arguments(self, args):
        """(device handles, host arrays) of `args` for the C API: a
        DeviceArray's handle, with an empty placeholder as its host entry
        (the runner does not read it; it checks the device array's type
        itself), else the argument as a contiguous array of its type."""
        devices = (ctypes.c_void_p * max(len(args), 1))()
        hosts = []
        for index, value in enumerate(args):
            if isinstance(value, DeviceArray):
                devices[index] = value._handle
                hosts.append(np.zeros((0,) * len(self.arguments[index].shape),
                                      np.uint8))
            else:
                hosts.append(self._prepare_one(index, value))
        return devices, hosts

    def capture(self, *args, feedback=None):
        """Captures a call on `args` (arrays or DeviceArrays) as a CUDA
        graph (targets gpu and gpu-sim): a CapturedCall, whose replay()
        runs the whole call with one graph launch and no host wait, on
        buffers of its own. `feedback`: None, or one entry per result: the
        index of the argument whose buffer the result is copied into at
        the end of each replay (a training step's new state), or -1. The
        function is called once first, on copies of `args`."""
        count = len(self.arguments)
        if len(args) != count:
            raise self._mismatch(f"@{self.name} takes {count} arguments, "
                                 f"got {len(args)}")
        if feedback is not None and len(feedback) != len(self.results):
            raise ValueError(f"feedback has {len(feedback)} entries; "
                             f"@{self.name} has {len(self.results)} results")
        devices, hosts = self._device_arguments(args)
        shapes, keep_shapes = self._shapes(hosts)
        fed = (ctypes.c_int64 * max(len(self.results), 1))(
            *[int(entry) for entry in (feedback or [])])
        handle = _capi.lib().ampRunnerCapture(
            self._handle, self._pointers(hosts), shapes, devices,
            fed if feedback is not None else None)
        del keep_shapes
        if not handle:
            raise AmpError(f"@{self.name}: {_capi.last_error()}")
        return CapturedCall(self, handle)

    def _result(self, results, index, expected):
        """Host result `index` of `results` as an array over the buffer the
        compiled code returned (taken out of `results`, no copy)."""
        lib = _capi.lib()
        rank = ctypes.c_int64()
        shape = ctypes.POINTER(ctypes.c_int64)()
        data = ctypes.c_void_p()
        handle = lib.ampRunnerResultsTake(results, index, ctypes.byref(rank),
                                          ctypes.byref(shape),
                                          ctypes.byref(data))
        if not handle:
            raise AmpError(f"@{self.name}: {_capi.last_error()}")
        bf16 = expected.element == "bf16"
        buffer = _HostBuffer(handle, tuple(shape[d] for d in range(rank.value)),
                             np.dtype(np.uint16 if bf16 else expected.dtype),
                             data.value)
        output = np.asarray(buffer)
        return from_bf16_bits(output) if bf16 else output

    def host_copies(self):
        """What the runner copied on the host for this function's calls so
        far: {"calls", "input_bytes", "result_bytes"}. On the CPU a call
        reads its arguments in place and hands over its results' buffers,
        so only an argument converted to a narrowed type and a result that
        views an argument or another result's buffer are copied."""
        values = [ctypes.c_int64() for _ in range(3)]
        if _capi.lib().ampRunnerGetHostCopyStats(
                self._handle, *[ctypes.byref(v) for v in values]):
            raise AmpError(f"@{self.name}: {_capi.last_error()}")
        return dict(zip(("calls", "input_bytes", "result_bytes"),
                        (v.value for v in values)))

    def time(self, *args, repeat=10):
        """Seconds per call: one warm-up, then the median of `repeat` calls."""
        if repeat < 1:
            raise ValueError("repeat must be at least 1")
        inputs = self._prepare(args)
        durations = (ctypes.c_double * repeat)()
        shapes, keep = self._shapes(inputs)
        if _capi.lib().ampRunnerTimeShaped(self._handle,
                                           self._pointers(inputs), shapes,
                                           repeat, durations):
            raise AmpError(f"@{self.name}: {_capi.last_error()}")
        return float(np.median(list(durations)))

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _capi.lib.loaded is not None:
            _capi.lib.loaded.ampRunnerExecutableDestroy(handle)

    def __repr__(self):
        return f"<amp_mlir.CompiledFunction {self.signature}>"


class _HostBuffer:
    """Owns a result's buffer (an AmpRunnerHostBuffer handle) and lends it
    to numpy: the array made from it keeps it alive, and the buffer goes
    back to the runtime's allocator with the last array viewing it."""

    def __init__(self, handle, shape, dtype, address):
        self._handle = handle
        if not address:  # An empty result; numpy wants an address.
            address = 1
        self.__array_interface__ = {"shape": shape, "typestr": dtype.str,
                                    "version": 3, "data": (address, False)}

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and _capi.lib.loaded is not None:
            _capi.lib.loaded.ampRunnerHostBufferDestroy(handle)


class _ParsedModule:
    """Owns an AmpRunnerModule handle."""

    def __init__(self, text, name):
        data = text.encode()
        self.handle = _capi.lib().ampRunnerModuleParse(data, len(data),
                                                       name.encode())
        if not self.handle:
            raise AmpError.from_capi(_capi.last_error())

    def function_names(self):
        lib = _capi.lib()
        return [lib.ampRunnerModuleGetFunctionName(self.handle, i).decode()
                for i in range(lib.ampRunnerModuleGetNumFunctions(self.handle))]

    def __del__(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle and _capi.lib.loaded is not None:
            _capi.lib.loaded.ampRunnerModuleDestroy(handle)


class CompileTiming:
    """The time of each stage of a compilation (``CompiledModule.timing``),
    as ``amp-run --timing`` prints it: ``stages`` is a list of (name, wall
    seconds, CPU seconds) in the order they ran: parse, AMP passes,
    lowering, LLVM IR translation, LLVM optimization, machine code.
    ``llvm_opt_level``, ``largest_function`` (LLVM instructions) and
    ``detached_constants``/``detached_bytes`` (weights kept out of LLVM)
    say what the JIT was given; ``pass_report`` is MLIR's and LLVM's time
    per pass with ``timing="passes"``, else "". ``str()`` renders the
    table."""

    def __init__(self, data):
        self.stages = [(s["name"], s["seconds"], s["cpu_seconds"])
                       for s in data.get("stages", [])]
        self.llvm_opt_level = data.get("llvm_opt_level")
        self.largest_function = data.get("largest_function")
        self.detached_constants = data.get("detached_constants")
        self.detached_bytes = data.get("detached_bytes")
        self.pass_report = data.get("pass_report", "")

    @property
    def total(self):
        """Wall seconds of all stages."""
        return sum(wall for _, wall, _ in self.stages)

    def __str__(self):
        def fmt(seconds):
            if seconds >= 1:
                return f"{seconds:.2f} s"
            if seconds >= 1e-3:
                return f"{seconds * 1e3:.1f} ms"
            return f"{seconds * 1e6:.0f} us"
        rows = [("stage", "wall", "CPU")] + [
            (name, fmt(wall), fmt(cpu)) for name, wall, cpu in self.stages]
        rows.append(("total", fmt(self.total),
                     fmt(sum(cpu for _, _, cpu in self.stages))))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = [f"LLVM -O{self.llvm_opt_level}, largest function "
                 f"{self.largest_function} instructions, "
                 f"{self.detached_constants} constants of "
                 f"{self.detached_bytes / 2**20:.1f} MiB kept out of LLVM"]
        lines += ["  ".join(cell.ljust(widths[i]) if i == 0 else
                            cell.rjust(widths[i])
                            for i, cell in enumerate(row)) for row in rows]
        text = "\n".join(lines)
        return text + ("\n" + self.pass_report if self.pass_report else "")

    def __repr__(self):
        return (f"<amp_mlir.CompileTiming {len(self.stages)} stages, "
                f"{self.total:.3f} s>")


class CompiledModule:
    """A module compiled under an AMP level. Its functions are attributes
    and items (``m.forward``, ``m["forward"]``), JIT-compiled on first use;
    a module with one function can be called directly."""

    def _simulator(self, what):
        """target='gpu-sim': the simulator's library (the one the JIT
        loaded: dlopen gives the same instance), through ctypes."""
        if self.target != "gpu-sim":
            raise AmpError(f"{what}: the module was compiled for target="
                           f"{self.target!r}, not 'gpu-sim'")
        from . import aot
        return ctypes.CDLL(self._options["runtime_library"],
                           mode=ctypes.RTLD_GLOBAL), aot

    def simulator_stats(self):
        """target='gpu-sim': what the GPU simulator counted since it was
        loaded or last reset (AmpSimStats, AmpGpuSim.h), as a dict:
        launches, libraryCalls, allocations, synchronizations,
        kernelBytesRead, kernelBytesWritten, kernelFlops, libraryBytes,
        libraryFlops, copyBytes, hostBytes, idealBytes, ..."""
        lib, aot = self._simulator("simulator_stats")
        return aot.simulator_stats(lib)

    def reset_simulator(self):
        """target='gpu-sim': zeroes the simulator's counters and its
        estimate's records (live buffers stay counted)."""
        lib, _ = self._simulator("reset_simulator")
        lib.ampSimResetStats()

    def estimate(self, chip="h100-sxm"):
        """target='gpu-sim': the roofline estimate of what ran since the
        simulator's last reset (reset_simulator), for `chip` ('h100-sxm'
        or 'h200'; docs/gpu.md says what it models and what it ignores): a
        dict with the chip's peaks, 'seconds' (the total), its
        'kernel_seconds', 'library_seconds' and 'copy_seconds', 'launches',
        and 'records', one per kernel, library call shape and kind of copy
        (name, kind, calls, grid, block, bytes_read, bytes_written, flops,
        loads/stores by width, seconds, bound). An unknown chip raises
        ValueError."""
        lib, aot = self._simulator("estimate")
        return aot.simulator_estimate(lib, chip)

    def __init__(self, parsed, name, options):
        self._parsed = parsed
        self._options = options
        self._functions = {}
        # The diagnostics and reports issued so far (each once per module).
        self._issued = set()
        self.name = name
        self.function_names = parsed.function_names()
        self.level = options["level"]
        self.dtype = options["dtype"]
        self.target = options["target"]
        #: The CompileTiming of the last JIT compilation of this module's
        #: functions (None before the first): compile(..., timing=True)
        #: compiles them at once, so that it is set on return.
        self.timing = None

    def _compile(self, entry):
        if entry in self._functions:
            return self._functions[entry]
        if entry not in self.function_names:
            raise KeyError(f"no function '@{entry}' in {self.name} "
                           f"(functions: {', '.join(self.function_names)})")
        # The function and every other one not compiled yet that can be: one
        # run of the pipelines and one JIT for the module, not one per
        # function.
        # Should another function keep them from compiling, the function is
        # compiled alone, for its own diagnostics.
        capacity = max(len(self.function_names), 1)
        handles = (ctypes.c_void_p * capacity)()
        c_options = _capi.compile_options(self._options)
        for others in ((1, 0) if capacity > 1 else (0,)):
            count = _capi.lib().ampRunnerCompileFunctions(
                self._parsed.handle, entry.encode(), others, c_options,
                handles, capacity)
            if count >= 0:
                break
        error = None if count >= 0 else _capi.last_error()
        reported = json.loads(_capi.last_diagnostics())
        diagnostics = reported.get("diagnostics", [])
        _emit(diagnostics, reported.get("stderr", ""),
              reported.get("stdout", ""), self._issued)
        if count < 0:
            # Errors that no stage reported in its message.
            for item in diagnostics:
                if item.get("severity") == "error" and \
                        item["message"] not in error:
                    where = f"{item['location']}: " if item["location"] else ""
                    error += f"\n  {where}error: {item['message']}"
            raise AmpError.from_capi(error, reported)
        self.timing = CompileTiming(json.loads(
            _capi.lib().ampRunnerModuleGetLastTiming(self._parsed.handle)
            or b"{}"))
        for index in range(1, count):
            function = CompiledFunction(handles[index], self._parsed)
            if function.name in self._functions:
                continue  # destroyed with the CompiledFunction
            self._functions[function.name] = function
        handle = handles[0]
        function = CompiledFunction(handle, self._parsed)
        self._functions[entry] = function
        return function

    def __getitem__(self, entry):
        return self._compile(entry)

    def __getattr__(self, entry):
        if entry.startswith("_"):
            raise AttributeError(entry)
        try:
            return self._compile(entry)
        except KeyError as error:
            raise AttributeError(str(error)) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.function_names))

    def __call__(self, *args):
        if len(self.function_names) != 1:
            raise TypeError(f"{self.name} has {len(self.function_names)} "
                            f"functions ({', '.join(self.function_names)}): "
                            f"call one of them, e.g. module["
                            f"'{(self.function_names or ['f'])[0]}'](...)")
        return self._compile(self.function_names[0])(*args)

    def __repr__(self):
        return (f"<amp_mlir.CompiledModule {self.name} {self.level} "
                f"{self.dtype or 'f16/policy'} on {self.target}: "
                f"{', '.join('@' + f for f in self.function_names)}>")


def compile(module, level="O2", dtype=None, target="cpu",
            custom_white_list=None, custom_black_list=None,
            use_fp16_guard=None, *, placement=None, policy_file=None,
            loss_scaling=None, amp_options=None, gpu_options=None,
            runtime_library=None, entries=None, arg_precision=None,
            check_nan_inf=False, explain=False, rounding=None, output=None,
            timing=False, cpu_options=None, calibration=None):
    """Compiles an MLIR module (text or path) under an AMP level.

    level: 'O0' (as written), 'O1' or 'O2'. dtype: 'float16'/'fp16'/'f16',
    'bfloat16'/'bf16', or 'fp8'/'float8' (the level in bf16, the matmuls'
    operands in FP8 with per-tensor scaling, delayed in training steps
    (Trainer); fp8-format=, fp8-scaling=, fp8-amax-history-len=,
    fp8-amax-compute=, fp8-margin=, fp8-min-size=, fp8-cost-model=,
    fp8-kernels= in
    amp_options); None: float16 unless the
    policy file (or a dtype= in amp_options) says otherwise. target: 'cpu', 'gpu' or 'gpu-sim' (the
    GPU pipeline's output in the GPU simulator, on the CPU). custom_white_list /
    custom_black_list: op names forced to low precision / kept in fp32.
    use_fp16_guard: None (auto: true when the module has amp.fp16_guard),
    True or False. placement ('auto'/'autocast'/'optimal'/'greedy'), policy_file, loss_scaling
    ('auto'/'on'/'off') as in amp-opt; amp_options: any other option of
    --amp-o2, a dict of typed values ({"fp8-margin": 2}, each set by the C
    API's setter of its kind; amp_mlir.amp_option_kinds() lists them) or
    their text ("fp8-margin=2"). gpu_options / cpu_options: options of --lower-to-gpu
    ({"chip": "sm_80", "block-size": 128}) / --lower-to-cpu
    ({"libraries": False}: generated loops instead of the CPU library's
    GEMM calls), a dict of typed values, each set by the C API's setter of
    its kind, or their text in the pipeline's syntax ("libraries=false");
    amp_mlir.lowering_options('cpu'|'gpu') lists them with their kinds;
    cpu_options with target='cpu' only. arg_precision: 'keep' (the default) or 'low': f32 arguments
    that only low-precision ops read take the low type in the compiled
    function (arg-precision=low); its functions still take float32 arrays
    for them, as declared, and round them to nearest even at the call.
    entries: function names to compile now (default: on first use).
    check_nan_inf: False (the default); True or 'low': check the results of
    the low-precision ops and narrowing conversions for Inf and NaN; 'all':
    every float op. A call that produces one then raises AmpError naming
    the first op that did, with its source location (CPU only).
    rounding: None or 'once' (the default): low-precision values are
    rounded where they are stored (and where a contraction reads them), and
    computed in f32 inside each fused loop nest or kernel; 'per-op': after
    every low-precision op, as eager autocast (bit for bit the same as
    rounding each op's result).
    explain: True issues a remark per decided op (explain=true of the
    pipeline) as an AmpRemark warning naming the op, its location, the
    precision and the reason; it compiles the functions now (those in
    entries, else all), so that they come at this call.

    Nothing is printed: the warnings and remarks of the compilation are
    issued with warnings.warn (AmpWarning, AmpRemark), each once per module,
    and a report=text|json in amp_options without report-file goes to
    sys.stderr. They come when a function is JIT-compiled: here for entries
    (and with explain), else at its first call.

    timing: True compiles the functions now (those in entries, else all)
    and sets the result's ``timing`` to a CompileTiming: the time of each
    stage (parse, AMP passes, lowering, LLVM IR translation, LLVM
    optimization, machine code; ``print(m.timing)`` shows the table amp-run
    --timing prints); 'passes' adds MLIR's and LLVM's time per pass. Every
    compilation records its stages in ``timing`` anyway.

    output: a path ("model.so"): compile ahead of time with amp-compile
    instead of the JIT, writing a shared library (and its C header, .h)
    that needs only libamp_runtime.so, which is copied next to it; returns
    it loaded (amp_mlir.load), called the same way. entries then chooses
    the functions exported (default: every public one).

    calibration: range calibration of O1/O2, for models whose activations
    outgrow the low type (f16's 65504). A list of inputs of the calibrated
    function (each a tuple of arrays, one per argument, or an array when it
    takes one), which record_ranges runs in f32; or what record_ranges
    returned; or the path of such a JSON file. Ops that read or compute a
    tensor larger than the low type's largest finite value divided by
    calibration-margin (4 by default; in amp_options) stay in f32 (or bf16:
    calibration-fallback=bf16 in amp_options), each with an AmpRemark. The
    calibrated function is the one in entries, else the module's only
    public function.

    Returns a CompiledModule (an AotLibrary with output). Raises AmpError
    with the diagnostics when a stage fails, ValueError for a bad option.
    """
    level = _level_name(level)
    dtype = None if dtype is None else low_precision_name(dtype)
    targets = _capi.option_values("target")
    if target not in targets:
        raise ValueError(f"unknown target {target!r}: expected "
                         f"{_one_of(targets)}")
    checks = {False: None, None: None, True: "low", "low": "low",
              "all": "all"}
    if not isinstance(check_nan_inf, (bool, str, type(None))) or \
            check_nan_inf not in checks:
        raise ValueError(f"check_nan_inf must be False, True, 'low' or "
                         f"'all', not {check_nan_inf!r}")
    if checks[check_nan_inf] and target != "cpu":
        raise ValueError("check_nan_inf runs on the CPU only: use "
                         "target='cpu'")
    if not isinstance(explain, bool):
        raise ValueError(f"explain must be True or False, not {explain!r}")
    if timing not in (False, True, None, "passes") or \
            isinstance(timing, (int, float)) and not isinstance(timing, bool):
        raise ValueError(f"timing must be False, True or 'passes', not "
                         f"{timing!r}")
    cpu_options = _lowering_options("cpu", cpu_options)
    gpu_options = _lowering_options("gpu", gpu_options)
    if cpu_options and target != "cpu":
        raise ValueError(f"cpu_options are options of the CPU lowering: "
                         f"target={target!r} does not read them")
    roundings = _capi.option_values("rounding")
    if rounding is not None and (not isinstance(rounding, str) or
                                 rounding not in roundings):
        raise ValueError(f"rounding must be None, {_one_of(roundings)}, not "
                         f"{rounding!r}")
    amp = _AmpOptions(_amp_option_values(
        custom_white_list, custom_black_list, use_fp16_guard, placement,
        policy_file, loss_scaling, arg_precision), amp_options)
    if explain:
        amp = amp.with_values(explain=True)
    text, name = _read_module(module)
    calibration_dir = None
    if calibration is not None:
        if level == "O0":
            raise ValueError("calibration keeps the ops of O1/O2 within the "
                             "low type's range: level O0 has no low type")
        if amp.text and re.search(r"(^|\s)calibration=", amp.text):
            raise ValueError("give calibration once: as compile()'s "
                             "calibration, not also in amp_options")
        if entries is not None and (isinstance(entries, str) or
                                    len(entries) != 1):
            raise ValueError("calibration ranges one function: entries must "
                             "name one, not " + repr(entries))
        if isinstance(calibration, (str, Path)):
            path = Path(calibration)
        else:
            ranges = calibration if isinstance(calibration, dict) else \
                record_ranges(text, calibration,
                              entries[0] if entries else None, name=name)
            calibration_dir = tempfile.mkdtemp(prefix="amp-calibration-")
            path = Path(calibration_dir) / "ranges.json"
            path.write_text(json.dumps(ranges))
        amp = amp.with_values(calibration=str(path))
    try:
        result = _compile_module(
            text, name, level, dtype, target, amp, check_nan_inf,
            checks, explain, timing, output, gpu_options, cpu_options,
            entries, rounding, runtime_library)
    except BaseException:
        if calibration_dir:
            shutil.rmtree(calibration_dir, ignore_errors=True)
        raise
    if calibration_dir:
        # JIT compilation is lazy: the file lives as long as the module.
        weakref.finalize(result, shutil.rmtree, calibration_dir, True)
    return result


def _compile_module(text, name, level, dtype, target, amp, check_nan_inf,
                    checks, explain, timing, output, gpu_options, cpu_options,
                    entries, rounding, runtime_library):
    """compile() after its options are checked."""
    if output is not None:
        if checks[check_nan_inf]:
            raise ValueError("check_nan_inf needs the JIT: leave output out")
        if timing:
            raise ValueError("timing needs the JIT: leave output out")
        try:
            parsed = _ParsedModule(text, name)
        except AmpError:
            parsed = None  # amp-compile reports it
        if parsed is not None:
            _check_options(parsed, {"level": level, "dtype": dtype,
                                    **amp.capi(), "target": target,
                                    "cpu_options": cpu_options}, amp)
        return _compile_library(text, name, output, level, dtype, str(amp),
                                target, gpu_options, entries, rounding,
                                cpu_options)
    parsed = _ParsedModule(text, name)
    options = {
        "level": level,
        "dtype": dtype,
        **amp.capi(),
        "target": target,
        "gpu_options": gpu_options,
        "cpu_options": cpu_options,
        "runtime_library": None,
        "check_nan_inf": checks[check_nan_inf],
        "rounding": rounding,
        "timing": "passes" if timing == "passes" else None,
    }
    if target != "cpu":
        options["runtime_library"] = str(
            runtime_library or _paths.library(
                "libamp_runtime.so" if target == "gpu"
                else "libamp_runtime_gpusim.so"))
    else:
        # CPU code that calls the runtime (amp.all_reduce) binds to the
        # libamp_runtime.so that amp_mlir.distributed loads: one process
        # group per process.
        try:
            options["runtime_library"] = str(
                runtime_library or _paths.library("libamp_runtime.so"))
        except _paths.ToolsNotFound:
            pass
    _check_options(parsed, options, amp)
    compiled = CompiledModule(parsed, name, options)
    if entries is None and (explain or timing):
        entries = compiled.function_names
    for entry in entries or []:
        compiled[entry]
    return compiled


def _calibration_entry(parsed, entry):
    """The function a calibration is about: `entry`, else the only one."""
    names = parsed.function_names()
    if entry is not None:
        if entry not in names:
            raise ValueError(f"no function '@{entry}' to calibrate "
                             f"(functions: {', '.join(names)})")
        return entry
    if len(names) != 1:
        raise ValueError(f"calibration ranges one function, and the module "
                         f"has {len(names)} ({', '.join(names)}): name it "
                         f"(entries=['{(names or ['f'])[0]}'])")
    return names[0]


def record_ranges(module, inputs, entry=None, *, name=None):
    """Runs the function `entry` (default: the module's only one) of
    `module` as written, in f32 on the CPU, once per input of `inputs` (each
    a tuple of arrays, one per argument, or an array when it takes one), and
    returns the largest finite magnitude of each of its float tensors over
    all runs: ``{"function": entry, "absmax": [...]}``, in the order of
    amp-record-ranges. compile(..., calibration=) takes it, and
    ``amp-opt --amp-o2="calibration=FILE"`` its JSON."""
    text, module_name = _read_module(module)
    parsed = _ParsedModule(text, name or module_name)
    entry = _calibration_entry(parsed, entry)
    inputs = list(inputs)
    if not inputs:
        raise ValueError("record_ranges needs at least one input")
    options = {"level": "O0", "dtype": None, "target": "cpu",
               "record_ranges": entry}
    try:
        options["runtime_library"] = str(_paths.library("libamp_runtime.so"))
    except _paths.ToolsNotFound:
        pass
    function = CompiledModule(parsed, name or module_name, options)[entry]
    maxima = None
    for args in inputs:
        if not isinstance(args, (tuple, list)):
            args = (args,)
        results = function(*args)
        ranges = np.asarray(results[-1] if isinstance(results, tuple)
                            else results, dtype=np.float32)
        maxima = ranges if maxima is None else np.maximum(maxima, ranges)
    return {"function": entry, "absmax": [float(v) for v in maxima]}


def _compile_library(text, name, output, level, dtype, amp_text, target,
                     gpu_options, entries, rounding=None, cpu_options=None):
    """amp-compile: `text` to the shared library `output`, with the runtime
    it needs copied next to it; returns it loaded."""
    from . import aot
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    command = [str(_paths.tool("amp-compile")), "-", "-o", str(output),
               f"--level={level}", f"--target={target}"]
    if dtype:
        command.append(f"--dtype={dtype}")
    if amp_text:
        command.append(f"--amp-options={amp_text}")
    if gpu_options:
        command.append(f"--gpu-options={_lowering_text(gpu_options)}")
    if cpu_options:
        command.append(f"--cpu-options={_lowering_text(cpu_options)}")
    if rounding:
        command.append(f"--rounding={rounding}")
    for entry in entries or []:
        command.append(f"--entry={entry}")
    result = subprocess.run(command, input=text, capture_output=True,
                            text=True)
    if result.returncode != 0:
        raise AmpError(f"amp-compile failed on {name}:\n"
                       f"{result.stderr.replace('<stdin>', name).strip()}")
    _emit(*_parse_tool_diagnostics(result.stderr, name))
    runtime = ("libamp_runtime_gpusim.so" if target == "gpu-sim"
               else "libamp_runtime.so")
    copy = output.parent / runtime
    source = _paths.library(runtime)
    if not copy.exists() or not os.path.samefile(copy, source):
        import shutil
        # A new file, renamed over the old one: a process may have the old
        # one mapped.
        staging = copy.with_name(copy.name + f".{os.getpid()}.tmp")
        shutil.copy2(source, staging)
        os.replace(staging, copy)
    return aot.load(str(output))


def lowering_options(lowering):
    """The options of the 'cpu' or 'gpu' lowering (--lower-to-cpu,
    --lower-to-gpu) that compile()'s cpu_options / gpu_options take, each
    with the kind of value it takes ('bool', 'integer' or 'string'), in
    declaration order: {'chip': 'string', ..., 'libraries': 'bool', ...}."""
    if lowering not in _capi.LOWERINGS:
        raise ValueError(f"unknown lowering {lowering!r}: expected 'cpu' or "
                         f"'gpu'")
    return _capi.lowering_options(lowering)


def amp_option_kinds():
    """The options of the AMP pipeline (--amp-o1/--amp-o2) that
    amp_options takes, each with the kind of value it takes ('bool',
    'integer', 'float', 'string' or 'strings'), in declaration order:
    {'dtype': 'string', ..., 'custom-white-list': 'strings', ...}."""
    return _capi.amp_option_kinds()


def _lowering_options(lowering, value):
    """The options of the 'cpu' or 'gpu' lowering that compile()'s
    <lowering>_options names, as {name: value}: a dict as it is, or text in
    the pipeline's syntax ("libraries=false block-size=2") read with each
    option's kind from the C API's table; None: none. The C API's setters
    check each name and value (compile_options)."""
    keyword = f"{lowering}_options"
    if value is None or isinstance(value, dict):
        return value
    if not isinstance(value, str):
        raise ValueError(f"{keyword} must be a dict of --lower-to-{lowering}"
                         f"'s options ({{'libraries': False}}) or their text "
                         f"(\"libraries=false\"), not {value!r}")
    kinds = _capi.lowering_options(lowering)
    bools = {"true": True, "1": True, "false": False, "0": False}
    result = {}
    for item in value.split():
        name, equals, text = item.partition("=")
        kind = kinds.get(name)
        if not equals:
            raise ValueError(f"{keyword}: expected name=value, got {item!r}")
        if kind == "bool":
            if text.lower() not in bools:
                raise ValueError(f"{keyword}: {name} must be true or false, "
                                 f"got {text!r}")
            result[name] = bools[text.lower()]
        elif kind == "integer":
            try:
                result[name] = int(text)
            except ValueError:
                raise ValueError(f"{keyword}: {name} must be an integer, got "
                                 f"{text!r}") from None
        else:  # strings, and unknown names (the C API names them)
            result[name] = text
    return result


def _lowering_text(values):
    """{name: value} of a lowering's options in the pipeline's syntax (for
    amp-compile's --cpu-options and --gpu-options)."""
    return " ".join(f"{name}={str(value).lower()}" if isinstance(value, bool)
                    else f"{name}={value}" for name, value in values.items())


#===-----------------------------------------------------------------------===#
# transform(), report(), precision_graph(): in-process
#===-----------------------------------------------------------------------===#


def _transform_inputs(module, level, dtype, *option_args):
    """(level, dtype, text, name, pipeline options) of a transformation."""
    level = _level_name(level)
    dtype = None if dtype is None else low_precision_name(dtype)
    text, name = _read_module(module)
    (custom_white_list, custom_black_list, use_fp16_guard, placement,
     policy_file, loss_scaling, amp_options, *rest) = option_args
    return level, dtype, text, name, _AmpOptions(_amp_option_values(
        custom_white_list, custom_black_list, use_fp16_guard, placement,
        policy_file, loss_scaling, *rest), amp_options)


def _check_options(parsed, options, amp):
    """Raises ValueError with the message of the C API's check if the
    options of the level are invalid for the parsed module (an unknown
    option or value, an op name that no dialect of the module has): at
    compile(), not at the first call of a compiled function. In-process:
    nothing is compiled. The module's own errors are left to the
    compilation, which reports them as AmpError."""
    c_options = _capi.compile_options(options)
    if _capi.lib().ampRunnerCheckOptions(parsed.handle, c_options):
        error = _capi.last_error()
        if error.startswith("options of the CPU lowering"):
            raise ValueError(f"cpu_options: {error}")
        raise ValueError(f"invalid AMP options ({amp}): {error}")


def _run_transform(text, name, level, dtype, options, output, lower=None,
                   lowering=None):
    """What amp-opt --amp-<level>="<options>" [--lower-to-<lower>] gives,
    in-process (ampRunnerModuleTransform): the module's text, or with
    `output` TRANSFORM_REPORT/TRANSFORM_GRAPH the report's JSON or the
    graph's DOT. Issues the warnings and remarks, writes what the pipeline
    would have printed (report=text) to sys.stderr/sys.stdout, and raises
    AmpError with the located errors of the stage that failed, ValueError
    for invalid options."""
    parsed = _ParsedModule(text, name)
    settings = {"level": level, "dtype": dtype, **options.capi(),
                "target": lower or "cpu", **(lowering or {})}
    if level != "O0":
        _check_options(parsed, settings, options)
    result = _capi.lib().ampRunnerModuleTransform(
        parsed.handle, _capi.compile_options(settings),
        int(lower is not None), output)
    error = None if result is not None else _capi.last_error()
    reported = json.loads(_capi.last_diagnostics())
    _emit(reported.get("diagnostics", []), reported.get("stderr", ""),
          reported.get("stdout", ""))
    if result is None:
        raise AmpError.from_capi(f"{name}: {error}", reported)
    return result.decode()


def transform(module, level="O2", dtype=None, custom_white_list=None,
              custom_black_list=None, use_fp16_guard=None, *, placement=None,
              policy_file=None, loss_scaling=None, amp_options=None,
              lower=None, arg_precision=None, gpu_options=None,
              cpu_options=None):
    """The module after the AMP level (and `lower`: None, 'cpu' or 'gpu',
    with that lowering's options as compile() takes them), as MLIR
    text."""
    level, dtype, text, name, options = _transform_inputs(
        module, level, dtype, custom_white_list, custom_black_list,
        use_fp16_guard, placement, policy_file, loss_scaling, amp_options,
        arg_precision)
    if lower not in (None, "cpu", "gpu"):
        raise ValueError(f"lower must be None, 'cpu' or 'gpu', got "
                         f"{lower!r}")
    lowering = {"gpu_options": _lowering_options("gpu", gpu_options),
                "cpu_options": _lowering_options("cpu", cpu_options)}
    if lower is None and any(lowering.values()):
        raise ValueError("gpu_options and cpu_options are options of the "
                         "lowering: pass lower='gpu' or lower='cpu'")
    return _run_transform(text, name, level, dtype, options,
                          _capi.TRANSFORM_MODULE, lower,
                          {key: value for key, value in lowering.items()
                           if value})


def report(module, level="O2", dtype=None, custom_white_list=None,
           custom_black_list=None, use_fp16_guard=None, *, placement=None,
           policy_file=None, loss_scaling=None, amp_options=None,
           arg_precision=None):
    """The precision report of the module under the level, as a dict (the
    JSON of ``--amp-o2="report=json"``; at O0, of the module as written).
    Its "decisions" list what explain=true says, per decided op: "op",
    "location", "precision" (None: not decided) and "reason"."""
    level, dtype, text, name, options = _transform_inputs(
        module, level, dtype, custom_white_list, custom_black_list,
        use_fp16_guard, placement, policy_file, loss_scaling, amp_options,
        arg_precision)
    return json.loads(_run_transform(text, name, level, dtype, options,
                                     _capi.TRANSFORM_REPORT))


def precision_graph(module, level="O2", dtype=None, path=None,
                    custom_white_list=None, custom_black_list=None,
                    use_fp16_guard=None, *, placement=None, policy_file=None,
                    loss_scaling=None, amp_options=None):
    """The data-flow graph of the module after the level, as Graphviz DOT
    text: ops filled by precision (fp32, f16, bf16), conversions drawn as
    red hexagons with their bytes per call (docs/precision-graph.md).

    With `path` ending in .svg, .png or .pdf, also renders it there with
    Graphviz's `dot` (which must be installed); .dot writes the text.
    """
    level, dtype, text, name, options = _transform_inputs(
        module, level, dtype, custom_white_list, custom_black_list,
        use_fp16_guard, placement, policy_file, loss_scaling, amp_options)
    dot = _run_transform(text, name, level, dtype, options,
                         _capi.TRANSFORM_GRAPH)
    if path is not None:
        path = Path(path)
        suffix = path.suffix.lstrip(".")
        if suffix == "dot":
            path.write_text(dot)
        elif suffix in ("svg", "png", "pdf"):
            try:
                subprocess.run(["dot", f"-T{suffix}", "-o", str(path)],
                               input=dot, text=True, check=True,
                               capture_output=True)
            except FileNotFoundError:
                raise AmpError("Graphviz's `dot` is not installed (Debian: "
                               "apt install graphviz)") from None
            except subprocess.CalledProcessError as error:
                raise AmpError(f"dot failed: {error.stderr.strip()}") from None
        else:
            raise ValueError(f"cannot write a graph as {path.name!r}: use "
                             f".dot, .svg, .png or .pdf")
    return dot
