// RUN: amp-opt %s --amp-fuse-elementwise --split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-fuse-elementwise=library-epilogues=true --split-input-file | FileCheck %s --check-prefix=LIB
// RUN: not amp-opt %s --amp-fuse-elementwise=library-epilogues=maybe --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --library-epilogues option: 'maybe' is invalid value for boolean argument

// library-epilogues (the GPU pipeline with its libraries): a GEMM's f32
// result narrowed to f16 (which the library call writes itself) counts as
// the GEMM's result, so that a bias add of it, or a mask of it (a ReLU's
// gradient), is stored once as the call's epilogue instead of being
// recomputed by each reader; anything else stays recomputed, as without it
// (stored, it would round what the readers compute in f32).

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

// The bias add of the narrowed product, read by two elementwise ops.
// Without the option each reader recomputes it from the stored narrowing;
// with it, the narrowing and the bias add are one generic on the GEMM's
// result, stored once and read by both.
// CHECK-LABEL: func.func @narrowed_bias
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: %[[N:.+]] = linalg.generic {{.*}} ins(%[[M]] :
// CHECK: linalg.generic {{.*}} ins(%[[N]], %{{.+}} :
// CHECK: arith.addf
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[N]], %{{.+}} :
// CHECK: arith.addf
// CHECK: math.absf
// LIB-LABEL: func.func @narrowed_bias
// LIB: %[[M:.+]] = linalg.matmul
// LIB: %[[B:.+]] = linalg.generic {{.*}} ins(%[[M]], %{{.+}} :
// LIB: arith.truncf
// LIB: arith.addf
// LIB: linalg.generic {{.*}} ins(%[[B]] :
// LIB-NOT: arith.addf
// LIB: arith.negf
// LIB: linalg.generic {{.*}} ins(%[[B]] :
// LIB-NOT: arith.addf
// LIB: math.absf
func.func @narrowed_bias(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %bias: tensor<4xf16>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf16>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %c = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%n, %bias : tensor<4x4xf16>, tensor<4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %x32 = arith.extf %x : f16 to f32
    %y32 = arith.extf %y : f16 to f32
    %d = arith.addf %x32, %y32 : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = arith.negf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = math.absf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  return %0, %1 : tensor<4x4xf16>, tensor<4x4xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>

// A mask of the narrowed product (torch's threshold_backward: the product
// where a flag is clear, the 0-d zero where it is set), read by two ops:
// each element is the product or 0, exact in f16. With the option it is
// stored once (the GEMM's DRELU epilogue on the GPU); without, recomputed.
// CHECK-LABEL: func.func @narrowed_mask
// CHECK: linalg.matmul
// CHECK-COUNT-2: arith.select
// LIB-LABEL: func.func @narrowed_mask
// LIB: %[[M:.+]] = linalg.matmul
// LIB: %[[D:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[M]] :
// LIB: arith.select
// LIB: linalg.generic {{.*}} ins(%[[D]] :
// LIB-NOT: arith.select
// LIB: linalg.generic {{.*}} ins(%[[D]] :
// LIB-NOT: arith.select
// LIB: return
func.func @narrowed_mask(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %flags: tensor<4x4xi1>) -> (tensor<4x4xf16>, tensor<4x4xf16>) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant dense<0.0> : tensor<f16>
  %e32 = tensor.empty() : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf16>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %c = linalg.generic {indexing_maps = [#id, #scalar, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%flags, %zero16, %n : tensor<4x4xi1>, tensor<f16>, tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%p: i1, %z: f16, %x: f16, %o: f16):
    %z32 = arith.extf %z : f16 to f32
    %x32 = arith.extf %x : f16 to f32
    %s = arith.select %p, %z32, %x32 : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = arith.negf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf16>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f16, %o: f16):
    %t = math.absf %x : f16
    linalg.yield %t : f16
  } -> tensor<4x4xf16>
  return %0, %1 : tensor<4x4xf16>, tensor<4x4xf16>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// A difference of the narrowed product and a full-size input (a loss's
// residual): stored, it would be rounded to f16 where its readers compute
// it in f32; both ways each reader recomputes it.
// CHECK-LABEL: func.func @narrowed_difference
// CHECK: linalg.matmul
// CHECK: arith.subf
// CHECK: arith.negf
// CHECK: arith.subf
// CHECK: math.absf
// LIB-LABEL: func.func @narrowed_difference
// LIB: linalg.matmul
// LIB: arith.subf
// LIB: arith.negf
// LIB: arith.subf
// LIB: math.absf
func.func @narrowed_difference(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>, %t: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf16>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f32, %o: f16):
    %r = arith.truncf %x : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x4xf16>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%n, %t : tensor<4x4xf16>, tensor<4x4xf32>) outs(%e32 : tensor<4x4xf32>) {
  ^bb0(%x: f16, %y: f32, %o: f32):
    %x32 = arith.extf %x : f16 to f32
    %d = arith.subf %x32, %y : f32
    linalg.yield %d : f32
  } -> tensor<4x4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf32>) outs(%e32 : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x4xf32>) outs(%e32 : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.absf %x : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

#id = affine_map<(i, j) -> (i, j)>

// The narrowed product widened back to f32 (O2's cast before a softmax in
// f32), read by two ops: no bias, no mask, so both ways each reader widens
// the stored 16-bit result itself (stored, the f32 copy would be twice the
// bytes).
// CHECK-LABEL: func.func @narrowed_widened
// CHECK: %[[M:.+]] = linalg.matmul
// CHECK: %[[N:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4x4xf32>) outs(%{{.+}} : tensor<4x4xf16>)
// CHECK: linalg.generic {{.*}} ins(%[[N]] : tensor<4x4xf16>)
// CHECK: linalg.generic {{.*}} ins(%[[N]] : tensor<4x4xf16>)
// LIB-LABEL: func.func @narrowed_widened
// LIB: %[[M:.+]] = linalg.matmul
// LIB: %[[N:.+]] = linalg.generic {{.*}} ins(%[[M]] : tensor<4x4xf32>) outs(%{{.+}} : tensor<4x4xf16>)
// LIB: linalg.generic {{.*}} ins(%[[N]] : tensor<4x4xf16>)
// LIB: linalg.generic {{.*}} ins(%[[N]] : tensor<4x4xf16>)
func.func @narrowed_widened(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf16>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf16>) {
  ^bb0(%x: f32, %o: f16):
    %r = arith.truncf %x : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x4xf16>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%n : tensor<4x4xf16>) outs(%e32 : tensor<4x4xf32>) {
  ^bb0(%x: f16, %o: f32):
    %r = arith.extf %x : f16 to f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4x4xf32>) outs(%e32 : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<4x4xf32>) outs(%e32 : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.absf %x : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}
