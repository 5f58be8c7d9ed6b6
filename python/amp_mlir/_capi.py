"""ctypes bindings of libAmpRunnerCAPI (include/amp-c/Runner.h)."""

import ctypes

from . import _paths
from ._library import SharedLibrary

API_VERSION = 15


_p, _i64, _i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
SIGNATURES = {
    "ampRunnerGetApiVersion": (ctypes.c_int, []),
    "ampRunnerGetLastError": (ctypes.c_char_p, []),
    "ampRunnerGetLastDiagnostics": (ctypes.c_char_p, []),
    "ampRunnerGetRegisteredDialects": (ctypes.c_char_p, []),
    "ampRunnerGetOptionValues": (ctypes.c_char_p, [ctypes.c_char_p]),
    "ampRunnerGetOptionSpellings": (ctypes.c_char_p, [ctypes.c_char_p]),
    "ampRunnerOptionsCreate": (_p, []),
    "ampRunnerOptionsDestroy": (None, [_p]),
    "ampRunnerOptionsSetLevel": (ctypes.c_int, [_p, ctypes.c_int]),
    "ampRunnerOptionsSetDtype": (ctypes.c_int, [_p, ctypes.c_int]),
    "ampRunnerOptionsSetTarget": (ctypes.c_int, [_p, ctypes.c_int]),
    "ampRunnerOptionsSetRounding": (ctypes.c_int, [_p, ctypes.c_int]),
    "ampRunnerOptionsSetCheckNanInf": (ctypes.c_int, [_p, ctypes.c_int]),
    "ampRunnerOptionsSetTimePasses": (ctypes.c_int, [_p, ctypes.c_int]),
    "ampRunnerOptionsSetRuntimeLibrary": (ctypes.c_int,
                                          [_p, ctypes.c_char_p]),
    "ampRunnerOptionsSetRecordRanges": (ctypes.c_int, [_p, ctypes.c_char_p]),
    "ampRunnerOptionsSetAmpOptions": (ctypes.c_int, [_p, ctypes.c_char_p]),
    "ampRunnerGetAmpOptions": (ctypes.c_char_p, []),
    "ampRunnerOptionsSetAmpBool": (ctypes.c_int, [
        _p, ctypes.c_char_p, ctypes.c_int]),
    "ampRunnerOptionsSetAmpInt": (ctypes.c_int, [_p, ctypes.c_char_p, _i64]),
    "ampRunnerOptionsSetAmpFloat": (ctypes.c_int, [
        _p, ctypes.c_char_p, ctypes.c_double]),
    "ampRunnerOptionsSetAmpString": (ctypes.c_int, [
        _p, ctypes.c_char_p, ctypes.c_char_p]),
    "ampRunnerOptionsSetAmpStrings": (ctypes.c_int, [
        _p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), _i64]),
    "ampRunnerGetLoweringOptions": (ctypes.c_char_p, [ctypes.c_int]),
    "ampRunnerOptionsSetLoweringBool": (ctypes.c_int, [
        _p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]),
    "ampRunnerOptionsSetLoweringInt": (ctypes.c_int, [
        _p, ctypes.c_int, ctypes.c_char_p, _i64]),
    "ampRunnerOptionsSetLoweringString": (ctypes.c_int, [
        _p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p]),
    "ampRunnerModuleParse": (_p, [ctypes.c_char_p, ctypes.c_size_t,
                                  ctypes.c_char_p]),
    "ampRunnerModuleDestroy": (None, [_p]),
    "ampRunnerModuleGetNumFunctions": (_i64, [_p]),
    "ampRunnerModuleGetFunctionName": (ctypes.c_char_p, [_p, _i64]),
    "ampRunnerModuleBuildTrainingSteps": (ctypes.c_char_p, [_p, _p]),
    "ampRunnerModuleTransform": (ctypes.c_char_p, [
        _p, _p, ctypes.c_int, ctypes.c_int]),
    "ampRunnerCompile": (_p, [_p, ctypes.c_char_p,
                              _p]),
    "ampRunnerExecutableDestroy": (None, [_p]),
    "ampRunnerCompileFunctions": (_i64, [_p, ctypes.c_char_p, ctypes.c_int,
                                         _p,
                                         ctypes.POINTER(_p), _i64]),
    "ampRunnerModuleGetLastTiming": (ctypes.c_char_p, [_p]),
    "ampRunnerCheckOptions": (ctypes.c_int, [_p,
                                             _p]),
    "ampRunnerGetName": (ctypes.c_char_p, [_p]),
    "ampRunnerGetLowPrecisionType": (ctypes.c_char_p, [_p]),
    "ampRunnerGetNumArguments": (_i64, [_p]),
    "ampRunnerGetNumResults": (_i64, [_p]),
    "ampRunnerGetTensorType": (ctypes.c_int, [
        _p, ctypes.c_int, _i64, ctypes.POINTER(_i32), ctypes.POINTER(_i64),
        ctypes.POINTER(ctypes.POINTER(_i64))]),
    "ampRunnerRun": (ctypes.c_int, [_p, ctypes.POINTER(_p),
                                    ctypes.POINTER(_p)]),
    "ampRunnerTime": (ctypes.c_int, [_p, ctypes.POINTER(_p), _i64,
                                     ctypes.POINTER(ctypes.c_double)]),
    "ampRunnerCall": (_p, [_p, ctypes.POINTER(_p),
                           ctypes.POINTER(ctypes.POINTER(_i64))]),
    "ampRunnerResultsGetNum": (_i64, [_p]),
    "ampRunnerResultsGet": (ctypes.c_int, [
        _p, _i64, ctypes.POINTER(_i64), ctypes.POINTER(ctypes.POINTER(_i64)),
        ctypes.POINTER(_p)]),
    "ampRunnerResultsDestroy": (None, [_p]),
    "ampRunnerResultsTake": (_p, [
        _p, _i64, ctypes.POINTER(_i64), ctypes.POINTER(ctypes.POINTER(_i64)),
        ctypes.POINTER(_p)]),
    "ampRunnerHostBufferDestroy": (None, [_p]),
    "ampRunnerGetHostCopyStats": (ctypes.c_int, [
        _p, ctypes.POINTER(_i64), ctypes.POINTER(_i64),
        ctypes.POINTER(_i64)]),
    "ampRunnerCallDevice": (_p, [_p, ctypes.POINTER(_p),
                                 ctypes.POINTER(ctypes.POINTER(_i64)),
                                 ctypes.POINTER(_p), ctypes.POINTER(_i32)]),
    "ampRunnerResultsGetDevice": (_p, [_p, _i64]),
    "ampRunnerDeviceTensorGetType": (ctypes.c_int, [
        _p, ctypes.POINTER(_i32), ctypes.POINTER(_i64),
        ctypes.POINTER(ctypes.POINTER(_i64))]),
    "ampRunnerDeviceTensorRead": (ctypes.c_int, [_p, _p]),
    "ampRunnerDeviceTensorDestroy": (None, [_p]),
    "ampRunnerCapture": (_p, [_p, ctypes.POINTER(_p),
                              ctypes.POINTER(ctypes.POINTER(_i64)),
                              ctypes.POINTER(_p), ctypes.POINTER(_i64)]),
    "ampRunnerReplay": (ctypes.c_int, [_p, ctypes.POINTER(_p),
                                       ctypes.POINTER(ctypes.POINTER(_i64)),
                                       ctypes.POINTER(_p)]),
    "ampRunnerCapturedArgument": (_p, [_p, _i64]),
    "ampRunnerCapturedResult": (_p, [_p, _i64]),
    "ampRunnerCapturedDestroy": (None, [_p]),
    "ampRunnerTimeShaped": (ctypes.c_int, [
        _p, ctypes.POINTER(_p), ctypes.POINTER(ctypes.POINTER(_i64)), _i64,
        ctypes.POINTER(ctypes.c_double)]),
}


