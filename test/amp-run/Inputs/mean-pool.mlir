// A global mean pool in f16 with an f32 sum, as --amp-o2 leaves
// adaptive_avg_pool2d(1): the sum's f32 result is only divided and
// narrowed, a reduction epilogue on both targets.
#id = affine_map<(n, c, s) -> (n, c, s)>
#red = affine_map<(n, c, s) -> (n, c)>
#id2 = affine_map<(n, c) -> (n, c)>
func.func @mean_pool(%x: tensor<2x64x49xf16>) -> tensor<2x64xf16> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %e32 = tensor.empty() : tensor<2x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x64x49xf16>) outs(%f : tensor<2x64xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %e = tensor.empty() : tensor<2x64xf16>
  %mean = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<2x64xf32>) outs(%e : tensor<2x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %d = arith.divf %a, %n : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x64xf16>
  return %mean : tensor<2x64xf16>
}
