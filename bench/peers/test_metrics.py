#!/usr/bin/env python3
"""Unit tests of the peer comparison's measurement (metrics.py) and of the
MLIR adapter (graph_mlir.py) on synthetic graphs. Plain Python: runs with
Debian's python3 and no peer installed (test/Bench/peers-metrics.test).

    python3 bench/peers/test_metrics.py
"""

import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from metrics import Graph, measure, numel, rel_l2  # noqa: E402
from graph_mlir import from_mlir, parse_type  # noqa: E402


def chain(dtypes_and_kinds, n=100, contraction_at=()):
    """A linear graph: value v0 (f32 input), then one op per entry
    (kind, output dtype)."""
    g = Graph()
    g.value("v0", "f32", n)
    for i, (kind, dtype) in enumerate(dtypes_and_kinds):
        g.value(f"v{i + 1}", dtype, n)
        g.op(f"op{i}", kind, [f"v{i}"], [f"v{i + 1}"],
             contraction=i in contraction_at)
    g.outputs = [f"v{len(dtypes_and_kinds)}"]
    return g


class Metrics(unittest.TestCase):
    def test_casts_and_bytes(self):
        g = chain([("convert", "f16"), ("compute", "f16"),
                   ("convert", "f32")])
        m = measure(g)
        self.assertEqual(m["casts"], 2)
        self.assertEqual(m["casts_to_low"], 1)
        self.assertEqual(m["casts_from_low"], 1)
        # Each conversion reads 4 bytes and writes 2 (or the reverse).
        self.assertEqual(m["bytes_converted"], 2 * 100 * 6)
        self.assertEqual(m["low_fraction"], 1.0)
        self.assertEqual(m["bytes_moved"], 100 * 2 * 2 + 1200)
        self.assertEqual((m["compute_ops"], m["low_ops"]), (1, 1))

    def test_not_conversions(self):
        # Same type, and to or from integers: not conversions.
        g = chain([("convert", "f32"), ("convert", "i64"),
                   ("convert", "f32")])
        m = measure(g)
        self.assertEqual((m["casts"], m["bytes_converted"]), (0, 0))
        self.assertEqual(m["float_elements"], 0)
        self.assertEqual(m["low_fraction"], 0.0)

    def test_epilogue_of_a_contraction(self):
        g = chain([("convert", "f16"), ("compute", "f32"),
                   ("convert", "f16"), ("compute", "f16")],
                  contraction_at=(1,))
        m = measure(g)
        self.assertEqual(m["epilogues"], 1)
        self.assertEqual(m["casts"], 1)            # only the input's
        self.assertEqual(m["bytes_converted"], 600)
        # The contraction's f32 result counts as stored in f16.
        self.assertEqual(m["low_fraction"], 1.0)

    def test_no_epilogue_without_a_contraction(self):
        g = chain([("convert", "f16"), ("compute", "f32"),
                   ("convert", "f16"), ("compute", "f16")])
        m = measure(g)
        self.assertEqual((m["epilogues"], m["casts"]), (0, 2))
        # f16 in, f32 out, then f16 in and out: 3 of 4 tensors low.
        self.assertAlmostEqual(m["low_fraction"], 0.75)

    def test_no_epilogue_with_another_user(self):
        g = chain([("convert", "f16"), ("compute", "f32"),
                   ("convert", "f16")], contraction_at=(1,))
        g.outputs.append("v2")                     # the f32 result too
        m = measure(g)
        self.assertEqual((m["epilogues"], m["casts"]), (0, 2))

    def test_widening_is_no_epilogue(self):
        g = chain([("compute", "f16"), ("convert", "f32")],
                  contraction_at=(0,))
        self.assertEqual(measure(g)["epilogues"], 0)
        self.assertEqual(measure(g)["casts"], 1)

    def test_low_fraction_counts_elements(self):
        g = Graph()
        g.value("a", "f32", 300)
        g.value("w", "f16", 100, const=True)
        g.value("b", "bf16", 100)
        g.value("i", "i64", 1000)
        g.op("mix", "compute", ["a", "w", "i"], ["b"])
        m = measure(g)
        self.assertEqual(m["float_elements"], 500)
        self.assertEqual(m["low_elements"], 200)
        self.assertAlmostEqual(m["low_fraction"], 0.4)
        self.assertEqual(m["bytes_moved"], 300 * 4 + 200 * 2)

    def test_views_and_other_left_out(self):
        g = Graph()
        g.value("x", "f32", 10)
        g.value("y", "f32", 10)
        g.value("z", "f16", 10)
        g.op("reshape", "view", ["x"], ["y"])
        g.op("constant", "other", [], ["z"])
        m = measure(g)
        self.assertEqual((m["float_elements"], m["compute_ops"]), (0, 0))

    def test_constant_conversions(self):
        g = Graph()
        g.value("w", "f32", 50, const=True)
        g.value("w16", "bf16", 50)
        g.op("cast", "convert", ["w"], ["w16"])
        m = measure(g)
        self.assertEqual(m["const_bytes_converted"], 300)
        self.assertEqual(m["bytes_converted"], 300)

    def test_f64(self):
        g = chain([("convert", "f64")])
        self.assertEqual(measure(g)["bytes_converted"], 100 * 12)

    def test_graph_checks(self):
        g = Graph()
        g.value("x", "f32", 1)
        with self.assertRaises(KeyError):
            g.op("a", "compute", ["x"], ["nope"])
        with self.assertRaises(ValueError):
            g.op("a", "fused", ["x"], ["x"])

    def test_json_round_trip(self):
        g = chain([("convert", "f16"), ("compute", "f32"),
                   ("convert", "f16")], contraction_at=(1,))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "g.json")
            g.save(path)
            self.assertEqual(measure(Graph.load(path)), measure(g))

    def test_numel(self):
        self.assertEqual(numel([2, 3, 4]), 24)
        self.assertEqual(numel([2, -1, None, "?"]), 2)
        self.assertEqual(numel([]), 1)

    def test_rel_l2(self):
        self.assertEqual(rel_l2([1.0, 2.0], [1.0, 2.0]), 0.0)
        self.assertAlmostEqual(rel_l2([3.0, 0.0], [0.0, 4.0]), 1.25)
        self.assertEqual(rel_l2([float("nan")], [1.0]), math.inf)
        self.assertEqual(rel_l2([1.0], [0.0]), math.inf)
        with self.assertRaises(ValueError):
            rel_l2([1.0, 2.0], [1.0])


