// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-prepare-contractions))" -mlir-print-local-scope \
// RUN:     --split-input-file | FileCheck %s

// One zero fill for three matmuls, as --cse leaves it: each matmul gets a
// fill (and an empty tensor) of its own right before it; the last one takes
// the original, moved next to it.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[A:.*]]: tensor<8x8xf16>, %[[B:.*]]: tensor<8x8xf16>)
// CHECK: %[[ZERO:.*]] = arith.constant
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[E0:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[F0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E0]] : tensor<8x8xf32>)
// CHECK-NEXT: %[[M0:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[F0]] : tensor<8x8xf32>)
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT: %[[F1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<8x8xf32>)
// CHECK-NEXT: %[[M1:.*]] = linalg.matmul ins(%[[B]], %[[A]] : {{.*}}) outs(%[[F1]] : tensor<8x8xf32>)
// CHECK-NEXT: %[[F2:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<8x8xf32>)
// CHECK-NEXT: %[[M2:.*]] = linalg.matmul ins(%[[A]], %[[A]] : {{.*}}) outs(%[[F2]] : tensor<8x8xf32>)
// CHECK-NEXT: return %[[M0]], %[[M1]], %[[M2]]
func.func @shared(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m0 = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m1 = linalg.matmul ins(%b, %a : tensor<8x8xf16>, tensor<8x8xf16>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m2 = linalg.matmul ins(%a, %a : tensor<8x8xf16>, tensor<8x8xf16>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m0, %m1, %m2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A fill that is also read as data (returned here) keeps that user; the
// batch matmul and the convolution get copies. A copy goes where the
// contraction is, inside the loop.
// CHECK-LABEL: func.func @other_users
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x4x4xf32>
// CHECK: %[[F0:.*]] = linalg.fill {{.*}} -> tensor<1x4x4xf32>
// CHECK-NEXT: linalg.batch_matmul {{.*}} outs(%[[F0]] : tensor<1x4x4xf32>)
// CHECK: scf.for
// CHECK: %[[F1:.*]] = linalg.fill {{.*}} -> tensor<1x4x4xf32>
// CHECK-NEXT: linalg.batch_matmul {{.*}} outs(%[[F1]] : tensor<1x4x4xf32>)
// CHECK: return %[[F]],
func.func @other_users(%a: tensor<1x4x4xf16>, %n: index) -> (tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<1x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %m0 = linalg.batch_matmul ins(%a, %a : tensor<1x4x4xf16>, tensor<1x4x4xf16>) outs(%init : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %m0) -> tensor<1x4x4xf32> {
    %m = linalg.batch_matmul ins(%a, %a : tensor<1x4x4xf16>, tensor<1x4x4xf16>) outs(%init : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    scf.yield %m : tensor<1x4x4xf32>
  }
  return %init, %m0, %r : tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>
}

// -----

// A fill of its own that an elementwise op separates from its matmul moves
// next to the matmul (the GPU pipeline finds it there after bufferization).
// CHECK-LABEL: func.func @own_fill
// CHECK: linalg.generic
// CHECK: %[[F:.*]] = linalg.fill
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[F]] : tensor<8x8xf32>)
func.func @own_fill(%a: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e16 = tensor.empty() : tensor<8x8xf16>
  %neg = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x8xf16>) outs(%e16 : tensor<8x8xf16>) {
  ^bb0(%x: f16, %o: f16):
    %n = arith.negf %x : f16
    linalg.yield %n : f16
  } -> tensor<8x8xf16>
  %m = linalg.matmul ins(%a, %neg : tensor<8x8xf16>, tensor<8x8xf16>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// Negative: an init that is not a fill, a fill of its own in another block
// (not moved into the loop), and fills on buffers are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<8x8xf32>
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: scf.for
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[F]] : tensor<8x8xf32>)
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<8x8xf32>)
// CHECK-NEXT: linalg.generic
// CHECK-NEXT: ^bb0
// CHECK: linalg.matmul {{.*}} outs(%{{.*}} : memref<8x8xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} outs(%{{.*}} : memref<8x8xf32>)
// CHECK-NOT: linalg.fill
func.func @untouched(%a: tensor<8x8xf16>, %c: tensor<8x8xf32>, %n: index,
                     %ma: memref<8x8xf16>, %mc: memref<8x8xf32>, %md: memref<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m0 = linalg.matmul ins(%a, %a : tensor<8x8xf16>, tensor<8x8xf16>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %m0) -> tensor<8x8xf32> {
    %m = linalg.matmul ins(%a, %a : tensor<8x8xf16>, tensor<8x8xf16>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %m : tensor<8x8xf32>
  }
  linalg.fill ins(%zero : f32) outs(%mc : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%md : memref<8x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  }
  linalg.matmul ins(%ma, %ma : memref<8x8xf16>, memref<8x8xf16>) outs(%mc : memref<8x8xf32>)
  linalg.matmul ins(%ma, %ma : memref<8x8xf16>, memref<8x8xf16>) outs(%mc : memref<8x8xf32>)
  return %m0, %r : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A matmul with K = 0 accumulates nothing: its result is the fill, and the
// narrowing reads the fill. A zero-sized parallel dimension is the same.
// CHECK-LABEL: func.func @empty
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<8x4xf32>
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[F]] : tensor<8x4xf32>)
// CHECK: %[[G:.*]] = linalg.fill {{.*}} -> tensor<0x4xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return %{{.*}}, %[[G]]
func.func @empty(%a: tensor<8x0xf16>, %b: tensor<0x4xf16>, %c: tensor<0x3xf16>, %d: tensor<3x4xf16>) -> (tensor<8x4xf16>, tensor<0x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x0xf16>, tensor<0x4xf16>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e16 = tensor.empty() : tensor<8x4xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x4xf32>) outs(%e16 : tensor<8x4xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %x2 = math.exp %t : f16
    linalg.yield %x2 : f16
  } -> tensor<8x4xf16>
  %e2 = tensor.empty() : tensor<0x4xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<0x4xf32>) -> tensor<0x4xf32>
  %mm2 = linalg.matmul ins(%c, %d : tensor<0x3xf16>, tensor<3x4xf16>) outs(%acc2 : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r, %mm2 : tensor<8x4xf16>, tensor<0x4xf32>
}

