// amp.absmax round-trips on ops and arguments (calibrated ranges).
// RUN: amp-opt %s | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @ranged
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {amp.absmax = 2.500000e+00 : f32})
// CHECK: arith.addf %{{.*}}, %{{.*}} {amp.absmax = array<f32: 5.000000e+00>} : tensor<4xf32>
func.func @ranged(%x: tensor<4xf32> {amp.absmax = 2.5 : f32}) -> tensor<4xf32> {
  %y = arith.addf %x, %x {amp.absmax = array<f32: 5.0>} : tensor<4xf32>
  return %y : tensor<4xf32>
}
