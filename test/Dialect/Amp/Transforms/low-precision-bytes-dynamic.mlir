// Low-precision bytes with a dynamic batch: each dynamic dimension counts
// as 1, so the figures are per sample (matmul: 8 + 32 f16 read, 4 written
// by its epilogue; tanh 4 + 4; the add reads 2 x 4, its result is returned).
// RUN: amp-opt %s --amp-o2="report=text" -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-o2="report=json report-file=-" -o /dev/null | FileCheck %s --check-prefix=JSON
// CHECK: low-precision bytes: 120 B of an ideal 120 B (100.0%), per unit of each dynamic dimension (6 tensors of dynamic size)
// JSON-DAG: "dynamic_size_tensors": 6
// JSON-DAG: "ideal_low_precision_bytes": 120
func.func @f(%x: tensor<?x8xf32>, %w: tensor<8x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<?x4xf32>) -> tensor<?x4xf32>
  %t = math.tanh %mm : tensor<?x4xf32>
  %s = arith.addf %t, %t : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
