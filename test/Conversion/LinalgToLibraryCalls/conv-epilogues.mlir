// RUN: amp-opt %s --amp-linalg-to-library-calls --split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-linalg-to-library-calls=conv-epilogues=false --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: amp-opt %s --amp-linalg-to-library-calls=target=cpu --split-input-file | FileCheck %s --check-prefix=CPU

// An NHWC/FHWC convolution (amp-channels-last's form) whose zero-filled
// output is read by one elementwise generic computing a per-channel
// a * y + b, maybe plus a residual, maybe a ReLU (batch norm in inference)
// becomes one ampGpuConv2dEpilogue call (cuDNN's graph API): its terms a
// and b come from a generic over the channels that writes two f32 buffers
// (the body's per-channel ops cloned), the call writes the generic's
// output, and the convolution's output, its fill and the generic go.
// The arguments after the filter's type: y, yType (1: f16), the epilogue
// (2: SCALE_BIAS_RELU, 1: SCALE_BIAS), scale, bias, residual. Without the
// option, and on the CPU (no such call), the convolution is a plain call
// and the generic stays.

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Batch norm and ReLU, as the frontend writes them at O2 (f16 operands,
// f32 math, one rounding).
// CHECK-LABEL: func.func @bn_relu
// CHECK-SAME: %[[MEAN:[^:]*]]: memref<8xf16>, %[[VAR:[^:]*]]: memref<8xf16>, %[[GAMMA:[^:]*]]: memref<8xf16>, %[[BETA:[^:]*]]: memref<8xf16>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x4x4x8xf16>
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[MEAN]], %[[VAR]], %[[GAMMA]], %[[BETA]] : {{.*}}) outs(%[[A]], %[[B]] : memref<8xf32>, memref<8xf32>)
// CHECK: math.rsqrt
// CHECK: linalg.yield
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[YT:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[EPI:.*]] = arith.constant 2 : i32
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: call @ampGpuConv2dEpilogue({{.*}}, %[[YT]], %[[EPI]], %{{.*}}, %{{.*}}, %[[NULL]]) :
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
// OFF-LABEL: func.func @bn_relu
// OFF: call @ampGpuConv2d(
// OFF: linalg.generic
// OFF-NOT: ampGpuConv2dEpilogue
// CPU-LABEL: func.func @bn_relu
// CPU: llvm.call @ampCpuLibraryConv2d(
// CPU: linalg.generic
// CPU-NOT: Epilogue
func.func @bn_relu(%x: memref<1x6x6x8xf16>, %w: memref<8x3x3x8xf16>, %mean: memref<8xf16>, %var: memref<8xf16>, %gamma: memref<8xf16>, %beta: memref<8xf16>) -> memref<1x4x4x8xf16> {
  %zero = arith.constant 0.0 : f16
  %eps = arith.constant 1.0e-05 : f32
  %fzero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x4x4x8xf16>
  linalg.fill ins(%zero : f16) outs(%y : memref<1x4x4x8xf16>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x6x6x8xf16>, memref<8x3x3x8xf16>) outs(%y : memref<1x4x4x8xf16>)
  %out = memref.alloc() : memref<1x4x4x8xf16>
  linalg.generic {indexing_maps = [#id, #channel, #channel, #channel, #channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %mean, %var, %gamma, %beta : memref<1x4x4x8xf16>, memref<8xf16>, memref<8xf16>, memref<8xf16>, memref<8xf16>)
      outs(%out : memref<1x4x4x8xf16>) {
  ^bb0(%in: f16, %m: f16, %v: f16, %g: f16, %b: f16, %o: f16):
    %v32 = arith.extf %v : f16 to f32
    %ve = arith.addf %v32, %eps : f32
    %rs = math.rsqrt %ve : f32
    %x32 = arith.extf %in : f16 to f32
    %m32 = arith.extf %m : f16 to f32
    %c = arith.subf %x32, %m32 : f32
    %n = arith.mulf %c, %rs : f32
    %g32 = arith.extf %g : f16 to f32
    %s = arith.mulf %n, %g32 : f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %s, %b32 : f32
    %gt = arith.cmpf ugt, %t, %fzero : f32
    %r = arith.select %gt, %t, %fzero : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %y : memref<1x4x4x8xf16>
  return %out : memref<1x4x4x8xf16>
}

// -----

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A bias and a residual, then the ReLU as its own generic (the output's
// one reader): the call takes the ReLU and writes the ReLU's output; no
// scale (NULL), the bias its own (the terms generic writes b only).
// CHECK-LABEL: func.func @bias_residual_relu_after
// CHECK-SAME: %[[BIAS:[^:]*]]: memref<8xf16>, %[[RES:[^:]*]]: memref<1x4x4x8xf16>
// CHECK: %[[RELU:.*]] = memref.alloc() : memref<1x4x4x8xf16>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[BIAS]] : memref<8xf16>) outs(%[[B]] : memref<8xf32>)
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %[[RELU]]
// CHECK: %[[YT:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[EPI:.*]] = arith.constant 2 : i32
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: memref.extract_aligned_pointer_as_index %[[RES]]
// CHECK: call @ampGpuConv2dEpilogue({{.*}}, %[[YT]], %[[EPI]], %[[NULL]], %{{.*}}, %{{.*}}) :
// CHECK-NOT: linalg.
// CHECK: return %[[RELU]]
func.func @bias_residual_relu_after(%x: memref<1x6x6x8xf16>, %w: memref<8x3x3x8xf16>, %bias: memref<8xf16>, %res: memref<1x4x4x8xf16>) -> memref<1x4x4x8xf16> {
  %zero = arith.constant 0.0 : f16
  %fzero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x4x4x8xf16>
  linalg.fill ins(%zero : f16) outs(%y : memref<1x4x4x8xf16>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x6x6x8xf16>, memref<8x3x3x8xf16>) outs(%y : memref<1x4x4x8xf16>)
  %sum = memref.alloc() : memref<1x4x4x8xf16>
  linalg.generic {indexing_maps = [#id, #channel, #id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias, %res : memref<1x4x4x8xf16>, memref<8xf16>, memref<1x4x4x8xf16>)
      outs(%sum : memref<1x4x4x8xf16>) {
  ^bb0(%in: f16, %b: f16, %r: f16, %o: f16):
    %x32 = arith.extf %in : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %t = arith.addf %b32, %x32 : f32
    %r32 = arith.extf %r : f16 to f32
    %u = arith.addf %t, %r32 : f32
    %h = arith.truncf %u : f32 to f16
    linalg.yield %h : f16
  }
  %relu = memref.alloc() : memref<1x4x4x8xf16>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sum : memref<1x4x4x8xf16>) outs(%relu : memref<1x4x4x8xf16>) {
  ^bb0(%in: f16, %o: f16):
    %x32 = arith.extf %in : f16 to f32
    %gt = arith.cmpf ugt, %x32, %fzero : f32
    %r = arith.select %gt, %x32, %fzero : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  }
  memref.dealloc %y : memref<1x4x4x8xf16>
  memref.dealloc %sum : memref<1x4x4x8xf16>
  return %relu : memref<1x4x4x8xf16>
}

// -----

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// The residual read rectified (the previous block's ReLU, which the fused
// body recomputes): the call reads the buffer of that ReLU, a ReLU-only
// generic of the residual before the convolution.
// CHECK-LABEL: func.func @rectified_residual
// CHECK-SAME: %[[PRE:[^:]*]]: memref<1x4x4x8xf16>
// CHECK: %[[RECT:.*]] = memref.alloc() : memref<1x4x4x8xf16>
// CHECK: linalg.generic {{.*}} ins(%[[PRE]] : memref<1x4x4x8xf16>) outs(%[[RECT]] : memref<1x4x4x8xf16>)
// CHECK: memref.extract_aligned_pointer_as_index %[[RECT]]
// CHECK: call @ampGpuConv2dEpilogue(
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @rectified_residual(%x: memref<1x6x6x8xf16>, %w: memref<8x3x3x8xf16>, %bias: memref<8xf16>, %pre: memref<1x4x4x8xf16>) -> (memref<1x4x4x8xf16>, memref<1x4x4x8xf16>) {
  %zero = arith.constant 0.0 : f16
  %fzero = arith.constant 0.0 : f32
  %rect = memref.alloc() : memref<1x4x4x8xf16>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%pre : memref<1x4x4x8xf16>) outs(%rect : memref<1x4x4x8xf16>) {
  ^bb0(%in: f16, %o: f16):
    %x32 = arith.extf %in : f16 to f32
    %gt = arith.cmpf ugt, %x32, %fzero : f32
    %r = arith.select %gt, %x32, %fzero : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  }
  %y = memref.alloc() : memref<1x4x4x8xf16>
  linalg.fill ins(%zero : f16) outs(%y : memref<1x4x4x8xf16>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x6x6x8xf16>, memref<8x3x3x8xf16>) outs(%y : memref<1x4x4x8xf16>)
  %out = memref.alloc() : memref<1x4x4x8xf16>
  linalg.generic {indexing_maps = [#id, #channel, #id, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias, %pre : memref<1x4x4x8xf16>, memref<8xf16>, memref<1x4x4x8xf16>)
      outs(%out : memref<1x4x4x8xf16>) {
  ^bb0(%in: f16, %b: f16, %p: f16, %o: f16):
    %x32 = arith.extf %in : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p32 = arith.extf %p : f16 to f32
    %pgt = arith.cmpf ugt, %p32, %fzero : f32
    %prelu = arith.select %pgt, %p32, %fzero : f32
    %t = arith.addf %x32, %b32 : f32
    %u = arith.addf %t, %prelu : f32
    %gt = arith.cmpf ugt, %u, %fzero : f32
    %r = arith.select %gt, %u, %fzero : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  }
  return %out, %rect : memref<1x4x4x8xf16>, memref<1x4x4x8xf16>
}

// -----

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A dynamic batch: the output's allocation and the memref.dim of its size
// move before the call, which reads the batch from it.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK: memref.dim %arg0
// CHECK-NEXT: %[[DIM:.*]] = memref.dim %arg0
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc(%[[DIM]]) : memref<?x4x4x8xf32>
// CHECK-NEXT: memref.alloc() : memref<8xf32>
// CHECK: memref.dim %[[OUT]]
// CHECK: call @ampGpuConv2dEpilogue(
// CHECK-NOT: linalg.
// CHECK: return %[[OUT]]
func.func @dynamic_batch(%x: memref<?x6x6x8xf32>, %w: memref<8x3x3x8xf32>, %s: memref<8xf32>) -> memref<?x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x6x6x8xf32>
  %y = memref.alloc(%n) : memref<?x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<?x4x4x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<?x6x6x8xf32>, memref<8x3x3x8xf32>) outs(%y : memref<?x4x4x8xf32>)
  %m = memref.dim %x, %c0 : memref<?x6x6x8xf32>
  %out = memref.alloc(%m) : memref<?x4x4x8xf32>
  linalg.generic {indexing_maps = [#id, #channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %s : memref<?x4x4x8xf32>, memref<8xf32>) outs(%out : memref<?x4x4x8xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %t = arith.mulf %in, %sv : f32
    linalg.yield %t : f32
  }
  return %out : memref<?x4x4x8xf32>
}

// -----

#spatial = affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A 1x1 image (ResNet's last stage at a small input): a per-channel
// operand may read the spatial loops, of extent 1.
// CHECK-LABEL: func.func @one_by_one
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK: call @ampGpuConv2dEpilogue(
// CHECK-NOT: linalg.
func.func @one_by_one(%x: memref<1x3x3x8xf32>, %w: memref<8x3x3x8xf32>, %b: memref<8x1x1xf32>) -> memref<1x1x1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x1x1x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x1x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x3x3x8xf32>, memref<8x3x3x8xf32>) outs(%y : memref<1x1x1x8xf32>)
  %out = memref.alloc() : memref<1x1x1x8xf32>
  linalg.generic {indexing_maps = [#id, #spatial, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : memref<1x1x1x8xf32>, memref<8x1x1xf32>) outs(%out : memref<1x1x1x8xf32>) {
  ^bb0(%in: f32, %bv: f32, %o: f32):
    %t = arith.addf %in, %bv : f32
    linalg.yield %t : f32
  }
  return %out : memref<1x1x1x8xf32>
}

// -----

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// f32 throughout, a scale by division and a constant shift, no ReLU
// (SCALE_BIAS, 1), written in f32 (yType 0).
// CHECK-LABEL: func.func @f32_divide
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<1x4x4x8xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK: arith.divf
// CHECK: llvm.mlir.zero
// CHECK-NEXT: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[YT:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[EPI:.*]] = arith.constant 1 : i32
// CHECK: call @ampGpuConv2dEpilogue({{.*}}, %[[YT]], %[[EPI]], {{.*}}) :
// CHECK-NOT: linalg.
func.func @f32_divide(%x: memref<1x6x6x8xf32>, %w: memref<8x3x3x8xf32>, %d: memref<8xf32>) -> memref<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %shift = arith.constant 3.0 : f32
  %y = memref.alloc() : memref<1x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x6x6x8xf32>, memref<8x3x3x8xf32>) outs(%y : memref<1x4x4x8xf32>)
  %out = memref.alloc() : memref<1x4x4x8xf32>
  linalg.generic {indexing_maps = [#id, #channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %d : memref<1x4x4x8xf32>, memref<8xf32>) outs(%out : memref<1x4x4x8xf32>) {
  ^bb0(%in: f32, %dv: f32, %o: f32):
    %q = arith.divf %in, %dv : f32
    %t = arith.subf %q, %shift : f32
    linalg.yield %t : f32
  }
  return %out : memref<1x4x4x8xf32>
}

// -----

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Not taken, each a plain convolution call with the generic kept: the
// output read by two ops (a training step's batch-norm statistics);
// CHECK-LABEL: func.func @two_readers
// CHECK: call @ampGpuConv2d(
// CHECK: linalg.generic
// CHECK-NOT: ampGpuConv2dEpilogue
func.func @two_readers(%x: memref<1x6x6x8xf32>, %w: memref<8x3x3x8xf32>, %s: memref<8xf32>, %other: memref<1x4x4x8xf32>) -> memref<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x6x6x8xf32>, memref<8x3x3x8xf32>) outs(%y : memref<1x4x4x8xf32>)
  %out = memref.alloc() : memref<1x4x4x8xf32>
  linalg.generic {indexing_maps = [#id, #channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %s : memref<1x4x4x8xf32>, memref<8xf32>) outs(%out : memref<1x4x4x8xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %t = arith.mulf %in, %sv : f32
    linalg.yield %t : f32
  }
  memref.copy %y, %other : memref<1x4x4x8xf32> to memref<1x4x4x8xf32>
  return %out : memref<1x4x4x8xf32>
}

// -----

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// a body that is not affine in the convolution's element (its square);
// CHECK-LABEL: func.func @not_affine
// CHECK: call @ampGpuConv2d(
// CHECK: linalg.generic
// CHECK-NOT: ampGpuConv2dEpilogue
func.func @not_affine(%x: memref<1x6x6x8xf32>, %w: memref<8x3x3x8xf32>, %s: memref<8xf32>) -> memref<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x6x6x8xf32>, memref<8x3x3x8xf32>) outs(%y : memref<1x4x4x8xf32>)
  %out = memref.alloc() : memref<1x4x4x8xf32>
  linalg.generic {indexing_maps = [#id, #channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %s : memref<1x4x4x8xf32>, memref<8xf32>) outs(%out : memref<1x4x4x8xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %sq = arith.mulf %in, %in : f32
    %t = arith.addf %sq, %sv : f32
    linalg.yield %t : f32
  }
  return %out : memref<1x4x4x8xf32>
}

// -----

#channel = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// a per-channel operand written between the convolution and the generic
// (the call, at the convolution, would read it too early);
// CHECK-LABEL: func.func @written_between
// CHECK: call @ampGpuConv2d(
// CHECK: linalg.generic
// CHECK-NOT: ampGpuConv2dEpilogue
func.func @written_between(%x: memref<1x6x6x8xf32>, %w: memref<8x3x3x8xf32>, %s: memref<8xf32>) -> memref<1x4x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x4x4x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x4x4x8xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x6x6x8xf32>, memref<8x3x3x8xf32>) outs(%y : memref<1x4x4x8xf32>)
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  %out = memref.alloc() : memref<1x4x4x8xf32>
  linalg.generic {indexing_maps = [#id, #channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %s : memref<1x4x4x8xf32>, memref<8xf32>) outs(%out : memref<1x4x4x8xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %t = arith.addf %in, %sv : f32
    linalg.yield %t : f32
  }
  return %out : memref<1x4x4x8xf32>
}

// -----

#nchw_channel = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// and an NCHW convolution (cuDNN's fusion engines take NHWC).
// CHECK-LABEL: func.func @nchw
// CHECK: call @ampGpuConv2d(
// CHECK: linalg.generic
// CHECK-NOT: ampGpuConv2dEpilogue
func.func @nchw(%x: memref<1x8x6x6xf32>, %w: memref<8x8x3x3xf32>, %s: memref<8xf32>) -> memref<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc() : memref<1x8x4x4xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x8x4x4xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : memref<1x8x6x6xf32>, memref<8x8x3x3xf32>) outs(%y : memref<1x8x4x4xf32>)
  %out = memref.alloc() : memref<1x8x4x4xf32>
  linalg.generic {indexing_maps = [#id, #nchw_channel, #id],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %s : memref<1x8x4x4xf32>, memref<8xf32>) outs(%out : memref<1x8x4x4xf32>) {
  ^bb0(%in: f32, %sv: f32, %o: f32):
    %t = arith.addf %in, %sv : f32
    linalg.yield %t : f32
  }
  return %out : memref<1x8x4x4xf32>
}
