"""uniform-npy.py OUT.npy DTYPE LOW HIGH DIM...: writes an array of shape
DIM... of DTYPE (float32, float16, ...) uniform in [LOW, HIGH), seeded by
the file name, for functions whose random inputs must stay in a domain (e.g.
positive ones for sqrt)."""
import sys
import zlib

import numpy as np

out, dtype, low, high = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
shape = tuple(int(d) for d in sys.argv[5:])
rng = np.random.default_rng(zlib.crc32(out.rsplit("/", 1)[-1].encode()))
np.save(out, rng.uniform(low, high, shape).astype(dtype))
