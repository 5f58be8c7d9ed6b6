// RUN: amp-opt %s -split-input-file --amp-attention-to-linalg | FileCheck %s

// amp.attention as eight generics over f32 temporaries (their values are
// checked against the fused call in test/amp-run/attention.test): the
// scores summed over the head dimension (q and k read in the op's layout,
// here bshd), scaled, masked (the bias's broadcast head read at 0) and
// made -inf past the diagonal; the rows' max, exp and sum; the weighted
// sum of v; the output rounded once; the stats.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
// CHECK-DAG: #[[MASK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @bshd
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x16x4x16xf16>, tensor<2x24x4x16xf16>) outs(%{{.*}} : tensor<2x4x16x24xf32>)
// CHECK: arith.extf
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[MASK]], #{{.*}}], {{.*}} ins(%[[S]], %arg3 : tensor<2x4x16x24xf32>, tensor<2x1x16x24xf16>)
// CHECK: arith.cmpi ugt
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]
// CHECK: %[[O:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[OUT]]], {{.*}} outs(%{{.*}} : tensor<2x16x4x16xf16>)
// CHECK: arith.divf
// CHECK: arith.truncf {{.*}} f32 to f16
// CHECK: %[[ST:.*]] = linalg.generic
// CHECK: math.log
// CHECK: return %[[O]], %[[ST]]
// CHECK-NOT: amp.attention
func.func @bshd(%q: tensor<2x16x4x16xf16>, %k: tensor<2x24x4x16xf16>, %v: tensor<2x24x4x16xf16>,
                %bias: tensor<2x1x16x24xf16>) -> (tensor<2x16x4x16xf16>, tensor<2x4x16xf32>) {
  %e = tensor.empty() : tensor<2x16x4x16xf16>
  %s = tensor.empty() : tensor<2x4x16xf32>
  %r:2 = amp.attention ins(%q, %k, %v : tensor<2x16x4x16xf16>, tensor<2x24x4x16xf16>, tensor<2x24x4x16xf16>)
      bias(%bias : tensor<2x1x16x24xf16>) outs(%e, %s : tensor<2x16x4x16xf16>, tensor<2x4x16xf32>)
      scale = 0.25 causal bshd -> tensor<2x16x4x16xf16>, tensor<2x4x16xf32>
  return %r#0, %r#1 : tensor<2x16x4x16xf16>, tensor<2x4x16xf32>
}

// -----

// On buffers (what the GPU pipeline leaves after its library calls): f32
// temporaries allocated, the generics writing the destination buffer.
// CHECK-LABEL: func.func @buffers
// CHECK: memref.alloc({{.*}}) : memref<?x2x8x8xf32>
// CHECK: linalg.generic {{.*}} outs(%arg1 : memref<?x2x8x12xf32>)
// CHECK-NOT: amp.attention
func.func @buffers(%q: memref<?x2x8x12xf32>, %out: memref<?x2x8x12xf32>) {
  amp.attention ins(%q, %q, %q : memref<?x2x8x12xf32>, memref<?x2x8x12xf32>, memref<?x2x8x12xf32>)
      outs(%out : memref<?x2x8x12xf32>) scale = 0.5
  return
}
