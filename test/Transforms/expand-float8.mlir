// RUN: amp-opt %s --amp-expand-float8 --split-input-file --verify-diagnostics | FileCheck %s

// truncf f32 -> f8E4M3FN: through the bits, rounded to nearest even at bit
// 20 in the normal range and by roundeven in units of 2^-9 below it; past
// 448 (code 0x7E) and for NaN the code is 0x7F (NaN: E4M3FN has no
// infinity); the sign is or-ed back in.
// CHECK-LABEL: func.func @trunc_e4m3
// CHECK-DAG: %[[NAN:.*]] = arith.constant 127 : i32
// CHECK-DAG: %[[MAX:.*]] = arith.constant 126 : i32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 5.120000e+02 : f32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: math.roundeven
// CHECK: arith.cmpi ugt, %{{.*}}, %[[MAX]] : i32
// CHECK: %[[CODE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[F8:.*]] = arith.bitcast %[[CODE]] : i8 to f8E4M3FN
// CHECK: return %[[F8]]
// CHECK-NOT: arith.truncf
func.func @trunc_e4m3(%x: f32) -> f8E4M3FN {
  %0 = arith.truncf %x : f32 to f8E4M3FN
  return %0 : f8E4M3FN
}

// -----

// truncf to f8E5M2 saturates to infinity (0x7C) past 57344 (0x7B); NaN is
// 0x7E. A bf16 source is widened to f32 first (exactly).
// CHECK-LABEL: func.func @trunc_e5m2_bf16
// CHECK-DAG: arith.constant 126 : i32
// CHECK-DAG: arith.constant 124 : i32
// CHECK-DAG: arith.constant 123 : i32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.bitcast %{{.*}} : i8 to f8E5M2
// CHECK-NOT: arith.truncf
func.func @trunc_e5m2_bf16(%x: bf16) -> f8E5M2 {
  %0 = arith.truncf %x : bf16 to f8E5M2
  return %0 : f8E5M2
}

// -----

// Shaped values: the same code on tensors and vectors, constants splat.
// CHECK-LABEL: func.func @shaped
// CHECK-DAG: arith.constant dense<2147483647> : tensor<4xi32>
// CHECK-DAG: arith.bitcast %{{.*}} : tensor<4xf32> to tensor<4xi32>
// CHECK: arith.bitcast %{{.*}} : tensor<4xi8> to tensor<4xf8E4M3FN>
// CHECK: arith.bitcast %{{.*}} : vector<8xf8E5M2> to vector<8xi8>
// CHECK: arith.extui %{{.*}} : vector<8xi8> to vector<8xi32>
// CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
func.func @shaped(%x: tensor<4xf32>, %y: vector<8xf8E5M2>)
    -> (tensor<4xf8E4M3FN>, vector<8xf32>) {
  %0 = arith.truncf %x : tensor<4xf32> to tensor<4xf8E4M3FN>
  %1 = arith.extf %y : vector<8xf8E5M2> to vector<8xf32>
  return %0, %1 : tensor<4xf8E4M3FN>, vector<8xf32>
}

// -----

// extf f8E4M3FN -> f32: exponent rebiased by 120, mantissa shifted to bit
// 20; subnormals are the mantissa times 2^-9; S.1111.111 is NaN. f16 and
// bf16 results are narrowed from that f32 (exactly); f64 widened.
// CHECK-LABEL: func.func @ext_e4m3
// CHECK-DAG: arith.constant 120 : i32
// CHECK-DAG: arith.constant 0.001953125 : f32
// CHECK-DAG: arith.constant 2143289344 : i32
// CHECK: arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: arith.uitofp
// CHECK: %[[F32:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.truncf %[[F32]] : f32 to f16
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK-NOT: arith.extf %{{.*}} : f8E4M3FN
func.func @ext_e4m3(%x: f8E4M3FN) -> (f16, f64) {
  %0 = arith.extf %x : f8E4M3FN to f16
  %1 = arith.extf %x : f8E4M3FN to f64
  return %0, %1 : f16, f64
}

// -----

// extf f8E5M2: an all-ones exponent is infinity (mantissa 0) or NaN.
// CHECK-LABEL: func.func @ext_e5m2
// CHECK-DAG: arith.constant 2139095040 : i32
// CHECK-DAG: arith.constant 31 : i32
// CHECK: arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK-NOT: arith.extf
func.func @ext_e5m2(%x: f8E5M2) -> f32 {
  %0 = arith.extf %x : f8E5M2 to f32
  return %0 : f32
}

// -----

// What the pass does not expand stays, with a remark that says why.
// CHECK-LABEL: func.func @left_alone
// CHECK: arith.truncf %{{.*}} : f64 to f8E4M3FN
// CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FNUZ
// CHECK: arith.extf %{{.*}} : f8E8M0FNU to f32
// CHECK: arith.truncf %{{.*}} to_nearest_away : f32 to f8E5M2
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @left_alone(%a: f64, %b: f32, %c: f8E8M0FNU)
    -> (f8E4M3FN, f8E4M3FNUZ, f32, f8E5M2, f16) {
  // expected-remark @below {{amp: truncf from a type wider than f32 to f8 is not expanded (rounding through f32 would round twice); left unchanged}}
  %0 = arith.truncf %a : f64 to f8E4M3FN
  // expected-remark @below {{amp: truncf to this f8 format is not expanded (f8E4M3FN and f8E5M2 are); left unchanged}}
  %1 = arith.truncf %b : f32 to f8E4M3FNUZ
  // expected-remark @below {{amp: extf from this f8 format is not expanded (f8E4M3FN and f8E5M2 are); left unchanged}}
  %2 = arith.extf %c : f8E8M0FNU to f32
  // expected-remark @below {{amp: truncf to f8 with a rounding mode other than to_nearest_even is not expanded; left unchanged}}
  %3 = arith.truncf %b to_nearest_away : f32 to f8E5M2
  // Not an f8 conversion: no remark.
  %5 = arith.truncf %b : f32 to f16
  return %0, %1, %2, %3, %5 : f8E4M3FN, f8E4M3FNUZ, f32, f8E5M2, f16
}
