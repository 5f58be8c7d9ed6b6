// The precision policies leave amp.all_reduce alone: it keeps the type its
// operand was written with (f32 gradients are reduced in f32, an f16 one in
// f16, flags stay i1), with conversions around it where its neighbours
// changed precision, and the result verifies.
// RUN: amp-opt %s --amp-o2 -split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-o1 -split-input-file | FileCheck %s --check-prefix=O1
// RUN: amp-opt %s --amp-o2="dtype=bf16" -split-input-file | FileCheck %s --check-prefix=BF16

// CHECK-LABEL: func.func @elementwise
// CHECK: %[[T:.*]] = math.tanh %{{.*}} : tensor<8xf16>
// CHECK: %[[W:.*]] = arith.extf %[[T]] : tensor<8xf16> to tensor<8xf32>
// CHECK: %[[G:.*]] = amp.all_reduce mean %[[W]] : tensor<8xf32>
// CHECK: arith.truncf %[[G]] : tensor<8xf32> to tensor<8xf16>
// O1-LABEL: func.func @elementwise
// O1: amp.all_reduce mean %{{.*}} : tensor<8xf32>
// BF16-LABEL: func.func @elementwise
// BF16: %[[W:.*]] = arith.extf %{{.*}} : tensor<8xbf16> to tensor<8xf32>
// BF16: amp.all_reduce mean %[[W]] : tensor<8xf32>
func.func @elementwise(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %s = arith.addf %a, %b : tensor<8xf32>
  %t = math.tanh %s : tensor<8xf32>
  %g = amp.all_reduce mean %t : tensor<8xf32>
  %u = arith.mulf %g, %g : tensor<8xf32>
  return %u : tensor<8xf32>
}

// -----

// A data-parallel step: the f32 accumulator of a low-precision matmul, an
// f16 tensor and an i1 flag, each reduced in its own type.
// CHECK-LABEL: func.func @step
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf16>, tensor<4x3xf16>) outs(%{{.*}} : tensor<8x3xf32>)
// CHECK: amp.all_reduce mean %[[MM]] : tensor<8x3xf32>
// CHECK: amp.all_reduce sum %{{.*}} : tensor<3xf16>
// CHECK: %[[FLAG:.*]] = tensor.from_elements %{{.*}} : tensor<i1>
// CHECK: amp.all_reduce max %[[FLAG]] : tensor<i1>
func.func @step(%x: tensor<8x4xf32>, %w: tensor<4x3xf32>, %h: tensor<3xf16>)
    -> (tensor<8x3xf32>, tensor<3xf16>, tensor<i1>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x3xf32>) -> tensor<8x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x4xf32>, tensor<4x3xf32>)
                      outs(%init : tensor<8x3xf32>) -> tensor<8x3xf32>
  %g = amp.all_reduce mean %mm : tensor<8x3xf32>
  %h2 = amp.all_reduce sum %h : tensor<3xf16>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0, %c0] : tensor<8x4xf32>
  %b = arith.cmpf ogt, %v, %zero : f32
  %flag = tensor.from_elements %b : tensor<i1>
  %f2 = amp.all_reduce max %flag : tensor<i1>
  return %g, %h2, %f2 : tensor<8x3xf32>, tensor<3xf16>, tensor<i1>
}
