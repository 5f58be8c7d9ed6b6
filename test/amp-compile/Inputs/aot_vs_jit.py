"""aot_vs_jit.py TARGET LIBRARY MODULE LEVEL DTYPE: every function of MODULE,
JIT-compiled by amp_mlir.compile, against the library amp-compile wrote
(loaded by amp_mlir.load), on the same inputs (dynamic batches of 3 and 5):
prints the largest difference per function (0 expected: the same pipeline
and roundings) and the library's description."""
import sys

import numpy as np

import amp_mlir

target, library, module, level, dtype = sys.argv[1:6]
jit = amp_mlir.compile(module, level=level, dtype=dtype, target=target)
aot = amp_mlir.load(library)
print(f"target {aot.target} level {aot.level} functions "
      f"{','.join(aot.function_names)}")
rng = np.random.default_rng(0)
for name in aot.function_names:
    function = aot[name]
    for batch in (3, 5):
        args = [rng.uniform(-1, 1, size=[batch if d is None else d
                                         for d in t.shape]).astype(np.float32)
                for t in function.arguments]
        expected = jit[name](*args)
        got = function(*args)
        if not isinstance(expected, tuple):
            expected, got = (expected,), (got,)
        assert len(expected) == len(got), (name, len(expected), len(got))
        worst = 0.0
        for e, g in zip(expected, got):
            assert e.shape == g.shape and e.dtype == g.dtype, \
                (name, e.shape, g.shape, e.dtype, g.dtype)
            worst = max(worst, float(np.max(np.abs(
                e.astype(np.float64) - g.astype(np.float64)))))
        print(f"{name} batch {batch}: shapes "
              f"{[tuple(g.shape) for g in got]} max diff {worst:g}")
