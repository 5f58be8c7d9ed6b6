// TOSA: a pad_const of -FLT_MAX (+FLT_MAX) whose padded tensor only feeds
// max pooling and max reductions (min reductions) is their identity. It is
// converted to -inf (+inf) in the low type, which --tosa-validate accepts,
// and pins nothing. A pad_const whose value matters keeps the pad in f32.
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,F16
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | mlir-opt -split-input-file --tosa-validate > /dev/null
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" | mlir-opt -split-input-file --tosa-attach-target="extensions=bf16" --tosa-validate > /dev/null

// CHECK-LABEL: func.func @pad_reduce_max
// F16: %[[NINF:.*]] = "tosa.const"() <{values = dense<0xFC00> : tensor<1xf16>}>
// BF16: %[[NINF:.*]] = "tosa.const"() <{values = dense<0xFF80> : tensor<1xbf16>}>
// F16: %[[PAD:.*]] = tosa.pad %{{.*}}, %{{.*}}, %[[NINF]] : (tensor<4x4xf16>, !tosa.shape<4>, tensor<1xf16>) -> tensor<4x6xf16>
// BF16: %[[PAD:.*]] = tosa.pad %{{.*}}, %{{.*}}, %[[NINF]] : (tensor<4x4xbf16>, !tosa.shape<4>, tensor<1xbf16>) -> tensor<4x6xbf16>
// CHECK: tosa.reduce_max %[[PAD]]
func.func @pad_reduce_max(%x: tensor<4x4xf32>) -> tensor<1x6xf32> {
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.pad %x, %padding, %c : (tensor<4x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x6xf32>
  %m = tosa.reduce_max %p {axis = 0 : i32} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  return %m : tensor<1x6xf32>
}

// -----

// CHECK-LABEL: func.func @pad_reduce_min
// F16: "tosa.const"() <{values = dense<0x7C00> : tensor<1xf16>}>
// BF16: "tosa.const"() <{values = dense<0x7F80> : tensor<1xbf16>}>
// CHECK: tosa.reduce_min %{{.*}} {axis = 1 : i32} : (tensor<4x6x{{b?}}f16>)
func.func @pad_reduce_min(%x: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = "tosa.const"() <{values = dense<3.40282347E+38> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.pad %x, %padding, %c : (tensor<4x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x6xf32>
  %m = tosa.reduce_min %p {axis = 1 : i32} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  return %m : tensor<4x1xf32>
}

// -----

// The padded tensor is returned, not reduced: the pad stays f32.
// CHECK-LABEL: func.func @pad_returned
// CHECK: tosa.pad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x6xf32>
func.func @pad_returned(%x: tensor<4x4xf32>) -> tensor<4x6xf32> {
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %c = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.pad %x, %padding, %c : (tensor<4x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<4x6xf32>
  return %p : tensor<4x6xf32>
}
