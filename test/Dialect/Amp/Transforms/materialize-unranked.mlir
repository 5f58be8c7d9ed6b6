// A user's amp.cast on unranked tensors has no upstream equivalent: it stays,
// and a remark says why.
// RUN: amp-opt %s --amp-materialize-casts -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @unranked
// CHECK: amp.cast %{{.*}} : tensor<*xf32> to tensor<*xf16>
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf16> {
  // expected-remark @+1 {{amp: left as amp.cast: arith.extf/truncf and tosa.cast do not take unranked tensors}}
  %0 = amp.cast %a : tensor<*xf32> to tensor<*xf16>
  return %0 : tensor<*xf16>
}
