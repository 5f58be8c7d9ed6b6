"""The measurement definitions of the peer comparison, in one place.

Every system's converted graph (amp-mlir's `--amp-o2` output, an ONNX model
after onnxconverter-common, a TVM Relax module after ToMixedPrecision, a
PyTorch FX graph traced under autocast, a TensorFlow GraphDef after
grappler) is first turned into the same neutral `Graph` by an adapter
(graph_*.py); `measure()` then computes every column from that graph alone,
so the definitions are the same for every system. docs/performance.md
("The peers side by side") states them in words.

A Graph has values and ops:

- a value: a name, an element type ('f32', 'f16', 'bf16', 'f64', or
  anything else for non-float types such as 'i64'), its number of elements
  at the model's shapes, and whether it is a constant (a weight);
- an op: a name (for reading), a kind, its input and output value names,
  and whether it is a contraction (matmul, conv, gemm: what an epilogue can
  narrow). Kinds:
  - 'compute': an op that reads and writes its tensors (everything that is
    not one of the kinds below: matmul, conv, elementwise, reductions,
    norms, pooling, softmax, transposes and copies that materialise);
  - 'convert': an op whose only work is to change the element type;
  - 'view': an op that only renames, reshapes or re-strides a tensor
    without moving it in that system (reshape, flatten, squeeze, tuple
    access, and PyTorch's view ops); left out;
  - 'other': anything else to leave out (constants, shape computations,
    empty tensors, fills of accumulators).
- `outputs`: the graph's results (they count as users).

Definitions (`measure`):

- a *conversion* is a 'convert' op from one float type to another (casts
  to or from integers, and casts to the same type, are not conversions);
- an *epilogue* is a conversion that narrows the result of a contraction
  and is that result's only user: it is what the contraction's own kernel
  writes (its epilogue), so it is neither counted as a conversion nor in
  bytes_converted, and the contraction's result counts as stored in the
  narrow type. The same rule applies to every system (amp-mlir's f32
  accumulators, TVM's out_dtype=float32 matmuls). It applies to the result
  of a reduction too where the adapter marks the reduction `reduction`:
  the systems whose compilers fuse an elementwise consumer into the
  reduction's loop nest or kernel (the MLIR adapter: amp-mlir, whose CPU
  and GPU lowerings both do, and IREE's dispatch regions; TVM's FuseOps).
  Runtimes that run a Cast as a kernel of its own (ONNX Runtime,
  TensorFlow, eager PyTorch) do not mark theirs;
- `casts`: the conversions that remain;
- `bytes_converted`: what they read and write per call (elements times the
  source width plus the destination width);
- `const_bytes_converted`: the part of it whose source is a constant
  (weights cast at every call);
- `low_fraction`: of the float tensor elements that compute ops read
  (every operand occurrence, weights included) and write, the share stored
  in a 16-bit float type (f16, bf16). Counting elements is counting bytes
  at the low type's width, so a tensor kept in f32 does not weigh double;
- `bytes_moved`: the float bytes compute ops read and write at their
  stored widths, plus bytes_converted;
- `output_f32_elements`: the elements of the graph's results that a
  compute op writes in a float type wider than 16 bits (what a system that
  stores everything low keeps wide because the caller gets it).

`add_caller_casts` adds to a graph whose inputs or results are low the
conversions its caller makes (ONNX float16 without kept I/O types).
"""

import json
import math

FLOAT_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2}
LOW_TYPES = frozenset(["f16", "bf16"])
KINDS = frozenset(["compute", "convert", "view", "other"])


class Graph:
    """The neutral graph (see the module's docstring)."""

    def __init__(self):
        self.values = {}   # name -> [dtype, numel, const]
        self.ops = []      # dicts: op, kind, inputs, outputs, contraction
        self.outputs = []

    def value(self, name, dtype, numel, const=False):
        """Declares (or re-declares) a value; returns its name."""
        self.values[name] = [dtype, int(numel), bool(const)]
        return name

    def op(self, name, kind, inputs, outputs, contraction=False,
           reduction=False):
        if kind not in KINDS:
            raise ValueError(f"unknown op kind {kind!r}")
        for v in list(inputs) + list(outputs):
            if v not in self.values:
                raise KeyError(f"op {name}: undeclared value {v!r}")
        entry = {"op": name, "kind": kind, "inputs": list(inputs),
                 "outputs": list(outputs), "contraction": bool(contraction)}
        if reduction:
            entry["reduction"] = True
        self.ops.append(entry)

    def to_json(self):
        return {"values": self.values, "ops": self.ops,
                "outputs": self.outputs}

    @classmethod
    def from_json(cls, data):
        g = cls()
        g.values = {k: list(v) for k, v in data["values"].items()}
        g.ops = [dict(o) for o in data["ops"]]
        g.outputs = list(data.get("outputs", []))
        return g

    def save(self, path):
        with open(path, "w") as f:
            json.dump(self.to_json(), f)

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls.from_json(json.load(f))


def numel(shape):
    """Elements of a shape; unknown (None, negative, '?') dimensions count
    as 1."""
    n = 1
    for d in shape:
        if isinstance(d, int) and d >= 0:
            n *= d
    return n


def is_float(dtype):
    return dtype in FLOAT_BYTES


def _is_conversion(graph, op):
    if op["kind"] != "convert" or len(op["inputs"]) < 1 or \
            len(op["outputs"]) != 1:
        return False
    src = graph.values[op["inputs"][0]][0]
    dst = graph.values[op["outputs"][0]][0]
    return is_float(src) and is_float(dst) and src != dst


