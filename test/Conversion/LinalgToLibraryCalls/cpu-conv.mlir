// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --canonicalize \
// RUN:     --split-input-file --mlir-print-op-on-diagnostic=false \
// RUN:     -verify-diagnostics | FileCheck %s

// target=cpu: 2-D convolutions become ampCpuLibraryConv2d (im2col and the
// CBLAS GEMM in the runtime), with the arguments of ampGpuConv2d: layout,
// n, c, h, w, f, kh, kw, oh, ow, padTop, padLeft, strideH, strideW, dilH,
// dilW, groups (1), x, xType, wt, wType, y, yType, beta. A zero-padded
// input (tensor.pad bufferized: a zero-filled buffer and a copy of the
// source into a subview of it) is read in place with padTop/padLeft when
// the padding is the same on both sides of H and W (@padded_*); any other
// padding stays a separate copy (padTop = padLeft = 0).

// NCHW/FCHW (torch-mlir's form) in f32, strides and dilations, zero-filled
// output: layout 0, beta = 0, the fill is gone.
// CHECK-LABEL: func.func @nchw_f32
// CHECK-DAG: %[[ZERO32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[ZERO64:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 7 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 13 : i64
// CHECK-DAG: %[[W:.*]] = arith.constant 11 : i64
// CHECK-DAG: %[[F:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[KH:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[KW:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[OH:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[OW:.*]] = arith.constant 9 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: llvm.call @ampCpuLibraryConv2d(%[[ZERO32]], %[[N]], %[[C]], %[[H]], %[[W]], %[[F]], %[[KH]], %[[KW]], %[[OH]], %[[OW]], %[[ZERO64]], %[[ZERO64]], %[[KW]], %[[ONE]], %[[ONE]], %[[KW]], %[[ONE]], %{{.*}}, %[[ZERO32]], %{{.*}}, %[[ZERO32]], %{{.*}}, %[[ZERO32]], %[[BETA]])
// CHECK-NOT: linalg.
// CHECK: return
// CHECK: llvm.func @ampCpuLibraryConv2d(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, f32) attributes {sym_visibility = "private"}
func.func @nchw_f32(%x: memref<5x7x13x11xf32>, %w: memref<4x7x3x2xf32>, %y: memref<5x4x6x9xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<5x4x6x9xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
    ins(%x, %w : memref<5x7x13x11xf32>, memref<4x7x3x2xf32>) outs(%y : memref<5x4x6x9xf32>)
  return
}

// -----

// A dynamic batch (the frontends' import) in f16 whose f32 accumulator is
// only narrowed: the batch is read from the output the call writes (an f16
// buffer of the erased conversion), yType = 1 (f16), one rounding.
// CHECK-LABEL: func.func @nchw_f16_dynamic_batch_narrowed
// CHECK-SAME: (%[[X:.*]]: memref<?x8x6x6xf16>, %{{.*}}: memref<16x8x1x1xf16>, %[[OUT:.*]]: memref<?x16x6x6xf16>)
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[DIM:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?x16x6x6xf16>
// CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %[[N]], {{.*}}, %[[F16]], %{{.*}}, %[[F16]], %{{.*}}, %[[F16]], %[[BETA]])
// CHECK-NOT: linalg.
// CHECK-NOT: xf32
// CHECK: return
func.func @nchw_f16_dynamic_batch_narrowed(%x: memref<?x8x6x6xf16>, %w: memref<16x8x1x1xf16>, %out: memref<?x16x6x6xf16>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8x6x6xf16>
  %acc = memref.alloc(%n) : memref<?x16x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<?x16x6x6xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<?x8x6x6xf16>, memref<16x8x1x1xf16>) outs(%acc : memref<?x16x6x6xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<?x16x6x6xf32>) outs(%out : memref<?x16x6x6xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  }
  memref.dealloc %acc : memref<?x16x6x6xf32>
  return
}

// -----

// NHWC/HWCF in bf16 with an f32 result that is kept (returned): layout 1,
// xType = wType = 2 (bf16), yType = 0 (f32), no fill: beta = 1.
// CHECK-LABEL: func.func @nhwc_hwcf_bf16_f32_result
// CHECK-DAG: %[[F32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[HWCF:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[F:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: llvm.call @ampCpuLibraryConv2d(%[[HWCF]], %{{.*}}, %[[C]], %{{.*}}, %{{.*}}, %[[F]], %[[K]], %[[K]], {{.*}}, %[[BF16]], %{{.*}}, %[[BF16]], %{{.*}}, %[[F32]], %[[BETA]])
// CHECK-NOT: linalg.
func.func @nhwc_hwcf_bf16_f32_result(%x: memref<1x9x9x5xbf16>, %w: memref<3x3x5x6xbf16>, %y: memref<1x7x7x6xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x9x9x5xbf16>, memref<3x3x5x6xbf16>) outs(%y : memref<1x7x7x6xf32>)
  return
}

