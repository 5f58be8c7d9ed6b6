"""compare-bits.py A_DIR B_DIR N...: the outputs outN.npy of two amp-run
--output-dir runs are the same, bit for bit where finite, with Inf (of the
same sign) and NaN (of any payload: how a CPU rounds a NaN to f16 is not
fixed) at the same places. Prints one line per output."""
import os
import sys

import numpy as np

ok = True
for n in sys.argv[3:]:
    x = np.load(os.path.join(sys.argv[1], f"out{n}.npy"))
    y = np.load(os.path.join(sys.argv[2], f"out{n}.npy"))
    if x.dtype != y.dtype or x.shape != y.shape:
        print(f"output {n}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
        ok = False
        continue
    if x.dtype == np.bool_:
        same = bool(np.array_equal(x, y))
        print(f"output {n}: {'same' if same else 'DIFFERENT'} {x.tolist()}")
        ok &= same
        continue
    bits = {2: np.uint16, 4: np.uint32}[x.dtype.itemsize]
    nan = np.isnan(x) | np.isnan(y)
    bad = (np.isnan(x) != np.isnan(y)) | (~nan & (x.view(bits) != y.view(bits)))
    count = int(bad.sum())
    print(f"output {n}: {count} of {x.size} differ, "
          f"{int(np.isinf(x).sum())} Inf, {int(np.isnan(x).sum())} NaN")
    ok &= count == 0
sys.exit(0 if ok else 1)
