// A matmul with K = 0 on the GPU: amp-prepare-contractions replaces it by
// its zero fill before bufferization, so no cuBLAS call is made for it (a
// GEMM with k = 0 and lda = 0 is not a valid cublasGemmEx call) and the
// exp reads the fill. Executed in the GPU simulator: all ones, as on the
// CPU (test/Pipelines/CPU/empty-contraction.mlir).
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" \
// RUN:     --mlir-print-ir-after=amp-linalg-to-library-calls -o /dev/null 2>&1 \
// RUN: | FileCheck %s
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="simulate=true" -o /dev/null
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-run %s --level=O2 --target=gpu-sim --print --outputs %t/sim.npy \
// RUN: | FileCheck %s --check-prefix=SIM
// RUN: amp-run %s --level=O2 --target=cpu --outputs %t/cpu.npy
// RUN: %python %amp_src_root/test/amp-run/Inputs/compare-npy.py 0 %t/sim.npy %t/cpu.npy \
// RUN: | FileCheck %s --check-prefix=SAME

// CHECK-LABEL: func.func @empty_k
// CHECK-NOT: ampGpuGemm
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[F:.*]] : memref<8x4xf32>)
// CHECK-NOT: ampGpuGemm
// CHECK: linalg.generic {{.*}} ins(%[[F]] : memref<8x4xf32>)
// CHECK-NOT: ampGpuGemm
// CHECK-NOT: linalg.matmul

// SIM: gpu-sim: {{[0-9]+}} kernel launches ({{[0-9]+}} threads), 0 library calls, [[N:[0-9]+]] device allocations, [[N]] frees, 0 live
// SIM: output #0 (O2 f16): tensor<8x4xf32>
// SIM-NEXT: {{^\[\[1 1 1 1\]$}}
// SIM-COUNT-7: {{^ \[1 1 1 1\]}}
// SAME: output 0: rel L2 0.000e+00 ok

func.func @empty_k(%a: tensor<8x0xf32>, %b: tensor<0x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x0xf32>, tensor<0x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = math.exp %mm : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
