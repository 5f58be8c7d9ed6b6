"""Checks that amp-run's random inputs follow docs/amp-run.md: a
std::mt19937_64 seeded with SEED, one 64-bit draw x per element in argument
then row-major order, value = float32((x >> 11) * 2**-53 * 2 - 1).

usage: random-inputs.py SEED OUT.npy  (OUT: @big's result, i.e. 2 * input)
"""
import sys

import numpy as np

MASK = (1 << 64) - 1


def mt19937_64(seed):
    n, m = 312, 156
    state = [seed & MASK]
    for i in range(1, n):
        prev = state[-1]
        state.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK)
    index = n
    while True:
        if index >= n:
            for i in range(n):
                x = (state[i] & 0xFFFFFFFF80000000) | (
                    state[(i + 1) % n] & 0x7FFFFFFF)
                y = x >> 1
                if x & 1:
                    y ^= 0xB5026F5AA96619E9
                state[i] = state[(i + m) % n] ^ y
            index = 0
        x = state[index]
        index += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        yield x & MASK


seed, path = int(sys.argv[1]), sys.argv[2]
result = np.load(path)
draws = mt19937_64(seed)
expected = np.array(
    [(next(draws) >> 11) * 2.0**-53 * 2 - 1 for _ in range(result.size)],
    dtype=np.float32).reshape(result.shape)
assert np.array_equal(result, 2 * expected), "random inputs differ"
print("random inputs match the documented generator")
