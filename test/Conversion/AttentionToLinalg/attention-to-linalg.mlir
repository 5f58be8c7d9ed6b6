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

// -----

// amp.attention_backward as twelve generics: the scores again (bshd q and
// k, masked, causal), P = exp(S - stats), dV = P^T dO summed over the
// queries, dP = dO V^T over the head dimension, the rows' dO . out, dS =
// scale * P * (dP - D), dQ = dS K over the keys, dK = dS^T Q over the
// queries, each gradient rounded once into its destination.
// CHECK-DAG: #[[ST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[KV:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
// CHECK-DAG: #[[SEQ:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @backward
// CHECK: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: arith.cmpi ugt
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[ST]], #{{.*}}], {{.*}} ins(%{{.*}}, %arg4 : tensor<2x4x16x24xf32>, tensor<2x4x16xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[DV:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%[[P]], %arg3 : {{.*}}) outs(%{{.*}} : tensor<2x4x24x16xf32>)
// CHECK: %[[DP:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[KV]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg3, %arg1 : {{.*}}) outs(%{{.*}} : tensor<2x4x16x24xf32>)
// CHECK: %[[D:.*]] = linalg.generic {indexing_maps = [#[[SEQ]], #[[SEQ]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg3, %arg2 : {{.*}}) outs(%{{.*}} : tensor<2x4x16xf32>)
// CHECK: %[[DS:.*]] = linalg.generic {{.*}} ins(%[[P]], %[[DP]], %[[D]] : tensor<2x4x16x24xf32>, tensor<2x4x16x24xf32>, tensor<2x4x16xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[DIFF:.*]] = arith.subf
// CHECK-NEXT: %[[PROD:.*]] = arith.mulf %{{.*}}, %[[DIFF]]
// CHECK-NEXT: arith.mulf %[[PROD]], %[[SCALE]] : f32
// CHECK: %[[DQ:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[DS]], %arg1 : {{.*}}) outs(%{{.*}} : tensor<2x4x16x16xf32>)
// CHECK: %[[DK:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%[[DS]], %arg0 : {{.*}}) outs(%{{.*}} : tensor<2x4x24x16xf32>)
// CHECK: %[[GQ:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[SEQ]]], {{.*}} ins(%[[DQ]] : tensor<2x4x16x16xf32>) outs(%{{.*}} : tensor<2x16x4x16xf16>)
// CHECK: arith.truncf
// CHECK: %[[GK:.*]] = linalg.generic {{.*}} ins(%[[DK]] : tensor<2x4x24x16xf32>) outs(%{{.*}} : tensor<2x24x4x16xf16>)
// CHECK: %[[GV:.*]] = linalg.generic {{.*}} ins(%[[DV]] : tensor<2x4x24x16xf32>) outs(%{{.*}} : tensor<2x24x4x16xf16>)
// CHECK: return %[[GQ]], %[[GK]], %[[GV]]
// CHECK-NOT: amp.attention_backward
func.func @backward(%q: tensor<2x16x4x16xf16>, %k: tensor<2x24x4x16xf16>, %o: tensor<2x16x4x16xf16>,
                    %do: tensor<2x16x4x16xf16>, %stats: tensor<2x4x16xf32>)
    -> (tensor<2x16x4x16xf16>, tensor<2x24x4x16xf16>, tensor<2x24x4x16xf16>) {
  %eq = tensor.empty() : tensor<2x16x4x16xf16>
  %ek = tensor.empty() : tensor<2x24x4x16xf16>
  %g:3 = amp.attention_backward ins(%q, %k, %k, %o, %do, %stats : tensor<2x16x4x16xf16>, tensor<2x24x4x16xf16>,
                                    tensor<2x24x4x16xf16>, tensor<2x16x4x16xf16>, tensor<2x16x4x16xf16>, tensor<2x4x16xf32>)
      outs(%eq, %ek, %ek : tensor<2x16x4x16xf16>, tensor<2x24x4x16xf16>, tensor<2x24x4x16xf16>)
      scale = 0.25 causal bshd -> tensor<2x16x4x16xf16>, tensor<2x24x4x16xf16>, tensor<2x24x4x16xf16>
  return %g#0, %g#1, %g#2 : tensor<2x16x4x16xf16>, tensor<2x24x4x16xf16>, tensor<2x24x4x16xf16>
}
