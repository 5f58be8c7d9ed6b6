// --lower-to-cpu's `libraries` (on by default): matmuls and batch matmuls
// become calls of the runtime's ampCpuLibraryGemm (the host's CBLAS), and a
// contraction whose f32 accumulator is only narrowed keeps its narrowing:
// the call writes the low type (not tiled into its epilogue's loops, no f32
// result); so do the 2-D convolutions, as ampCpuLibraryConv2d (im2col in
// the runtime); other convolutions stay loops (fused into their epilogue's
// tiles).
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

// A padded f16 convolution with a dynamic batch, its f32 accumulator read
// by a bias-and-ReLU epilogue: one ampCpuLibraryConv2d (layout 0, 3 -> 4
// channels, xType = wType = 1, beta = 0) computes it whole (not tiled into
// the epilogue); rounding once, it writes f32 (yType = 0), which the
// epilogue's loop nest reads unrounded and rounds where it stores, as for
// matmuls. The call reads the unpadded 8x8 input in place with padTop =
// padLeft = 1: no padded copy, the batch notwithstanding.
// Generated loops with libraries=false.
// CHECK-LABEL: llvm.func @conv
// CHECK-DAG: %[[F16:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[NCHW:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[C:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG: %[[H:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-DAG: %[[F:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG: %[[BETA:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NOT: memrefCopy
// CHECK: llvm.call @ampCpuLibraryConv2d(%[[NCHW]], %{{.*}}, %[[C]], %[[H]], %[[H]], %[[F]], %[[C]], %[[C]], %[[H]], %[[H]], %[[ONE]], %[[ONE]], {{.*}}, %[[F16]], %{{.*}}, %[[F16]], %{{.*}}, %[[NCHW]], %[[BETA]])
// CHECK-NOT: llvm.call @ampCpuLibraryConv2d
// CHECK: llvm.return
// CHECK: llvm.func @ampCpuLibraryConv2d(i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, f32)
// LOOPS-LABEL: llvm.func @conv
// LOOPS-NOT: ampCpuLibrary
// LOOPS: llvm.return
func.func @conv(%x: tensor<?x3x8x8xf16>, %w: tensor<4x3x3x3xf16>, %bias: tensor<4xf16>) -> tensor<?x4x8x8xf16> {
  %zero = arith.constant 0.0 : f32
  %pz = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x8x8xf16>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pz : f16
  } : tensor<?x3x8x8xf16> to tensor<?x3x10x10xf16>
  %e = tensor.empty(%n) : tensor<?x4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : tensor<?x3x10x10xf16>, tensor<4x3x3x3xf16>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %oe = tensor.empty(%n) : tensor<?x4x8x8xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias : tensor<?x4x8x8xf32>, tensor<4xf16>) outs(%oe : tensor<?x4x8x8xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %b : f16
    %m = arith.maximumf %s, %pz : f16
    linalg.yield %m : f16
  } -> tensor<?x4x8x8xf16>
  return %r : tensor<?x4x8x8xf16>
}

// -----

// Two convolutions whose inputs are padded into one shared zero fill (as
// --cse leaves torch-mlir's padding of a backward's gradients):
// amp-prepare-contractions gives each padding a fill of its own, so each
// call reads its unpadded 4x4 source in place with padding 1, and no
// buffer is copied (the shared fill was copied once per padding, then the
// source into it).
// CHECK-LABEL: llvm.func @shared_padding
// CHECK-NOT: memrefCopy
// CHECK-NOT: llvm.intr.memcpy
// CHECK-DAG: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-COUNT-2: llvm.call @ampCpuLibraryConv2d(%{{.*}}, %[[ONE]], %{{.*}}, %[[FOUR]], %[[FOUR]], %{{.*}}, %{{.*}}, %{{.*}}, %[[FOUR]], %[[FOUR]], %{{.*}}, %{{.*}}, %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]],
// CHECK-NOT: memrefCopy
// CHECK-NOT: llvm.intr.memcpy
// CHECK: llvm.return
func.func @shared_padding(%a: tensor<1x2x4x4xf32>, %b: tensor<1x2x4x4xf32>,
                          %w: tensor<3x2x3x3xf32>)
    -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x6x6xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %o = tensor.empty() : tensor<1x3x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%o : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %pa = tensor.insert_slice %a into %fill[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x2x6x6xf32>
  %ya = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pa, %w : tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) outs(%acc : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %pb = tensor.insert_slice %b into %fill[0, 0, 1, 1] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x2x6x6xf32>
  %yb = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%pb, %w : tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) outs(%acc : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %ya, %yb : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// -----

// A depthwise convolution is the library's convolution with a group count
// (groups = c = 4, the argument after the dilations); loops without
// libraries.
// CHECK-LABEL: llvm.func @depthwise
// CHECK: llvm.call @ampCpuLibraryConv2d(
// CHECK: llvm.return
// LOOPS-LABEL: llvm.func @depthwise
// LOOPS-NOT: llvm.call @ampCpuLibraryConv2d
// LOOPS: llvm.return
func.func @depthwise(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x6x6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>) outs(%init : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}
