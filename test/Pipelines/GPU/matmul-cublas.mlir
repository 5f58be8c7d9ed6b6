// --lower-to-gpu at O2: the matmul becomes one cuBLAS call (f16 operands, an
// f16 result computed in f32: its f32 accumulator was only narrowed, beta 0
// in place of the zero fill), the rest of the epilogue a fused kernel that
// reads the f16 result, and the kernel binaries fatbins for the chosen chip.
// Compile only: no GPU.
// REQUIRES: cuda-toolkit
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="chip=sm_90 toolkit=%cuda_root" \
// RUN: | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="chip=sm_80 toolkit=%cuda_root" \
// RUN: | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="chip=sm_90 toolkit=%cuda_root" \
// RUN: | mlir-translate --mlir-to-llvmir > %t.ll
// RUN: FileCheck %s --check-prefix=LLVM < %t.ll
// RUN: FileCheck %s --check-prefix=SYNC < %t.ll

// CHECK-LABEL: llvm.func @mlp
// CHECK-DAG: llvm.call @mgpuMemAlloc
// Arguments: transA, transB (0), batch, m, n, k, then A, B and C (f16 = 1)
// with leading dimensions and batch strides, and beta.
// CHECK-DAG: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[F16:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @ampGpuGemm(%[[Z]], %[[Z]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[F16]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[F16]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[F16]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) : (i32, i32, i64, i64, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, f32) -> ()
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuMemFree
// CHECK: llvm.func @_mlir_ciface_mlp
// SM90: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80"
// SM80: gpu.binary @{{.*}} [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80"
// CHECK-NOT: linalg.

// LLVM-DAG: declare void @ampGpuGemm(i32, i32, i64, i64, i64, i64, ptr, i32, i64, i64, ptr, i32, i64, i64, ptr, i32, i64, i64, float)
// LLVM-DAG: call void @mgpuLaunchKernel(ptr %{{[0-9]+}}, i64 {{[0-9]+}}, i64 1, i64 1, i64 256, i64 1, i64 1, i32 0,
// LLVM-DAG: call ptr @mgpuModuleLoad(ptr @{{.*}}, i64
// One host synchronization, at the end: none around the cuBLAS call.
// SYNC: call void @ampGpuGemm
// SYNC-COUNT-1: call void @mgpuStreamSynchronize
// SYNC-NOT: call void @mgpuStreamSynchronize
func.func @mlp(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<64x256xf32>, tensor<256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
