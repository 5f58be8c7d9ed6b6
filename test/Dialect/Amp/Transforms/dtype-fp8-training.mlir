// dtype=fp8 does not train yet: an error at the forward-backward function.
// RUN: not amp-opt %s --amp-o2="dtype=fp8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRAIN
// RUN: amp-opt %s --amp-o2="dtype=bf16" -o /dev/null

// Training steps: not yet, an error at the step.
// TRAIN: dtype-fp8-training.mlir:[[@LINE+1]]:1: error: amp: dtype=fp8 does not train yet: FP8 gradients (E5M2) and delayed scaling are not implemented (issue 29); use dtype=bf16 for training steps
func.func @forward_backward(%w: tensor<4x3xf32> {amp.param = "fc.weight"},
    %x: tensor<8x4xf32> {amp.batch}, %seed: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<4x3xf32> {amp.grad = "fc.weight"})
    attributes {amp.optimizer = {kind = "sgd", lr = 1.0e-2 : f64}} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %xt = tensor.empty() : tensor<4x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%xt : tensor<4x8xf32>) permutation = [1, 0]
  %ones = tensor.empty() : tensor<8x3xf32>
  %o = linalg.fill ins(%zero : f32) outs(%ones : tensor<8x3xf32>) -> tensor<8x3xf32>
  %g = linalg.matmul ins(%t, %o : tensor<4x8xf32>, tensor<8x3xf32>)
                     outs(%z : tensor<4x3xf32>) -> tensor<4x3xf32>
  %el = tensor.empty() : tensor<f32>
  %zl = linalg.fill ins(%zero : f32) outs(%el : tensor<f32>) -> tensor<f32>
  return %zl, %g : tensor<f32>, tensor<4x3xf32>
}
