// RUN: amp-opt %s --amp-fuse-elementwise --split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-fuse-elementwise=rounding=per-op --split-input-file | FileCheck %s --check-prefix=PEROP
// RUN: amp-opt %s --amp-fuse-elementwise=max-recompute-users=5 --split-input-file | FileCheck %s --check-prefix=USERS5

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>

// A bias add, a tanh and a truncation become one generic.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e16 = tensor.empty() : tensor<4x8xf16>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4x8xf32>) outs(%e16 : tensor<4x8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %h = arith.truncf %a : f32 to f16
    linalg.yield %h : f16
  } -> tensor<4x8xf16>
  return %2 : tensor<4x8xf16>
}

// -----

// A named matmul fed by a reshape stays a named matmul (a library call on
// GPUs); upstream's reshape propagation would turn it into a generic.
// CHECK-LABEL: func.func @keeps_matmul
// CHECK: tensor.collapse_shape
// CHECK: linalg.matmul
func.func @keeps_matmul(%x: tensor<1x2x4xf32>, %w: tensor<8x3xf32>, %init: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %flat = tensor.collapse_shape %x [[0], [1, 2]] : tensor<1x2x4xf32> into tensor<1x8xf32>
  %r = linalg.matmul ins(%flat, %w : tensor<1x8xf32>, tensor<8x3xf32>) outs(%init : tensor<1x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

// -----

// A producer with two users that can both fuse it: rounding once (the
// default), each recomputes it in its own loop nest; rounding per-op, it is
// stored once and read back by both.
// CHECK-LABEL: func.func @shared
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK-NEXT: arith.negf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK-NEXT: math.sqrt
// CHECK-NOT: linalg.generic
// PEROP-LABEL: func.func @shared
// PEROP-COUNT-3: linalg.generic
func.func @shared(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sqrt %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----

#id3 = affine_map<(i, j, k) -> (i, j, k)>

// A named elementwise op between AMP's casts (O2 linalg.add of f32
// arguments): generalized and fused, one loop nest that reads f32 and
// writes f32, computing in f16.
// CHECK-LABEL: func.func @named_add
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8x256xf32>, tensor<4x8x256xf32>) outs(%{{.*}} : tensor<4x8x256xf32>)
// CHECK:           arith.truncf
// CHECK:           arith.truncf
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f16
// CHECK:           arith.extf
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @named_add(%a: tensor<4x8x256xf32>, %b: tensor<4x8x256xf32>) -> tensor<4x8x256xf32> {
  %e = tensor.empty() : tensor<4x8x256xf16>
  %0 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b : tensor<4x8x256xf32>) outs(%e : tensor<4x8x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %n = arith.truncf %in : f32 to f16
    linalg.yield %n : f16
  } -> tensor<4x8x256xf16>
  %1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<4x8x256xf32>) outs(%e : tensor<4x8x256xf16>) {
  ^bb0(%in: f32, %out: f16):
    %n = arith.truncf %in : f32 to f16
    linalg.yield %n : f16
  } -> tensor<4x8x256xf16>
  %2 = linalg.add ins(%1, %0 : tensor<4x8x256xf16>, tensor<4x8x256xf16>) outs(%e : tensor<4x8x256xf16>) -> tensor<4x8x256xf16>
  %ew = tensor.empty() : tensor<4x8x256xf32>
  %3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<4x8x256xf16>) outs(%ew : tensor<4x8x256xf32>) {
  ^bb0(%in: f16, %out: f32):
    %w = arith.extf %in : f16 to f32
    linalg.yield %w : f32
  } -> tensor<4x8x256xf32>
  return %3 : tensor<4x8x256xf32>
}

// -----

// A transpose is not generalized: the narrowing of a matmul result stays an
// identity-map generic (its library call then writes f16 itself).
// CHECK-LABEL: func.func @transpose_stays
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<16x32xf32>) outs(%{{.*}} : tensor<16x32xf16>)
// CHECK:         linalg.transpose
func.func @transpose_stays(%a: tensor<16x32xf32>) -> tensor<32x16xf16> {
  %e = tensor.empty() : tensor<16x32xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x32xf32>) outs(%e : tensor<16x32xf16>) {
  ^bb0(%in: f32, %out: f16):
    %n = arith.truncf %in : f32 to f16
    linalg.yield %n : f16
  } -> tensor<16x32xf16>
  %e2 = tensor.empty() : tensor<32x16xf16>
  %r = linalg.transpose ins(%t : tensor<16x32xf16>) outs(%e2 : tensor<32x16xf16>) permutation = [1, 0]
  return %r : tensor<32x16xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// A softmax as frontends write it: the exponentials are read by the sum and
