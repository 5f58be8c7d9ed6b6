// The buffers of lowered CPU code go through libamp_runtime's allocator
// (finalize-memref-to-llvm's generic functions, which it defines and which
// keep large blocks for reuse); runtime-allocator=false keeps malloc and
// free. Both run.
// RUN: amp-opt %s --lower-to-cpu | FileCheck %s
// RUN: amp-opt %s --lower-to-cpu=runtime-allocator=false | FileCheck %s --check-prefix=LIBC
// RUN: amp-opt %s --lower-to-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%amp_runtime \
// RUN: | FileCheck %s --check-prefix=EXEC
// RUN: amp-opt %s --lower-to-cpu=runtime-allocator=false \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s --check-prefix=EXEC

// The allocator aligns the blocks itself (no alignment through integer
// arithmetic), and its result is noalias, as malloc's is to LLVM
// (amp-noalias-allocations).
// CHECK: llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> (!llvm.ptr {llvm.noalias})
// CHECK-LABEL: llvm.func @main
// CHECK: llvm.call @_mlir_memref_to_llvm_aligned_alloc
// CHECK-NOT: llvm.ptrtoint
// CHECK: llvm.call @_mlir_memref_to_llvm_free
// LIBC-LABEL: llvm.func @main
// LIBC-NOT: _mlir_memref_to_llvm
// LIBC: llvm.call @aligned_alloc
// LIBC: llvm.call @free
// EXEC: [2,  16,  54]
func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<3xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %c : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %z: f32, %o: f32):
    %y = arith.mulf %x, %z : f32
    %w = arith.mulf %y, %z : f32
    linalg.yield %w : f32
  } -> tensor<3xf32>
  %u = tensor.cast %b : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
