// Dynamic batch sizes: the matmul stays a generated kernel (a remark says
// why), everything maps to kernels with grids computed at run time, and no
// host code touches a device buffer.
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" \
// RUN:     --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Executed in the GPU simulator against --target=cpu, at batch sizes 1, 37
// and 300 (none a multiple of the block size; 300 rows span several blocks)
// in fp32, and at 37 in O2 f16 (the same roundings on both sides).
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{cmp} = %python %S/../../amp-run/Inputs/compare-npy.py
// RUN: amp-run %s --level=O0 --dynamic-size 1 --target=cpu --outputs %t/1.cpu.npy
// RUN: amp-run %s --level=O0 --dynamic-size 1 --target=gpu-sim --outputs %t/1.sim.npy | FileCheck %s --check-prefix=SIM
// RUN: %{cmp} 1e-5 %t/1.sim.npy %t/1.cpu.npy | FileCheck %s --check-prefix=CMP
// RUN: amp-run %s --level=O0 --dynamic-size 37 --target=cpu --outputs %t/37.cpu.npy
// RUN: amp-run %s --level=O0 --dynamic-size 37 --target=gpu-sim --outputs %t/37.sim.npy | FileCheck %s --check-prefix=SIM
// RUN: %{cmp} 1e-5 %t/37.sim.npy %t/37.cpu.npy | FileCheck %s --check-prefix=CMP
// RUN: amp-run %s --level=O0 --dynamic-size 300 --target=cpu --outputs %t/300.cpu.npy
// RUN: amp-run %s --level=O0 --dynamic-size 300 --target=gpu-sim --outputs %t/300.sim.npy | FileCheck %s --check-prefix=SIM
// RUN: %{cmp} 1e-5 %t/300.sim.npy %t/300.cpu.npy | FileCheck %s --check-prefix=CMP
// RUN: amp-run %s --level=O2 --dynamic-size 37 --target=cpu --outputs %t/37h.cpu.npy
// RUN: amp-run %s --level=O2 --dynamic-size 37 --target=gpu-sim --outputs %t/37h.sim.npy | FileCheck %s --check-prefix=SIM
// RUN: %{cmp} 1e-3 %t/37h.sim.npy %t/37h.cpu.npy | FileCheck %s --check-prefix=CMP
// SIM: gpu-sim: {{[1-9][0-9]*}} kernel launches ({{[0-9]+}} threads), 0 library calls, [[N:[0-9]+]] device allocations, [[N]] frees, 0 live
// CMP: output 0: rel L2 {{.*}} ok

// CHECK: remark: amp: kept as a generated kernel, not a library call: operands must be memrefs of static shape
// CHECK-LABEL: llvm.func @dyn
// CHECK-NOT: llvm.call @ampGpuGemm
// CHECK-COUNT-5: gpu.launch_func
// CHECK-NOT: error
func.func @dyn(%x: tensor<?x32xf32>, %w: tensor<32x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x32xf32>, tensor<32x16xf32>) outs(%init : tensor<?x16xf32>) -> tensor<?x16xf32>
  %r = math.tanh %mm : tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}
