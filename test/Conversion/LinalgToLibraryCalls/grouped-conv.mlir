// RUN: amp-opt %s --amp-linalg-to-library-calls --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s --check-prefix=GPU
// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=CPU

// Grouped and depthwise convolutions are the convolution calls with a group
// count (the argument after the dilations): each named form is the call's
// convolution on the same bytes, its channels split into (groups, channels
// per group) and its filter f x c/groups x kh x kw in the layout's order.

// conv_2d_ngchw_gfchw (torch-mlir's groups): x 2x(4x3)x8x8, filter
// (4x2)x3x3x3, y 2x(4x2)x6x6: layout 0, n 2, c 12, h 8, w 8, f 8, kh 3,
// kw 3, oh 6, ow 6, no padding, stride 1, dilation 1, groups 4; f16
// operands (1) into f32 (0).
// GPU-LABEL: func.func @ngchw_gfchw
// GPU: call @ampGpuConv2d(%c0_i32, %c2_i64, %c12_i64, %c8_i64, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c6_i64, %c6_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c4_i64, %{{.*}}, %c1_i32, %{{.*}}, %c1_i32, %{{.*}}, %c0_i32,
// GPU-NOT: linalg.conv
// CPU-LABEL: func.func @ngchw_gfchw
// CPU: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %{{.*}}, %[[C:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[G:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CPU-NOT: linalg.conv
func.func @ngchw_gfchw(%x: memref<2x4x3x8x8xf16>, %w: memref<4x2x3x3x3xf16>, %y: memref<2x4x2x6x6xf32>) {
  linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<2x4x3x8x8xf16>, memref<4x2x3x3x3xf16>) outs(%y : memref<2x4x2x6x6xf32>)
  return
}

// -----

// depthwise_conv_2d_nchw_chw (torch-mlir's groups == channels == filters),
// stride 2, dilation 2, a dynamic batch read from the output: c = f =
// groups = 6, kh 3, kw 3, oh 2, ow 2 of 9x9.
// GPU-LABEL: func.func @depthwise_nchw
// GPU: %[[DIM:.*]] = memref.dim %arg2, %c0 : memref<?x6x2x2xf32>
// GPU: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// GPU: call @ampGpuConv2d(%c0_i32, %[[N]], %c6_i64, %c9_i64, %c9_i64, %c6_i64, %c3_i64, %c3_i64, %c2_i64, %c2_i64, %c0_i64, %c0_i64, %c2_i64, %c2_i64, %c2_i64, %c2_i64, %c6_i64,
// GPU-NOT: linalg.depthwise
// CPU-LABEL: func.func @depthwise_nchw
// CPU: llvm.call @ampCpuLibraryConv2d(
// CPU-NOT: linalg.depthwise
func.func @depthwise_nchw(%x: memref<?x6x9x9xf32>, %w: memref<6x3x3xf32>, %y: memref<?x6x2x2xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<?x6x9x9xf32>, memref<6x3x3xf32>) outs(%y : memref<?x6x2x2xf32>)
  return
}

// -----

// The NHWC depthwise forms (tosa.depthwise_conv2d's, with a channel
// multiplier of 2: f = 8) are the HWCF layout (1) with groups = c = 4.
// GPU-LABEL: func.func @depthwise_nhwc
// GPU: call @ampGpuConv2d(%c1_i32, %c1_i64, %c4_i64, %c8_i64, %c8_i64, %c4_i64, %c3_i64, %c3_i64, %c6_i64, %c6_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c4_i64,
// GPU: call @ampGpuConv2d(%c1_i32, %c1_i64, %c4_i64, %c8_i64, %c8_i64, %c8_i64, %c3_i64, %c3_i64, %c6_i64, %c6_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c4_i64,
// GPU-NOT: linalg.depthwise
// CPU-LABEL: func.func @depthwise_nhwc
// CPU-COUNT-2: llvm.call @ampCpuLibraryConv2d(
// CPU-NOT: linalg.depthwise
func.func @depthwise_nhwc(%x: memref<1x8x8x4xbf16>, %w: memref<3x3x4xbf16>, %y: memref<1x6x6x4xf32>,
                          %wm: memref<3x3x4x2xbf16>, %ym: memref<1x6x6x4x2xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x8x4xbf16>, memref<3x3x4xbf16>) outs(%y : memref<1x6x6x4xf32>)
  linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %wm : memref<1x8x8x4xbf16>, memref<3x3x4x2xbf16>) outs(%ym : memref<1x6x6x4x2xf32>)
  return
}

