"""Adapter: MLIR on tensors (amp-opt's output) to the neutral Graph.

Reads the generic op form (`amp-opt --mlir-print-op-generic`), where each
op of a function body starts on a line of its own at the body's
indentation, and an op with regions ends on a `})` line at the same
indentation carrying its type signature. Needs nothing but Python.

Classification (metrics.py defines the kinds):

- conversions: `arith.truncf`/`arith.extf` on tensors, `amp.cast`,
  `tosa.cast` between float types, and `linalg.generic`/`linalg.map` with
  one input whose body only extends, truncates and yields (the wrapper
  amp-opt and torch-mlir write around a scalar conversion);
- views: `tensor.expand_shape`, `collapse_shape`, `reshape`, `cast`,
  `bitcast`, `tosa.reshape`;
- left out: constants (their tensors are constant values), `tensor.empty`,
  `linalg.fill` (an accumulator's initial value), `func.return` (its
  operands are the graph's outputs), ops on scalars only;
- compute: every other op with a tensor operand or result. For linalg
  (destination-passing style) only the `ins` operands are reads: the
  `outs` operands are destinations (or an accumulator's initial value),
  which the other systems' graphs do not have;
- contractions: linalg's named matmul, conv, dot, matvec and vecmat ops
  (and their batched and depthwise forms), `linalg.contract`, tosa's
  matmul and conv ops, and a `linalg.generic` with a reduction loop whose
  body multiplies and adds.
"""

import re
import sys

from metrics import Graph, numel

_SCALAR_FLOATS = {"f64": "f64", "f32": "f32", "f16": "f16", "bf16": "bf16"}
_VIEWS = {"tensor.expand_shape", "tensor.collapse_shape", "tensor.reshape",
          "tensor.cast", "tensor.bitcast", "tosa.reshape",
          # IREE: reshapes of its flow dialect, and the ABI's export of a
          # result (a tensor handed over as a buffer view).
          "flow.tensor.reshape", "flow.tensor.bitcast", "hal.tensor.export",
          "hal.tensor.barrier", "iree_tensor_ext.compute_barrier.start",
          "iree_tensor_ext.compute_barrier.end"}
_OTHER = {"arith.constant", "tensor.empty", "linalg.fill", "func.return",
          "tosa.const", "bufferization.alloc_tensor",
          "ml_program.global_load_const",
          # IREE: globals (weights), the ABI's import of an argument.
          "util.global.load", "util.return", "hal.tensor.import"}
# Ops whose tensor results are constants (weights).
_CONSTANTS = {"arith.constant", "tosa.const", "util.global.load"}
# Ops that start a function body: upstream's and IREE's util.func.
_FUNCTIONS = ('"func.func"', '"util.func"')
_RETURNS = {"func.return", "util.return"}
_CONVERSION_BODY = {"arith.extf", "arith.truncf", "linalg.yield"}
_CONTRACTION = re.compile(
    r"^linalg\.(batch_)?(reduce_)?(matmul|matvec|vecmat|dot|contract|"
    r"conv_\w+|depthwise_conv_\w+|mmt4d)|^tosa\.(matmul|conv2d|conv3d|"
    r"depthwise_conv2d|transpose_conv2d)$")
_OP_START = re.compile(
    r'^(?:(%[\w$.-]+)(?::(\d+))? = )?"([\w$.-]+)"\((.*?)\)')
_VALUE = re.compile(r"%[\w$.#-]+")
_SEGMENTS = re.compile(r"operandSegmentSizes = array<i32: ([\d, ]+)>")


