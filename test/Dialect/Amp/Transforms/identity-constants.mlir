// A constant that overflows the low type but is only the identity of max
// (min) reductions -- their init, directly or through a fill, or the padding
// value of a pad that only they read -- means the same as -inf (+inf) in the
// low type: it is converted to that infinity and pins nothing. A constant
// whose value matters keeps its users in f32, with a warning.
// RUN: amp-opt %s -split-input-file --amp-o2 -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,F16
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: amp-opt %s -split-input-file --amp-o2="explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Max pooling as torch-mlir emits it: one -FLT_MAX pads the input and fills
// the init.
// CHECK-LABEL: func.func @max_pool_pad_and_fill
// F16-DAG: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// BF16-DAG: %[[NINF:.*]] = arith.constant 0xFF80 : bf16
// CHECK: %[[PAD:.*]] = tensor.pad
// CHECK: tensor.yield %[[NINF]]
// F16: } : tensor<1x3x8x8xf16> to tensor<1x3x10x10xf16>
// BF16: } : tensor<1x3x8x8xbf16> to tensor<1x3x10x10xbf16>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : {{b?}}f16)
// F16: linalg.pooling_nchw_max {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x3x10x10xf16>, tensor<3x3xf16>) outs(%[[INIT]] : tensor<1x3x4x4xf16>)
// BF16: linalg.pooling_nchw_max {{.*}} ins(%[[PAD]], %{{.*}} : tensor<1x3x10x10xbf16>, tensor<3x3xbf16>) outs(%[[INIT]] : tensor<1x3x4x4xbf16>)
// CHECK-NOT: 3.40282347E+38
// EXPLAIN: identity-constants.mlir:[[# @LINE + 2]]:10: remark: amp: constant overflows f16 but does not pin its users: it is only the identity of max reductions (the init of 'linalg.pooling_nchw_max'), converted to -inf
func.func @max_pool_pad_and_fill(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %cst = arith.constant -3.40282347E+38 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %cst : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  %empty = tensor.empty() : tensor<1x3x4x4xf32>
  %init = linalg.fill ins(%cst : f32) outs(%empty : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %kernel = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%padded, %kernel : tensor<1x3x10x10xf32>, tensor<3x3xf32>)
      outs(%init : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %pool : tensor<1x3x4x4xf32>
}

// -----

// A min reduction initialised with +FLT_MAX.
// CHECK-LABEL: func.func @min_reduce
// F16: %[[INF:.*]] = arith.constant 0x7C00 : f16
// BF16: %[[INF:.*]] = arith.constant 0x7F80 : bf16
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[INF]] : {{b?}}f16)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8x{{b?}}f16>) outs(%[[INIT]] : tensor<4x{{b?}}f16>)
// CHECK: arith.minimumf
// EXPLAIN: identity-constants.mlir:[[# @LINE + 2]]:10: remark: amp: constant overflows f16 but does not pin its users: it is only the identity of min reductions (the init of 'linalg.reduce'), converted to +inf
func.func @min_reduce(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %cst = arith.constant 3.40282347E+38 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%cst : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}

// -----

// A reduction generic combining with maxnumf, its init a dense constant.
// CHECK-LABEL: func.func @max_generic_dense_init
// F16: %[[NINF:.*]] = arith.constant dense<0xFC00> : tensor<4xf16>
// BF16: %[[NINF:.*]] = arith.constant dense<0xFF80> : tensor<4xbf16>
// CHECK: linalg.generic {{.*}} outs(%[[NINF]] : tensor<4x{{b?}}f16>)
// CHECK: arith.maxnumf
// EXPLAIN: identity-constants.mlir:[[# @LINE + 4]]:11: remark: amp: constant overflows f16 but does not pin its users: it is only the identity of max reductions (the init of 'linalg.generic'), converted to -inf
#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @max_generic_dense_init(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %init = arith.constant dense<-3.40282347E+38> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map0, #map1], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %m = arith.maxnumf %in, %acc : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An attention mask filled with -1e9 and added to the scores: its value
// matters (and overflows f16), so the add stays f32 with a warning. bf16
// has the range of f32: there it converts.
// CHECK-LABEL: func.func @mask_fill_add
// F16: arith.constant -1.000000e+09 : f32
// F16: arith.addf %{{.*}}, %{{.*}} : tensor<2x4xf32>
// BF16: arith.addf %{{.*}}, %{{.*}} : tensor<2x4xbf16>
func.func @mask_fill_add(%scores: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %cst = arith.constant -1.0e9 : f32
  %empty = tensor.empty() : tensor<2x4xf32>
  %mask = linalg.fill ins(%cst : f32) outs(%empty : tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = arith.addf %scores, %mask : tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

// -----

// -FLT_MAX both as a max init and added to a tensor: the add needs its
// value, so every user stays f32, with the warning.
// CHECK-LABEL: func.func @max_init_and_add
// CHECK: arith.constant -3.40282347E+38 : f32
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf32>
// EXPLAIN-NOT: does not pin
// EXPLAIN: identity-constants.mlir:[[# @LINE + 3]]:10: warning: amp: constant does not fit in f16
func.func @max_init_and_add(%x: tensor<4x8xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-warning @+1 {{amp: constant does not fit in f16}}
  %cst = arith.constant -3.40282347E+38 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%cst : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %z = arith.addf %y, %init : tensor<4xf32>
  return %r, %z : tensor<4xf32>, tensor<4xf32>
}

// -----

// +FLT_MAX is the identity of a min, not of a max: as a max init it pins.
// CHECK-LABEL: func.func @wrong_direction
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xf32>)
func.func @wrong_direction(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16}}
  %cst = arith.constant 3.40282347E+38 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%cst : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}

// -----

// A pad whose result is returned, not reduced: its padding value matters,
// and the pad stays f32.
// CHECK-LABEL: func.func @pad_returned
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<4xf32> to tensor<6xf32>
func.func @pad_returned(%x: tensor<4xf32>) -> tensor<6xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %cst = arith.constant -3.40282347E+38 : f32
  %padded = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %cst : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %padded : tensor<6xf32>
}