// -----

// torch-mlir's linear, x times the transposed weight: the matmul reads the
// weight through its indexing map (the library calls' transB), and the
// transpose, now unused, is gone; so is a batch matmul's transpose of its
// two innermost dimensions (its LHS here).
// CHECK-LABEL: func.func @transposed_operands
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>, %[[W:.*]]: tensor<16x8xf16>, %[[P:.*]]: tensor<2x8x4xf16>, %[[Q:.*]]: tensor<2x8x5xf16>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[X]], %[[W]] : tensor<4x8xf16>, tensor<16x8xf16>)
// CHECK: linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%[[P]], %[[Q]] : tensor<2x8x4xf16>, tensor<2x8x5xf16>)
// CHECK-NOT: linalg.transpose
func.func @transposed_operands(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %p: tensor<2x8x4xf16>, %q: tensor<2x8x5xf16>) -> (tensor<4x16xf32>, tensor<2x4x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<8x16xf16>
  %wt = linalg.transpose ins(%w : tensor<16x8xf16>) outs(%et : tensor<8x16xf16>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %wt : tensor<4x8xf16>, tensor<8x16xf16>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %ept = tensor.empty() : tensor<2x4x8xf16>
  %pt = linalg.transpose ins(%p : tensor<2x8x4xf16>) outs(%ept : tensor<2x4x8xf16>) permutation = [0, 2, 1]
  %eb = tensor.empty() : tensor<2x4x5xf32>
  %fb = linalg.fill ins(%zero : f32) outs(%eb : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %b = linalg.batch_matmul ins(%pt, %q : tensor<2x4x8xf16>, tensor<2x8x5xf16>) outs(%fb : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %m, %b : tensor<4x16xf32>, tensor<2x4x5xf32>
}

// -----

// A transpose of other dimensions, or one that something else reads too,
// stays; a matmul reading the latter still folds it.
// CHECK-LABEL: func.func @other_transposes_stay
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x2x4xf16>) {{.*}} permutation = [1, 2, 0]
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W:.*]] : tensor<16x8xf16>)
// CHECK: linalg.matmul indexing_maps = {{.*}} ins(%{{.*}}, %[[W]] :
// CHECK: linalg.batch_matmul ins(%[[T]],
// CHECK: return %{{.*}}, %{{.*}}, %[[WT]]
func.func @other_transposes_stay(%x: tensor<4x8xf16>, %w: tensor<16x8xf16>, %p: tensor<8x2x4xf16>, %q: tensor<2x8x5xf16>) -> (tensor<4x16xf32>, tensor<2x4x5xf32>, tensor<8x16xf16>) {
  %zero = arith.constant 0.0 : f32
  %ept = tensor.empty() : tensor<2x4x8xf16>
  %pt = linalg.transpose ins(%p : tensor<8x2x4xf16>) outs(%ept : tensor<2x4x8xf16>) permutation = [1, 2, 0]
  %et = tensor.empty() : tensor<8x16xf16>
  %wt = linalg.transpose ins(%w : tensor<16x8xf16>) outs(%et : tensor<8x16xf16>) permutation = [1, 0]
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %wt : tensor<4x8xf16>, tensor<8x16xf16>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %eb = tensor.empty() : tensor<2x4x5xf32>
  %fb = linalg.fill ins(%zero : f32) outs(%eb : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  %b = linalg.batch_matmul ins(%pt, %q : tensor<2x4x8xf16>, tensor<2x8x5xf16>) outs(%fb : tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %m, %b, %wt : tensor<4x16xf32>, tensor<2x4x5xf32>, tensor<8x16xf16>
}

// -----

// The zero padding of a convolution's input, inserted into a fill that
// another padding shares (--cse made them one), gets a fill of its own
// right before the insertion; the other keeps the original.
// CHECK-LABEL: func.func @shared_padding
// CHECK-SAME: (%[[A:.*]]: tensor<1x2x4x4xf32>, %[[B:.*]]: tensor<1x2x4x4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x6x6xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<1x2x6x6xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<1x2x6x6xf32>
// CHECK: %[[FILL1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<1x2x6x6xf32>)
// CHECK: %[[PA:.*]] = tensor.insert_slice %[[A]] into %[[FILL1]][0, 0, 1, 1]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[PA]],
// CHECK: %[[PB:.*]] = tensor.insert_slice %[[B]] into %[[FILL]][0, 0, 1, 1]
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[PB]],
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

// Batch norm's sums as --cse leaves them, one zero fill per channel count:
// each f32 reduction gets a fill of its own right before it, as a matmul
// does. A reduction to f64 (O0's batch-norm statistics) keeps its init,
// and an elementwise generic that reads the fill keeps reading it.
// CHECK-LABEL: func.func @shared_reduction_fill
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<64xf32>
// CHECK-NEXT: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<64xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F0]] : tensor<64xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<64xf32>
// CHECK-NEXT: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<64xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F1]] : tensor<64xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64xf64>)
// CHECK: linalg.generic {{.*}} ins(%[[INIT]] : tensor<64xf32>)
// CHECK-NOT: linalg.fill
func.func @shared_reduction_fill(%x: tensor<?x64xf32>, %d: tensor<64xf64>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf64>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (c)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %a: f32):
    %r = arith.addf %v, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (c)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%v: f32, %a: f32):
    %m = arith.mulf %v, %v : f32
    %r = arith.addf %m, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(n, c) -> (n, c)>, affine_map<(n, c) -> (c)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%d : tensor<64xf64>) {
  ^bb0(%v: f32, %a: f64):
    %w = arith.extf %v : f32 to f64
    %r = arith.addf %w, %a : f64
    linalg.yield %r : f64
  } -> tensor<64xf64>
  %copy = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>, affine_map<(c) -> (c)>], iterator_types = ["parallel"]}
      ins(%init : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %s, %q, %wide, %copy : tensor<64xf32>, tensor<64xf32>, tensor<64xf64>, tensor<64xf32>
}

