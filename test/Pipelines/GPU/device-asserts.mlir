// RUN: amp-opt %s --lower-to-gpu -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --lower-to-gpu="simulate=true" -o /dev/null 2>&1 | FileCheck %s

// torch-mlir's gather with bounds checks now maps to a kernel on the GPU
// pipeline (before, the loop stayed on the host and the pipeline failed).
// CHECK: remark: amp: the GPU kernel drops this check ("index must be smaller than dim size")
// CHECK-NOT: error
#map = affine_map<(d0) -> (d0)>
func.func @take(%x: tensor<64xi64>, %t: tensor<10xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %c10 = arith.constant 10 : index
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<64xi64>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %ok = arith.cmpi slt, %i, %c10 : index
    cf.assert %ok, "index must be smaller than dim size"
    %v = tensor.extract %t[%i] : tensor<10xf32>
    linalg.yield %v : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