// -----

// NHWC/FHWC (what tosa.conv2d lowers to), whose narrowing is fused with a
// bias add and a ReLU: layout 2; the call writes an f16 buffer that the
// epilogue reads in place of its truncf.
// CHECK-LABEL: func.func @nhwc_fhwc_fused_epilogue
// CHECK-DAG: %[[FHWC:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[F:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<1x4x4x8xf16>
// CHECK: llvm.call @ampCpuLibraryConv2d(%[[FHWC]], %{{.*}}, %[[C]], %{{.*}}, %{{.*}}, %[[F]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]], %[[TWO]], {{.*}}, %[[F16]], %{{.*}}, %[[F16]], %{{.*}}, %[[F16]], %{{.*}})
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]], %{{.*}} : memref<1x4x4x8xf16>, memref<8xf16>)
// CHECK-NOT: arith.truncf
// CHECK-NOT: f32>
func.func @nhwc_fhwc_fused_epilogue(%x: memref<1x9x9x4xf16>, %w: memref<8x3x3x4xf16>, %bias: memref<8xf16>, %out: memref<1x4x4x8xf16>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<1x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<1x4x4x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x9x9x4xf16>, memref<8x3x3x4xf16>) outs(%acc : memref<1x4x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : memref<1x4x4x8xf32>, memref<8xf16>) outs(%out : memref<1x4x4x8xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %b : f16
    %z = arith.constant 0.0 : f16
    %r = arith.maximumf %s, %z : f16
    linalg.yield %r : f16
  }
  memref.dealloc %acc : memref<1x4x4x8xf32>
  return
}

// -----

// Only the batch may be dynamic: a dynamic image size stays loops.
// CHECK-LABEL: func.func @dynamic_image_stays_loops
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: llvm.call
func.func @dynamic_image_stays_loops(%x: memref<1x3x?x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x?x6xf32>) {
  // expected-remark @+1 {{amp: kept as loops, not a library call: only the batch of a convolution may be dynamic}}
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x3x?x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x?x6xf32>)
  return
}

// -----

// A non-contiguous input (a strided view) and mixed types stay loops.
// CHECK-LABEL: func.func @strided_and_mixed_stay_loops
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NOT: llvm.call
func.func @strided_and_mixed_stay_loops(%x: memref<1x3x8x8xf32, strided<[384, 128, 16, 1]>>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>,
                                        %hx: memref<1x8x8x3xf16>, %hw: memref<3x3x3x4xf32>, %hy: memref<1x6x6x4xf32>) {
  // expected-remark @+1 {{amp: kept as loops, not a library call: convolution operands must be contiguous}}
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x3x8x8xf32, strided<[384, 128, 16, 1]>>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32>)
  // expected-remark @+1 {{amp: kept as loops, not a library call: element types must be f16, bf16 or f32 operands of one type and an f32 or same-typed result}}
  linalg.conv_2d_nhwc_hwcf ins(%hx, %hw : memref<1x8x8x3xf16>, memref<3x3x3x4xf32>) outs(%hy : memref<1x6x6x4xf32>)
  return
}

// -----

// tensor.pad's zeros around H and W, 1 on each side (torch-mlir's
// padding=1): the call reads the source %x in place, h = w = 16,
// padTop = padLeft = 1; the padded buffer, its fill and the copy are gone.
// CHECK-LABEL: func.func @padded_nchw
// CHECK-SAME: (%[[X:.*]]: memref<1x8x16x16xf16>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[F:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 3 : i64
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.map
// CHECK: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %[[ONE]], %[[C]], %[[H]], %[[H]], %[[F]], %[[K]], %[[K]], %[[H]], %[[H]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]],
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @padded_nchw(%x: memref<1x8x16x16xf16>, %w: memref<4x8x3x3xf16>, %y: memref<1x4x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  %p = memref.alloc() : memref<1x8x18x18xf16>
  linalg.map outs(%p : memref<1x8x18x18xf16>) (%init: f16) { linalg.yield %zero16 : f16 }
  %inner = memref.subview %p[0, 0, 1, 1] [1, 8, 16, 16] [1, 1, 1, 1] : memref<1x8x18x18xf16> to memref<1x8x16x16xf16, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %x, %inner : memref<1x8x16x16xf16> to memref<1x8x16x16xf16, strided<[2592, 324, 18, 1], offset: 19>>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x16x16xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x8x18x18xf16>, memref<4x8x3x3xf16>) outs(%y : memref<1x4x16x16xf32>)
  return
}

