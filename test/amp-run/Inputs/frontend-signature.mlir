// What frontends such as torch-mlir emit: a dynamic batch dimension, weights
// in a constant ml_program global, a strided slice (a memrefCopy call once
// lowered), an i64 input and several results.
module {
  ml_program.global private @w(dense<[[1.0, 2.0, 3.0], [0.5, -1.0, 0.25], [-2.0, 1.5, 1.0], [0.0, 1.0, -0.5]]> : tensor<4x3xf32>) : tensor<4x3xf32>
  func.func @main(%x: tensor<?x4xf32>, %idx: tensor<?xi64>) -> (tensor<?x3xf32>, tensor<?x2xf32>, tensor<?xi64>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %n = tensor.dim %x, %c0 : tensor<?x4xf32>
    %w = ml_program.global_load_const @w : tensor<4x3xf32>
    %e = tensor.empty(%n) : tensor<?x3xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
    %y = linalg.matmul ins(%x, %w : tensor<?x4xf32>, tensor<4x3xf32>) outs(%f : tensor<?x3xf32>) -> tensor<?x3xf32>
    %s = tensor.extract_slice %x[0, 0] [%n, 2] [1, 2] : tensor<?x4xf32> to tensor<?x2xf32>
    %m = tensor.dim %idx, %c0 : tensor<?xi64>
    %ei = tensor.empty(%m) : tensor<?xi64>
    %i2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<?xi64>) outs(%ei : tensor<?xi64>) {
    ^bb0(%in: i64, %out: i64):
      %one = arith.constant 1 : i64
      %r = arith.addi %in, %one : i64
      linalg.yield %r : i64
    } -> tensor<?xi64>
    return %y, %s, %i2 : tensor<?x3xf32>, tensor<?x2xf32>, tensor<?xi64>
  }
}
