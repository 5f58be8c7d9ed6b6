// A scalar read back to the host from a device buffer cannot be lowered by
// --lower-to-gpu: a compile-time error at the op, not a fault at run time.
// RUN: not amp-opt %s --lower-to-gpu="format=isa" 2>&1 | FileCheck %s

// CHECK: host-access.mlir:[[# @LINE + 4]]:8: error: amp: --lower-to-gpu left this access to a device buffer on the host
func.func @first(%x: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %y = math.exp %x : tensor<4xf32>
  %v = tensor.extract %y[%c0] : tensor<4xf32>
  return %v : f32
}
