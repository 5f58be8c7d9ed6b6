// amp-round-once: inside a linalg.generic body, f16/bf16 arithmetic runs in
// f32 and only the yielded values are rounded.
// RUN: amp-opt %s --amp-round-once --split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-round-once=rounding=per-op --split-input-file | FileCheck %s --check-prefix=PEROP
// RUN: amp-opt %s --amp-round-once="keep-library-narrowing=true" --split-input-file | FileCheck %s --check-prefix=LIB

#id = affine_map<(i) -> (i)>

// A fused O2 chain: the add's f16 result was rounded before the exp; now the
// exp reads the f32 sum, and one rounding is left, at the yield.
// CHECK-LABEL: func.func @chain
// CHECK: ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %{{.+}}: f16):
// CHECK-DAG: %[[WA:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK-DAG: %[[WB:.+]] = arith.extf %[[B]] : f16 to f32
// CHECK: %[[S:.+]] = arith.addf %[[WA]], %[[WB]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[S]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[E]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
// PEROP-LABEL: func.func @chain
// PEROP: arith.addf %{{.+}}, %{{.+}} : f16
// PEROP-NEXT: arith.extf
// PEROP-NEXT: math.exp
// PEROP-NEXT: arith.truncf
func.func @chain(%a: tensor<8xf16>, %b: tensor<8xf16>) -> tensor<8xf16> {
  %e = tensor.empty() : tensor<8xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf16>, tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    %w = arith.extf %s : f16 to f32
    %t = math.exp %w : f32
    %n = arith.truncf %t : f32 to f16
    linalg.yield %n : f16
  } -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

#id = affine_map<(i) -> (i)>

// A value that is yielded (stored) and also used further: the store is
// rounded, the further use reads it unrounded. bf16 works the same way.
// CHECK-LABEL: func.func @stored_and_used
// CHECK: %[[M:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[T:.+]] = arith.truncf %[[M]] : f32 to bf16
// CHECK: %[[N:.+]] = arith.negf %[[M]] : f32
// CHECK: %[[U:.+]] = arith.truncf %[[N]] : f32 to bf16
// CHECK: linalg.yield %[[T]], %[[U]] : bf16, bf16
func.func @stored_and_used(%a: tensor<8xbf16>) -> (tensor<8xbf16>, tensor<8xbf16>) {
  %e = tensor.empty() : tensor<8xbf16>
  %0:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xbf16>) outs(%e, %e : tensor<8xbf16>, tensor<8xbf16>) {
  ^bb0(%x: bf16, %o: bf16, %p: bf16):
    %m = arith.mulf %x, %x : bf16
    %n = arith.negf %m : bf16
    linalg.yield %m, %n : bf16, bf16
  } -> (tensor<8xbf16>, tensor<8xbf16>)
  return %0#0, %0#1 : tensor<8xbf16>, tensor<8xbf16>
}

// -----

#id = affine_map<(i) -> (i)>

// Comparisons and selects of low values compare the unrounded ones (a ReLU
// after a bias add), and an f32 result that was rounded through f16 and back
// (an f32 consumer fused with an f16 producer) is read as it was computed.
// CHECK-LABEL: func.func @compare_select
// CHECK: %[[S:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK: %[[C:.+]] = arith.cmpf ogt, %[[S]], %{{.+}} : f32
// CHECK: %[[R:.+]] = arith.select %[[C]], %[[S]], %{{.+}} : f32
// CHECK-NOT: arith.truncf
// CHECK: linalg.yield %[[R]] : f32
func.func @compare_select(%a: tensor<8xf32>, %b: tensor<8xf16>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf16>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f16, %o: f32):
    %zero = arith.constant 0.0 : f16
    %h = arith.truncf %x : f32 to f16
    %s = arith.addf %h, %y : f16
    %c = arith.cmpf ogt, %s, %zero : f16
    %r = arith.select %c, %s, %zero : f16
    %w = arith.extf %r : f16 to f32
    linalg.yield %w : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// The epilogue of a matmul: on the GPU (keep-library-narrowing) cuBLAS
