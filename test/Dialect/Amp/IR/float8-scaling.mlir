// amp.amax, amp.quantize and amp.dequantize print and parse back to the same
// ops (scalar and 0-d tensor scales, both FP8 formats, dynamic shapes).
// RUN: amp-opt %s -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @round_trip
// CHECK: amp.amax %{{.*}} : tensor<16x8xf32> -> f32
// CHECK: amp.quantize %{{.*}} by %{{.*}} : tensor<16x8xf32>, f32 -> tensor<16x8xf8E4M3FN>
// CHECK: amp.dequantize %{{.*}} by %{{.*}} : tensor<16x8xf8E4M3FN>, f32 -> tensor<16x8xbf16>
func.func @round_trip(%x: tensor<16x8xf32>) -> tensor<16x8xbf16> {
  %a = amp.amax %x : tensor<16x8xf32> -> f32
  %q = amp.quantize %x by %a : tensor<16x8xf32>, f32 -> tensor<16x8xf8E4M3FN>
  %y = amp.dequantize %q by %a : tensor<16x8xf8E4M3FN>, f32 -> tensor<16x8xbf16>
  return %y : tensor<16x8xbf16>
}

// -----

// CHECK-LABEL: func.func @device_scale
// CHECK: amp.amax %{{.*}} : tensor<?x64xbf16> -> tensor<f32>
// CHECK: amp.quantize %{{.*}} by %{{.*}} : tensor<?x64xbf16>, tensor<f32> -> tensor<?x64xf8E5M2>
// CHECK: amp.dequantize %{{.*}} by %{{.*}} : tensor<?x64xf8E5M2>, tensor<f32> -> tensor<?x64xf32>
func.func @device_scale(%g: tensor<?x64xbf16>, %s: tensor<f32>)
    -> (tensor<f32>, tensor<?x64xf32>) {
  %a = amp.amax %g : tensor<?x64xbf16> -> tensor<f32>
  %q = amp.quantize %g by %s : tensor<?x64xbf16>, tensor<f32> -> tensor<?x64xf8E5M2>
  %y = amp.dequantize %q by %s : tensor<?x64xf8E5M2>, tensor<f32> -> tensor<?x64xf32>
  return %a, %y : tensor<f32>, tensor<?x64xf32>
}