// -----

// NHWC (tosa.conv2d's form), padding 2 from a linalg.fill, the source a
// buffer that an earlier op wrote: read in place, padTop = padLeft = 2.
// CHECK-LABEL: func.func @padded_nhwc
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 6 : i64
// CHECK-NOT: memref.copy
// CHECK: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %{{.*}}, %{{.*}}, %[[H]], %[[H]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]], %[[TWO]],
// CHECK: return
func.func @padded_nhwc(%a: memref<1x6x6x3xf32>, %w: memref<5x3x3x3xf32>, %y: memref<1x8x8x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %src = memref.alloc() : memref<1x6x6x3xf32>
  linalg.copy ins(%a : memref<1x6x6x3xf32>) outs(%src : memref<1x6x6x3xf32>)
  %p = memref.alloc() : memref<1x10x10x3xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x10x10x3xf32>)
  %inner = memref.subview %p[0, 2, 2, 0] [1, 6, 6, 3] [1, 1, 1, 1] : memref<1x10x10x3xf32> to memref<1x6x6x3xf32, strided<[300, 30, 3, 1], offset: 66>>
  memref.copy %src, %inner : memref<1x6x6x3xf32> to memref<1x6x6x3xf32, strided<[300, 30, 3, 1], offset: 66>>
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x10x10x3xf32>, memref<5x3x3x3xf32>) outs(%y : memref<1x8x8x5xf32>)
  return
}

// -----

// A dynamic batch (tensor.pad of a frontend's import bufferized: the buffer
// and the subview take the same batch size %n): read in place too, the
// batch read from the output, padTop = padLeft = 1.
// CHECK-LABEL: func.func @padded_dynamic_batch
// CHECK-SAME: (%[[X:.*]]: memref<?x8x16x16xf16>, %{{.*}}: memref<4x8x3x3xf16>, %[[Y:.*]]: memref<?x4x16x16xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 8 : i64
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.map
// CHECK: %[[DIM:.*]] = memref.dim %[[Y]], %{{.*}} : memref<?x4x16x16xf32>
// CHECK: %[[N:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %[[N]], %[[C]], %[[H]], %[[H]], %{{.*}}, %{{.*}}, %{{.*}}, %[[H]], %[[H]], %[[ONE]], %[[ONE]],
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @padded_dynamic_batch(%x: memref<?x8x16x16xf16>, %w: memref<4x8x3x3xf16>, %y: memref<?x4x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8x16x16xf16>
  %p = memref.alloc(%n) : memref<?x8x18x18xf16>
  linalg.map outs(%p : memref<?x8x18x18xf16>) (%init: f16) { linalg.yield %zero16 : f16 }
  %inner = memref.subview %p[0, 0, 1, 1] [%n, 8, 16, 16] [1, 1, 1, 1] : memref<?x8x18x18xf16> to memref<?x8x16x16xf16, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %x, %inner : memref<?x8x16x16xf16> to memref<?x8x16x16xf16, strided<[2592, 324, 18, 1], offset: 19>>
  linalg.fill ins(%zero : f32) outs(%y : memref<?x4x16x16xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<?x8x18x18xf16>, memref<4x8x3x3xf16>) outs(%y : memref<?x4x16x16xf32>)
  return
}

// -----