# The shapes of amp-opt's generic output: a conversion in a linalg.generic,
# a matmul with an f32 accumulator and its narrowing, a fill, a view, a
# reduction whose result is narrowed, and the result's extension.
MLIR = """\
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0, 0)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x8xf32>) -> tensor<4x1xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<4x8xf32>):
    %0 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %1 = "arith.constant"() <{value = dense_resource<w> : tensor<8x16xf16>}> : () -> tensor<8x16xf16>
    %2 = "tensor.empty"() : () -> tensor<4x8xf16>
    %3 = "linalg.generic"(%arg0, %2) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%in: f32, %out: f16):
      %20 = "arith.truncf"(%in) : (f32) -> f16
      "linalg.yield"(%20) : (f16) -> ()
    }) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf16>
    %4 = "tensor.empty"() : () -> tensor<4x16xf32>
    %5 = "linalg.fill"(%0, %4) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%a: f32, %b: f32):
      "linalg.yield"(%a) : (f32) -> ()
    }) : (f32, tensor<4x16xf32>) -> tensor<4x16xf32>
    %6 = "linalg.matmul"(%3, %1, %5) <{indexing_maps = [#map1, #map2, #map3], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%a: f16, %b: f16, %c: f32):
      %21 = "arith.extf"(%a) : (f16) -> f32
      %22 = "arith.extf"(%b) : (f16) -> f32
      %23 = "arith.mulf"(%21, %22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %24 = "arith.addf"(%c, %23) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%24) : (f32) -> ()
    }) : (tensor<4x8xf16>, tensor<8x16xf16>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %7 = "arith.truncf"(%6) : (tensor<4x16xf32>) -> tensor<4x16xf16>
    %8 = "tensor.expand_shape"(%7) <{reassociation = [[0], [1, 2]], static_output_shape = array<i64: 4, 16, 1>}> : (tensor<4x16xf16>) -> tensor<4x16x1xf16>
    %9 = "tensor.collapse_shape"(%8) <{reassociation = [[0], [1, 2]]}> : (tensor<4x16x1xf16>) -> tensor<4x16xf16>
    %10 = "tensor.empty"() : () -> tensor<4x1xf32>
    %11 = "linalg.fill"(%0, %10) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%a: f32, %b: f32):
      "linalg.yield"(%a) : (f32) -> ()
    }) : (f32, tensor<4x1xf32>) -> tensor<4x1xf32>
    %12 = "linalg.generic"(%9, %11) <{indexing_maps = [#map, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%a: f16, %b: f32):
      %25 = "arith.extf"(%a) : (f16) -> f32
      %26 = "arith.addf"(%25, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%26) : (f32) -> ()
    }) : (tensor<4x16xf16>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %13 = "arith.truncf"(%12) : (tensor<4x1xf32>) -> tensor<4x1xf16>
    %14 = "arith.extf"(%13) : (tensor<4x1xf16>) -> tensor<4x1xf32>
    "func.return"(%14) : (tensor<4x1xf32>) -> ()
  }) : () -> ()
}) : () -> ()
"""


