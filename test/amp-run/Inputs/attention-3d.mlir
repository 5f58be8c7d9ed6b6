// Attention written on B*H x S x D tensors (test/amp-run/attention-3d.test),
// as bench/gpu/models.py's transformer writes it: the heads of a
// B*S x H*D projection split into B*H x S x D, Q K^T as one batch matmul
// that reads K through its indexing maps, the scores scaled, a
// linalg.softmax over the last dimension (its decomposition: maxnumf from
// NaN), the product by V and the heads merged back.
func.func @chain3d(%qkv: tensor<32x192xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %q0 = tensor.extract_slice %qkv[0, 0] [32, 64] [1, 1] : tensor<32x192xf32> to tensor<32x64xf32>
  %k0 = tensor.extract_slice %qkv[0, 64] [32, 64] [1, 1] : tensor<32x192xf32> to tensor<32x64xf32>
  %v0 = tensor.extract_slice %qkv[0, 128] [32, 64] [1, 1] : tensor<32x192xf32> to tensor<32x64xf32>
  %q1 = tensor.expand_shape %q0 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %k1 = tensor.expand_shape %k0 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %v1 = tensor.expand_shape %v0 [[0, 1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<32x64xf32> into tensor<2x16x4x16xf32>
  %e = tensor.empty() : tensor<2x4x16x16xf32>
  %q2 = linalg.transpose ins(%q1 : tensor<2x16x4x16xf32>) outs(%e : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
  %k2 = linalg.transpose ins(%k1 : tensor<2x16x4x16xf32>) outs(%e : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
  %v2 = linalg.transpose ins(%v1 : tensor<2x16x4x16xf32>) outs(%e : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
  %q = tensor.collapse_shape %q2 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %k = tensor.collapse_shape %k2 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v = tensor.collapse_shape %v2 [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %e3 = tensor.empty() : tensor<8x16x16xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
      ins(%q, %k : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%z3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x16x16xf32>) outs(%e3 : tensor<8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.25 : f32
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<8x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%scaled : tensor<8x16x16xf32>) outs(%e3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %pv = linalg.batch_matmul ins(%p, %v : tensor<8x16x16xf32>, tensor<8x16x16xf32>) outs(%z4 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %pv4 = tensor.expand_shape %pv [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %eo = tensor.empty() : tensor<2x16x4x16xf32>
  %merged = linalg.transpose ins(%pv4 : tensor<2x4x16x16xf32>) outs(%eo : tensor<2x16x4x16xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %merged [[0, 1], [2, 3]] : tensor<2x16x4x16xf32> into tensor<32x64xf32>
  return %out : tensor<32x64xf32>
}