// by the division. Rounding once, both recompute them, and nothing but the
// row maximum, the row sum and the result is stored.
// CHECK-LABEL: func.func @softmax_recompute
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
// PEROP-LABEL: func.func @softmax_recompute
// PEROP-COUNT-4: linalg.generic
func.func @softmax_recompute(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%mi : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %exp = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x8xf32>) outs(%si : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %div = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %div : tensor<4x8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// The narrowing of a matmul's result is its epilogue (written by the library
// call or the fused tile): stored once even when two generics read it.
// CHECK-LABEL: func.func @epilogue_not_recomputed
// CHECK: linalg.matmul
// CHECK-COUNT-3: linalg.generic
func.func @epilogue_not_recomputed(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf16>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%n : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = arith.negf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%n : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = math.absf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  return %0, %1 : tensor<4x4xf16>, tensor<4x4xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A value that a matmul reads (rounded, as stored) and an elementwise op reads
// too (a layer norm's output: the next matmul's input and the residual
// stream): rounding once, the elementwise reader recomputes it in its own loop
// nest, and only the matmul reads the stored value.
// CHECK-LABEL: func.func @matmul_and_residual
// CHECK: %[[N:.+]] = linalg.generic
// CHECK-SAME: outs(%{{.+}} : tensor<4x4xf16>)
// CHECK: linalg.matmul ins(%[[N]],
// CHECK: linalg.generic
// CHECK-NOT: %[[N]]
// CHECK: math.tanh
// CHECK: arith.addf
// PEROP-LABEL: func.func @matmul_and_residual
// PEROP: %[[N:.+]] = linalg.generic
// PEROP: linalg.matmul ins(%[[N]],
// PEROP: linalg.generic {{.*}} ins(%{{.+}}, %[[N]] :
func.func @matmul_and_residual(%x: tensor<4x4xf16>, %w: tensor<4x4xf16>) -> tensor<4x4xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf16>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%a: f16, %o: f16):
    %t = math.tanh %a : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %e32 = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%n, %w : tensor<4x4xf16>, tensor<4x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %n : tensor<4x4xf32>, tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %b : f16
    linalg.yield %s : f16
  } -> tensor<4x4xf16>
  return %r : tensor<4x4xf16>
}

// -----

