// --lower-to-cpu's `libraries` (on by default): matmuls and batch matmuls
// become calls of the runtime's ampCpuLibraryGemm (the host's CBLAS), and a
// contraction whose f32 accumulator is only narrowed keeps its narrowing:
// the call writes the low type (not tiled into its epilogue's loops, no f32
// result); convolutions stay loops (fused into their epilogue's tiles).
// libraries=false gives the generated loops. Execution against the loops:
// test/amp-run/cpu-library.test.
// RUN: amp-opt %s --split-input-file --lower-to-cpu | FileCheck %s
// RUN: amp-opt %s --split-input-file --lower-to-cpu=libraries=false \
// RUN:   | FileCheck %s --check-prefix=LOOPS
// RUN: not amp-opt %s --lower-to-cpu=libraries=maybe 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// BAD: for the --libraries option: 'maybe' is invalid value for boolean argument!

// O2 bf16 form: bf16 operands, the f32 accumulator only narrowed. The call
// takes aType = bType = cType = 2 (bf16) and beta = 0; nothing allocates
// 16x24 f32 (1536 bytes): the only allocation is the bf16 result (768).
// CHECK-LABEL: llvm.func @narrowed
// CHECK-NOT: llvm.mlir.constant(1536 : index)
// CHECK-DAG: %[[BF16:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[BETA:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK: llvm.call @ampCpuLibraryGemm({{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BF16]], %{{.*}}, %{{.*}}, %[[BETA]])
// CHECK-NOT: llvm.call @ampCpuLibraryGemm
// CHECK: llvm.func @ampCpuLibraryGemm(i32, i32, i64, i64, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, f32)
// LOOPS-LABEL: llvm.func @narrowed
// LOOPS-NOT: ampCpuLibraryGemm
func.func @narrowed(%a: tensor<16x32xbf16>, %b: tensor<32x24xbf16>) -> tensor<16x24xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x24xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xbf16>, tensor<32x24xbf16>) outs(%init : tensor<16x24xf32>) -> tensor<16x24xf32>
  %r = arith.truncf %mm : tensor<16x24xf32> to tensor<16x24xbf16>
  return %r : tensor<16x24xbf16>
}

// -----

// A batch matmul of f16 operands with an f32 result: cType = 0, batch 3.
// CHECK-LABEL: llvm.func @batched
// CHECK-DAG: %[[F32:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[F16:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[B:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK: llvm.call @ampCpuLibraryGemm(%{{.*}}, %{{.*}}, %[[B]], {{.*}}, %[[F16]], {{.*}}, %[[F16]], {{.*}}, %[[F32]], %{{.*}}, %{{.*}}, %{{.*}})
// LOOPS-LABEL: llvm.func @batched
// LOOPS-NOT: ampCpuLibraryGemm
func.func @batched(%a: tensor<3x8x16xf16>, %b: tensor<3x16x4xf16>) -> tensor<3x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x8x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x8x4xf32>) -> tensor<3x8x4xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x8x16xf16>, tensor<3x16x4xf16>) outs(%init : tensor<3x8x4xf32>) -> tensor<3x8x4xf32>
  return %r : tensor<3x8x4xf32>
}

// -----

// A convolution stays loops, with or without libraries.
// CHECK-LABEL: llvm.func @conv
// CHECK-NOT: llvm.call @amp
// CHECK: llvm.return
// LOOPS-LABEL: llvm.func @conv
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}
