// -FLT_MAX and FLT_MAX (torch.finfo(torch.float32).min and .max) as the
// value of a select (torch.where, masked_fill, a causal mask), or added to
// the scores of a softmax (directly, or multiplied by a 0/1 mask first),
// mean "as far as the type goes": they saturate to the low type's largest
// finite value (f16 -65504, bf16 -3.39e38), with a remark, and pin nothing.
// Where only a max or an exp reads them they become -inf (+inf), as
// reduction identities do. Other values that overflow (-1e9 in f16) and
// FLT_MAX as a real operand keep their users in f32, with a warning.
// The masked softmaxes below are what torch-mlir writes for them.
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,F16
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" 2>/dev/null | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BF16-DIAG
// RUN: amp-opt %s -split-input-file --amp-o2="explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amp-opt %s -split-input-file --amp-o1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=O1

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
#map2 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>

// Hugging Face's eager attention mask (transformers' masking_utils):
// torch.where(mask, 0.0, finfo.min), added to the scores, then softmax.
// CHECK-LABEL: func.func @where_mask
// F16-DAG: arith.constant dense<-6.550400e+04> : tensor<f16>
// BF16-DAG: arith.constant dense<-3.389530e+38> : tensor<bf16>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// F16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x4xf16>, tensor<1x1x4xf16>) outs(%{{.*}} : tensor<1x2x4xf16>)
// BF16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x4xbf16>, tensor<1x1x4xbf16>) outs(%{{.*}} : tensor<1x2x4xbf16>)
// CHECK: arith.addf
// CHECK-NOT: 3.40282347E+38
// CHECK: return
// BF16-DIAG: remark: amp: constant overflows bf16 but does not pin its users: it is a mask value (the value of a select in 'linalg.generic'), saturated to -3.3895E+38
// O1 pins nothing either (the masks that a body reads from above change
// only where the body goes low).
// O1-NOT: warning
func.func @where_mask(%scores: tensor<1x2x4xf32>, %mask: tensor<1x1x4xi1>) -> tensor<1x2x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  // expected-remark @+1 {{amp: constant overflows f16 but does not pin its users: it is a mask value (the value of a select in 'linalg.generic'), saturated to -65504}}
  %min = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %e = tensor.empty() : tensor<1x1x4xf32>
  %m = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %zero, %min : tensor<1x1x4xi1>, tensor<f32>, tensor<f32>) outs(%e : tensor<1x1x4xf32>) {
  ^bb0(%in: i1, %a: f32, %b: f32, %out: f32):
    %s = arith.select %in, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x1x4xf32>
  %e1 = tensor.empty() : tensor<1x2x4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores, %m : tensor<1x2x4xf32>, tensor<1x1x4xf32>) outs(%e1 : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %a = arith.addf %in, %in_1 : f32
    linalg.yield %a : f32
  } -> tensor<1x2x4xf32>
  %ei = tensor.empty() : tensor<1x2xi64>
  %fi = linalg.fill ins(%c0_i64 : i64) outs(%ei : tensor<1x2xi64>) -> tensor<1x2xi64>
  %ef = tensor.empty() : tensor<1x2xf32>
  %ff = linalg.fill ins(%ninf : f32) outs(%ef : tensor<1x2xf32>) -> tensor<1x2xf32>
  %max:2 = linalg.generic {indexing_maps = [#map, #map3, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%sum : tensor<1x2x4xf32>) outs(%ff, %fi : tensor<1x2xf32>, tensor<1x2xi64>) {
  ^bb0(%in: f32, %out: f32, %out_1: i64):
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i64
    %mx = arith.maximumf %in, %out : f32
    %gt = arith.cmpf ogt, %in, %out : f32
    %si = arith.select %gt, %ii, %out_1 : i64
    linalg.yield %mx, %si : f32, i64
  } -> (tensor<1x2xf32>, tensor<1x2xi64>)
  %mx = tensor.expand_shape %max#0 [[0], [1, 2]] output_shape [1, 2, 1] : tensor<1x2xf32> into tensor<1x2x1xf32>
  %d = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum, %mx : tensor<1x2x4xf32>, tensor<1x2x1xf32>) outs(%e1 : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.subf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4xf32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%d : tensor<1x2x4xf32>) outs(%e1 : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.exp %in : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4xf32>
  %es = tensor.empty() : tensor<1x2x1xf32>
  %fs = linalg.fill ins(%cst : f32) outs(%es : tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %r = linalg.generic {indexing_maps = [#map, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x2x4xf32>) outs(%fs : tensor<1x2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1x2x1xf32>
  %y = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %r : tensor<1x2x4xf32>, tensor<1x2x1xf32>) outs(%e1 : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.divf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
#map2 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>

// scores.masked_fill(mask == 0, finfo.min): the constant is the value of
// the select that writes the scores, and the softmax is linalg.softmax.
// CHECK-LABEL: func.func @masked_fill_scores
// F16-DAG: arith.constant dense<-6.550400e+04> : tensor<f16>
// BF16-DAG: arith.constant dense<-3.389530e+38> : tensor<bf16>
// CHECK: linalg.softmax dimension(2) ins(%{{.*}} : tensor<1x2x4x{{b?}}f16>)
func.func @masked_fill_scores(%scores: tensor<1x2x4xf32>, %mask: tensor<1x1x4xi1>) -> tensor<1x2x4xf32> {
  // expected-remark @+1 {{saturated to -65504}}
  %min = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %e = tensor.empty() : tensor<1x2x4xf32>
  %f = linalg.generic {indexing_maps = [#map2, #map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %min, %scores : tensor<1x1x4xi1>, tensor<f32>, tensor<1x2x4xf32>) outs(%e : tensor<1x2x4xf32>) {
  ^bb0(%in: i1, %a: f32, %b: f32, %out: f32):
    %s = arith.select %in, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4xf32>
  %y = linalg.softmax dimension(2) ins(%f : tensor<1x2x4xf32>) outs(%e : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>

// A causal mask as transformers builds it: torch.full(..., finfo.min), then
// torch.triu: a whole tensor of -FLT_MAX selected against 0.
// CHECK-LABEL: func.func @causal_mask
// F16: %[[MIN:.*]] = arith.constant dense<-6.550400e+04> : tensor<4x4xf16>
// BF16: %[[MIN:.*]] = arith.constant dense<-3.389530e+38> : tensor<4x4xbf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[MIN]], %{{.*}} : tensor<4x4xi1>, tensor<4x4x{{b?}}f16>, tensor<{{b?}}f16>)
// CHECK: arith.select
func.func @causal_mask(%upper: tensor<4x4xi1>) -> tensor<4x4xf32> {
  // expected-remark @+1 {{saturated to -65504}}
  %min = arith.constant dense<-3.40282347E+38> : tensor<4x4xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<f32>
  %e = tensor.empty() : tensor<4x4xf32>
  %c = linalg.generic {indexing_maps = [#map, #map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%upper, %min, %zero : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: i1, %a: f32, %b: f32, %out: f32):
    %s = arith.select %in, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>

// Older transformers (get_extended_attention_mask): (1 - m) * finfo.min,
// added to the scores before the softmax. torch-mlir captures the scalar in
// the multiply's body, which computes in f32 and stores f16: the body reads
// the saturated value, so the mask is -65504, not -inf.
// CHECK-LABEL: func.func @multiplied_mask
// F16: %[[SAT:.*]] = arith.constant -6.550400e+04 : f32
// BF16: %[[SAT:.*]] = arith.constant -3.38953139E+38 : f32
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[SAT]] : f32
// CHECK: -> tensor<1x1x4x{{b?}}f16>
// CHECK: linalg.softmax
// BF16-DIAG: remark: amp: constant overflows bf16 but does not pin its users: it is a mask value (a mask multiplied in, then added before a softmax in 'linalg.generic'), saturated to -3.3895E+38
func.func @multiplied_mask(%scores: tensor<1x2x4xf32>, %inverted: tensor<1x1x4xf32>) -> tensor<1x2x4xf32> {
  // expected-remark @+1 {{amp: constant overflows f16 but does not pin its users: it is a mask value (a mask multiplied in, then added before a softmax in 'linalg.generic'), saturated to -65504}}
  %min = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x1x4xf32>
  %m = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%inverted : tensor<1x1x4xf32>) outs(%e : tensor<1x1x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %in, %min : f32
    linalg.yield %p : f32
  } -> tensor<1x1x4xf32>
  %e1 = tensor.empty() : tensor<1x2x4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores, %m : tensor<1x2x4xf32>, tensor<1x1x4xf32>) outs(%e1 : tensor<1x2x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %a = arith.addf %in, %in_1 : f32
    linalg.yield %a : f32
  } -> tensor<1x2x4xf32>
  %y = linalg.softmax dimension(2) ins(%sum : tensor<1x2x4xf32>) outs(%e1 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>

// clamp(x, min=finfo.min): only a max reads it, so -inf means the same;
// it pins nothing (a remark with explain=true only).
// CHECK-LABEL: func.func @max_only
// F16: arith.constant dense<0xFC00> : tensor<f16>
// BF16: arith.constant dense<0xFF80> : tensor<bf16>
// CHECK: arith.maximumf
// EXPLAIN: remark: amp: constant overflows f16 but does not pin its users: it is only read by a max or an exp in 'linalg.generic', converted to -inf
func.func @max_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %min = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%x, %min : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %m = arith.maximumf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
#map2 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>

// A -1e9 mask: its value matters, and it does not fit in f16 (it does in
// bf16): the select stays f32 in f16, with the warning.
// CHECK-LABEL: func.func @minus_1e9
// F16: arith.constant dense<-1.000000e+09> : tensor<f32>
// F16: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// F16: } -> tensor<1x2x4xf32>
// BF16: arith.constant dense<-9.982440e+08> : tensor<bf16>
// BF16: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// BF16: } -> tensor<1x2x4xbf16>
// BF16-DIAG-NOT: warning
// O1: warning: amp: constant does not fit in f16
func.func @minus_1e9(%scores: tensor<1x2x4xf32>, %mask: tensor<1x1x4xi1>) -> tensor<1x2x4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %c = arith.constant dense<-1.000000e+09> : tensor<f32>
  %e = tensor.empty() : tensor<1x2x4xf32>
  %f = linalg.generic {indexing_maps = [#map2, #map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %c, %scores : tensor<1x1x4xi1>, tensor<f32>, tensor<1x2x4xf32>) outs(%e : tensor<1x2x4xf32>) {
  ^bb0(%in: i1, %a: f32, %b: f32, %out: f32):
    %s = arith.select %in, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4xf32>
  %y = linalg.softmax dimension(2) ins(%f : tensor<1x2x4xf32>) outs(%e : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>

// FLT_MAX as a real operand of a multiply, not a mask: its value matters;
// the multiply stays f32, with the warning (in bf16 too: FLT_MAX rounds to
// +inf in bf16).
// CHECK-LABEL: func.func @real_multiply
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: } -> tensor<4xf32>
// BF16-DIAG: warning: amp: constant does not fit in bf16
func.func @real_multiply(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %max = arith.constant dense<3.40282347E+38> : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%x, %max : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>

// The same multiply with the constant captured by the body: the body
// computes in f32 as written, reading FLT_MAX itself; nothing saturates.
// CHECK-LABEL: func.func @real_multiply_captured
// CHECK: %[[MAX:.*]] = arith.constant 3.40282347E+38 : f32
// CHECK: arith.mulf %{{.*}}, %[[MAX]] : f32
// CHECK-NOT: 6.550400e+04
func.func @real_multiply_captured(%x: tensor<4xf32>) -> tensor<4xf32> {
  %max = arith.constant 3.40282347E+38 : f32
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %max : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>

// -FLT_MAX added to a tensor that no softmax reads: its value matters.
// CHECK-LABEL: func.func @added_not_softmax
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: } -> tensor<4xf32>
func.func @added_not_softmax(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16}}
  %min = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%x, %min : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %a = arith.addf %in, %c : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>

// One constant as a mask value and as a real operand: the real use wins.
// CHECK-LABEL: func.func @mask_and_real_use
// CHECK-NOT: 6.550400e+04
// CHECK: return
func.func @mask_and_real_use(%x: tensor<4xf32>, %mask: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-warning @+1 {{amp: constant does not fit in f16}}
  %min = arith.constant dense<-3.40282347E+38> : tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel"]} ins(%mask, %min, %x : tensor<4xi1>, tensor<f32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: i1, %a: f32, %b: f32, %out: f32):
    %s = arith.select %in, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%x, %min : tensor<4xf32>, tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %f, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>

// An additive mask held as a constant (0 where kept, -FLT_MAX where
// masked), added to the scores; the sum is read by the softmax's max and
// x - max, and by a comparison (scaled_dot_product_attention's test for
// rows that are -inf throughout). Only the -FLT_MAX entries change.
// CHECK-LABEL: func.func @added_mask
// F16: arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, -6.550400e+04, -6.550400e+04]]> : tensor<1x4xf16>
// BF16: arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, -3.389530e+38, -3.389530e+38]]> : tensor<1x4xbf16>
// CHECK: arith.addf
// CHECK: -> tensor<2x4x{{b?}}f16>
func.func @added_mask(%scores: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi1>) {
  %ninf = arith.constant 0xFF800000 : f32
  // expected-remark @+1 {{amp: constant overflows f16 but does not pin its users: it is a mask value (a mask added before a softmax in 'linalg.generic'), saturated to -65504}}
  %mask = arith.constant dense<[[0.0, 0.0, -3.40282347E+38, -3.40282347E+38]]> : tensor<1x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%scores, %mask : tensor<2x4xf32>, tensor<1x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %a = arith.addf %in, %m : f32
    linalg.yield %a : f32
  } -> tensor<2x4xf32>
  %e1 = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %max = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%sum : tensor<2x4xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %mx = tensor.expand_shape %max [[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
  %x = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%sum, %mx : tensor<2x4xf32>, tensor<2x1xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %p = math.exp %d : f32
    linalg.yield %p : f32
  } -> tensor<2x4xf32>
  %eb = tensor.empty() : tensor<2x4xi1>
  %b = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<2x4xf32>) outs(%eb : tensor<2x4xi1>) {
  ^bb0(%in: f32, %out: i1):
    %c = arith.cmpf oeq, %in, %ninf : f32
    linalg.yield %c : i1
  } -> tensor<2x4xi1>
  return %x, %b : tensor<2x4xf32>, tensor<2x4xi1>
}
