// The folds of amp.amax and amp.quantize on constants: the largest
// magnitude (NaN wins), and saturate(x * scale) rounded to nearest even.
// RUN: amp-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @amax_constant
// CHECK-NOT: amp.amax
// CHECK-DAG: %[[A:.*]] = arith.constant 7.500000e+00 : f32
// CHECK-DAG: %[[T:.*]] = arith.constant dense<3.000000e+00> : tensor<f32>
// CHECK: return %[[A]], %[[T]]
func.func @amax_constant() -> (f32, tensor<f32>) {
  %x = arith.constant dense<[1.0, -7.5, 2.0, 0.0]> : tensor<4xf32>
  %y = arith.constant dense<-3.0> : tensor<2x2xbf16>
  %a = amp.amax %x : tensor<4xf32> -> f32
  %b = amp.amax %y : tensor<2x2xbf16> -> tensor<f32>
  return %a, %b : f32, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @amax_nan
// CHECK: %[[A:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: return %[[A]]
func.func @amax_nan() -> f32 {
  %x = arith.constant dense<[1.0, 0x7FC00000, 9.0]> : tensor<3xf32>
  %a = amp.amax %x : tensor<3xf32> -> f32
  return %a : f32
}

// -----

// 1.0 * 2 = 2; 300 * 2 = 600 saturates to 448 (E4M3FN's largest); -1e6
// and -inf to -448; 0.0625 * 2 = 0.125; 17 * 2 = 34 rounds to 32 (ties to
// even between 32 and 36); NaN stays NaN.
// CHECK-LABEL: func.func @quantize_constant
// CHECK-NOT: amp.quantize
// CHECK: arith.constant dense<[2.000000e+00, 4.480000e+02, -4.480000e+02, -4.480000e+02, 1.250000e-01, 3.200000e+01, 0x7F]> : tensor<7xf8E4M3FN>
func.func @quantize_constant() -> tensor<7xf8E4M3FN> {
  %x = arith.constant dense<[1.0, 300.0, -1.0e6, 0xFF800000, 0.0625, 17.0, 0x7FC00000]> : tensor<7xf32>
  %s = arith.constant 2.0 : f32
  %q = amp.quantize %x by %s : tensor<7xf32>, f32 -> tensor<7xf8E4M3FN>
  return %q : tensor<7xf8E4M3FN>
}

// -----

// E5M2: 1e6 * 1 saturates to 57344; -7e4 (-inf in f16) to -57344, and a
// splat folds to a splat.
// CHECK-LABEL: func.func @quantize_e5m2
// CHECK-DAG: arith.constant dense<[5.734400e+04, 1.000000e+00]> : tensor<2xf8E5M2>
// CHECK-DAG: arith.constant dense<-5.734400e+04> : tensor<3xf8E5M2>
func.func @quantize_e5m2() -> (tensor<2xf8E5M2>, tensor<3xf8E5M2>) {
  %x = arith.constant dense<[1.0e6, 1.0]> : tensor<2xf32>
  %y = arith.constant dense<-7.0e4> : tensor<3xf16>
  %s = arith.constant dense<1.0> : tensor<f32>
  %q = amp.quantize %x by %s : tensor<2xf32>, tensor<f32> -> tensor<2xf8E5M2>
  %r = amp.quantize %y by %s : tensor<3xf16>, tensor<f32> -> tensor<3xf8E5M2>
  return %q, %r : tensor<2xf8E5M2>, tensor<3xf8E5M2>
}

// -----

// A runtime scale or input does not fold.
// CHECK-LABEL: func.func @quantize_runtime
// CHECK: amp.quantize
func.func @quantize_runtime(%s: f32) -> tensor<2xf8E4M3FN> {
  %x = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %q = amp.quantize %x by %s : tensor<2xf32>, f32 -> tensor<2xf8E4M3FN>
  return %q : tensor<2xf8E4M3FN>
}
