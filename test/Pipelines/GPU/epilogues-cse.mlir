// Epilogues survive CSE on the GPU too. The attention block of
// test/Pipelines/CPU/epilogues-cse.mlir, canonicalized and CSE'd, so that
// one zero fill initialises all six GEMMs' accumulators: each GEMM gets a
// fill of its own before bufferization (amp-prepare-contractions), so each
// is one cuBLAS call that writes f16 (type 1) or bf16 (type 2) itself, with
// beta 0, and no f32 buffer is passed to a call. PTX only (format=isa): needs
// no CUDA toolkit. The calls are read right after
// amp-linalg-to-library-calls, canonicalized, where constants have their
// value in their name (as in epilogues.test).
// RUN: amp-opt %s --canonicalize --cse \
// RUN: | amp-opt --amp-o2 --lower-to-gpu="format=isa" \
// RUN:     --mlir-print-ir-after=amp-linalg-to-library-calls -o /dev/null 2>&1 \
// RUN: | amp-opt --canonicalize --cse | FileCheck %s
// RUN: amp-opt %s --canonicalize --cse \
// RUN: | amp-opt --amp-o2="dtype=bf16" --lower-to-gpu="simulate=true" \
// RUN:     --mlir-print-ir-after=amp-linalg-to-library-calls -o /dev/null 2>&1 \
// RUN: | amp-opt --canonicalize --cse | FileCheck %s --check-prefix=BF16
// Executed in the GPU simulator: the CSE'd module makes six library calls,
// as the module as written does, with the same results, bit for bit.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --canonicalize --cse -o %t/cse.mlir
// RUN: amp-run %s --level=O2 --target=gpu-sim --outputs %t/written.npy \
// RUN: | FileCheck %s --check-prefix=SIM
// RUN: amp-run %t/cse.mlir --level=O2 --target=gpu-sim --outputs %t/cse.npy \
// RUN: | FileCheck %s --check-prefix=SIM
// RUN: %python %amp_src_root/test/amp-run/Inputs/compare-npy.py 0 %t/cse.npy %t/written.npy \
// RUN: | FileCheck %s --check-prefix=SAME

// CHECK-LABEL: func.func @attention
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.fill
// CHECK-COUNT-6: call @ampGpuGemm({{.*}}, %{{[0-9]+}}, %c1_i32, %c{{[0-9]+}}_i64, %c0_i64, %cst{{(_[0-9]+)?}}) :
// CHECK-NOT: call @ampGpuGemm
// CHECK-NOT: linalg.matmul

// BF16-LABEL: func.func @attention
// BF16-COUNT-6: call @ampGpuGemm({{.*}}, %{{[0-9]+}}, %c2_i32, %c{{[0-9]+}}_i64, %c0_i64, %cst{{(_[0-9]+)?}}) :
// BF16-NOT: call @ampGpuGemm

// SIM: gpu-sim: {{[0-9]+}} kernel launches ({{[0-9]+}} threads), 6 library calls, [[N:[0-9]+]] device allocations, [[N]] frees, 0 live
// SAME: output 0: rel L2 0.000e+00 ok

func.func @attention(%x: tensor<16x16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>,
                     %wv: tensor<16x16xf32>, %wo: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16x16xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f1 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e2 = tensor.empty() : tensor<16x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f2 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %et = tensor.empty() : tensor<16x16xf32>
  %kt = linalg.transpose ins(%k : tensor<16x16xf32>) outs(%et : tensor<16x16xf32>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<16x16xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f3 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %quarter = arith.constant 0.25 : f32
  %es = tensor.empty() : tensor<16x16xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<16x16xf32>) outs(%es : tensor<16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.mulf %in, %quarter : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  %ep = tensor.empty() : tensor<16x16xf32>
  %p = linalg.softmax dimension(1) ins(%scaled : tensor<16x16xf32>) outs(%ep : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e4 = tensor.empty() : tensor<16x16xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %a = linalg.matmul ins(%p, %v : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f4 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e5 = tensor.empty() : tensor<16x16xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %o = linalg.matmul ins(%a, %wo : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f5 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %er = tensor.empty() : tensor<16x16xf32>
  %r = linalg.add ins(%o, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%er : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