def measure(graph):
    """casts, bytes_converted, low_fraction and the other figures of one
    neutral graph (the module's docstring defines them)."""
    values = graph.values
    users = {}
    producer = {}
    for index, op in enumerate(graph.ops):
        for v in op["inputs"]:
            users.setdefault(v, []).append(index)
        for v in op["outputs"]:
            producer[v] = index
    for v in graph.outputs:
        users.setdefault(v, []).append(-1)

    # Epilogues: narrowings of a contraction's (or a fused reduction's)
    # result, its only user.
    stored_as = {}          # contraction result -> the type it is stored in
    epilogues = set()
    for index, op in enumerate(graph.ops):
        if not _is_conversion(graph, op):
            continue
        src_name, dst_name = op["inputs"][0], op["outputs"][0]
        src, dst = values[src_name][0], values[dst_name][0]
        p = producer.get(src_name)
        if (FLOAT_BYTES[dst] < FLOAT_BYTES[src] and p is not None
                and graph.ops[p]["kind"] == "compute"
                and (graph.ops[p]["contraction"]
                 or graph.ops[p].get("reduction", False))
                and users.get(src_name) == [index]):
            epilogues.add(index)
            stored_as[src_name] = dst

    casts = casts_to_low = casts_from_low = 0
    bytes_converted = const_bytes = 0
    for index, op in enumerate(graph.ops):
        if index in epilogues or not _is_conversion(graph, op):
            continue
        src_name, dst_name = op["inputs"][0], op["outputs"][0]
        src, n, const = values[src_name]
        dst = values[dst_name][0]
        b = n * (FLOAT_BYTES[src] + FLOAT_BYTES[dst])
        casts += 1
        bytes_converted += b
        if const:
            const_bytes += b
        if dst in LOW_TYPES and src not in LOW_TYPES:
            casts_to_low += 1
        elif src in LOW_TYPES and dst not in LOW_TYPES:
            casts_from_low += 1

    low = total = moved = 0
    compute_ops = low_ops = 0
    results = set(graph.outputs)
    output_f32 = 0
    for op in graph.ops:
        if op["kind"] != "compute":
            continue
        floats = 0
        all_low = True
        for v in op["inputs"] + op["outputs"]:
            dtype, n, _ = values[v]
            dtype = stored_as.get(v, dtype)
            if not is_float(dtype):
                continue
            floats += 1
            total += n
            moved += n * FLOAT_BYTES[dtype]
            if dtype in LOW_TYPES:
                low += n
            else:
                all_low = False
        if floats:
            compute_ops += 1
            low_ops += all_low
        for v in op["outputs"]:
            dtype = stored_as.get(v, values[v][0])
            if v in results and is_float(dtype) and dtype not in LOW_TYPES:
                output_f32 += values[v][1]
    return {
        "casts": casts,
        "casts_to_low": casts_to_low,
        "casts_from_low": casts_from_low,
        "bytes_converted": bytes_converted,
        "const_bytes_converted": const_bytes,
        "epilogues": len(epilogues),
        "low_fraction": low / total if total else 0.0,
        "low_elements": low,
        "float_elements": total,
        "bytes_moved": moved + bytes_converted,
        "compute_ops": compute_ops,
        "low_ops": low_ops,
        "output_f32_elements": output_f32,
    }


def add_caller_casts(graph):
    """Adds to a neutral graph the conversions its caller makes when the
    graph's float inputs or results are low (ONNX float16 without kept I/O
    types): from f32 to each low input that an op reads (constants left
    out), and from each low result to f32, which becomes the result.
    Returns the graph."""
    read = {v for op in graph.ops for v in op["inputs"]}
    produced = {v for op in graph.ops for v in op["outputs"]}
    for name in sorted(read - produced):
        dtype, n, const = graph.values[name]
        if const or dtype not in LOW_TYPES:
            continue
        source = graph.value(f"{name}#caller-f32", "f32", n)
        graph.ops.insert(0, {"op": "caller cast", "kind": "convert",
                             "inputs": [source], "outputs": [name],
                             "contraction": False})
    outputs = []
    for name in graph.outputs:
        dtype, n, _ = graph.values[name]
        if dtype in LOW_TYPES:
            wide = graph.value(f"{name}#caller-f32", "f32", n)
            graph.op("caller cast", "convert", [name], [wide])
            name = wide
        outputs.append(name)
    graph.outputs = outputs
    return graph


def rel_l2(y, reference):
    """||y - reference|| / ||reference|| over all elements (float64),
    for sequences of numbers or NumPy arrays. NaN or Inf in y gives inf."""
    try:
        import numpy as np
        y = np.asarray(y, dtype=np.float64).ravel()
        r = np.asarray(reference, dtype=np.float64).ravel()
        if y.shape != r.shape:
            raise ValueError(f"shapes differ: {y.shape} vs {r.shape}")
        if not np.all(np.isfinite(y)):
            return math.inf
        den = float(np.linalg.norm(r))
        num = float(np.linalg.norm(y - r))
    except ImportError:
        y, r = [float(a) for a in y], [float(b) for b in reference]
        if len(y) != len(r):
            raise ValueError("lengths differ")
        if not all(math.isfinite(a) for a in y):
            return math.inf
        den = math.sqrt(sum(b * b for b in r))
        num = math.sqrt(sum((a - b) ** 2 for a, b in zip(y, r)))
    if den == 0:
        return 0.0 if num == 0 else math.inf
    return num / den
