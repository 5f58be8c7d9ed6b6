// TOSA max pooling after a -FLT_MAX pad: the pad_const is the pooling's
// identity and becomes -inf in the low type. (Not piped through
// --tosa-validate: its level check rejects any rank-4 tosa.pad, f32 too.)
// RUN: amp-opt %s --amp-o2 -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,F16
// RUN: amp-opt %s --amp-o2="dtype=bf16" -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,BF16

// CHECK-LABEL: func.func @pad_max_pool
// F16: %[[NINF:.*]] = "tosa.const"() <{values = dense<0xFC00> : tensor<1xf16>}>
// BF16: %[[NINF:.*]] = "tosa.const"() <{values = dense<0xFF80> : tensor<1xbf16>}>
// CHECK: %[[PAD:.*]] = tosa.pad %{{.*}}, %{{.*}}, %[[NINF]] : (tensor<1x4x4x1x{{b?}}f16>, !tosa.shape<8>, tensor<1x{{b?}}f16>)
// CHECK: tosa.max_pool2d %[[PAD]] {{.*}} : (tensor<1x6x6x1x{{b?}}f16>) -> tensor<1x3x3x1x{{b?}}f16>
func.func @pad_max_pool(%x: tensor<1x4x4x1xf32>) -> tensor<1x3x3x1xf32> {
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1, 1, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
  %c = "tosa.const"() <{values = dense<-3.40282347E+38> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.pad %x, %padding, %c : (tensor<1x4x4x1xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x6x6x1xf32>
  %m = tosa.max_pool2d %p {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x6x6x1xf32>) -> tensor<1x3x3x1xf32>
  return %m : tensor<1x3x3x1xf32>
}
