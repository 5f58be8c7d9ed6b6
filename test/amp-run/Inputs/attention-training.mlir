// A training step's attention (test/amp-run/attention-training.test): the
// forward of GPT-2's attention as torch-mlir writes it (as @chain of
// attention.mlir) and its backward as torch's autograd writes it: dV =
// P^T dO, dP = dO V^T, the softmax's gradient dS = dP*P - P*rowsum(dP*P),
// scaled as the scores were, dQ = dS K, dK^T = Q^T dS, the three merged
// back into the projection's B x S x 3*H*D layout. @step returns the
// output and the projection's gradient for the output's gradient %dout.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mask = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
func.func @step(%qkv: tensor<2x16x96xf32>, %bias: tensor<2x1x16x16xf32>, %dout: tensor<2x16x32xf32>) -> (tensor<2x16x32xf32>, tensor<2x16x96xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %quarter = arith.constant 0.25 : f32
  %q0 = tensor.extract_slice %qkv[0, 0, 0] [2, 16, 32] [1, 1, 1] : tensor<2x16x96xf32> to tensor<2x16x32xf32>
  %k0 = tensor.extract_slice %qkv[0, 0, 32] [2, 16, 32] [1, 1, 1] : tensor<2x16x96xf32> to tensor<2x16x32xf32>
  %v0 = tensor.extract_slice %qkv[0, 0, 64] [2, 16, 32] [1, 1, 1] : tensor<2x16x96xf32> to tensor<2x16x32xf32>
  %q1 = tensor.expand_shape %q0 [[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xf32> into tensor<2x16x2x16xf32>
  %k1 = tensor.expand_shape %k0 [[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xf32> into tensor<2x16x2x16xf32>
  %v1 = tensor.expand_shape %v0 [[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xf32> into tensor<2x16x2x16xf32>
  %e = tensor.empty() : tensor<2x2x16x16xf32>
  %q = linalg.transpose ins(%q1 : tensor<2x16x2x16xf32>) outs(%e : tensor<2x2x16x16xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k1 : tensor<2x16x2x16xf32>) outs(%e : tensor<2x2x16x16xf32>) permutation = [0, 2, 3, 1]
  %v = linalg.transpose ins(%v1 : tensor<2x16x2x16xf32>) outs(%e : tensor<2x2x16x16xf32>) permutation = [0, 2, 1, 3]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x2x16x16xf32> into tensor<4x16x16xf32>
  %ktc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x2x16x16xf32> into tensor<4x16x16xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x2x16x16xf32> into tensor<4x16x16xf32>
  %e3 = tensor.empty() : tensor<4x16x16xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s = linalg.batch_matmul ins(%qc, %ktc : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%z3 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s4 : tensor<2x2x16x16xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %quarter : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, #mask, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%scaled, %bias : tensor<2x2x16x16xf32>, tensor<2x1x16x16xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %er = tensor.empty() : tensor<2x2x16xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%masked : tensor<2x2x16x16xf32>) outs(%fm : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %maxe = tensor.expand_shape %max [[0], [1], [2, 3]] output_shape [2, 2, 16, 1] : tensor<2x2x16xf32> into tensor<2x2x16x1xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%masked, %maxe : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %r = arith.subf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%shifted : tensor<2x2x16x16xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%exp : tensor<2x2x16x16xf32>) outs(%fz : tensor<2x2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16xf32>
  %sume = tensor.expand_shape %sum [[0], [1], [2, 3]] output_shape [2, 2, 16, 1] : tensor<2x2x16xf32> into tensor<2x2x16x1xf32>
  %p = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%exp, %sume : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %d: f32, %o: f32):
    %r = arith.divf %a, %d : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x2x16x16xf32> into tensor<4x16x16xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %pv = linalg.batch_matmul ins(%pc, %vc : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%z4 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x2x16xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<2x2x16x16xf32>) outs(%eo : tensor<2x16x2x16xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0], [1], [2, 3]] : tensor<2x16x2x16xf32> into tensor<2x16x32xf32>
  // The backward. dO in heads: B*H x S x D.
  %do1 = tensor.expand_shape %dout [[0], [1], [2, 3]] output_shape [2, 16, 2, 16] : tensor<2x16x32xf32> into tensor<2x16x2x16xf32>
  %do2 = linalg.transpose ins(%do1 : tensor<2x16x2x16xf32>) outs(%e : tensor<2x2x16x16xf32>) permutation = [0, 2, 1, 3]
  %doc = tensor.collapse_shape %do2 [[0, 1], [2], [3]] : tensor<2x2x16x16xf32> into tensor<4x16x16xf32>
  // dV = P^T dO, dP = dO V^T.
  %pt = linalg.transpose ins(%pc : tensor<4x16x16xf32>) outs(%e3 : tensor<4x16x16xf32>) permutation = [0, 2, 1]
  %dv = linalg.batch_matmul ins(%pt, %doc : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%z3 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %vt = linalg.transpose ins(%vc : tensor<4x16x16xf32>) outs(%e3 : tensor<4x16x16xf32>) permutation = [0, 2, 1]
  %dp = linalg.batch_matmul ins(%doc, %vt : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%z3 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %dp4 = tensor.expand_shape %dp [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  // The softmax's gradient, scaled as the scores were (torch-mlir shares
  // the forward's constant; a constant of its own lets a test change it).
  %dscale = arith.constant 0.25 : f32
  %t = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dp4, %p : tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %e1 = tensor.empty() : tensor<2x2x16x1xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x2x16x1xf32>) -> tensor<2x2x16x1xf32>
  %rs = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%t : tensor<2x2x16x16xf32>) outs(%z1 : tensor<2x2x16x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x1xf32>
  %u = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %rs : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %ds = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %u : tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %dss = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ds : tensor<2x2x16x16xf32>) outs(%e : tensor<2x2x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %dscale : f32
    linalg.yield %r : f32
  } -> tensor<2x2x16x16xf32>
  %dsc = tensor.collapse_shape %dss [[0, 1], [2], [3]] : tensor<2x2x16x16xf32> into tensor<4x16x16xf32>
  // dK^T = Q^T dS, dQ = dS K.
  %qt = linalg.transpose ins(%qc : tensor<4x16x16xf32>) outs(%e3 : tensor<4x16x16xf32>) permutation = [0, 2, 1]
  %dkt = linalg.batch_matmul ins(%qt, %dsc : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%z3 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %kk = linalg.transpose ins(%ktc : tensor<4x16x16xf32>) outs(%e3 : tensor<4x16x16xf32>) permutation = [0, 2, 1]
  %dq = linalg.batch_matmul ins(%dsc, %kk : tensor<4x16x16xf32>, tensor<4x16x16xf32>) outs(%z3 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  // Merged back: B x S x H*D each, then the projection's layout.
  %em = tensor.empty() : tensor<2x16x2x16xf32>
  %dq4 = tensor.expand_shape %dq [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  %dqm = linalg.transpose ins(%dq4 : tensor<2x2x16x16xf32>) outs(%em : tensor<2x16x2x16xf32>) permutation = [0, 2, 1, 3]
  %dqf = tensor.collapse_shape %dqm [[0], [1], [2, 3]] : tensor<2x16x2x16xf32> into tensor<2x16x32xf32>
  %dkt4 = tensor.expand_shape %dkt [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  %dkm = linalg.transpose ins(%dkt4 : tensor<2x2x16x16xf32>) outs(%em : tensor<2x16x2x16xf32>) permutation = [0, 3, 1, 2]
  %dkf = tensor.collapse_shape %dkm [[0], [1], [2, 3]] : tensor<2x16x2x16xf32> into tensor<2x16x32xf32>
  %dv4 = tensor.expand_shape %dv [[0, 1], [2], [3]] output_shape [2, 2, 16, 16] : tensor<4x16x16xf32> into tensor<2x2x16x16xf32>
  %dvm = linalg.transpose ins(%dv4 : tensor<2x2x16x16xf32>) outs(%em : tensor<2x16x2x16xf32>) permutation = [0, 2, 1, 3]
  %dvf = tensor.collapse_shape %dvm [[0], [1], [2, 3]] : tensor<2x16x2x16xf32> into tensor<2x16x32xf32>
  %dqkv = tensor.concat dim(2) %dqf, %dkf, %dvf : (tensor<2x16x32xf32>, tensor<2x16x32xf32>, tensor<2x16x32xf32>) -> tensor<2x16x96xf32>
  return %out, %dqkv : tensor<2x16x32xf32>, tensor<2x16x96xf32>
}

// amp.attention_backward itself (f16, a mask broadcast over the batch,
// causal, 24 queries over 40 keys), after the forward that writes the
// out and stats it reads.
func.func @op(%q: tensor<2x2x24x16xf16>, %k: tensor<2x2x40x16xf16>, %v: tensor<2x2x40x16xf16>,
              %bias: tensor<1x2x24x40xf16>, %do: tensor<2x2x24x16xf16>)
    -> (tensor<2x2x24x16xf16>, tensor<2x2x40x16xf16>, tensor<2x2x40x16xf16>) {
  %e = tensor.empty() : tensor<2x2x24x16xf16>
  %s = tensor.empty() : tensor<2x2x24xf32>
  %ek = tensor.empty() : tensor<2x2x40x16xf16>
  %r:2 = amp.attention ins(%q, %k, %v : tensor<2x2x24x16xf16>, tensor<2x2x40x16xf16>, tensor<2x2x40x16xf16>)
      bias(%bias : tensor<1x2x24x40xf16>) outs(%e, %s : tensor<2x2x24x16xf16>, tensor<2x2x24xf32>)
      scale = 0.25 causal -> tensor<2x2x24x16xf16>, tensor<2x2x24xf32>
  %g:3 = amp.attention_backward ins(%q, %k, %v, %r#0, %do, %r#1 : tensor<2x2x24x16xf16>, tensor<2x2x40x16xf16>,
                                    tensor<2x2x40x16xf16>, tensor<2x2x24x16xf16>, tensor<2x2x24x16xf16>, tensor<2x2x24xf32>)
      bias(%bias : tensor<1x2x24x40xf16>) outs(%e, %ek, %ek : tensor<2x2x24x16xf16>, tensor<2x2x40x16xf16>, tensor<2x2x40x16xf16>)
      scale = 0.25 causal -> tensor<2x2x24x16xf16>, tensor<2x2x40x16xf16>, tensor<2x2x40x16xf16>
  return %g#0, %g#1, %g#2 : tensor<2x2x24x16xf16>, tensor<2x2x40x16xf16>, tensor<2x2x40x16xf16>
}
