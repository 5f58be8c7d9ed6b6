"""Checks the outputs <dir>/<target>.<rank>.<i>.npy of all-reduce.mlir for
ranks 0 .. n-1 against <dir>/expected.npz (bit for bit), or, with
--identity, against the rank-0 inputs (a group of one)."""
import sys

import numpy as np

out, target, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = ["sum", "mean", "max", "hmean", "any", "all"]
if "--identity" in sys.argv:
    x, h = np.load(f"{out}/x0.npy"), np.load(f"{out}/h0.npy")
    flag = np.int32(x[0] > 5)
    expected = dict(sum=x, mean=x, max=x, hmean=h, any=flag, all=flag)
else:
    expected = np.load(f"{out}/expected.npz")
for rank in range(ranks):
    for index, name in enumerate(names):
        got = np.load(f"{out}/{target}.{rank}.{index}.npy")
        want = expected[name]
        assert got.dtype == want.dtype, (rank, name, got.dtype, want.dtype)
        assert np.array_equal(got, want), (rank, name, got, want)
print(f"{target}: {ranks} rank(s) agree")