// writes f16 itself, so the narrowing of the accumulator stays; on the CPU
// the bias add reads the f32 accumulator.
// CHECK-LABEL: func.func @epilogue
// CHECK: ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f16, %{{.+}}: f16):
// CHECK: %[[WB:.+]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK: arith.addf %[[ACC]], %[[WB]] : f32
// LIB-LABEL: func.func @epilogue
// LIB: ^bb0(%[[ACC:.+]]: f32, %{{.+}}: f16, %{{.+}}: f16):
// LIB: %[[N:.+]] = arith.truncf %[[ACC]] : f32 to f16
// LIB: %[[W:.+]] = arith.extf %[[N]] : f16 to f32
// LIB: arith.addf %[[W]], %{{.+}} : f32
func.func @epilogue(%x: tensor<4x8xf16>, %w: tensor<8x4xf16>, %bias: tensor<4x4xf16>) -> tensor<4x4xf16> {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<4x4xf32>, tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %n = arith.truncf %a : f32 to f16
    %s = arith.addf %n, %b : f16
    linalg.yield %s : f16
  } -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// A reduction that accumulates in its f16 output keeps rounding at each step:
// the accumulator is what is stored. Its summand is computed in f32.
// CHECK-LABEL: func.func @f16_accumulator
// CHECK: %[[P:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[ACC:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: %[[S:.+]] = arith.addf %[[P]], %[[ACC]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[S]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
func.func @f16_accumulator(%a: tensor<4x8xf16>, %init: tensor<4xf16>) -> tensor<4xf16> {
  %0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf16>) outs(%init : tensor<4xf16>) {
  ^bb0(%x: f16, %acc: f16):
    %p = arith.mulf %x, %x : f16
    %s = arith.addf %p, %acc : f16
    linalg.yield %s : f16
  } -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

#id = affine_map<(i) -> (i)>

// A module that --amp-o2="rounding=per-op" decided keeps its roundings.
// CHECK-LABEL: func.func @per_op_module
// CHECK: arith.addf %{{.+}}, %{{.+}} : f16
module attributes {amp.rounding = "per-op"} {
  func.func @per_op_module(%a: tensor<8xf16>) -> tensor<8xf16> {
    %e = tensor.empty() : tensor<8xf16>
    %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf16>) outs(%e : tensor<8xf16>) {
    ^bb0(%x: f16, %o: f16):
      %s = arith.addf %x, %x : f16
      %m = arith.mulf %s, %x : f16
      linalg.yield %m : f16
    } -> tensor<8xf16>
    return %0 : tensor<8xf16>
  }
}

// -----

#id = affine_map<(i) -> (i)>

// A conversion to an integer converts the f32 value (exact for an f16
// input; the unrounded value for a computed one); a bitcast reads the stored
// bits and is left as it is.
// CHECK-LABEL: func.func @left_alone
// CHECK: %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: arith.fptosi %[[W]] : f32 to i32
// CHECK: arith.bitcast %{{.+}} : f16 to i16
func.func @left_alone(%a: tensor<8xf16>) -> (tensor<8xi32>, tensor<8xi16>) {
  %e = tensor.empty() : tensor<8xi32>
  %e2 = tensor.empty() : tensor<8xi16>
  %0:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf16>) outs(%e, %e2 : tensor<8xi32>, tensor<8xi16>) {
  ^bb0(%x: f16, %o: i32, %p: i16):
    %i = arith.fptosi %x : f16 to i32
    %b = arith.bitcast %x : f16 to i16
    linalg.yield %i, %b : i32, i16
  } -> (tensor<8xi32>, tensor<8xi16>)
  return %0#0, %0#1 : tensor<8xi32>, tensor<8xi16>
}

// -----

// A narrowing to FP8 and back (amp.quantize then amp.dequantize, fused) is
// a quantization: it stays. The f16 pair after it goes.

#id = affine_map<(i) -> (i)>

// CHECK-LABEL: func.func @float8_pair_kept
// CHECK: %[[Q:.*]] = arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK: %[[W:.*]] = arith.extf %[[Q]] : f8E4M3FN to f32
// CHECK-NOT: f16
// CHECK: linalg.yield
func.func @float8_pair_kept(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.truncf %a : f32 to f8E4M3FN
    %w = arith.extf %q : f8E4M3FN to f32
    %h = arith.truncf %w : f32 to f16
    %v = arith.extf %h : f16 to f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
