// RUN: amp-opt %s -split-input-file --amp-fuse-attention --canonicalize -verify-diagnostics | FileCheck %s

// amp-fuse-attention makes a model's attention chain one amp.attention
// (test/amp-run/attention.test runs it; fuse-attention-levels.test takes
// it through the precision passes' casts and the bshd layout). Here: Q,
// K and V in B x H x S x D (K^T a transpose of K, or given as K^T), a
// constant divisor as the scale, and every refusal with its remark.

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>

// CHECK-LABEL: func.func @bhsd
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x16xf16>, %[[K:.*]]: tensor<1x2x8x16xf16>, %[[V:.*]]: tensor<1x2x8x16xf16>)
// CHECK: %[[O:.*]] = amp.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%{{.*}} : tensor<1x2x8x16xf16>) scale = 2.500000e-01 -> tensor<1x2x8x16xf16>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
// CHECK-NOT: linalg
// CHECK: return %[[C]]
func.func @bhsd(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> (tensor<2x8x16xf16>) {
  %zero = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %c4 = arith.constant 4.0 : f16
  %ekt = tensor.empty() : tensor<1x2x16x8xf16>
  %ktt = linalg.transpose ins(%k : tensor<1x2x8x16xf16>) outs(%ekt : tensor<1x2x16x8xf16>) permutation = [0, 1, 3, 2]
  %ktc = tensor.collapse_shape %ktt [[0, 1], [2], [3]] : tensor<1x2x16x8xf16> into tensor<2x16x8xf16>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %es = tensor.empty() : tensor<2x8x8xf16>
  %zs = linalg.fill ins(%zero : f16) outs(%es : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<2x8x16xf16>, tensor<2x16x8xf16>) outs(%zs : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf16> into tensor<1x2x8x8xf16>
  %e4 = tensor.empty() : tensor<1x2x8x8xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x8x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.divf %a, %c4 : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %er = tensor.empty() : tensor<1x2x8xf16>
  %fm = linalg.fill ins(%ninf : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x8x8xf16>) outs(%fm : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %me = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf16> into tensor<1x2x8x1xf16>
  %ex = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %me : tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %d = arith.subf %a, %b : f16
    %r = math.exp %d : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %fz = linalg.fill ins(%zero : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf16>) outs(%fz : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.addf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf16>, tensor<1x2x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.divf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf16> into tensor<2x8x8xf16>
  %eo = tensor.empty() : tensor<2x8x16xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x8x8xf16>, tensor<2x8x16xf16>) outs(%zo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %o : tensor<2x8x16xf16>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>

// K^T given: K is its transpose.
// CHECK-LABEL: func.func @key_transposed
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x16xf16>, %[[KT:.*]]: tensor<1x2x16x8xf16>, %[[V:.*]]: tensor<1x2x8x16xf16>)
// CHECK: %[[K:.*]] = linalg.transpose ins(%[[KT]] : tensor<1x2x16x8xf16>) outs(%{{.*}} : tensor<1x2x8x16xf16>) permutation = [0, 1, 3, 2]
// CHECK: amp.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%{{.*}} : tensor<1x2x8x16xf16>) scale = 2.500000e-01 -> tensor<1x2x8x16xf16>
// CHECK-NOT: linalg.batch_matmul
func.func @key_transposed(%q: tensor<1x2x8x16xf16>, %kt: tensor<1x2x16x8xf16>, %v: tensor<1x2x8x16xf16>) -> (tensor<2x8x16xf16>) {
  %zero = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %c4 = arith.constant 4.0 : f16
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x16x8xf16> into tensor<2x16x8xf16>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %es = tensor.empty() : tensor<2x8x8xf16>
  %zs = linalg.fill ins(%zero : f16) outs(%es : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<2x8x16xf16>, tensor<2x16x8xf16>) outs(%zs : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf16> into tensor<1x2x8x8xf16>
  %e4 = tensor.empty() : tensor<1x2x8x8xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x8x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.divf %a, %c4 : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %er = tensor.empty() : tensor<1x2x8xf16>
  %fm = linalg.fill ins(%ninf : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x8x8xf16>) outs(%fm : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %me = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf16> into tensor<1x2x8x1xf16>
  %ex = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %me : tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %d = arith.subf %a, %b : f16
    %r = math.exp %d : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %fz = linalg.fill ins(%zero : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf16>) outs(%fz : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.addf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf16>, tensor<1x2x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.divf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf16> into tensor<2x8x8xf16>
  %eo = tensor.empty() : tensor<2x8x16xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x8x8xf16>, tensor<2x8x16xf16>) outs(%zo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %o : tensor<2x8x16xf16>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>

// The probabilities are also returned (as a training step's backward reads
// them): the chain stays.
// CHECK-LABEL: func.func @probabilities_read
// CHECK-NOT: amp.attention
// CHECK-COUNT-2: linalg.batch_matmul
func.func @probabilities_read(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> (tensor<2x8x16xf16>, tensor<1x2x8x8xf16>) {
  %zero = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %c4 = arith.constant 4.0 : f16
  %ekt = tensor.empty() : tensor<1x2x16x8xf16>
  %ktt = linalg.transpose ins(%k : tensor<1x2x8x16xf16>) outs(%ekt : tensor<1x2x16x8xf16>) permutation = [0, 1, 3, 2]
  %ktc = tensor.collapse_shape %ktt [[0, 1], [2], [3]] : tensor<1x2x16x8xf16> into tensor<2x16x8xf16>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %es = tensor.empty() : tensor<2x8x8xf16>
  %zs = linalg.fill ins(%zero : f16) outs(%es : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<2x8x16xf16>, tensor<2x16x8xf16>) outs(%zs : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf16> into tensor<1x2x8x8xf16>
  %e4 = tensor.empty() : tensor<1x2x8x8xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x8x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.divf %a, %c4 : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %er = tensor.empty() : tensor<1x2x8xf16>
  %fm = linalg.fill ins(%ninf : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x8x8xf16>) outs(%fm : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %me = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf16> into tensor<1x2x8x1xf16>
  %ex = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %me : tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %d = arith.subf %a, %b : f16
    %r = math.exp %d : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %fz = linalg.fill ins(%zero : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf16>) outs(%fz : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.addf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf16>, tensor<1x2x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.divf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf16> into tensor<2x8x8xf16>
  %eo = tensor.empty() : tensor<2x8x16xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  // expected-remark @+1 {{amp: attention kept as separate ops, not one fused call: a value of the chain is also read by func.return, and not as a training step's backward that one fused call takes (no product of P^T by dO)}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x8x8xf16>, tensor<2x8x16xf16>) outs(%zo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %o, %p : tensor<2x8x16xf16>, tensor<1x2x8x8xf16>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>

// CHECK-LABEL: func.func @head_dim_12
// CHECK-NOT: amp.attention
func.func @head_dim_12(%q: tensor<1x2x8x12xf16>, %k: tensor<1x2x8x12xf16>, %v: tensor<1x2x8x12xf16>) -> (tensor<2x8x12xf16>) {
  %zero = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %c4 = arith.constant 4.0 : f16
  %ekt = tensor.empty() : tensor<1x2x12x8xf16>
  %ktt = linalg.transpose ins(%k : tensor<1x2x8x12xf16>) outs(%ekt : tensor<1x2x12x8xf16>) permutation = [0, 1, 3, 2]
  %ktc = tensor.collapse_shape %ktt [[0, 1], [2], [3]] : tensor<1x2x12x8xf16> into tensor<2x12x8xf16>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x8x12xf16> into tensor<2x8x12xf16>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x8x12xf16> into tensor<2x8x12xf16>
  %es = tensor.empty() : tensor<2x8x8xf16>
  %zs = linalg.fill ins(%zero : f16) outs(%es : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<2x8x12xf16>, tensor<2x12x8xf16>) outs(%zs : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf16> into tensor<1x2x8x8xf16>
  %e4 = tensor.empty() : tensor<1x2x8x8xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x8x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.divf %a, %c4 : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %er = tensor.empty() : tensor<1x2x8xf16>
  %fm = linalg.fill ins(%ninf : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x8x8xf16>) outs(%fm : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %me = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf16> into tensor<1x2x8x1xf16>
  %ex = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %me : tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %d = arith.subf %a, %b : f16
    %r = math.exp %d : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %fz = linalg.fill ins(%zero : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf16>) outs(%fz : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.addf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf16>, tensor<1x2x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.divf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf16> into tensor<2x8x8xf16>
  %eo = tensor.empty() : tensor<2x8x12xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<2x8x12xf16>) -> tensor<2x8x12xf16>
  // expected-remark @+1 {{amp: attention kept as separate ops, not one fused call: the fused attention call (cuDNN) takes a head dimension that is a multiple of 8 up to 128}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x8x8xf16>, tensor<2x8x12xf16>) outs(%zo : tensor<2x8x12xf16>) -> tensor<2x8x12xf16>
  return %o : tensor<2x8x12xf16>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>

// CHECK-LABEL: func.func @f32
// CHECK-NOT: amp.attention
func.func @f32(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> (tensor<2x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c4 = arith.constant 4.0 : f32
  %ekt = tensor.empty() : tensor<1x2x16x8xf32>
  %ktt = linalg.transpose ins(%k : tensor<1x2x8x16xf32>) outs(%ekt : tensor<1x2x16x8xf32>) permutation = [0, 1, 3, 2]
  %ktc = tensor.collapse_shape %ktt [[0, 1], [2], [3]] : tensor<1x2x16x8xf32> into tensor<2x16x8xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x8x16xf32> into tensor<2x8x16xf32>
  %es = tensor.empty() : tensor<2x8x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%zs : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf32> into tensor<1x2x8x8xf32>
  %e4 = tensor.empty() : tensor<1x2x8x8xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x8x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %a, %c4 : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %er = tensor.empty() : tensor<1x2x8xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x8x8xf32>) outs(%fm : tensor<1x2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %me = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf32> into tensor<1x2x8x1xf32>
  %ex = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %me : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf32>) outs(%fz : tensor<1x2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf32>, tensor<1x2x8xf32>) outs(%e4 : tensor<1x2x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x8x8xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf32> into tensor<2x8x8xf32>
  %eo = tensor.empty() : tensor<2x8x16xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  // expected-remark @+1 {{amp: attention kept as separate ops, not one fused call: the fused attention call (cuDNN) takes f16 or bf16, and Q is f32}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x8x8xf32>, tensor<2x8x16xf32>) outs(%zo : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>

// The scores are multiplied by a tensor, not a constant.
// CHECK-LABEL: func.func @scaled_by_tensor
// CHECK-NOT: amp.attention
func.func @scaled_by_tensor(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>, %f: tensor<1x2x8x8xf16>) -> (tensor<2x8x16xf16>) {
  %zero = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %ekt = tensor.empty() : tensor<1x2x16x8xf16>
  %ktt = linalg.transpose ins(%k : tensor<1x2x8x16xf16>) outs(%ekt : tensor<1x2x16x8xf16>) permutation = [0, 1, 3, 2]
  %ktc = tensor.collapse_shape %ktt [[0, 1], [2], [3]] : tensor<1x2x16x8xf16> into tensor<2x16x8xf16>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x8x16xf16> into tensor<2x8x16xf16>
  %es = tensor.empty() : tensor<2x8x8xf16>
  %zs = linalg.fill ins(%zero : f16) outs(%es : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<2x8x16xf16>, tensor<2x16x8xf16>) outs(%zs : tensor<2x8x8xf16>) -> tensor<2x8x8xf16>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 8, 8] : tensor<2x8x8xf16> into tensor<1x2x8x8xf16>
  %e4 = tensor.empty() : tensor<1x2x8x8xf16>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %f : tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.mulf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %er = tensor.empty() : tensor<1x2x8xf16>
  %fm = linalg.fill ins(%ninf : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x8x8xf16>) outs(%fm : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.maximumf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %me = tensor.expand_shape %m [[0], [1], [2, 3]] output_shape [1, 2, 8, 1] : tensor<1x2x8xf16> into tensor<1x2x8x1xf16>
  %ex = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %me : tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %d = arith.subf %a, %b : f16
    %r = math.exp %d : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %fz = linalg.fill ins(%zero : f16) outs(%er : tensor<1x2x8xf16>) -> tensor<1x2x8xf16>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x8x8xf16>) outs(%fz : tensor<1x2x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.addf %a, %o : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8xf16>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<1x2x8x8xf16>, tensor<1x2x8xf16>) outs(%e4 : tensor<1x2x8x8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %r = arith.divf %a, %b : f16
    linalg.yield %r : f16
  } -> tensor<1x2x8x8xf16>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x8x8xf16> into tensor<2x8x8xf16>
  %eo = tensor.empty() : tensor<2x8x16xf16>
  %zo = linalg.fill ins(%zero : f16) outs(%eo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  // expected-remark @+1 {{amp: attention kept as separate ops, not one fused call: the scores are multiplied by a value that is not a constant}}
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x8x8xf16>, tensor<2x8x16xf16>) outs(%zo : tensor<2x8x16xf16>) -> tensor<2x8x16xf16>
  return %o : tensor<2x8x16xf16>
}
