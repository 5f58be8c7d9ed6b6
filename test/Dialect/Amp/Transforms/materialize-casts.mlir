// amp.cast -> arith.extf/truncf, or tosa.cast in TOSA graphs; f16 <-> bf16
// goes through f32. keep-amp-casts leaves them for AMP-aware passes.
// RUN: amp-opt %s -split-input-file --amp-materialize-casts | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o1="keep-amp-casts=true" | FileCheck %s --check-prefix=KEEP

// CHECK-LABEL: func.func @arith
// CHECK: arith.truncf %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
// CHECK-NEXT: arith.truncf %[[W]] : vector<4xf32> to vector<4xbf16>
// CHECK-NOT: amp.cast
func.func @arith(%t: tensor<4xf32>, %s: f16, %v: vector<4xf16>)
    -> (tensor<4xf16>, f32, vector<4xbf16>) {
  %0 = amp.cast %t : tensor<4xf32> to tensor<4xf16>
  %1 = amp.cast %s : f16 to f32
  %2 = amp.cast %v : vector<4xf16> to vector<4xbf16>
  return %0, %1, %2 : tensor<4xf16>, f32, vector<4xbf16>
}

// -----

// CHECK-LABEL: func.func @tosa
// CHECK: %[[C:.*]] = tosa.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: tosa.abs %[[C]]
func.func @tosa(%t: tensor<4xf32>) -> tensor<4xf16> {
  %0 = amp.cast %t : tensor<4xf32> to tensor<4xf16>
  %1 = tosa.abs %0 : (tensor<4xf16>) -> tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// KEEP-LABEL: func.func @kept
// KEEP: amp.cast %{{.*}} : tensor<4x4xf32> to tensor<4x4xf16>
// KEEP-NOT: arith.truncf
func.func @kept(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>)
                      outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm : tensor<4x4xf32>
}
