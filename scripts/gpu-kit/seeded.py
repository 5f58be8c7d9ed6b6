"""Inputs drawn from a seed, the same on the build machine and the GPU
machine (NumPy's PCG64, uniform() and integers(), stable across versions):
the GPU kit's large bench models and the models' weights are too large to
carry."""

import numpy as np

# numpy's type of each element type a "fill" spec may have.
FILL_TYPES = {"f32": np.float32, "i32": np.int32, "i64": np.int64,
              "i1": np.bool_}


def seeded_inputs(specs, seed=0):
    """One array per spec, each from its own generator (seed * 1000 + its
    index): float32 for {"shape", "init": "uniform"|"ones", "scale"},
    U(-scale, scale), plus 1 for "ones"; int64 for {"shape", "init":
    "integers", "high"} (token ids, labels), uniform in [0, high); and
    {"shape", "init": "fill", "value", "dtype": "f32"|"i32"|"i64"|"i1"},
    every element `value` (a training step's initial optimizer and
    loss-scaler state)."""
    arrays = []
    for index, spec in enumerate(specs):
        rng = np.random.default_rng(seed * 1000 + index)
        shape = tuple(spec["shape"])
        if spec["init"] == "fill":
            arrays.append(np.full(shape, spec["value"],
                                  dtype=FILL_TYPES[spec["dtype"]]))
            continue
        if spec["init"] == "integers":
            arrays.append(rng.integers(0, spec["high"], size=shape,
                                       dtype=np.int64))
            continue
        values = rng.uniform(-spec["scale"], spec["scale"], size=shape)
        if spec["init"] == "ones":
            values = values + 1.0
        arrays.append(values.astype(np.float32))
    return arrays


def random_arguments(function, dynamic, rng):
    """One array per argument of `function` (an AotFunction): integers in
    [0, 10) (booleans: their parity), floats U(-1, 1) rounded to the
    argument's type; `dynamic` is the size of each dynamic dimension. On
    the build machine only (the kit carries the loader as amp_aot)."""
    from amp_mlir import aot  # numpy + ctypes only
    arrays = []
    for spec in function.arguments:
        shape = [dynamic if d is None else d for d in spec.shape]
        if spec.element in ("i32", "i64", "i1"):
            values = rng.integers(0, 10, size=shape)
            arrays.append((values % 2).astype(np.bool_) if spec.element == "i1"
                          else values.astype(spec.dtype))
            continue
        values = rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
        if spec.element == "bf16":
            values = aot._bf16_bits_from_f32(values).view(aot._BF16)
        elif spec.element != "f32":
            values = values.astype(spec.dtype)
        arrays.append(values)
    return arrays
