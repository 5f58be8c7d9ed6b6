"""The mgpu* signatures amp_mlir.aot declares to ctypes against the table
(runtime/include/amp/runtime/MgpuAbi.def, preprocessed into `@ NAME RESULT
(TYPE ; TYPE ...)` lines on stdin): every function aot.py gives argtypes or
a restype must be a row, with the same parameter types and a pointer
result where the row's is Ptr. Runs AotRuntime's set-up against a recorder
instead of a library, so that what is checked is what the code sets."""

import ctypes
import re
import sys
import tempfile

from amp_mlir import aot

C_TYPES = {
    "void *": ctypes.c_void_p, "size_t": ctypes.c_size_t,
    "uint64_t": ctypes.c_uint64, "bool": ctypes.c_bool,
    "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64,
    "uint32_t": ctypes.c_uint32, "uint16_t": ctypes.c_uint16,
    "intptr_t": ctypes.c_ssize_t, "int": ctypes.c_int,
    "const char *": ctypes.c_char_p, "void **": ctypes.c_void_p,
}

rows = {}
for line in sys.stdin:
    match = re.match(r"@ (\w+) (\w+) \((.*)\)", line.strip())
    if match:
        name, result, params = match.groups()
        params = [p.strip() for p in params.split(";")]
        rows[name] = (result, [] if params == ["void"] else params)


class Function:
    def __init__(self):
        self.argtypes = None
        self.restype = ctypes.c_int

    def __call__(self, *args):
        return None


class Recorder:
    def __init__(self):
        self.functions = {}

    def __getattr__(self, name):
        return self.functions.setdefault(name, Function())


recorder = Recorder()
aot.ctypes.CDLL = lambda path, mode=0: recorder
with tempfile.NamedTemporaryFile(suffix=".so") as fake:
    aot._Runtime(fake.name)  # The runtime of compiled libraries.

errors = 0
checked = 0
for name, function in sorted(recorder.functions.items()):
    if not name.startswith("mgpu"):
        continue
    checked += 1
    if name not in rows:
        print(f"{name}: aot.py declares it, MgpuAbi.def has no such row")
        errors += 1
        continue
    result, params = rows[name]
    if function.argtypes is not None:
        want = [C_TYPES[p] for p in params]
        if list(function.argtypes) != want:
            print(f"{name}: aot.py's argtypes {function.argtypes} differ "
                  f"from the row's ({', '.join(params)})")
            errors += 1
    elif params:
        print(f"{name}: aot.py sets no argtypes for a function with "
              f"parameters ({', '.join(params)})")
        errors += 1
    if result == "Ptr" and function.restype is not ctypes.c_void_p:
        print(f"{name}: the row returns a pointer and aot.py's restype is "
              f"{function.restype}")
        errors += 1
print(f"aot.py: {checked} mgpu functions against {len(rows)} rows, "
      f"{errors} differences")
sys.exit(1 if errors or not checked else 0)
