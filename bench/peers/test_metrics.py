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

from metrics import Graph, add_caller_casts, measure, numel, rel_l2  # noqa: E402
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

    def test_output_f32_elements(self):
        # The result written in f32 by a compute op counts; a view's does
        # not (no compute op writes it), nor a low result.
        g = chain([("convert", "f16"), ("compute", "f32")])
        self.assertEqual(measure(g)["output_f32_elements"], 100)
        g = chain([("convert", "f16"), ("compute", "f16")])
        self.assertEqual(measure(g)["output_f32_elements"], 0)
        g = chain([("compute", "f32"), ("view", "f32")])
        self.assertEqual(measure(g)["output_f32_elements"], 0)
        # A narrowing epilogue stores the contraction's result low.
        g = chain([("compute", "f32"), ("convert", "f16")],
                  contraction_at=(0,))
        g.outputs = ["v1"]
        self.assertEqual(measure(g)["output_f32_elements"], 100)

    def test_caller_casts(self):
        # A graph with an f16 input and result (ONNX float16 without kept
        # I/O types): the caller's two conversions are added and counted.
        g = Graph()
        g.value("x", "f16", 100)
        g.value("w", "f16", 40, const=True)
        g.value("y", "f16", 30)
        g.op("matmul", "compute", ["x", "w"], ["y"], contraction=True)
        g.outputs = ["y"]
        self.assertEqual(measure(g)["casts"], 0)
        m = measure(add_caller_casts(g))
        self.assertEqual((m["casts"], m["casts_to_low"],
                          m["casts_from_low"]), (2, 1, 1))
        # The weight is no input of the call: not converted.
        self.assertEqual(m["bytes_converted"], (100 + 30) * 6)
        self.assertEqual(m["const_bytes_converted"], 0)
        self.assertEqual(m["epilogues"], 0)     # a widening
        self.assertEqual(m["low_fraction"], 1.0)
        self.assertEqual(g.values[g.outputs[0]][0], "f32")
        # f32 inputs and results (kept I/O types) get nothing.
        g = chain([("convert", "f16"), ("compute", "f16"),
                   ("convert", "f32")])
        before = measure(g)
        self.assertEqual(measure(add_caller_casts(g)), before)

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
    """run.verdict: issue 25's criterion lines, rendered from saved rows,
    like compared with like (issue 45)."""

    @staticmethod
    def row(system, level, rel_l2, low=1.0, kib=10.0, **extra):
        row = {"system": system, "level": level, "rel_l2": rel_l2,
               "low_fraction": low, "bytes_converted": kib * 1024}
        row.update(extra)
        return row

    def verdict(self, rows):
        import run
        return run.verdict({"rows": rows})

    def autocast(self, dtype, error, low=0.9, kib=100):
        return [self.row("torch-autocast", dtype, error, low=low, kib=kib),
                self.row("torch-compile-autocast", dtype, error, low=low,
                         kib=kib)]

    def test_met_and_not_met(self):
        lines = self.verdict([
            self.row("amp-mlir", "O2 f16", 1e-4),
            self.row("amp-mlir", "O1 f16", 3e-4, low=0.8),
            self.row("torch-pure-half", "f16", 2e-4, kib=20),
            *self.autocast("f16", 2e-4)])
        self.assertTrue(lines[0].endswith(": met"), lines[0])
        self.assertIn("not met: rel L2 3.00e-04 is 1.50x "
                      "torch-compile-autocast f16's", lines[1])

    def test_o2_against_pure_half_not_autocast(self):
        # Three times autocast's error (which keeps its stream f32) but
        # below the module converted whole: met.
        lines = self.verdict([
            self.row("amp-mlir", "O2 bf16", 3e-3, low=0.999),
            self.row("torch-pure-half", "bf16", 4e-3, kib=20),
            *self.autocast("bf16", 1e-3, low=1.0)])
        self.assertTrue(lines[0].endswith(": met"), lines[0])
        # Above it: not met, and the line names the pure-half anchor.
        lines = self.verdict([
            self.row("amp-mlir-onnx", "O2 bf16", 5e-3, low=0.999),
            self.row("torch-pure-half", "bf16", 4e-3, kib=20),
            *self.autocast("bf16", 1e-2, low=1.0)])
        self.assertIn("amp-mlir-onnx O2 bf16", lines[0])
        self.assertIn("not met: rel L2 5.00e-03 is 1.25x torch-pure-half "
                      "bf16's (4.00e-03)", lines[0])
        self.assertNotIn("autocast", lines[0])

    def test_o2_every_pure_half_anchor(self):
        # In f16 both anchors count; ONNX Runtime's inserted casts are the
        # documented reason its error can be lower.
        rows = [self.row("amp-mlir", "O2 f16", 5e-4),
                self.row("torch-pure-half", "f16", 6e-4, kib=20),
                self.row("onnx-float16-f16io", "f16", 4e-4, kib=20,
                         ort_casts=[23, 1])]
        lines = self.verdict(rows)
        self.assertIn("not met: rel L2 5.00e-04 is 1.25x "
                      "onnx-float16-f16io f16's (4.00e-04) (ONNX Runtime's "
                      "CPU provider runs the ops it has no f16 kernel for "
                      "in f32, between the 23 casts it inserts", lines[0])
        self.assertNotIn("torch-pure-half f16's", lines[0])
        # Without inserted casts, no reason is given.
        rows[2] = self.row("onnx-float16-f16io", "f16", 4e-4, kib=20)
        line = self.verdict(rows)[0]
        self.assertTrue(line.endswith("onnx-float16-f16io f16's "
                                      "(4.00e-04)"), line)

    def test_anchor_storing_less_low_is_skipped(self):
        # The pure-half anchor stores less low than amp-mlir's row: its
        # (lower) error is not compared, and the line says why.
        lines = self.verdict([
            self.row("amp-mlir", "O2 bf16", 3e-3, low=0.9995),
            self.row("torch-pure-half", "bf16", 1e-3, low=0.99, kib=20)])
        self.assertIn(": rel L2 not judged: no torch-pure-half or "
                      "onnx-float16-f16io bf16 row stores at least as much "
                      "low; the other criteria met (torch-pure-half bf16 "
                      "stores less low (0.9900 < 0.9995)", lines[0])
        # A failed criterion still fails the line.
        lines = self.verdict([
            self.row("amp-mlir", "O2 bf16", 3e-3, low=0.9995, kib=30),
            self.row("torch-pure-half", "bf16", 1e-3, low=0.99995, kib=20)])
        self.assertIn("not met: rel L2 3.00e-03 is 3.00x torch-pure-half "
                      "bf16's", lines[0])
        self.assertIn("torch-pure-half bf16 converts less (20.0 KiB) at a "
                      "low share of 1.000", lines[0])

    def test_compile_row_storing_less_is_no_anchor(self):
        # torch.compile stored nothing low (it ran in fp32: rel L2 0):
        # eager autocast is the anchor instead, and the line says so.
        lines = self.verdict([
            self.row("amp-mlir", "O1 bf16", 1e-3, low=0.85),
            self.row("torch-autocast", "bf16", 3e-3, low=0.9, kib=100),
            self.row("torch-compile-autocast", "bf16", 0.0, low=0.0,
                     kib=0)])
        self.assertIn(": met (torch-compile-autocast bf16 stores less low",
                      lines[0])
        lines = self.verdict([
            self.row("amp-mlir", "O1 bf16", 4e-3, low=0.85),
            self.row("torch-autocast", "bf16", 3e-3, low=0.9, kib=100),
            self.row("torch-compile-autocast", "bf16", 0.0, low=0.0,
                     kib=0)])
        self.assertIn("not met: rel L2 4.00e-03 is 1.33x torch-autocast "
                      "bf16's", lines[0])
        # O2-autocast: eager first, torch.compile where eager stores less.
        lines = self.verdict([
            self.row("amp-mlir", "O2-autocast f16", 2e-4, low=0.84),
            self.row("torch-autocast", "f16", 1e-4, low=0.83, kib=100),
            self.row("torch-compile-autocast", "f16", 1.5e-4, low=0.9,
                     kib=100)])
        self.assertIn("not met: rel L2 2.00e-04 is 1.33x "
                      "torch-compile-autocast f16's", lines[0])

    def test_o1_bytes(self):
        lines = self.verdict([
            self.row("amp-mlir", "O1 f16", 1e-4, low=0.8, kib=200),
            *self.autocast("f16", 2e-4)])
        self.assertIn("not met: converts more than torch-autocast f16 "
                      "(100.0 KiB)", lines[0])

    def test_low_share_and_its_reason(self):
        # 0.997 low; the f32 result accounts for the rest: the reason is
        # in the line, with the link.
        amp = self.row("amp-mlir", "O2 f16", 1e-4, low=0.997,
                       low_elements=997, float_elements=1000,
                       output_f32_elements=3)
        anchor = self.row("torch-pure-half", "f16", 2e-4, low=0.997, kib=20)
        line = self.verdict([amp, anchor])[0]
        self.assertIn("not met: low share 0.9970 is below 0.999 (the f32 "
                      "it stores is the model's output, 3 elements", line)
        self.assertIn("(#where-o2s-error-comes-from)", line)
        # Where the output does not explain it, no reason.
        amp["output_f32_elements"] = 1
        line = self.verdict([amp, anchor])[0]
        self.assertTrue(line.endswith("low share 0.9970 is below 0.999"),
                        line)

    def test_missing_anchor(self):
        lines = self.verdict([self.row("amp-mlir", "O2 f16", 1e-4),
                              *self.autocast("f16", 2e-4, low=1.0)])
        self.assertIn("not met: no torch-pure-half or onnx-float16-f16io "
                      "f16 row to compare with", lines[0])

    def test_no_verdict_when_the_anchor_fails(self):
        lines = self.verdict([
            self.row("amp-mlir", "O2 f16", 1.0),
            self.row("torch-pure-half", "f16", 1.0, kib=100),
            self.row("onnx-float16-f16io", "f16", 1e-3, kib=100)])
        self.assertEqual(len(lines), 1)
        self.assertIn("amp-mlir O2 f16: no verdict: torch-pure-half f16's "
                      "own rel L2 is 1.0e+00", lines[0])

    def test_rows_without_a_metric(self):
        # A peer whose bytes or low share could not be measured (None) is
        # left out of the criteria and rendered as a dash.
        import run
        rows = [self.row("amp-mlir", "O2 f16", 1e-4, kib=30,
                         casts=1, const_bytes_converted=0, convert_s=None,
                         compile_s=None),
                self.row("torch-pure-half", "f16", 2e-4, low=None,
                         casts=None, const_bytes_converted=None,
                         convert_s=None, compile_s=None),
                self.row("onnx-float16-f16io", "f16", 3e-4, kib=40,
                         casts=2, const_bytes_converted=0, convert_s=None,
                         compile_s=None)]
        rows[1]["bytes_converted"] = None
        lines = run.verdict({"rows": rows})
        self.assertTrue(lines[0].endswith(": met (torch-pure-half f16 has "
                                          "no low share or error)"),
                        lines[0])
        table = run.markdown([{"spec": "torch:models:m", "shape": [1],
                               "rows": rows}])
        self.assertIn("| m (1) | torch-pure-half | f16 | – | – | – | – | "
                      "2.0e-04 |", table)


if __name__ == "__main__":
    unittest.main(verbosity=1)