def _check_version(library, path):
    version = library.ampRunnerGetApiVersion()
    if version != API_VERSION:
        raise _paths.ToolsNotFound(
            f"{path} has C API version {version}, this package needs "
            f"{API_VERSION}: rebuild or reinstall both")


lib = SharedLibrary("libAmpRunnerCAPI.so", SIGNATURES, _check_version)


# The C enums of include/amp-c/Runner.h: the values of the enumerated
# options in the order of amp-mlir's spelling tables (test_capi checks them
# against ampRunnerGetOptionValues), and the two lowerings.
LEVELS = {"O0": 0, "O1": 1, "O2": 2}
DTYPES = {"f16": 0, "bf16": 1, "fp8": 2}
TARGETS = {"cpu": 0, "gpu": 1, "gpu-sim": 2}
ROUNDINGS = {"once": 0, "per-op": 1}
CHECK_NAN_INF = {None: 0, "low": 1, "all": 2}
LOWERINGS = {"cpu": 0, "gpu": 1}


class Options:
    """An AmpRunnerOptions, set through the C API's typed setters; passed
    to the C functions as it is, destroyed with the object."""

    def __init__(self):
        self._as_parameter_ = ctypes.c_void_p(lib().ampRunnerOptionsCreate())

    def __del__(self):
        handle = getattr(self, "_as_parameter_", None)
        if handle:
            lib().ampRunnerOptionsDestroy(handle)

    def set(self, setter, *args, keyword=None):
        """Calls ampRunnerOptions<setter>(self, *args); a failure raises
        ValueError with the C API's message (after `keyword`: ...)."""
        if getattr(lib(), "ampRunnerOptions" + setter)(self, *args):
            error = last_error()
            raise ValueError(f"{keyword}: {error}" if keyword else error)


