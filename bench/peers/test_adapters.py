#!/usr/bin/env python3
"""Tests of the ONNX and PyTorch adapters (graph_onnx.py, graph_torch.py,
graph_inductor.py) with the frontend environment's packages (torch, onnx);
the peers' own packages are not needed (test/Bench/peers-adapters.test,
REQUIRES: torch).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

from graph_onnx import from_onnx  # noqa: E402
from graph_torch import from_fx  # noqa: E402
from metrics import measure  # noqa: E402


class Onnx(unittest.TestCase):
    def model(self, narrow_after_matmul):
        """x (f32, 4x8) -> Cast f16 -> MatMul w (f16 8x16) -> [Cast f32]
        -> Relu -> Reshape -> y."""
        w = numpy_helper.from_array(np.ones((8, 16), np.float16), "w")
        shape = numpy_helper.from_array(np.array([64], np.int64), "shape")
        nodes = [helper.make_node("Cast", ["x"], ["x16"],
                                  to=TensorProto.FLOAT16),
                 helper.make_node("MatMul", ["x16", "w"], ["m"])]
        if narrow_after_matmul:
            nodes.append(helper.make_node("Cast", ["m"], ["m32"],
                                          to=TensorProto.FLOAT))
        nodes += [helper.make_node("Relu", ["m32" if narrow_after_matmul
                                            else "m"], ["r"]),
                  helper.make_node("Reshape", ["r", "shape"], ["y"])]
        out = TensorProto.FLOAT if narrow_after_matmul else \
            TensorProto.FLOAT16
        graph = helper.make_graph(
            nodes, "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
            [helper.make_tensor_value_info("y", out, [64])],
            initializer=[w, shape])
        return helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 18)])

    def test_graph(self):
        g = from_onnx(self.model(True))
        kinds = [(o["op"], o["kind"], o["contraction"]) for o in g.ops]
        self.assertEqual(kinds, [("Cast", "convert", False),
                                 ("MatMul", "compute", True),
                                 ("Cast", "convert", False),
                                 ("Relu", "compute", False),
                                 ("Reshape", "view", False)])
        # Types from shape inference; initializers are constants.
        self.assertEqual(g.values["m"], ["f16", 64, False])
        self.assertEqual(g.values["w"], ["f16", 128, True])
        m = measure(g)
        # A widening after a contraction is a conversion, not an epilogue.
        self.assertEqual((m["casts"], m["epilogues"]), (2, 0))
        self.assertEqual(m["bytes_converted"], 32 * 6 + 64 * 6)
        # MatMul 32 + 128 + 64 low, Relu 64 + 64 f32.
        self.assertAlmostEqual(m["low_fraction"], 224 / 352)

    def test_all_low(self):
        m = measure(from_onnx(self.model(False)))
        self.assertEqual((m["casts"], m["low_fraction"]), (1, 1.0))


class Torch(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 16),
                                       torch.nn.ReLU(),
                                       torch.nn.Linear(16, 4)).eval()
        self.x = torch.randn(2, 8)

    def trace(self, dtype=None):
        with torch.no_grad(), torch.autocast("cpu", dtype=dtype or
                                             torch.bfloat16,
                                             enabled=dtype is not None):
            return from_fx(make_fx(self.net)(self.x))

    def test_fp32(self):
        m = measure(self.trace())
        self.assertEqual((m["casts"], m["low_fraction"]), (0, 0.0))
        self.assertGreater(m["float_elements"], 0)

    def test_autocast(self):
        for dtype in (torch.bfloat16, torch.float16):
            g = self.trace(dtype)
            m = measure(g)
            addmm = [o for o in g.ops if "addmm" in o["op"]]
            self.assertEqual(len(addmm), 2)
            self.assertTrue(all(o["contraction"] for o in addmm))
            # Autocast casts every weight and bias at each call: 8*16 + 16
            # + 16*4 + 4 elements, 4 + 2 bytes each.
            self.assertEqual(m["const_bytes_converted"], (128 + 16 + 64 + 4)
                             * 6)
            # The input is cast once; t() of the weights is a view.
            self.assertEqual(m["casts"], 5)
            self.assertEqual(m["low_fraction"], 1.0)
            low = "bf16" if dtype == torch.bfloat16 else "f16"
            self.assertEqual(g.values[g.outputs[0]][0], low)


    def test_pure_half(self):
        # torch-pure-half's call (systems.pure_half): the weights converted
        # once, with the module, so the trace converts the input at the
        # entry and the output at the exit, nothing else; everything
        # computed is stored low.
        from systems import _trace, pure_half
        for dtype, low in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
            net = torch.nn.Sequential(torch.nn.Linear(8, 16),
                                      torch.nn.ReLU(),
                                      torch.nn.Linear(16, 4)).eval()
            forward = pure_half(net, dtype)
            with torch.no_grad():
                g = from_fx(_trace(forward, self.x))
                y = forward(self.x)
            self.assertEqual(y.dtype, torch.float32)
            m = measure(g)
            self.assertEqual((m["casts"], m["casts_to_low"],
                              m["casts_from_low"]), (2, 1, 1))
            self.assertEqual(m["bytes_converted"], (2 * 8 + 2 * 4) * 6)
            self.assertEqual(m["const_bytes_converted"], 0)
            self.assertEqual(m["low_fraction"], 1.0)
            self.assertEqual(g.values[g.outputs[0]][0], "f32")
            weights = [v for v in g.values.values() if v[2]]
            self.assertTrue(weights)
            self.assertTrue(all(v[0] == low for v in weights), weights)


class Inductor(unittest.TestCase):
    """graph_inductor.py on what torch.compile generates for the MLP under
    autocast bf16 (Inductor's CPU code generation: needs a C++
    compiler)."""

    def test_kernels(self):
        import torch._inductor.config as inductor_config
        from graph_inductor import Capture
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                  torch.nn.Linear(16, 4)).eval()
        x = torch.randn(2, 8)
        inductor_config.fx_graph_cache = False
        torch._dynamo.reset()

        def forward(inputs):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return net(inputs)

        with Capture(net) as capture:
            compiled = torch.compile(forward, backend=capture.backend,
                                     fullgraph=True)
            with torch.no_grad():
                y = compiled(x)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            self.assertTrue(torch.allclose(y.float(), net(x).float(),
                                           rtol=1e-2, atol=1e-2))
        self.assertEqual(len(capture.graphs), 1)
        g = capture.graphs[0]
        contractions = [o for o in g.ops if o["contraction"]]
        self.assertEqual(len(contractions), 2)
        for op in contractions:
            self.assertTrue(all(g.values[v][0] == "bf16"
                                for v in op["inputs"] + op["outputs"]))
        m = measure(g)
        # The input and the four weights and biases, converted at each
        # call by kernels of their own; the ReLU between the matmuls reads
        # and writes bf16 (no conversion around it).
        self.assertEqual(m["casts"], 5)
        self.assertEqual(m["const_bytes_converted"],
                         (128 + 16 + 64 + 4) * 6)
        self.assertEqual(m["bytes_converted"] - m["const_bytes_converted"],
                         16 * 6)
        self.assertEqual(m["low_fraction"], 1.0)
        self.assertEqual(g.values[g.outputs[0]][0], "bf16")

if __name__ == "__main__":
    unittest.main(verbosity=1)
