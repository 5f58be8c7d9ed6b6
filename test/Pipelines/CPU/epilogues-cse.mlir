// Epilogues survive CSE. An attention block (one head, 16 tokens of 16
// features) as a frontend or `--canonicalize --cse` leaves it: one zero
// fill (and one empty tensor) initialises the accumulators of all six
// GEMMs. amp-prepare-contractions gives each GEMM a fill of its own, so each
// is computed tile by tile inside its epilogue (tiles of 8: six 8x8 f32
// accumulators, no whole 16x16 one), whether the module was CSE'd before
// --amp-o2 or after it. The results are bit for bit those of the module as
// written (each GEMM with its own fill).
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-opt %s --canonicalize --cse -o %t/cse.mlir
// RUN: FileCheck %s --check-prefix=SHARED < %t/cse.mlir
// RUN: amp-opt %t/cse.mlir --amp-o2 --lower-to-cpu="epilogue-tile-size=8 libraries=false" \
// RUN:     --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=CPU
// RUN: amp-opt %s --amp-o2 --canonicalize --cse \
// RUN: | amp-opt --lower-to-cpu="epilogue-tile-size=8 libraries=false" \
// RUN:     --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=CPU
// RUN: amp-run %s --level=O2 --outputs %t/written.npy
// RUN: amp-run %t/cse.mlir --level=O2 --outputs %t/cse.npy
// RUN: %python %amp_src_root/test/amp-run/Inputs/compare-npy.py 0 %t/cse.npy %t/written.npy \
// RUN: | FileCheck %s --check-prefix=SAME
// RUN: amp-run %s --level=O2 --dtype=bf16 --outputs %t/written-bf16.npy
// RUN: amp-run %t/cse.mlir --level=O2 --dtype=bf16 --outputs %t/cse-bf16.npy
// RUN: %python %amp_src_root/test/amp-run/Inputs/compare-npy.py 0 %t/cse-bf16.npy %t/written-bf16.npy \
// RUN: | FileCheck %s --check-prefix=SAME

// SHARED-LABEL: func.func @attention
// SHARED: %[[F:.*]] = linalg.fill
// SHARED-NOT: linalg.fill
// SHARED-COUNT-6: linalg.matmul {{.*}} outs(%[[F]] : tensor<16x16xf32>)

// CPU-LABEL: func.func @attention
// CPU-NOT: linalg.matmul {{.*}} outs(%{{.*}} : memref<16x16xf32>)
// CPU-COUNT-6: linalg.matmul {{.*}} outs(%{{.*}} : memref<8x8xf32>)
// CPU-NOT: linalg.matmul

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
