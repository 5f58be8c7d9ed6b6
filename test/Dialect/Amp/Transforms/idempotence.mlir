// Running a pipeline twice changes nothing more: the first run marks the
// module (amp.applied) and the second leaves it alone, guards and all.
// RUN: amp-opt %s --amp-o1 > %t.1.mlir
// RUN: amp-opt %t.1.mlir --amp-o1 > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: amp-opt %s --amp-o2 > %t.3.mlir
// RUN: amp-opt %t.3.mlir --amp-o2 > %t.4.mlir
// RUN: diff %t.3.mlir %t.4.mlir
// RUN: FileCheck %s --input-file=%t.2.mlir

// CHECK: module attributes {amp.applied = "O1:f16", amp.rounding = "once"}
// Outside the (inlined) guard, the tanh stays f32 on the second run too.
// CHECK: math.tanh %{{.*}} : tensor<4x4xf32>
func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %g = amp.fp16_guard -> tensor<4x4xf32> {
    %mm = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>)
                        outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    amp.yield %mm : tensor<4x4xf32>
  }
  %t = math.tanh %g : tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}
