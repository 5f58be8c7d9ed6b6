"""A shared library of amp-mlir, loaded once with ctypes, its functions
declared from a table."""

import ctypes
import threading

from . import _paths


class SharedLibrary:
    """Calling it returns the loaded ctypes.CDLL (loading it the first
    time); `loaded` is the CDLL or None, for destructors that must not load
    it."""

    def __init__(self, filename, signatures, check=None):
        self._filename = filename
        self._signatures = signatures
        self._check = check
        self._lock = threading.Lock()
        self.loaded = None

    def __call__(self):
        with self._lock:
            if self.loaded is None:
                path = _paths.library(self._filename)
                library = ctypes.CDLL(str(path))
                # First: a library of another version may lack functions.
                if self._check:
                    self._check(library, path)
                for name, (restype, argtypes) in self._signatures.items():
                    function = getattr(library, name)
                    function.restype = restype
                    function.argtypes = argtypes
                self.loaded = library
        return self.loaded

    def last_error(self, function):
        """The message of the library's `function`() (a char * getter)."""
        message = getattr(self(), function)()
        return message.decode("utf-8", "replace") if message else ""
