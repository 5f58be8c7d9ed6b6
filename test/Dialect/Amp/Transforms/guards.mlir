// amp.fp16_guard: with a guard in the module (or use-fp16-guard=true), only
// ops inside guards may go low; use-fp16-guard=false ignores them. Guards
// are inlined in the output.
// RUN: amp-opt %s -split-input-file --amp-o2 | FileCheck %s --check-prefix=AUTO
// RUN: amp-opt %s -split-input-file --amp-o2="use-fp16-guard=false" | FileCheck %s --check-prefix=OFF
// RUN: amp-opt %s -split-input-file --amp-o2="use-fp16-guard=true" | FileCheck %s --check-prefix=ON

// AUTO-LABEL: func.func @guarded
// AUTO-NOT: amp.fp16_guard
// AUTO: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
// AUTO: arith.addf %{{.*}}, %{{.*}} : tensor<4x4xf16>
// Outside the guard everything stays f32.
// AUTO: math.tanh %{{.*}} : tensor<4x4xf32>
// AUTO: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// AUTO-NOT: amp.fp16_guard
// AUTO-NOT: amp.cast
// OFF-LABEL: func.func @guarded
// OFF: math.tanh %{{.*}} : tensor<4x4xf16>
// OFF: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>) outs(%{{.*}} : tensor<4x4xf32>)
func.func @guarded(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %g = amp.fp16_guard -> tensor<4x4xf32> {
    %mm = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                        outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = arith.addf %mm, %a : tensor<4x4xf32>
    amp.yield %s : tensor<4x4xf32>
  }
  %t = math.tanh %g : tensor<4x4xf32>
  %m2 = linalg.matmul ins(%t, %b : tensor<4x4xf32>, tensor<4x4xf32>)
                      outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m2 : tensor<4x4xf32>
}

// -----

// Nested guards: the inner ops are inside a guard too. Inlining the guards
// folds the exact round trip the inner guard's boundary needed.
// AUTO-LABEL: func.func @nested
// AUTO: %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<4xf16>
// AUTO-NEXT: arith.addf %[[M]], %{{.*}} : tensor<4xf16>
// AUTO: arith.subf %{{.*}}, %{{.*}} : tensor<4xf32>
func.func @nested(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = amp.fp16_guard -> tensor<4xf32> {
    %m = amp.fp16_guard -> tensor<4xf32> {
      %0 = arith.mulf %a, %a : tensor<4xf32>
      amp.yield %0 : tensor<4xf32>
    }
    %1 = arith.addf %m, %a : tensor<4xf32>
    amp.yield %1 : tensor<4xf32>
  }
  %2 = arith.subf %r, %a : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// A module without guards: use-fp16-guard defaults to false; forced on,
// nothing may go low.
// AUTO-LABEL: func.func @no_guard
// AUTO: math.tanh %{{.*}} : tensor<4xf16>
// ON-LABEL: func.func @no_guard
// ON: math.tanh %{{.*}} : tensor<4xf32>
func.func @no_guard(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.tanh %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
