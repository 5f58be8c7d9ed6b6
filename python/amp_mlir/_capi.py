"""ctypes bindings of libAmpRunnerCAPI (include/amp-c/Runner.h)."""

import ctypes
import threading

from . import _paths

API_VERSION = 1


class CompileOptions(ctypes.Structure):
    _fields_ = [
        ("level", ctypes.c_char_p),
        ("dtype", ctypes.c_char_p),
        ("ampOptions", ctypes.c_char_p),
        ("target", ctypes.c_char_p),
        ("gpuOptions", ctypes.c_char_p),
        ("runtimeLibrary", ctypes.c_char_p),
    ]


_lock = threading.Lock()
_lib = None


def _declare(lib):
    p, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
    sigs = {
        "ampRunnerGetApiVersion": (ctypes.c_int, []),
        "ampRunnerGetLastError": (ctypes.c_char_p, []),
        "ampRunnerModuleParse": (p, [ctypes.c_char_p, ctypes.c_size_t,
                                     ctypes.c_char_p]),
        "ampRunnerModuleDestroy": (None, [p]),
        "ampRunnerModuleGetNumFunctions": (i64, [p]),
        "ampRunnerModuleGetFunctionName": (ctypes.c_char_p, [p, i64]),
        "ampRunnerCompile": (p, [p, ctypes.c_char_p,
                                 ctypes.POINTER(CompileOptions)]),
        "ampRunnerExecutableDestroy": (None, [p]),
        "ampRunnerGetName": (ctypes.c_char_p, [p]),
        "ampRunnerGetLowPrecisionType": (ctypes.c_char_p, [p]),
        "ampRunnerGetNumArguments": (i64, [p]),
        "ampRunnerGetNumResults": (i64, [p]),
        "ampRunnerGetTensorType": (ctypes.c_int, [
            p, ctypes.c_int, i64, ctypes.POINTER(i32), ctypes.POINTER(i64),
            ctypes.POINTER(ctypes.POINTER(i64))]),
        "ampRunnerRun": (ctypes.c_int, [p, ctypes.POINTER(p),
                                        ctypes.POINTER(p)]),
        "ampRunnerTime": (ctypes.c_int, [p, ctypes.POINTER(p), i64,
                                         ctypes.POINTER(ctypes.c_double)]),
    }
    for name, (restype, argtypes) in sigs.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def lib():
    """The loaded library (loaded once)."""
    global _lib
    with _lock:
        if _lib is None:
            path = _paths.library("libAmpRunnerCAPI.so")
            loaded = ctypes.CDLL(str(path))
            _declare(loaded)
            version = loaded.ampRunnerGetApiVersion()
            if version != API_VERSION:
                raise _paths.ToolsNotFound(
                    f"{path} has C API version {version}, this package "
                    f"needs {API_VERSION}: rebuild or reinstall both")
            _lib = loaded
    return _lib


def last_error():
    message = lib().ampRunnerGetLastError()
    return message.decode("utf-8", "replace") if message else ""
