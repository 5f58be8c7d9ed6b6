// TOSA masks: -FLT_MAX as the value of a tosa.select, or added to scores
// that a softmax (tosa.reduce_max, tosa.sub, tosa.exp) reads, directly or
// multiplied by a 0/1 mask first, saturates to the low type's largest
// finite value and pins nothing (mask-constants.mlir has the linalg forms).
// FLT_MAX as a real operand keeps its users in f32, with a warning.
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,F16
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" 2>/dev/null | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: amp-opt %s -split-input-file --amp-o2 2>/dev/null | mlir-opt -split-input-file --tosa-validate > /dev/null
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" 2>/dev/null | mlir-opt -split-input-file --tosa-attach-target="extensions=bf16" --tosa-validate > /dev/null

// CHECK-LABEL: func.func @select_mask
// F16: "tosa.const"() <{values = dense<-6.550400e+04> : tensor<1x1x4xf16>}>
// BF16: "tosa.const"() <{values = dense<-3.389530e+38> : tensor<1x1x4xbf16>}>
// F16: tosa.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x4xi1>, tensor<1x1x4xf16>, tensor<1x2x4xf16>) -> tensor<1x2x4xf16>
// BF16: tosa.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x4xi1>, tensor<1x1x4xbf16>, tensor<1x2x4xbf16>) -> tensor<1x2x4xbf16>
func.func @select_mask(%scores: tensor<1x2x4xf32>, %mask: tensor<1x1x4xi1>) -> tensor<1x2x4xf32> {
  // expected-remark @+1 {{amp: constant overflows f16 but does not pin its users: it is a mask value (the value of a select in 'tosa.select'), saturated to -65504}}
  %min = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1x1x4xf32>}> : () -> tensor<1x1x4xf32>
  %s = tosa.select %mask, %min, %scores : (tensor<1x1x4xi1>, tensor<1x1x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %s : tensor<1x2x4xf32>
}

// -----

// (1 - m) * finfo.min, added to the scores, then the softmax.
// CHECK-LABEL: func.func @multiplied_mask
// F16: "tosa.const"() <{values = dense<-6.550400e+04> : tensor<1x1x1xf16>}>
// BF16: "tosa.const"() <{values = dense<-3.389530e+38> : tensor<1x1x1xbf16>}>
// CHECK: tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x1x4x{{b?}}f16>, tensor<1x1x1x{{b?}}f16>, tensor<1xi8>) -> tensor<1x1x4x{{b?}}f16>
// CHECK: tosa.add %{{.*}}, %{{.*}} : (tensor<1x2x4x{{b?}}f16>, tensor<1x1x4x{{b?}}f16>) -> tensor<1x2x4x{{b?}}f16>
// CHECK: tosa.reduce_max
func.func @multiplied_mask(%scores: tensor<1x2x4xf32>, %inverted: tensor<1x1x4xf32>) -> tensor<1x2x4xf32> {
  // expected-remark @+1 {{amp: constant overflows f16 but does not pin its users: it is a mask value (a mask multiplied in, then added before a softmax in 'tosa.mul'), saturated to -65504}}
  %min = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %inverted, %min, %shift : (tensor<1x1x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x4xf32>
  %sum = tosa.add %scores, %m : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %max = tosa.reduce_max %sum {axis = 2 : i32} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %d = tosa.sub %sum, %max : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %x = tosa.exp %d : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %r = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %inv = tosa.reciprocal %r : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %y = tosa.mul %x, %inv, %shift : (tensor<1x2x4xf32>, tensor<1x2x1xf32>, tensor<1xi8>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

// A -1e9 mask added before the softmax: its value matters, and it does
// not fit in f16: the add stays f32 (in bf16 it fits, and converts).
// CHECK-LABEL: func.func @minus_1e9
// F16: tosa.add %{{.*}}, %{{.*}} : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
// BF16: tosa.add %{{.*}}, %{{.*}} : (tensor<1x2x4xbf16>, tensor<1x1x4xbf16>) -> tensor<1x2x4xbf16>
func.func @minus_1e9(%scores: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %c = "tosa.const"() <{values = dense<[[[0.0, 0.0, -1.0e+09, -1.0e+09]]]> : tensor<1x1x4xf32>}> : () -> tensor<1x1x4xf32>
  %sum = tosa.add %scores, %c : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %max = tosa.reduce_max %sum {axis = 2 : i32} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %d = tosa.sub %sum, %max : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %x = tosa.exp %d : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %x : tensor<1x2x4xf32>
}

// -----

// FLT_MAX multiplied into a tensor that is returned: not a mask.
// CHECK-LABEL: func.func @real_multiply
// CHECK: tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<1xf32>, tensor<1xi8>) -> tensor<4xf32>
func.func @real_multiply(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16}}
  %max = "tosa.const"() <{values = dense<3.40282347E+38> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %x, %max, %shift : (tensor<4xf32>, tensor<1xf32>, tensor<1xi8>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
