// Dynamic batch sizes: the matmul is a cuBLAS call whose sizes are read
// from the buffers' descriptors at run time, the rest maps to kernels with
// grids computed at run time, and no host code touches a device buffer.
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" \
// RUN:     --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// Executed in the GPU simulator against the CPU, for batches of 1, 37
// (not a multiple of any block size) and 300.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-run %s --level=O2 --dynamic-size 1 --target=cpu --outputs %t/c1.npy
// RUN: amp-run %s --level=O2 --dynamic-size 1 --target=gpu-sim --outputs %t/s1.npy | FileCheck %s --check-prefix=SIM
// RUN: %python %amp_src_root/test/amp-run/Inputs/compare-npy.py 1e-3 %t/s1.npy %t/c1.npy | FileCheck %s --check-prefix=CMP
// RUN: amp-run %s --level=O2 --dynamic-size 37 --target=cpu --outputs %t/c37.npy
// RUN: amp-run %s --level=O2 --dynamic-size 37 --target=gpu-sim --outputs %t/s37.npy | FileCheck %s --check-prefix=SIM
// RUN: %python %amp_src_root/test/amp-run/Inputs/compare-npy.py 1e-3 %t/s37.npy %t/c37.npy | FileCheck %s --check-prefix=CMP
// RUN: amp-run %s --level=O2 --dynamic-size 300 --target=cpu --outputs %t/c300.npy
// RUN: amp-run %s --level=O2 --dynamic-size 300 --target=gpu-sim --outputs %t/s300.npy | FileCheck %s --check-prefix=SIM
// RUN: %python %amp_src_root/test/amp-run/Inputs/compare-npy.py 1e-3 %t/s300.npy %t/c300.npy | FileCheck %s --check-prefix=CMP

// CHECK-NOT: remark: amp: kept as a generated kernel
// CHECK-LABEL: llvm.func @dyn
// CHECK: llvm.call @ampGpuGemm
// CHECK-NOT: error
// SIM: gpu-sim: {{[0-9]+}} kernel launches ({{[0-9]+}} threads), 1 library calls, [[N:[0-9]+]] device allocations, [[N]] frees, 0 live
// CMP: output 0: rel L2 {{.*}} ok
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
