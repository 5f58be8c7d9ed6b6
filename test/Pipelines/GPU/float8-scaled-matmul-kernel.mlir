// An amp.scaled_matmul that cuBLASLt does not take (n = 8, not a multiple
// of 16) stays one op through the library calls, with a remark, and
// amp-float8-scaling-to-linalg makes it loops on buffers: generated
// kernels (a matmul into an f32 buffer, a kernel that scales and rounds to
// bf16), no call. The CPU pipeline without library calls lowers it on
// tensors to loops as well.
// RUN: amp-opt %s --lower-to-gpu="format=isa" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: amp-opt %s --lower-to-gpu="format=isa" --mlir-print-ir-after=amp-float8-scaling-to-linalg -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --lower-to-gpu="format=isa" -o - 2>/dev/null | FileCheck %s --check-prefix=LOWERED
// RUN: amp-opt %s --lower-to-cpu="libraries=false" -o - 2>&1 | FileCheck %s --check-prefix=CPU

// REMARK: remark: amp: kept as a generated kernel, not a library call: an FP8 GEMM on the GPU needs k and n multiples of 16 (cuBLASLt)
// The IR after the pass on buffers (the one on tensors leaves the op).
// CHECK: IR Dump After AmpFloat8ScalingToLinalgPass
// CHECK: amp.scaled_matmul {{.*}} -> tensor<16x8xbf16>
// CHECK: IR Dump After AmpFloat8ScalingToLinalgPass
// CHECK-NEXT: func.func @refused(%{{.*}}: memref
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<16x8xf32>
// CHECK: linalg.fill {{.*}} outs(%[[ACC]] : memref<16x8xf32>)
// CHECK: linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : memref<16x32xf8E4M3FN>, memref<8x32xf8E4M3FN>) outs(%[[ACC]] : memref<16x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[ACC]] : memref<f32>, memref<16x8xf32>) outs(%{{.*}} : memref<16x8xbf16>)
// LOWERED-NOT: ampGpuScaledGemm
// LOWERED: gpu.launch_func
// CPU-NOT: remark
// CPU-NOT: ampCpuLibraryScaledGemm
// CPU-LABEL: llvm.func @refused
func.func @refused(%a: tensor<16x32xf8E4M3FN>, %b: tensor<8x32xf8E4M3FN>, %s: tensor<f32>) -> tensor<16x8xbf16> {
  %e = tensor.empty() : tensor<16x8xbf16>
  %y = amp.scaled_matmul ins(%a, %b : tensor<16x32xf8E4M3FN>, tensor<8x32xf8E4M3FN>)
      scale(%s : tensor<f32>) outs(%e : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %y : tensor<16x8xbf16>
}
