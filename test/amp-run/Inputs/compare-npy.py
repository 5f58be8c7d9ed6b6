"""compare-npy.py BOUND a0.npy,a1.npy b0.npy,b1.npy: the relative L2 error of
each pair (a against b) is at most BOUND; prints one line per pair."""
import sys

import numpy as np

bound = float(sys.argv[1])
ok = True
for i, (a, b) in enumerate(zip(sys.argv[2].split(","), sys.argv[3].split(","))):
    x = np.load(a).astype(np.float64)
    y = np.load(b).astype(np.float64)
    if x.shape != y.shape:
        print(f"output {i}: shapes differ: {x.shape} vs {y.shape}")
        ok = False
        continue
    err = np.linalg.norm(x - y) / max(np.linalg.norm(y), 1e-30)
    good = bool(np.isfinite(err)) and err <= bound
    ok &= good
    print(f"output {i}: rel L2 {err:.3e} {'ok' if good else 'ABOVE ' + str(bound)}")
sys.exit(0 if ok else 1)
