// amp-linalg-to-library-calls' float8-gemms=false, what --lower-to-gpu
// sets for a chip before sm_89 (no cuBLASLt FP8 GEMM): an FP8 GEMM that
// cuBLASLt would take stays a generated kernel, with a remark. A
// compilation for such a chip never hands it one (the level widened it:
// fp8-kernels=none).
// RUN: amp-opt %s --amp-linalg-to-library-calls=float8-gemms=false \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-linalg-to-library-calls | FileCheck %s --check-prefix=SM89

// CHECK-LABEL: func.func @float8_tn
// CHECK-NOT: call @ampGpuScaledGemm
// CHECK: linalg.matmul
// SM89-LABEL: func.func @float8_tn
// SM89: call @ampGpuScaledGemm
func.func @float8_tn(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E5M2>, %c: memref<16x16xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: FP8 GEMMs need cuBLASLt on sm_89 or later}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E5M2>) outs(%c : memref<16x16xf32>)
  return
}
