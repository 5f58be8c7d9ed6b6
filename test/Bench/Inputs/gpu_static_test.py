"""Unit tests of bench/gpu/gpustatic.py (the parsing behind
bench/gpu/run.py --static), on small texts in the formats of amp-opt,
ptxas -v and amp-run --target=gpu-sim. Run by test/Bench/gpu-static-unit.test."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(sys.argv.pop(1) if len(sys.argv) > 1
                                else ".", "bench", "gpu"))
import gpustatic as g  # noqa: E402

PTX = (".version 8.0\n.target sm_90\n.address_size 64\n\n"
       "\t// .globl\tk\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n"
       ".maxntid 256, 1, 1\n{\n\tret;\n\n}\n")

# What MLIR prints: newlines and tabs as \0A and \09, a quote as \22.
BINARY = ('  gpu.binary @m_kernel_3  [#gpu.object<#nvvm.target<O = 3, chip = '
          '"sm_90">, properties = {O = 3 : i32}, assembly = "'
          + PTX.replace("\n", "\\0A").replace("\t", "\\09")
          + '// \\22q\\22\\0A">]\n')

HOST = """module attributes {gpu.container_module} {
  llvm.func @f(%arg0: !llvm.ptr) {
    %0 = llvm.mlir.constant(1 : index) : i64
    %1 = llvm.mlir.constant(256 : index) : i64
    %2 = llvm.mlir.constant(4 : index) : i64
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    gpu.launch_func <%s : !llvm.ptr> @m_kernel_3::@m_kernel blocks in (%2, %0, %0) threads in (%1, %0, %0) : i64 args(%arg0 : !llvm.ptr)
    gpu.launch_func <%s : !llvm.ptr> @m_kernel_4::@m_kernel blocks in (%1, %0, %0) threads in (%0, %0, %0) : i64 args(%arg0 : !llvm.ptr)
    llvm.call @ampGpuGemm(%0) : (i64) -> ()
    llvm.call @ampGpuConstant(%0) : (i64) -> ()
    llvm.call @ampGpuConv2d(%0) : (i64) -> ()
    llvm.call @ampGpuGemm(%0) : (i64) -> ()
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @g(%arg0: !llvm.ptr, %n: i64) {
    %0 = llvm.mlir.constant(1 : index) : i64
    gpu.launch_func @m_kernel_5::@m_kernel blocks in (%0, %0, %0) threads in (%n, %0, %0) : i64 args(%arg0 : !llvm.ptr)
    llvm.return
  }
  llvm.func @ampGpuGemm(i64)
""" + BINARY + "}\n"

PTXAS = """ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 20 registers, used 1 barriers, 4 bytes smem
ptxas info    : Compile time = 26.091 ms
"""

SIM = ("result 0: tensor<4xf32>\n"
       "gpu-sim: 24 kernel launches (10080 threads), 8 library calls, 26 "
       "device allocations, 26 frees, 0 live, peak 28992 bytes, 7 "
       "synchronizations\n")


class GpuStaticTest(unittest.TestCase):
    def test_decode(self):
        self.assertEqual(g.decode_mlir_string(r"a\0Ab\09\22c\22\5C"),
                         'a\nb\t"c"\\')
        self.assertEqual(g.decode_mlir_string(r'\\ \"'), '\\ "')

    def test_extract_kernels(self):
        kernels = g.extract_kernels(HOST)
        self.assertEqual([k[0] for k in kernels], ["m_kernel_3"])
        self.assertEqual(kernels[0][1], PTX + '// "q"\n')

    def test_ptx_block_size(self):
        self.assertEqual(g.ptx_block_size(PTX), 256)
        self.assertEqual(g.ptx_block_size(".maxntid 32, 4, 2\n"), 256)
        self.assertEqual(g.ptx_block_size(".maxntid 1024\n.reqntid 32\n"), 32)
        self.assertIsNone(g.ptx_block_size(".entry k()\n{\n}\n"))

    def test_parse_ptxas(self):
        funcs = g.parse_ptxas(PTXAS)
        self.assertEqual(funcs["k"]["registers"], 20)
        self.assertEqual(funcs["k"]["barriers"], 1)
        self.assertEqual(funcs["k"]["smem"], 4)
        self.assertIsNone(funcs["helper"]["registers"])
        self.assertEqual(funcs["helper"]["spill_stores"], 4)
        stats = g.kernel_stats(funcs)
        self.assertEqual(stats, {"registers": 20, "spill_bytes": 8,
                                 "stack": 8, "smem": 4, "barriers": 1})

    def test_host_launches(self):
        launches = g.host_launches(HOST)
        self.assertEqual([(l["function"], l["binary"], l["threads"])
                          for l in launches],
                         [("f", "m_kernel_3", 256), ("f", "m_kernel_4", 1),
                          ("g", "m_kernel_5", None)])

    def test_library_calls(self):
        self.assertEqual(g.library_calls(HOST),
                         {"ampGpuGemm": 2, "ampGpuConv2d": 1})
        self.assertEqual(g.host_syncs(HOST), 1)

    def test_parse_gpu_sim(self):
        sim = g.parse_gpu_sim(SIM)
        self.assertEqual(sim["launches"], 24)
        self.assertEqual(sim["threads"], 10080)
        self.assertEqual(sim["library_calls"], 8)
        self.assertEqual(sim["peak_bytes"], 28992)
        self.assertEqual(sim["syncs"], 7)
        self.assertIsNone(g.parse_gpu_sim("no simulator here\n"))

    def test_entry_results(self):
        text = ("func.func @a(%x: tensor<2x3xf32> {amp.master}) -> "
                "tensor<2xf32> {\n}\n"
                "func.func @b(%x: tensor<2xf32>) -> (tensor<f32>, tensor<i32>,"
                "\n    tensor<4xf32>) attributes {a = 1} {\n}\n"
                "func.func private @c(%x: tensor<2xf32>) {\n}\n")
        self.assertEqual(g.entry_results(text), 1)
        self.assertEqual(g.entry_results(text, "b"), 3)
        self.assertEqual(g.entry_results(text, "c"), 0)
        self.assertIsNone(g.entry_results(text, "d"))

    def test_summarize(self):
        launches = g.host_launches(HOST)
        stats = {"m_kernel_3": g.kernel_stats(g.parse_ptxas(PTXAS))}
        # m_kernel_5's block size is dynamic on the host; its PTX says 64.
        row = g.summarize(launches, {"m_kernel_3": 256, "m_kernel_5": 64},
                          stats, g.library_calls(HOST), g.parse_gpu_sim(SIM),
                          results=2, host_syncs=g.host_syncs(HOST))
        self.assertEqual(row["kernels"], 1)
        self.assertEqual(row["launch_sites"], 3)
        self.assertEqual(row["dynamic_block_sizes"], 0)
        self.assertEqual((row["threads_min"], row["threads_median"],
                          row["threads_max"]), (1, 64, 256))
        self.assertEqual(row["one_thread_launches"], 1)
        self.assertEqual(row["library_calls"], 3)
        self.assertEqual(row["registers_max"], 20)
        self.assertEqual(row["spill_bytes"], 8)
        self.assertEqual(row["launches_per_call"], 24)
        # 7 synchronizations, amp-run's 2 + 2 results taken off.
        self.assertEqual(row["syncs_per_call"], 3)
        row = g.summarize(launches, {}, {}, {}, None)
        self.assertEqual(row["dynamic_block_sizes"], 1)
        self.assertIsNone(row["syncs_per_call"])
        self.assertIsNone(row["registers_max"])


if __name__ == "__main__":
    unittest.main()
