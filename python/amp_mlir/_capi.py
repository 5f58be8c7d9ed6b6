"""ctypes bindings of libAmpRunnerCAPI (include/amp-c/Runner.h)."""

import ctypes

from . import _paths
from ._library import SharedLibrary

API_VERSION = 11


class CompileOptions(ctypes.Structure):
    _fields_ = [
        ("level", ctypes.c_char_p),
        ("dtype", ctypes.c_char_p),
        ("ampOptions", ctypes.c_char_p),
        ("target", ctypes.c_char_p),
        ("gpuOptions", ctypes.c_char_p),
        ("runtimeLibrary", ctypes.c_char_p),
        ("checkNanInf", ctypes.c_char_p),
        ("rounding", ctypes.c_char_p),
        ("timing", ctypes.c_char_p),
        ("cpuOptions", ctypes.c_char_p),
        ("recordRanges", ctypes.c_char_p),
    ]


_p, _i64, _i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
SIGNATURES = {
    "ampRunnerGetApiVersion": (ctypes.c_int, []),
    "ampRunnerGetLastError": (ctypes.c_char_p, []),
    "ampRunnerGetLastDiagnostics": (ctypes.c_char_p, []),
    "ampRunnerGetRegisteredDialects": (ctypes.c_char_p, []),
    "ampRunnerGetOptionValues": (ctypes.c_char_p, [ctypes.c_char_p]),
    "ampRunnerGetOptionSpellings": (ctypes.c_char_p, [ctypes.c_char_p]),
    "ampRunnerModuleParse": (_p, [ctypes.c_char_p, ctypes.c_size_t,
                                  ctypes.c_char_p]),
    "ampRunnerModuleDestroy": (None, [_p]),
    "ampRunnerModuleGetNumFunctions": (_i64, [_p]),
    "ampRunnerModuleGetFunctionName": (ctypes.c_char_p, [_p, _i64]),
    "ampRunnerModuleBuildTrainingSteps": (ctypes.c_char_p,
                                          [_p, ctypes.c_char_p]),
    "ampRunnerModuleTransform": (ctypes.c_char_p, [
        _p, ctypes.POINTER(CompileOptions), ctypes.c_int, ctypes.c_int]),
    "ampRunnerCompile": (_p, [_p, ctypes.c_char_p,
                              ctypes.POINTER(CompileOptions)]),
    "ampRunnerExecutableDestroy": (None, [_p]),
    "ampRunnerCompileFunctions": (_i64, [_p, ctypes.c_char_p, ctypes.c_int,
                                         ctypes.POINTER(CompileOptions),
                                         ctypes.POINTER(_p), _i64]),
    "ampRunnerModuleGetLastTiming": (ctypes.c_char_p, [_p]),
    "ampRunnerCheckOptions": (ctypes.c_int, [_p,
                                             ctypes.POINTER(CompileOptions)]),
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


def compile_options(options):
    """The CompileOptions struct of `options` (a dict of the field names in
    snake case; None takes the default)."""
    return CompileOptions(*[
        None if options.get(key) is None else str(options[key]).encode()
        for key in ("level", "dtype", "amp_options", "target", "gpu_options",
                    "runtime_library", "check_nan_inf", "rounding",
                    "timing", "cpu_options", "record_ranges")])


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
