// arg-precision=low: a float tensor argument of a public function that every
// user converts to the low type takes the low type in the signature, and its
// conversion disappears (0 B converted per call for it). Arguments an f32 op
// reads, private functions, functions the module calls, and results keep
// their types. The default, keep, changes no signature.
// RUN: amp-opt %s -split-input-file --amp-o2="arg-precision=low report=text report-file=-" | FileCheck %s --check-prefixes=CHECK,O2
// RUN: amp-opt %s -split-input-file --amp-o2="arg-precision=low dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s -split-input-file --amp-o1="arg-precision=low" | FileCheck %s --check-prefix=O1
// RUN: amp-opt %s -split-input-file --amp-o2 | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %s -split-input-file --amp-o2="arg-precision=low" | amp-opt -split-input-file --amp-o2="arg-precision=low" | FileCheck %s

// The report comes first: no conversion is left.
// O2: amp-o2: 1/2 float ops in f16, 0 casts, 0 B converted per call
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf16>, %[[W:.*]]: tensor<4x3xf16>) -> tensor<2x3xf32>
// CHECK-NOT: arith.truncf
// CHECK: linalg.matmul ins(%[[X]], %[[W]] : tensor<2x4xf16>, tensor<4x3xf16>)
// BF16-LABEL: func.func @mlp
// BF16-SAME: (%{{.*}}: tensor<2x4xbf16>, %{{.*}}: tensor<4x3xbf16>) -> tensor<2x3xf32>
// O1-LABEL: func.func @mlp
// O1-SAME: (%{{.*}}: tensor<2x4xf16>, %{{.*}}: tensor<4x3xf16>) -> tensor<2x3xf32>
// KEEP-LABEL: func.func @mlp
// KEEP-SAME: (%{{.*}}: tensor<2x4xf32>, %{{.*}}: tensor<4x3xf32>) -> tensor<2x3xf32>
// KEEP: arith.truncf
func.func @mlp(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// At O1, %x also feeds math.exp (black, f32): it keeps f32; %w only feeds
// the matmul and goes low. An argument that is returned as well keeps f32.
// O1-LABEL: func.func @mixed_uses
// O1-SAME: (%{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<4x4xf16>, %{{.*}}: tensor<4x4xf32>)
func.func @mixed_uses(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %r: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ex = math.exp %x : tensor<4x4xf32>
  %s = linalg.matmul ins(%r, %r : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y, %ex, %r : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A private function, and a public one that another function calls, keep
// their signatures; the caller (public, not called) is narrowed.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @called
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%{{.*}}: tensor<4xf16>) -> tensor<4xf32>
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @called(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.mulf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = arith.negf %x : tensor<4xf32>
  %b = func.call @helper(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = func.call @called(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
