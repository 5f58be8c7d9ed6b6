// Issue #16: math.sqrt, math.rsqrt and f32 division in kernels are correctly
// rounded, as on the CPU: sqrt.rn.f32 and div.rn.f32 in the PTX, never
// libdevice's default sqrt.approx.f32 (__CUDA_PREC_SQRT reads 0) nor
// div.approx/div.full.
// RUN: amp-opt %s --lower-to-gpu="format=isa" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=NOAPPROX < %t.mlir

// One kernel per op: sqrt, rsqrt (a correctly rounded reciprocal of the
// correctly rounded root, as 1/sqrt on the CPU), division, f16 sqrt (on the
// value widened to f32, narrowed once).
// CHECK: gpu.binary @math_kernel [{{.*}}sqrt.rn.f32
// CHECK: gpu.binary @math_kernel_0 [{{.*}}sqrt.rn.f32 {{.*}}rcp.rn.f32
// CHECK: gpu.binary @math_kernel_1 [{{.*}}div.rn.f32
// CHECK: gpu.binary @math_kernel_2 [{{.*}}cvt.f32.f16 {{.*}}sqrt.rn.f32 {{.*}}cvt.rn.f16.f32
// NOAPPROX-NOT: sqrt.approx
// NOAPPROX-NOT: rsqrt.approx
// NOAPPROX-NOT: div.approx
// NOAPPROX-NOT: div.full
// NOAPPROX-NOT: rcp.approx
// NOAPPROX-NOT: __nv_sqrtf
// NOAPPROX: llvm.func @math
func.func @math(%x: tensor<64xf32>, %y: tensor<64xf32>, %h: tensor<64xf16>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf16>) {
  %s = math.sqrt %x : tensor<64xf32>
  %r = math.rsqrt %y : tensor<64xf32>
  %d = arith.divf %x, %y : tensor<64xf32>
  %hs = math.sqrt %h : tensor<64xf16>
  return %s, %r, %d, %hs : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf16>
}