// A dynamic batch that the subview does not provably cover (its size is
// another value than the buffer's): the copy stays, and the call reads the
// padded buffer (padTop = padLeft = 0).
// CHECK-LABEL: func.func @padded_dynamic_batch_other_size
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: memref.copy
// CHECK: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z]], %[[Z]],
func.func @padded_dynamic_batch_other_size(%x: memref<?x8x16x16xf16>, %w: memref<4x8x3x3xf16>, %y: memref<?x4x16x16xf32>, %m: index) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x8x16x16xf16>
  %p = memref.alloc(%m) : memref<?x8x18x18xf16>
  linalg.map outs(%p : memref<?x8x18x18xf16>) (%init: f16) { linalg.yield %zero16 : f16 }
  %inner = memref.subview %p[0, 0, 1, 1] [%n, 8, 16, 16] [1, 1, 1, 1] : memref<?x8x18x18xf16> to memref<?x8x16x16xf16, strided<[2592, 324, 18, 1], offset: 19>>
  memref.copy %x, %inner : memref<?x8x16x16xf16> to memref<?x8x16x16xf16, strided<[2592, 324, 18, 1], offset: 19>>
  linalg.fill ins(%zero : f32) outs(%y : memref<?x4x16x16xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<?x8x18x18xf16>, memref<4x8x3x3xf16>) outs(%y : memref<?x4x16x16xf32>)
  return
}

// -----

// Padding the call cannot express stays a copy, and the call reads the
// padded buffer (padTop = padLeft = 0): 1 above and 2 below (asymmetric);
// zeros around the channels; a fill that is not zero; a source written
// between the copy and the convolution.
// CHECK-LABEL: func.func @padded_asymmetric
// CHECK: memref.copy
// CHECK: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z:.*]], %[[Z]],
func.func @padded_asymmetric(%x: memref<1x2x4x4xf32>, %w: memref<1x2x3x3xf32>, %y: memref<1x1x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2x7x7xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x2x7x7xf32>)
  %inner = memref.subview %p[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x4x4xf32, strided<[98, 49, 7, 1], offset: 8>>
  memref.copy %x, %inner : memref<1x2x4x4xf32> to memref<1x2x4x4xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %w : memref<1x2x7x7xf32>, memref<1x2x3x3xf32>) outs(%y : memref<1x1x3x3xf32>)
  return
}

// CHECK-LABEL: func.func @padded_channels
// CHECK: memref.copy
// CHECK: llvm.call @ampCpuLibraryConv2d
func.func @padded_channels(%x: memref<1x2x4x4xf32>, %w: memref<1x4x3x3xf32>, %y: memref<1x1x2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x4x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x4x4x4xf32>)
  %inner = memref.subview %p[0, 1, 0, 0] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x4x4x4xf32> to memref<1x2x4x4xf32, strided<[64, 16, 4, 1], offset: 16>>
  memref.copy %x, %inner : memref<1x2x4x4xf32> to memref<1x2x4x4xf32, strided<[64, 16, 4, 1], offset: 16>>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x4x4x4xf32>, memref<1x4x3x3xf32>) outs(%y : memref<1x1x2x2xf32>)
  return
}

// CHECK-LABEL: func.func @padded_with_ones
// CHECK: memref.copy
// CHECK: llvm.call @ampCpuLibraryConv2d
func.func @padded_with_ones(%x: memref<1x2x4x4xf32>, %w: memref<1x2x3x3xf32>, %y: memref<1x1x4x4xf32>) {
  %one = arith.constant 1.0 : f32
  %p = memref.alloc() : memref<1x2x6x6xf32>
  linalg.fill ins(%one : f32) outs(%p : memref<1x2x6x6xf32>)
  %inner = memref.subview %p[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x6x6xf32> to memref<1x2x4x4xf32, strided<[72, 36, 6, 1], offset: 7>>
  memref.copy %x, %inner : memref<1x2x4x4xf32> to memref<1x2x4x4xf32, strided<[72, 36, 6, 1], offset: 7>>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x2x6x6xf32>, memref<1x2x3x3xf32>) outs(%y : memref<1x1x4x4xf32>)
  return
}

// CHECK-LABEL: func.func @padded_source_overwritten
// CHECK: memref.copy
// CHECK: llvm.call @ampCpuLibraryConv2d
func.func @padded_source_overwritten(%x: memref<1x2x4x4xf32>, %w: memref<1x2x3x3xf32>, %y: memref<1x1x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2x6x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x2x6x6xf32>)
  %inner = memref.subview %p[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : memref<1x2x6x6xf32> to memref<1x2x4x4xf32, strided<[72, 36, 6, 1], offset: 7>>
  memref.copy %x, %inner : memref<1x2x4x4xf32> to memref<1x2x4x4xf32, strided<[72, 36, 6, 1], offset: 7>>
  linalg.fill ins(%zero : f32) outs(%x : memref<1x2x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x2x6x6xf32>, memref<1x2x3x3xf32>) outs(%y : memref<1x1x4x4xf32>)
  return
}