// torch-mlir's linear: matmul and bias on [B*S, N], the residual add on the
// [B, S, N] view. The bias add is computed in the view's shape, so the two
// fuse: one loop nest reads the matmul's result through the view, and the
// biased value is not stored (nor rounded) before the residual add.
#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
#id3 = affine_map<(b, s, j) -> (b, s, j)>
// CHECK-LABEL: func.func @reshape_between_bias_and_residual
// CHECK: %[[MM:.+]] = linalg.matmul
// CHECK: %[[VIEW:.+]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[VIEW]],
// CHECK: arith.truncf
// CHECK: arith.addf
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return
// PEROP-LABEL: func.func @reshape_between_bias_and_residual
// PEROP: linalg.matmul
// PEROP: tensor.expand_shape
// PEROP: linalg.generic
// PEROP-NOT: linalg.generic
// PEROP: return
func.func @reshape_between_bias_and_residual(%x: tensor<4x8xf16>, %w: tensor<8x8xf16>, %bias: tensor<8xf16>, %stream: tensor<2x2x8xf32>) -> tensor<2x2x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x8xf16>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e16 = tensor.empty() : tensor<4x8xf16>
  %b = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<4x8xf32>, tensor<8xf16>) outs(%e16 : tensor<4x8xf16>) {
  ^bb0(%a: f32, %c: f16, %o: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %c : f16
    linalg.yield %s : f16
  } -> tensor<4x8xf16>
  %v = tensor.expand_shape %b [[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf16> into tensor<2x2x8xf16>
  %e3 = tensor.empty() : tensor<2x2x8xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %stream : tensor<2x2x8xf16>, tensor<2x2x8xf32>) outs(%e3 : tensor<2x2x8xf32>) {
  ^bb0(%a: f16, %c: f32, %o: f32):
    %x1 = arith.extf %a : f16 to f32
    %s = arith.addf %x1, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x2x8xf32>
  return %r : tensor<2x2x8xf32>
}

// -----

// A [B, S, N] loop nest whose result is narrowed on the collapsed
// [B*S, N] view for a matmul: the narrowing is computed in the producer's
// shape and fuses with it, which stores f16 once.
#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(b, s, j) -> (b, s, j)>
// CHECK-LABEL: func.func @collapse_before_matmul
// CHECK: %[[N:.+]] = linalg.generic
// CHECK: math.tanh
// CHECK: arith.truncf
// CHECK: -> tensor<2x2x8xf16>
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[N]]
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul ins(%[[C]],
func.func @collapse_before_matmul(%x: tensor<2x2x8xf32>, %w: tensor<8x8xf16>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<2x2x8xf32>
  %t = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x2x8xf32>) outs(%e3 : tensor<2x2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<2x2x8xf32>
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x2x8xf32> into tensor<4x8xf32>
  %e16 = tensor.empty() : tensor<4x8xf16>
  %n = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%e16 : tensor<4x8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x8xf16>
  %e32 = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%n, %w : tensor<4x8xf16>, tensor<8x8xf16>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// A view that a named op (a transpose: a copy kept for the library calls)
// reads: the bias add keeps its shape and is stored.
#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
// CHECK-LABEL: func.func @reshape_read_by_named_op
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.+}} : tensor<4x8xf16>)
// CHECK: tensor.expand_shape
// CHECK: linalg.transpose
func.func @reshape_read_by_named_op(%x: tensor<4x8xf16>, %bias: tensor<8xf16>) -> tensor<2x8x2xf16> {
  %e16 = tensor.empty() : tensor<4x8xf16>
  %b = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %bias : tensor<4x8xf16>, tensor<8xf16>) outs(%e16 : tensor<4x8xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<4x8xf16>
  %v = tensor.expand_shape %b [[0, 1], [2]] output_shape [2, 2, 8] : tensor<4x8xf16> into tensor<2x2x8xf16>
  %e3 = tensor.empty() : tensor<2x8x2xf16>
  %t = linalg.transpose ins(%v : tensor<2x2x8xf16>) outs(%e3 : tensor<2x8x2xf16>) permutation = [0, 2, 1]
  return %t : tensor<2x8x2xf16>
}

// -----

#id1 = affine_map<(i) -> (i)>