class MlirAdapter(unittest.TestCase):
    def test_types(self):
        self.assertEqual(parse_type("tensor<4x8xf32>"), ("f32", 32))
        self.assertEqual(parse_type("tensor<?x8xbf16>"), ("bf16", 8))
        self.assertEqual(parse_type("tensor<f16>"), ("f16", 1))
        self.assertEqual(parse_type("f32"), ("scalar", 1))

    def test_graph(self):
        g = from_mlir(MLIR)
        kinds = [(o["op"], o["kind"]) for o in g.ops
                 if o["kind"] != "other"]
        self.assertEqual(kinds, [
            ("linalg.generic", "convert"), ("linalg.matmul", "compute"),
            ("arith.truncf", "convert"), ("tensor.expand_shape", "view"),
            ("tensor.collapse_shape", "view"),
            ("linalg.generic", "compute"), ("arith.truncf", "convert"),
            ("arith.extf", "convert")])
        matmul = next(o for o in g.ops if o["op"] == "linalg.matmul")
        self.assertTrue(matmul["contraction"])
        # Only the `ins` operands are reads: not the filled accumulator.
        self.assertEqual([g.values[v][:2] for v in matmul["inputs"]],
                         [["f16", 32], ["f16", 128]])
        self.assertTrue(g.values[matmul["inputs"][1]][2])   # the weight
        self.assertEqual(g.outputs, ["%14"])

    def test_measure(self):
        g = from_mlir(MLIR)
        m = measure(g)
        # The input's conversion and the result's extension; the matmul's
        # narrowing is its epilogue, and so is the sum's (MLIR compilers
        # fuse it into the reduction's loop nest or kernel).
        self.assertEqual(m["casts"], 2)
        self.assertEqual(m["epilogues"], 2)
        self.assertEqual(m["bytes_converted"], 32 * 6 + 4 * 6)
        # matmul: 32 + 128 in, 64 out (low); the sum: 64 in (low), 4 out
        # (stored low by its epilogue).
        self.assertAlmostEqual(m["low_fraction"], 1.0)
        # Without the reduction mark (a runtime that runs the Cast as a
        # kernel of its own), the sum's narrowing is a conversion.
        for op in g.ops:
            op.pop("reduction", None)
        m = measure(g)
        self.assertEqual((m["casts"], m["epilogues"]), (3, 1))
        self.assertEqual(m["bytes_converted"], 32 * 6 + 4 * 6 + 4 * 6)
        self.assertAlmostEqual(m["low_fraction"], 288 / 292)


# IREE's output at the end of its global optimization phase, in generic
# form (the shape of iree-compile 3.13's output for a linear layer with its
# contraction inputs demoted to bf16): the body in an async function, an
# ABI function that calls it, the weight in a util.global, the argument
# imported from a buffer view.
IREE = """\
"builtin.module"() ({
  "util.global"() <{initial_value = dense_resource<__elided__> : tensor<8x4xbf16>, sym_name = "__hoisted_tensor_8x4xbf16", sym_visibility = "private", type = tensor<8x4xbf16>}> : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view, sym_name = "main_graph$async"}> ({
  ^bb0(%arg1: !hal.buffer_view, %arg2: !hal.fence, %arg3: !hal.fence):
    %0 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %1 = "hal.tensor.import"(%arg1, %arg2) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, target_encoding = tensor<2x8xf32>}> : (!hal.buffer_view, !hal.fence) -> tensor<2x8xf32>
    %2 = "iree_tensor_ext.compute_barrier.start"(%1) : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %3 = "tensor.empty"() : () -> tensor<2x8xbf16>
    %4 = "linalg.generic"(%2, %3) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg4: f32, %arg5: bf16):
      %10 = "arith.truncf"(%arg4) : (f32) -> bf16
      "linalg.yield"(%10) : (bf16) -> ()
    }) : (tensor<2x8xf32>, tensor<2x8xbf16>) -> tensor<2x8xbf16>
    %5 = "util.global.load"() <{global = @__hoisted_tensor_8x4xbf16, is_immutable}> : () -> tensor<8x4xbf16>
    %6 = "tensor.empty"() : () -> tensor<2x4xf32>
    %7 = "linalg.fill"(%0, %6) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg6: f32, %arg7: f32):
      "linalg.yield"(%arg6) : (f32) -> ()
    }) : (f32, tensor<2x4xf32>) -> tensor<2x4xf32>
    %8 = "linalg.matmul"(%4, %5, %7) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg8: bf16, %arg9: bf16, %arg10: f32):
      %11 = "arith.extf"(%arg8) : (bf16) -> f32
      %12 = "arith.extf"(%arg9) : (bf16) -> f32
      %13 = "arith.mulf"(%11, %12) : (f32, f32) -> f32
      %14 = "arith.addf"(%arg10, %13) : (f32, f32) -> f32
      "linalg.yield"(%14) : (f32) -> ()
    }) : (tensor<2x8xbf16>, tensor<8x4xbf16>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %9 = "hal.tensor.export"(%8) <{source_encoding = tensor<2x4xf32>}> : (tensor<2x4xf32>) -> !hal.buffer_view
    "util.return"(%9) : (!hal.buffer_view) -> ()
  }) : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view) -> !hal.buffer_view, sym_name = "main_graph"}> ({
  ^bb0(%arg0: !hal.buffer_view):
    %0 = "util.call"(%arg0) <{callee = @main_graph$async}> : (!hal.buffer_view) -> !hal.buffer_view
    "util.return"(%0) : (!hal.buffer_view) -> ()
  }) : () -> ()
}) : () -> ()
"""