def split_top(text, sep=","):
    """Splits at `sep` outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def parse_type(text):
    """(dtype, numel) of an MLIR type: tensors give their element type and
    size; scalars and others give ('scalar', 1) or ('other', 1)."""
    text = text.strip()
    m = re.match(r"^tensor<(.*)>$", text)
    if m:
        parts = m.group(1).split(",")[0].split("x")
        elem = parts[-1].strip()
        dims = [int(d) if d.isdigit() else -1 for d in parts[:-1]]
        return _SCALAR_FLOATS.get(elem, elem), numel(dims)
    return ("scalar", 1)


def _signature(line):
    """(input types, result types) of the `: (...) -> ...` at the end of
    a generic-form op line."""
    if line.startswith("})"):
        line = line[2:]
    # The last ' -> ' at bracket depth 0 separates inputs from results.
    depth = 0
    arrow = -1
    for i, ch in enumerate(line):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            # '->' contains '>': it is not a bracket.
            if ch == ">" and i > 0 and line[i - 1] == "-":
                continue
            depth -= 1
        elif ch == "-" and depth == 0 and line.startswith("-> ", i):
            arrow = i
    if arrow < 0:
        return [], []
    results = line[arrow + 3:].strip()
    # The inputs: the balanced (...) that ends just before the arrow.
    end = line.rstrip()[:arrow].rstrip()
    assert end.endswith(")"), line
    depth = 0
    for j in range(len(end) - 1, -1, -1):
        if end[j] == ")":
            depth += 1
        elif end[j] == "(":
            depth -= 1
            if depth == 0:
                break
    inputs = split_top(end[j + 1:-1])
    if results.startswith("(") and results.endswith(")"):
        results = split_top(results[1:-1])
    else:
        results = [results]
    return inputs, results


def _ops(text):
    """Yields (name, results, operands, attributes line, body op names,
    signature line) for the ops of each function body; and ('^bb0', args)
    for the body's arguments."""
    lines = text.splitlines()
    body_indent = None
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith(_FUNCTIONS):
            body_indent = None
            # The entry block's arguments are on the next '^bb0' line.
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("^bb"):
                j += 1
            if j < len(lines):
                args = re.findall(r"(%[\w$.-]+): ([^,)]+(?:<[^>]*>)?)",
                                  lines[j])
                body_indent = len(lines[j]) - len(lines[j].lstrip()) + 2
                yield ("^bb0", args)
            i = j + 1
            continue
        if body_indent is None or indent != body_indent:
            i += 1
            continue
        m = _OP_START.match(stripped)
        if not m:
            i += 1
            continue
        result, count, name, operands = m.groups()
        body = []
        end_line = stripped
        if stripped.endswith("({"):
            j = i + 1
            while j < len(lines):
                inner = lines[j]
                s = inner.lstrip()
                ind = len(inner) - len(s)
                if ind == body_indent and s.startswith("})"):
                    end_line = s
                    break
                mm = re.match(r'^(?:%[\w$.:-]+ = )?"([\w$.-]+)"', s)
                if mm:
                    body.append(mm.group(1))
                j += 1
            i = j + 1
        else:
            i += 1
        results = []
        if result:
            n = int(count) if count else 1
            results = [result] if n == 1 else [f"{result}#{k}"
                                               for k in range(n)]
        yield (name, results, _VALUE.findall(operands), stripped, body,
               end_line)


def from_mlir(text, function="first"):
    """The neutral Graph of one function of `text` (amp-opt's output, or
    IREE's, in generic form): the first function that has a body, or with
    function="largest" the one with the most ops (IREE wraps the body of a
    model in ABI functions that call it)."""
    graphs = []
    items = None
    for item in _ops(text):
        if item[0] == "^bb0":
            if function == "first" and graphs:
                break
            items = []
            graphs.append(items)
        if items is not None:
            items.append(item)
    if not graphs:
        return Graph()
    chosen = graphs[0] if function == "first" else max(graphs, key=len)
    return _graph(chosen)


def _graph(items):
    """The neutral Graph of one function's items from _ops()."""
    g = Graph()
    for item in items:
        if item[0] == "^bb0":
            for name, ty in item[1]:
                dtype, n = parse_type(ty)
                g.value(name, dtype, n)
            continue
        name, results, operands, first, body, last = item
        in_types, out_types = _signature(last)
        for v, ty in zip(results, out_types):
            dtype, n = parse_type(ty)
            g.value(v, dtype, n, const=name in _CONSTANTS)
        for v, ty in zip(operands, in_types):
            if v not in g.values:   # defined in a region we skipped
                dtype, n = parse_type(ty)
                g.value(v, dtype, n)
        tensors = [v for v in operands + results
                   if g.values[v][0] != "scalar"]
        if name in _RETURNS:
            g.outputs = [v for v in operands if g.values[v][0] != "scalar"]
            continue
        if not tensors or name in _OTHER:
            kind = "other"
            g.op(name, kind, [v for v in operands if v in tensors],
                 [v for v in results if v in tensors])
            continue
        reads = operands
        dialect = name.split(".", 1)[0]
        if dialect == "linalg":
            seg = _SEGMENTS.search(first)
            if seg:
                n_ins = int(seg.group(1).split(",")[0])
            else:
                n_ins = max(len(operands) - 1, 0)
            reads = operands[:n_ins]
        reads = [v for v in reads if g.values[v][0] != "scalar"]
        writes = [v for v in results if g.values[v][0] != "scalar"]
        if name in _VIEWS:
            kind = "view"
        elif name in ("arith.truncf", "arith.extf", "amp.cast",
                      "tosa.cast"):
            kind = "convert"
        elif (name in ("linalg.generic", "linalg.map") and len(reads) == 1
              and len(writes) == 1 and body
              and set(body) <= _CONVERSION_BODY):
            kind = "convert"
        else:
            kind = "compute"
        contraction = bool(_CONTRACTION.match(name)) or (
            name == "linalg.generic" and "reduction" in first
            and "arith.mulf" in body and "arith.addf" in body)
        # MLIR compilers fuse a reduction's elementwise consumer into its
        # loop nest or kernel (metrics.py, epilogue).
        reduction = not contraction and kind == "compute" and (
            name in ("linalg.reduce", "tosa.reduce_sum", "tosa.reduce_max",
                     "tosa.reduce_min", "tosa.reduce_product")
            or (name == "linalg.generic" and "reduction" in first))
        g.op(name, kind, reads, writes, contraction=contraction,
             reduction=reduction)
    return g


def main(argv):
    """graph_mlir.py FILE: the metrics of a module in generic form
    (amp-opt --mlir-print-op-generic output), as JSON."""
    import json
    from metrics import measure
    if len(argv) != 1:
        print(main.__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        print(json.dumps(measure(from_mlir(f.read())), sort_keys=True,
                         indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
