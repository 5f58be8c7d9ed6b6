// RUN: amp-opt %s --amp-linalg-to-library-calls --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=CPU
// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=CPUREMARK

// The CPU has no backward call: each op stays, for loops, with the reason.
// CPUREMARK: remark: amp: kept as loops, not a library call: the target's libraries have no counterpart of ampGpuConv2dBackwardData
// CPUREMARK: remark: amp: kept as loops, not a library call: the target's libraries have no counterpart of ampGpuConv2dBackwardFilter

// The input gradient of a strided convolution (f16 operands, an f32
// result into a zero fill: beta = 0, the fill erased) as cuDNN's backward
// data call with the forward geometry: layout 0 (NCHW), n 2, c 3, h 8,
// w 8, f 8, kh 3, kw 3, oh 4, ow 4, padding 1, 1, strides 2, 2, dilations
// 1, 1; dy (f16 = 1), w (f16), dx (f32 = 0).
// CHECK-LABEL: func.func @data
// CHECK-NOT: linalg.fill
// CHECK: call @ampGpuConv2dBackwardData(%c0_i32, %c2_i64, %c3_i64, %c8_i64, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c4_i64, %c4_i64, %c1_i64, %c1_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64, %{{.*}}, %c1_i32, %{{.*}}, %c1_i32, %{{.*}}, %c0_i32, %cst)
// CHECK-NOT: amp.conv2d_backward_data
// CPU-LABEL: func.func @data
// CPU: amp.conv2d_backward_data
func.func @data(%dy: memref<2x8x4x4xf16>, %w: memref<8x3x3x3xf16>, %dx: memref<2x3x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%dx : memref<2x3x8x8xf32>)
  amp.conv2d_backward_data ins(%dy, %w : memref<2x8x4x4xf16>, memref<8x3x3x3xf16>)
      outs(%dx : memref<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
  return
}

// -----

// The filter gradient accumulating into its destination (no fill: beta =
// 1), with stride 2, dilation 2, padding (2, 1) and a non-square kernel: x (bf16 = 2), dy (bf16),
// dw (bf16).
// CHECK-LABEL: func.func @filter
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @ampGpuConv2dBackwardFilter(%c0_i32, %c2_i64, %c3_i64, %c9_i64, %c10_i64, %c5_i64, %c3_i64, %c2_i64, %c5_i64, %c5_i64, %c2_i64, %c1_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c1_i64, %{{.*}}, %c2_i32, %{{.*}}, %c2_i32, %{{.*}}, %c2_i32, %[[ONE]])
// CPU-LABEL: func.func @filter
// CPU: amp.conv2d_backward_filter
func.func @filter(%x: memref<2x3x9x10xbf16>, %dy: memref<2x5x5x5xbf16>, %dw: memref<5x3x3x2xbf16>) {
  amp.conv2d_backward_filter ins(%x, %dy : memref<2x3x9x10xbf16>, memref<2x5x5x5xbf16>)
      outs(%dw : memref<5x3x3x2xbf16>) strides = [2, 2] padding = [2, 1] dilations = [2, 2]
  return
}

// -----

// f32 operands and result.
// CHECK-LABEL: func.func @f32
// CHECK: call @ampGpuConv2dBackwardFilter(
// CPU-LABEL: func.func @f32
// CPU: amp.conv2d_backward_filter
func.func @f32(%x: memref<2x3x8x8xf32>, %dy: memref<2x8x8x8xf32>, %dw: memref<8x3x3x3xf32>) {
  amp.conv2d_backward_filter ins(%x, %dy : memref<2x3x8x8xf32>, memref<2x8x8x8xf32>)
      outs(%dw : memref<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1]
  return
}

// -----

