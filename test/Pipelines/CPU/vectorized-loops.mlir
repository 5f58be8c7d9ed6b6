// The loops --lower-to-cpu makes are vectorised by LLVM: here a softmax's
// sum of exponentials over rows of 512 (amp-split-reductions: 8 f32 lanes
// accumulated into a buffer) and the normalisation, each reading one
// buffer and writing another. LLVM can only do it when it can tell the
// buffers apart: the runtime allocator's blocks are noalias
// (amp-noalias-allocations), as malloc's are.
// RUN: amp-opt %s --lower-to-cpu | mlir-translate --mlir-to-llvmir \
// RUN: | opt -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -S > %t.ll
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=SCALAR < %t.ll
// RUN: amp-opt %s --lower-to-cpu=runtime-allocator=false | mlir-translate --mlir-to-llvmir \
// RUN: | opt -O2 -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell -S > %t.malloc.ll
// RUN: FileCheck %s < %t.malloc.ll
// RUN: FileCheck %s --check-prefix=SCALAR < %t.malloc.ll

// CHECK-LABEL: define {{.*}} @softmax_rows(
// The polynomial exp (its last step adds 1) and the lanes' sums, 8 wide.
// CHECK: fadd <8 x float> %{{.*}}, splat (float 1.000000e+00)
// CHECK: fdiv <8 x float>
// No exp is left scalar (a scalar loop where LLVM could not tell the
// buffers apart).
// SCALAR-LABEL: define {{.*}} @softmax_rows(
// SCALAR-NOT: fadd float %{{.*}}, 1.000000e+00
// SCALAR: ret
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_rows(%x: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x512xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %ex = math.exp %a : f32
    %s = arith.addf %ex, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %o = tensor.empty() : tensor<64x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<64x512xf32>, tensor<64xf32>) outs(%o : tensor<64x512xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %ex = math.exp %a : f32
    %d = arith.divf %ex, %s : f32
    linalg.yield %d : f32
  } -> tensor<64x512xf32>
  return %y : tensor<64x512xf32>
}
