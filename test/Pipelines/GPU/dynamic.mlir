// Dynamic batch sizes: the matmul stays a generated kernel (a remark says
// why), everything maps to kernels with grids computed at run time, and no
// host code touches a device buffer.
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" \
// RUN:     --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

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
