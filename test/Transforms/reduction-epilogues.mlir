// Reduction epilogues on the CPU: a sum whose f32 result is only narrowed (a
// mean pool before a matmul) is computed tile by tile inside its narrowing,
// so that the loop nest writes f16 and no whole f32 result exists.
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-fuse-contraction-epilogues{tile-size=16}),canonicalize)" \
// RUN:     --split-input-file | FileCheck %s
// RUN: amp-opt %s --split-input-file --lower-to-cpu --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF

#id = affine_map<(n, c, s) -> (n, c, s)>
#red = affine_map<(n, c, s) -> (n, c)>
#id2 = affine_map<(n, c) -> (n, c)>

// CHECK-LABEL: func.func @mean_pool
// CHECK: scf.for
// CHECK: linalg.fill {{.*}} -> tensor<2x16xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<2x16xf32>)
// CHECK: linalg.generic
// CHECK: arith.truncf
// CHECK: tensor.insert_slice
// BUF-LABEL: func.func @mean_pool
// BUF-NOT: memref<2x64xf32>
// BUF: return
func.func @mean_pool(%x: tensor<2x64x49xf16>) -> tensor<2x64xf16> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %e32 = tensor.empty() : tensor<2x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x64x49xf16>) outs(%f : tensor<2x64xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %e = tensor.empty() : tensor<2x64xf16>
  %mean = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<2x64xf32>) outs(%e : tensor<2x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %d = arith.divf %a, %n : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x64xf16>
  return %mean : tensor<2x64xf16>
}

// -----

#id = affine_map<(n, c, s) -> (n, c, s)>
#red = affine_map<(n, c, s) -> (n, c)>
#bc = affine_map<(n, c, s) -> (n, c)>

// A sum read through a broadcast (a softmax's division) is not an epilogue:
// it stays whole.
// CHECK-LABEL: func.func @broadcast_reader
// CHECK-NOT: scf.for
// BUF-LABEL: func.func @broadcast_reader
func.func @broadcast_reader(%x: tensor<2x64x49xf16>) -> tensor<2x64x49xf16> {
  %zero = arith.constant 0.0 : f32
  %e32 = tensor.empty() : tensor<2x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e32 : tensor<2x64xf32>) -> tensor<2x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x64x49xf16>) outs(%f : tensor<2x64xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x64xf32>
  %e = tensor.empty() : tensor<2x64x49xf16>
  %r = linalg.generic {indexing_maps = [#id, #bc, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum : tensor<2x64x49xf16>, tensor<2x64xf32>) outs(%e : tensor<2x64x49xf16>) {
  ^bb0(%a: f16, %s: f32, %o: f16):
    %w = arith.extf %a : f16 to f32
    %d = arith.divf %w, %s : f32
    %t = arith.truncf %d : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x64x49xf16>
  return %r : tensor<2x64x49xf16>
}