class IreeForm(unittest.TestCase):
    def test_body(self):
        g = from_mlir(IREE, function="largest")
        kinds = [(o["op"], o["kind"]) for o in g.ops if o["kind"] != "other"]
        self.assertEqual(kinds, [
            ("iree_tensor_ext.compute_barrier.start", "view"),
            ("linalg.generic", "convert"), ("linalg.matmul", "compute"),
            ("hal.tensor.export", "view")])
        matmul = next(o for o in g.ops if o["op"] == "linalg.matmul")
        self.assertTrue(matmul["contraction"])
        # The weight is a global: a constant, already bf16.
        self.assertEqual(g.values[matmul["inputs"][1]], ["bf16", 32, True])
        m = measure(g)
        # The input's truncation only (the weight was converted at compile
        # time); the matmul reads 16 + 32 bf16 elements and writes 8 f32.
        self.assertEqual((m["casts"], m["bytes_converted"]), (1, 16 * 6))
        self.assertAlmostEqual(m["low_fraction"], 48 / 56)

    def test_which_function(self):
        # With the wrapper first, "first" takes the wrapper (one call) and
        # "largest" the body.
        body, wrapper = IREE.split('  "util.func"')[1:3]
        swapped = IREE.replace(body, "@@").replace(wrapper, body).replace(
            "@@", wrapper)
        self.assertEqual(len(from_mlir(swapped).ops), 1)
        self.assertEqual(len(from_mlir(swapped, function="largest").ops),
                         len(from_mlir(IREE).ops))


class VerdictTest(unittest.TestCase):
    """run.verdict: issue 25's criterion lines, rendered from saved rows."""

    @staticmethod
    def row(system, level, rel_l2, low=1.0, kib=10.0):
        return {"system": system, "level": level, "rel_l2": rel_l2,
                "low_fraction": low, "bytes_converted": kib * 1024}

    def verdict(self, rows):
        import run
        return run.verdict({"rows": rows})

    def test_met_and_not_met(self):
        lines = self.verdict([
            self.row("amp-mlir", "O2 f16", 1e-4),
            self.row("amp-mlir", "O1 f16", 3e-4),
            self.row("torch-autocast", "f16", 2e-4, low=0.9, kib=100),
            self.row("torch-compile-autocast", "f16", 2e-4, low=0.9,
                     kib=100)])
        self.assertTrue(lines[0].endswith(": met"), lines[0])
        self.assertIn("not met: rel L2 3.00e-04 is 1.50x "
                      "torch-compile-autocast f16's", lines[1])

    def test_fp32_compile_row_is_no_anchor(self):
        # torch.compile ran the model in fp32 (low share 0, rel L2 0):
        # eager autocast is the anchor instead, and the line says so.
        lines = self.verdict([
            self.row("amp-mlir", "O1 bf16", 1e-3),
            self.row("torch-autocast", "bf16", 3e-3, low=0.9, kib=100),
            self.row("torch-compile-autocast", "bf16", 0.0, low=0.0,
                     kib=0)])
        self.assertIn(": met (torch-compile-autocast bf16 stores nothing "
                      "low", lines[0])
        lines = self.verdict([
            self.row("amp-mlir", "O1 bf16", 4e-3),
            self.row("torch-autocast", "bf16", 3e-3, low=0.9, kib=100),
            self.row("torch-compile-autocast", "bf16", 0.0, low=0.0,
                     kib=0)])
        self.assertIn("not met: rel L2 4.00e-03 is 1.33x torch-autocast "
                      "bf16's", lines[0])

    def test_no_verdict_when_the_anchor_fails(self):
        lines = self.verdict([
            self.row("amp-mlir", "O2 f16", 1.0),
            self.row("torch-autocast", "f16", 1.0, low=0.9, kib=100)])
        self.assertEqual(len(lines), 1)
        self.assertIn("amp-mlir O2 f16: no verdict: torch-autocast f16's "
                      "own rel L2 is 1.0e+00", lines[0])


if __name__ == "__main__":
    unittest.main(verbosity=1)