// -----

// conv_2d_nhwgc_gfhwc is the FHWC layout with groups: a call (layout 2,
// c 6, f 4, groups 2); on the GPU, cuDNN's NHWC tensors and KRSC filter.
// GPU-LABEL: func.func @nhwgc_gfhwc
// GPU: call @ampGpuConv2d(%c2_i32, %c1_i64, %c6_i64, %c8_i64, %c8_i64, %c4_i64, %c3_i64, %c3_i64, %c6_i64, %c6_i64, %c0_i64, %c0_i64, %c1_i64, %c1_i64, %c1_i64, %c1_i64, %c2_i64,
// GPU-NOT: linalg.conv
// CPU-LABEL: func.func @nhwgc_gfhwc
// CPU-DAG: %[[TWO32:.*]] = arith.constant 2 : i32
// CPU-DAG: %[[C:.*]] = arith.constant 6 : i64
// CPU-DAG: %[[F:.*]] = arith.constant 4 : i64
// CPU-DAG: %[[G:.*]] = arith.constant 2 : i64
// CPU: llvm.call @ampCpuLibraryConv2d(%[[TWO32]], %{{.*}}, %[[C]], %{{.*}}, %{{.*}}, %[[F]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[G]],
func.func @nhwgc_gfhwc(%x: memref<1x8x8x2x3xf32>, %w: memref<2x2x3x3x3xf32>, %y: memref<1x6x6x2x2xf32>) {
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x8x8x2x3xf32>, memref<2x2x3x3x3xf32>) outs(%y : memref<1x6x6x2x2xf32>)
  return
}

// -----

// Other forms stay loops or kernels with a remark: a filter whose groups
// are not its leading dimension (conv_2d_ngchw_fgchw), 1-D and 3-D
// convolutions. Pooling is not a convolution: no remark.
// GPU-LABEL: func.func @other_forms
// GPU: linalg.conv_2d_ngchw_fgchw
// GPU: linalg.conv_1d_ncw_fcw
// GPU: linalg.pooling_nchw_max
// GPU-NOT: call @ampGpuConv2d
// CPU-LABEL: func.func @other_forms
// CPU: linalg.conv_2d_ngchw_fgchw
// CPU: linalg.conv_1d_ncw_fcw
// CPU-NOT: llvm.call @ampCpuLibraryConv2d
func.func @other_forms(%gx: memref<1x2x3x8x8xf32>, %gw: memref<4x2x3x3x3xf32>, %gy: memref<1x2x4x6x6xf32>,
                       %x1: memref<1x3x8xf32>, %w1: memref<4x3x3xf32>, %y1: memref<1x4x6xf32>,
                       %px: memref<1x4x8x8xf32>, %pw: memref<2x2xf32>, %py: memref<1x4x7x7xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: the convolution calls compute the 2-D convolutions conv_2d_nchw_fchw, conv_2d_nhwc_hwcf, conv_2d_nhwc_fhwc, their grouped forms conv_2d_ngchw_gfchw and conv_2d_nhwgc_gfhwc, and depthwise_conv_2d_nchw_chw, depthwise_conv_2d_nhwc_hwc and depthwise_conv_2d_nhwc_hwcm; not linalg.conv_2d_ngchw_fgchw (1-D, 3-D, quantized, or another filter order)}}
  linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%gx, %gw : memref<1x2x3x8x8xf32>, memref<4x2x3x3x3xf32>) outs(%gy : memref<1x2x4x6x6xf32>)
  // expected-remark @+1 {{not linalg.conv_1d_ncw_fcw}}
  linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
    ins(%x1, %w1 : memref<1x3x8xf32>, memref<4x3x3xf32>) outs(%y1 : memref<1x4x6xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%px, %pw : memref<1x4x8x8xf32>, memref<2x2xf32>) outs(%py : memref<1x4x7x7xf32>)
  return
}
