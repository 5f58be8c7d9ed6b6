// RUN: amp-opt %s --amp-noalias-allocations --split-input-file | FileCheck %s

// The declarations of the runtime allocator's two functions get a noalias
// result; other functions, and a definition of the same name, stay as they
// are.
// CHECK-LABEL: module
// CHECK: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> (!llvm.ptr {llvm.noalias})
// CHECK: llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> (!llvm.ptr {llvm.noalias})
// CHECK: llvm.func @other_alloc(i64) -> !llvm.ptr
// CHECK: llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
module {
  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
  llvm.func @other_alloc(i64) -> !llvm.ptr
  llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
}

// -----

// CHECK-LABEL: module
// CHECK: llvm.func @_mlir_memref_to_llvm_alloc(%{{.*}}: i64) -> !llvm.ptr {
module {
  llvm.func @_mlir_memref_to_llvm_alloc(%size: i64) -> !llvm.ptr {
    %0 = llvm.mlir.zero : !llvm.ptr
    llvm.return %0 : !llvm.ptr
  }
}