// A sum read by five generics, more than max-recompute-users (4 by
// default): it is stored once (one addf in its own loop nest); with
// max-recompute-users=5 each reader recomputes it.
// CHECK-LABEL: func.func @two_inputs_many_readers
// CHECK-COUNT-1: arith.addf
// CHECK-NOT: arith.addf
// CHECK: return
// USERS5-LABEL: func.func @two_inputs_many_readers
// USERS5-COUNT-5: arith.addf
// USERS5-NOT: arith.addf
// USERS5: return
func.func @two_inputs_many_readers(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %r0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %r1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sqrt %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %r2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.tanh %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %r3 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %r4 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

#red_in = affine_map<(n, c) -> (n, c)>
#red_out = affine_map<(n, c) -> (c)>

// torch's batch norm sums its input twice (the mean, and the mean inside
// the variance), each into a zero fill of its own: one reduction is left,
// read by both. A sum into a fill of another value, or of another input,
// is a different reduction and stays.
// CHECK-LABEL: func.func @equal_reductions
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return %[[A:.*]], %[[A]], %{{.*}}, %{{.*}} :
func.func @equal_reductions(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %s0 = linalg.generic {indexing_maps = [#red_in, #red_out], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%f0 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %s1 = linalg.generic {indexing_maps = [#red_in, #red_out], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %f2 = linalg.fill ins(%one : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %s2 = linalg.generic {indexing_maps = [#red_in, #red_out], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%f2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8xf32>) -> tensor<8xf32>
  %s3 = linalg.generic {indexing_maps = [#red_in, #red_out], iterator_types = ["reduction", "parallel"]} ins(%y : tensor<4x8xf32>) outs(%f3 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %s0, %s1, %s2, %s3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// Batch norm's `x - mean` after a contraction: the mean is computed from the
// contraction's result, so no epilogue can write `x - mean`, and each reader
// recomputes it from the result instead of reading a stored copy.
// CHECK-LABEL: func.func @centered_contraction_result
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[M]] :
// CHECK: linalg.generic {{.*}} ins(%[[M]], %[[SUM]] :
// CHECK: arith.subf
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[M]], %[[SUM]] :
// CHECK: arith.subf
// CHECK: math.absf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @centered_contraction_result(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  %zero = arith.constant 0.0 : f16
  %zero32 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x4xf16>) -> tensor<4x4xf16>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf16>) -> tensor<4x4xf16>
  %es = tensor.empty() : tensor<4xf32>
  %fs = linalg.fill ins(%zero32 : f32) outs(%es : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%m : tensor<4x4xf16>) outs(%fs : tensor<4xf32>) {
  ^bb0(%x: f16, %acc: f32):
    %w = arith.extf %x : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %sum : tensor<4x4xf16>, tensor<4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %s: f32, %o: f16):
    %w = arith.extf %x : f16 to f32
    %d = arith.subf %w, %s : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = arith.negf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = math.absf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  return %0, %1 : tensor<4x4xf16>, tensor<4x4xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// A bias add on a contraction's result may be its epilogue (the bias does not
// depend on the result): stored once, read by both.
// CHECK-LABEL: func.func @bias_epilogue_not_recomputed
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%[[M]], %{{.+}} :
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[B]] :
// CHECK: linalg.generic {{.*}} ins(%[[B]] :
func.func @bias_epilogue_not_recomputed(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %bias: tensor<4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4x4xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x4xf16>) -> tensor<4x4xf16>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf16>) -> tensor<4x4xf16>
  %c = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<4x4xf16>, tensor<4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %d = arith.addf %x, %y : f16
    linalg.yield %d : f16
  } -> tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = arith.negf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = math.absf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  return %0, %1 : tensor<4x4xf16>, tensor<4x4xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// The same `x - mean`, also returned: a reader that cannot fuse it reads it
// stored, and so do the others (recomputing it would read the contraction's
// result besides the stored copy).
// CHECK-LABEL: func.func @centered_also_returned
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[M]] :
// CHECK: %[[C:.+]] = linalg.generic {{.*}} ins(%[[M]], %[[SUM]] :
// CHECK: linalg.generic {{.*}} ins(%[[C]] :
// CHECK: return %{{.+}}, %[[C]]
func.func @centered_also_returned(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  %zero = arith.constant 0.0 : f16
  %zero32 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4x4xf16>) -> tensor<4x4xf16>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf16>) -> tensor<4x4xf16>
  %es = tensor.empty() : tensor<4xf32>
  %fs = linalg.fill ins(%zero32 : f32) outs(%es : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%m : tensor<4x4xf16>) outs(%fs : tensor<4xf32>) {
  ^bb0(%x: f16, %acc: f32):
    %w = arith.extf %x : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %sum : tensor<4x4xf16>, tensor<4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %s: f32, %o: f16):
    %w = arith.extf %x : f16 to f32
    %d = arith.subf %w, %s : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = arith.negf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  return %0, %c : tensor<4x4xf16>, tensor<4x4xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// `x - mean` of an f32 result, stored in f16 (O1's convolutions): every
// reader could fuse it, but would read the f32 result, twice the bytes of
// the stored copy: stored.
// CHECK-LABEL: func.func @centered_narrowed
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[M]] :
// CHECK: %[[C:.+]] = linalg.generic {{.*}} ins(%[[M]], %[[SUM]] :
// CHECK: linalg.generic {{.*}} ins(%[[C]] :
// CHECK: linalg.generic {{.*}} ins(%[[C]] :
func.func @centered_narrowed(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  %zero32 = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero32 : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %es = tensor.empty() : tensor<4xf32>
  %fs = linalg.fill ins(%zero32 : f32) outs(%es : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%fs : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x4xf16>
  %c = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %sum : tensor<4x4xf32>, tensor<4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f32, %s: f32, %o: f16):
    %d = arith.subf %x, %s : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = arith.negf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = math.absf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  return %0, %1 : tensor<4x4xf16>, tensor<4x4xf16>
}
