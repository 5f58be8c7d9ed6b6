// RUN: amp-opt %s --amp-fuse-sibling-reductions --split-input-file | FileCheck %s

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>

// Batch norm's backward sums, as from_torch_training imports them: the
// output gradient's sum and its product with the centred input, per
// channel. One generic of two results at the second's place, reading %dy
// once (one block argument), each result computed by its own body as
// before. The first's own fill (and its empty tensor) moves along, right
// before the merged generic, as the second's is.
// CHECK-LABEL: func.func @batch_norm_backward_sums
// CHECK-SAME: (%[[DY:.*]]: tensor<?x64x8x8xf16>, %[[XMU:.*]]: tensor<?x64x8x8xf16>)
// CHECK: %[[FB:.*]] = linalg.fill
// CHECK-NEXT: %[[EA:.*]] = tensor.empty() : tensor<64xf32>
// CHECK-NEXT: %[[FA:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EA]] : tensor<64xf32>)
// CHECK-NEXT: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[DY]], %[[XMU]] : tensor<?x64x8x8xf16>, tensor<?x64x8x8xf16>)
// CHECK-SAME: outs(%[[FA]], %[[FB]] : tensor<64xf32>, tensor<64xf32>)
// CHECK-NEXT: ^bb0(%[[G:.*]]: f16, %[[X:.*]]: f16, %[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK: %[[GF:.*]] = arith.extf %[[G]]
// CHECK: %[[SUM:.*]] = arith.addf %[[GF]], %[[A]]
// CHECK: %[[GF2:.*]] = arith.extf %[[G]]
// CHECK: %[[XF:.*]] = arith.extf %[[X]]
// CHECK: %[[P:.*]] = arith.mulf %[[GF2]], %[[XF]]
// CHECK: %[[DOT:.*]] = arith.addf %[[P]], %[[B]]
// CHECK: linalg.yield %[[SUM]], %[[DOT]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @batch_norm_backward_sums(%dy: tensor<?x64x8x8xf16>, %xmu: tensor<?x64x8x8xf16>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%dy : tensor<?x64x8x8xf16>) outs(%f0 : tensor<64xf32>) {
  ^bb0(%g: f16, %a: f32):
    %gf = arith.extf %g : f16 to f32
    %r = arith.addf %gf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %dot = linalg.generic {indexing_maps = [#in, #in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%dy, %xmu : tensor<?x64x8x8xf16>, tensor<?x64x8x8xf16>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%g: f16, %x: f16, %a: f32):
    %gf = arith.extf %g : f16 to f32
    %xf = arith.extf %x : f16 to f32
    %p = arith.mulf %gf, %xf : f32
    %r = arith.addf %p, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %sum, %dot : tensor<64xf32>, tensor<64xf32>
}

// -----

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>

// A third sibling joins the merged generic: one generic of three results.
// CHECK-LABEL: func.func @three_siblings
// CHECK: %[[R:.*]]:3 = linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<?x64x8x8xf16>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @three_siblings(%x: tensor<?x64x8x8xf16>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f0 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %squares = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %s = arith.mulf %vf, %vf : f32
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f2 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.maximumf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %sum, %squares, %max : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#bc = affine_map<(n, c, h, w) -> (c)>

// A reduction that reads the first's result (a variance after its mean)
// stays separate: it needs the first's whole result.
// CHECK-LABEL: func.func @dependent
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<64xf32>)
func.func @dependent(%x: tensor<?x64x8x8xf16>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f0 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %var = linalg.generic {indexing_maps = [#in, #bc, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x, %sum : tensor<?x64x8x8xf16>, tensor<64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%v: f16, %m: f32, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %d = arith.subf %vf, %m : f32
    %s = arith.mulf %d, %d : f32
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %var : tensor<64xf32>
}

// -----

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>

// The first's result read between the two by what the second reads (its
// init, here a copy of the first): the second needs the first's whole
// result. Both stay.
// CHECK-LABEL: func.func @read_between
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<64xf32>)
func.func @read_between(%x: tensor<?x64x8x8xf16>) -> (tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f0 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %copy = linalg.copy ins(%sum : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%copy : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.maximumf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %sum, %max : tensor<64xf32>, tensor<64xf32>
}

// -----

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#nc = affine_map<(n, c, h, w) -> (n, c)>
#t = affine_map<(n, c, h, w) -> (c, n, h, w)>

// No merge where the loops may differ or the results are indexed
// differently: %x and %y, whose dynamic batches may differ (no shared
// input); %z, read through a transposed map by one of them only; results
// per channel and per (batch, channel).
// CHECK-LABEL: func.func @different_loops
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: linalg.generic
func.func @different_loops(%x: tensor<?x64x8x8xf16>, %y: tensor<?x64x8x8xf16>, %z: tensor<64x64x8x8xf16>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<?x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f : tensor<64xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%z : tensor<64x64x8x8xf16>) outs(%f : tensor<64xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %d = linalg.generic {indexing_maps = [#t, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%z : tensor<64x64x8x8xf16>) outs(%f : tensor<64xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.maximumf %vf, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %n = tensor.dim %x, %c0 : tensor<?x64x8x8xf16>
  %en = tensor.empty(%n) : tensor<?x64xf32>
  %fn = linalg.fill ins(%zero : f32) outs(%en : tensor<?x64xf32>) -> tensor<?x64xf32>
  %g = linalg.generic {indexing_maps = [#in, #nc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%fn : tensor<?x64xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %h = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%y : tensor<?x64x8x8xf16>) outs(%f : tensor<64xf32>) {
  ^bb0(%v: f16, %acc: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.maximumf %vf, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %a, %c, %d, %h, %g : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<?x64xf32>
}

// -----

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>

// A reshape of the first's result between the two (batch norm's backward
// expands the sum to 1x64x1x1 before the second sum): it has no side
// effect and the second does not read it, so it moves after the merged
// generic, which replaces both.
// CHECK-LABEL: func.func @reshape_between
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R]]#0
// CHECK: return %[[E]], %[[R]]#1
func.func @reshape_between(%x: tensor<?x64x8x8xf16>) -> (tensor<1x64x1x1xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f0 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %expanded = tensor.expand_shape %sum [[0, 1, 2, 3]] output_shape [1, 64, 1, 1] : tensor<64xf32> into tensor<1x64x1x1xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.maximumf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %expanded, %max : tensor<1x64x1x1xf32>, tensor<64xf32>
}

// -----

#in = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
#bc = affine_map<(n, c, h, w) -> (c)>

// A computation on the first's result between the two (a residual
// branch's backward reads the first branch's batch-norm sum, and the
// other branch's sum of the same gradient comes after it): it would have
// to move after the second, away from what it was placed with. Both stay.
// CHECK-LABEL: func.func @computation_between
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<64xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<?x64x8x8xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<64xf32>)
func.func @computation_between(%x: tensor<?x64x8x8xf16>) -> (tensor<?x64x8x8xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f0 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %r = arith.addf %vf, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %n = tensor.dim %x, %c0 : tensor<?x64x8x8xf16>
  %ee = tensor.empty(%n) : tensor<?x64x8x8xf32>
  %centred = linalg.generic {indexing_maps = [#in, #bc, #in], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %sum : tensor<?x64x8x8xf16>, tensor<64xf32>) outs(%ee : tensor<?x64x8x8xf32>) {
  ^bb0(%v: f16, %m: f32, %o: f32):
    %vf = arith.extf %v : f16 to f32
    %d = arith.subf %vf, %m : f32
    linalg.yield %d : f32
  } -> tensor<?x64x8x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %squares = linalg.generic {indexing_maps = [#in, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<?x64x8x8xf16>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%v: f16, %a: f32):
    %vf = arith.extf %v : f16 to f32
    %s = arith.mulf %vf, %vf : f32
    %r = arith.addf %s, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %centred, %squares : tensor<?x64x8x8xf32>, tensor<64xf32>
}
