// amp.attention bufferizes to its buffer form in destination-passing
// style: the destinations (out, stats) are fresh buffers written, not read
// (no copy of the tensor.empty), the inputs' buffers read in place.
// RUN: amp-opt %s -split-input-file \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN: | FileCheck %s

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: memref<2x4x64x16xf16>, %[[K:.*]]: memref<2x4x32x16xf16>, %[[V:.*]]: memref<2x4x32x16xf16>, %[[B:.*]]: memref<1x1x64x32xf16>)
// CHECK: %[[O:.*]] = memref.alloc() {{.*}}: memref<2x4x64x16xf16>
// CHECK: %[[S:.*]] = memref.alloc() {{.*}}: memref<2x4x64xf32>
// CHECK: amp.attention ins(%[[Q]], %[[K]], %[[V]] : memref<2x4x64x16xf16>, memref<2x4x32x16xf16>, memref<2x4x32x16xf16>) bias(%[[B]] : memref<1x1x64x32xf16>) outs(%[[O]], %[[S]] : memref<2x4x64x16xf16>, memref<2x4x64xf32>) scale = 2.500000e-01 causal{{$}}
// CHECK-NOT: memref.copy
// CHECK: return %[[O]], %[[S]]
func.func @attention(%q: tensor<2x4x64x16xf16>, %k: tensor<2x4x32x16xf16>, %v: tensor<2x4x32x16xf16>,
                     %mask: tensor<1x1x64x32xf16>) -> (tensor<2x4x64x16xf16>, tensor<2x4x64xf32>) {
  %e = tensor.empty() : tensor<2x4x64x16xf16>
  %s = tensor.empty() : tensor<2x4x64xf32>
  %r:2 = amp.attention ins(%q, %k, %v : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>)
      bias(%mask : tensor<1x1x64x32xf16>) outs(%e, %s : tensor<2x4x64x16xf16>, tensor<2x4x64xf32>)
      scale = 0.25 causal -> tensor<2x4x64x16xf16>, tensor<2x4x64xf32>
  return %r#0, %r#1 : tensor<2x4x64x16xf16>, tensor<2x4x64xf32>
}

// -----

// amp.attention_backward likewise: the three gradients fresh buffers,
// written, not copied into; the forward's out and stats read in place.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%[[Q:.*]]: memref<2x4x64x16xf16>, %[[K:.*]]: memref<2x4x32x16xf16>, %[[V:.*]]: memref<2x4x32x16xf16>, %[[O:.*]]: memref<2x4x64x16xf16>, %[[DO:.*]]: memref<2x4x64x16xf16>, %[[S:.*]]: memref<2x4x64xf32>)
// CHECK: %[[DQ:.*]] = memref.alloc() {{.*}}: memref<2x4x64x16xf16>
// CHECK: %[[DK:.*]] = memref.alloc() {{.*}}: memref<2x4x32x16xf16>
// CHECK: %[[DV:.*]] = memref.alloc() {{.*}}: memref<2x4x32x16xf16>
// CHECK: amp.attention_backward ins(%[[Q]], %[[K]], %[[V]], %[[O]], %[[DO]], %[[S]] : {{.*}}) outs(%[[DQ]], %[[DK]], %[[DV]] : memref<2x4x64x16xf16>, memref<2x4x32x16xf16>, memref<2x4x32x16xf16>) scale = 2.500000e-01{{$}}
// CHECK-NOT: memref.copy
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
func.func @backward(%q: tensor<2x4x64x16xf16>, %k: tensor<2x4x32x16xf16>, %v: tensor<2x4x32x16xf16>,
                    %o: tensor<2x4x64x16xf16>, %do: tensor<2x4x64x16xf16>, %s: tensor<2x4x64xf32>)
    -> (tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>) {
  %eq = tensor.empty() : tensor<2x4x64x16xf16>
  %ek = tensor.empty() : tensor<2x4x32x16xf16>
  %ev = tensor.empty() : tensor<2x4x32x16xf16>
  %g:3 = amp.attention_backward ins(%q, %k, %v, %o, %do, %s : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>,
                                    tensor<2x4x32x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64xf32>)
      outs(%eq, %ek, %ev : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>)
      scale = 0.25 -> tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>
  return %g#0, %g#1, %g#2 : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>
}