// -----

// Attention's row maxima in f16, one -inf fill for every layer as --cse
// leaves it: each max gets a fill of its own, as an f32 sum does (before,
// bufferization copied the shared fill into each: a kernel per layer).
// The first takes a clone, the last the original.
// CHECK-LABEL: func.func @shared_max_fill
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf16>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4xf16>
// CHECK-NEXT: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f16) outs(%[[E0]] : tensor<4xf16>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf16>) outs(%[[F0]] : tensor<4xf16>)
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f16) outs(%[[E1]] : tensor<4xf16>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[F1]] : tensor<4xf16>)
// CHECK-NOT: linalg.fill
func.func @shared_max_fill(%x: tensor<4x8xf16>, %y: tensor<4x8xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
  %ninf = arith.constant 0xFC00 : f16
  %e = tensor.empty() : tensor<4xf16>
  %init = linalg.fill ins(%ninf : f16) outs(%e : tensor<4xf16>) -> tensor<4xf16>
  %m0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf16>) outs(%init : tensor<4xf16>) {
  ^bb0(%v: f16, %a: f16):
    %r = arith.maximumf %v, %a : f16
    linalg.yield %r : f16
  } -> tensor<4xf16>
  %m1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<4x8xf16>) outs(%init : tensor<4xf16>) {
  ^bb0(%v: f16, %a: f16):
    %r = arith.maximumf %v, %a : f16
    linalg.yield %r : f16
  } -> tensor<4xf16>
  return %m0, %m1 : tensor<4xf16>, tensor<4xf16>
}

// -----

// One empty tensor for a matmul's accumulator (its fill its own) and a
// transpose of the same type, as --cse merges them (GPT-2 at 3072 tokens:
// the attention projection's accumulator and the MLP weights'
// transposes): the fill gets a clone of the empty right before it, so that
// bufferized the accumulator is not the transpose's buffer (allocated
// before it), which the GPU's narrowing needs. The empty's other users
// (the transpose, a fill in a loop) keep it.
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8xf32>) outs(%[[E]] : tensor<8x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK-NEXT: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8x4xf32>)
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>) outs(%[[ACC]] : tensor<8x4xf32>)
// CHECK: scf.for
// CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8x4xf32>)
func.func @shared_empty(%w: tensor<4x8xf32>, %x: tensor<8x16xf32>, %y: tensor<16x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%w : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%x, %y : tensor<8x16xf32>, tensor<16x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %l = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %t) -> tensor<8x4xf32> {
    %f = linalg.fill ins(%one : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    scf.yield %f : tensor<8x4xf32>
  }
  return %t, %m, %l : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