def lowering_options(lowering):
    """The options of the 'cpu' or 'gpu' lowering, each with the kind of
    value it takes: {"chip": "string", "libraries": "bool", ...}."""
    text = lib().ampRunnerGetLoweringOptions(LOWERINGS[lowering]).decode()
    return dict(pair.split("=", 1) for pair in text.split(","))


def _typed(value):
    """(kind, arguments) of the C setter of `value`'s Python type: kind is
    "Bool", "Int", "Float", "String" or "Strings" (an array and its
    count); (None, None) for any other type."""
    if isinstance(value, bool):
        return "Bool", (int(value),)
    if isinstance(value, int):
        return "Int", (value,)
    if isinstance(value, float):
        return "Float", (value,)
    if isinstance(value, str):
        return "String", (value.encode(),)
    if isinstance(value, (list, tuple)) and all(
            isinstance(item, str) for item in value):
        array = (ctypes.c_char_p * len(value))(
            *(item.encode() for item in value))
        return "Strings", (array, len(value))
    return None, None


def _set_lowering(options, lowering, keyword, values):
    """Sets the options of `lowering` in `values` ({name: value}), each with
    the setter of its Python type; the C API checks the name and kind."""
    for name, value in values.items():
        kind, arguments = _typed(value)
        if kind not in ("Bool", "Int", "String"):
            raise ValueError(f"{keyword}: {name} must be a bool, an int or "
                             f"a string, not {value!r}")
        options.set("SetLowering" + kind, LOWERINGS[lowering],
                    str(name).encode(), *arguments, keyword=keyword)


def _set_amp(options, values):
    """Sets the AMP pipeline's options in `values` ({name: value}), each
    with the setter of its Python type; the C API checks the name and
    kind."""
    for name, value in values.items():
        kind, arguments = _typed(value)
        if kind is None:
            raise ValueError(f"{name} must be a bool, a number, a string or "
                             f"a list of strings, not {value!r}")
        options.set("SetAmp" + kind, str(name).encode(), *arguments)


def amp_option_kinds():
    """{name: kind} of the AMP pipeline's options (kind: "bool",
    "integer", "float", "string" or "strings"), in declaration order, from
    the C API's one table."""
    infos = lib().ampRunnerGetAmpOptions().decode()
    return dict(info.split("=", 1) for info in infos.split(","))


def compile_options(options):
    """The Options of `options`, a dict of the options in snake case
    (level, dtype, target, rounding, check_nan_inf, timing ('passes'),
    runtime_library, record_ranges, amp_values (a dict {name: value} of
    the AMP pipeline's options), amp_options (their text, set after
    amp_values), and cpu_options and gpu_options, each a dict
    {name: value} of the lowering's options);
    None takes the default. An invalid value raises ValueError."""
    result = Options()
    enums = (("level", "SetLevel", LEVELS), ("dtype", "SetDtype", DTYPES),
             ("target", "SetTarget", TARGETS),
             ("rounding", "SetRounding", ROUNDINGS))
    for key, setter, values in enums:
        if options.get(key) is not None:
            result.set(setter, values[options[key]])
    result.set("SetCheckNanInf", CHECK_NAN_INF[options.get("check_nan_inf")])
    result.set("SetTimePasses", int(options.get("timing") == "passes"))
    _set_amp(result, options.get("amp_values") or {})
    for key, setter in (("runtime_library", "SetRuntimeLibrary"),
                        ("record_ranges", "SetRecordRanges"),
                        ("amp_options", "SetAmpOptions")):
        if options.get(key) is not None:
            result.set(setter, str(options[key]).encode())
    for lowering in LOWERINGS:
        keyword = f"{lowering}_options"
        _set_lowering(result, lowering, keyword, options.get(keyword) or {})
    return result


def option_values(option):
    """The values the enumerated option `option` ("placement", ...)
    accepts, as amp-mlir's one spelling table prints them (aliases are not
    listed)."""
    values = lib().ampRunnerGetOptionValues(option.encode())
    if values is None:
        raise ValueError(last_error())
    return values.decode().split(",")


def option_spellings(option):
    """Every spelling the enumerated option `option` accepts, aliases
    included, mapped to the printed spelling of its value, from amp-mlir's
    one spelling table ({"fp16": "f16", ...} for "dtype")."""
    pairs = lib().ampRunnerGetOptionSpellings(option.encode())
    if pairs is None:
        raise ValueError(last_error())
    return dict(pair.split("=", 1) for pair in pairs.decode().split(","))


# AmpRunnerTransformOutput.
TRANSFORM_MODULE, TRANSFORM_REPORT, TRANSFORM_GRAPH = 0, 1, 2


def last_error():
    return lib.last_error("ampRunnerGetLastError")


def last_diagnostics():
    """The JSON text of ampRunnerGetLastDiagnostics()."""
    return (lib().ampRunnerGetLastDiagnostics() or b"{}").decode(
        errors="replace")
