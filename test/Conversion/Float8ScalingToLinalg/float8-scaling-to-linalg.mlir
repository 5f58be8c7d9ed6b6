// amp-float8-scaling-to-linalg: amp.quantize and amp.dequantize as elementwise
// generics (f32 in the body, saturation by maximumf/minimumf, truncf to the
// FP8 type), amp.amax as a full reduction from 0 with maximumf of absf; a
// tensor<f32> scale is a 0-d input of the generic, an f32 one is captured.
// RUN: amp-opt %s -split-input-file --amp-float8-scaling-to-linalg | FileCheck %s

// CHECK: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @quantize
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xbf16>, %[[S:.*]]: f32)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x8xf8E4M3FN>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<?x8xbf16>) outs(%[[E]] : tensor<?x8xf8E4M3FN>)
// CHECK: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: f8E4M3FN):
// CHECK-DAG: %[[MAX:.*]] = arith.constant 4.480000e+02 : f32
// CHECK-DAG: %[[MIN:.*]] = arith.constant -4.480000e+02 : f32
// CHECK: %[[W:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: %[[M:.*]] = arith.mulf %[[W]], %[[S]] : f32
// CHECK: %[[LO:.*]] = arith.maximumf %[[M]], %[[MIN]] : f32
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]], %[[MAX]] : f32
// CHECK: %[[Q:.*]] = arith.truncf %[[HI]] : f32 to f8E4M3FN
// CHECK: linalg.yield %[[Q]]
func.func @quantize(%x: tensor<?x8xbf16>, %s: f32) -> tensor<?x8xf8E4M3FN> {
  %q = amp.quantize %x by %s : tensor<?x8xbf16>, f32 -> tensor<?x8xf8E4M3FN>
  return %q : tensor<?x8xf8E4M3FN>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @dequantize_device_scale
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf8E5M2>, %[[S:.*]]: tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[NONE]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[Q]], %[[S]] : tensor<4x8xf8E5M2>, tensor<f32>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK: ^bb0(%[[IN:.*]]: f8E5M2, %[[SC:.*]]: f32, %{{.*}}: f16):
// CHECK: %[[W:.*]] = arith.extf %[[IN]] : f8E5M2 to f32
// CHECK: %[[D:.*]] = arith.divf %[[W]], %[[SC]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[D]] : f32 to f16
// CHECK: linalg.yield %[[R]]
func.func @dequantize_device_scale(%q: tensor<4x8xf8E5M2>, %s: tensor<f32>)
    -> tensor<4x8xf16> {
  %y = amp.dequantize %q by %s : tensor<4x8xf8E5M2>, tensor<f32> -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[NONE:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @amax
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[NONE]]], iterator_types = ["reduction", "reduction"]} ins(%[[X]] : tensor<?x64xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK: %[[ABS:.*]] = math.absf %{{.*}} : f32
// CHECK: %[[MAX:.*]] = arith.maximumf %{{.*}}, %[[ABS]] : f32
// CHECK: linalg.yield %[[MAX]]
// CHECK: %[[A:.*]] = tensor.extract %[[R]][] : tensor<f32>
// The tensor<f32> result is the reduction's own.
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: return %[[A]], %[[T]]
func.func @amax(%x: tensor<?x64xf32>) -> (f32, tensor<f32>) {
  %a = amp.amax %x : tensor<?x64xf32> -> f32
  %t = amp.amax %x : tensor<?x64xf32> -> tensor<f32>
  return %a, %t : f32, tensor<f32>
}