// A dynamic batch, read at each call from the first operand (dy for the
// input gradient, x for the filter gradient); the other sizes static.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-DAG: %[[DYN:.*]] = memref.dim %arg0, %c0 : memref<?x8x4x4xf16>
// CHECK-DAG: %[[DN:.*]] = arith.index_cast %[[DYN]] : index to i64
// CHECK: call @ampGpuConv2dBackwardData(%c0_i32, %[[DN]], %c3_i64, %c8_i64, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c4_i64, %c4_i64,
// CHECK: %[[XN:.*]] = memref.dim %arg3, %c0 : memref<?x3x8x8xf32>
// CHECK: %[[FN:.*]] = arith.index_cast %[[XN]] : index to i64
// CHECK: call @ampGpuConv2dBackwardFilter(%c0_i32, %[[FN]], %c3_i64, %c8_i64, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64,
// CHECK-NOT: amp.conv2d_backward
func.func @dynamic_batch(%dy: memref<?x8x4x4xf16>, %w: memref<8x3x3x3xf16>, %dx: memref<?x3x8x8xf32>,
                         %xd: memref<?x3x8x8xf32>, %dyd: memref<?x8x8x8xf32>, %dw: memref<8x3x3x3xf32>) {
  amp.conv2d_backward_data ins(%dy, %w : memref<?x8x4x4xf16>, memref<8x3x3x3xf16>)
      outs(%dx : memref<?x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
  amp.conv2d_backward_filter ins(%xd, %dyd : memref<?x3x8x8xf32>, memref<?x8x8x8xf32>)
      outs(%dw : memref<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1]
  return
}

// -----

// Operands of different types, and a dynamic size other than the batch,
// stay for kernels.
// CHECK-LABEL: func.func @refused
// CHECK-COUNT-2: amp.conv2d_backward
func.func @refused(%x: memref<2x3x8x8xf16>, %dy: memref<2x8x8x8xf32>, %dw: memref<8x3x3x3xf32>,
                   %xd: memref<2x3x?x8xf32>, %dyd: memref<2x8x?x8xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: element types must be f16, bf16 or f32 operands of one type and an f32 or same-typed result}}
  amp.conv2d_backward_filter ins(%x, %dy : memref<2x3x8x8xf16>, memref<2x8x8x8xf32>)
      outs(%dw : memref<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1]
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: only the batch of a convolution may be dynamic}}
  amp.conv2d_backward_filter ins(%xd, %dyd : memref<2x3x?x8xf32>, memref<2x8x?x8xf32>)
      outs(%dw : memref<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1]
  return
}

// -----

// channels_last (amp-channels-last's form): the same calls with layout 2
// (NHWC/FHWC: cuDNN's NHWC tensors and KRSC filter), the geometry read
// from the channels-last shapes: n dynamic (from dy), c 3, h 8, w 8, f 8,
// kh 3, kw 3, oh 4, ow 4, padding 1, strides 2.
// CHECK-LABEL: func.func @channels_last
// CHECK: %[[N:.*]] = memref.dim %arg0, %c0
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: call @ampGpuConv2dBackwardData(%c2_i32, %[[N64]], %c3_i64, %c8_i64, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c4_i64, %c4_i64, %c1_i64, %c1_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64,
// CHECK: call @ampGpuConv2dBackwardFilter(%c2_i32, %{{.*}}, %c3_i64, %c8_i64, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c4_i64, %c4_i64, %c1_i64, %c1_i64, %c2_i64, %c2_i64, %c1_i64, %c1_i64, %c1_i64,
// CHECK-NOT: amp.conv2d_backward
func.func @channels_last(%dy: memref<?x4x4x8xf16>, %w: memref<8x3x3x3xf16>, %dx: memref<?x8x8x3xf32>,
                         %x: memref<?x8x8x3xf16>, %dw: memref<8x3x3x3xf32>) {
  amp.conv2d_backward_data ins(%dy, %w : memref<?x4x4x8xf16>, memref<8x3x3x3xf16>)
      outs(%dx : memref<?x8x8x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
  amp.conv2d_backward_filter ins(%x, %dy : memref<?x8x8x3xf16>, memref<?x4x4x8xf16>)
      outs(%dw : memref<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
  return
}
