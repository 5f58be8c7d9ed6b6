// Optimal placement with three types: a bf16 pin in an f16 module is a type
// of its own. %p (bf16, 4096 elements) is used by exp (f32) and by the gray
// max-reduction. Placing the reduction in f16 would need a second conversion
// of %p (bf16 -> f16, 4096 elements); placing it in f32 shares the
// bf16 -> f32 conversion exp needs, and only its 64-element result is
// narrowed for the dot, by the reduction's epilogue (no cast of its own).
// (Treating bf16 as "low" would pick f16.)
// RUN: amp-opt %s --amp-o1="placement=optimal" | FileCheck %s
// RUN: amp-opt %s --amp-o1="report=text placement=optimal" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @mixed
// CHECK: %[[P:.*]] = math.sin %{{.*}} {amp.precision = "bf16"} : tensor<64x64xbf16>
// CHECK: %[[PW:.*]] = arith.extf %[[P]] : tensor<64x64xbf16> to tensor<64x64xf32>
// CHECK-NOT: tensor<64x64xf16>
// CHECK: math.exp %[[PW]] : tensor<64x64xf32>
// CHECK: linalg.reduce ins(%[[PW]] : tensor<64x64xf32>)
// CHECK: linalg.dot ins(%{{.*}}, %{{.*}} : tensor<64xf16>, tensor<64xf16>)
// REPORT: amp-o1: 2/6 float ops in low precision, 3 casts, 48.4 KiB converted per call; 1 narrowing in epilogues
func.func @mixed(%x: tensor<64x64xf32>, %v: tensor<64xf32>)
    -> (tensor<64x64xf32>, tensor<f32>) {
  %p = math.sin %x {amp.precision = "bf16"} : tensor<64x64xf32>
  %k = math.exp %p : tensor<64x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%p : tensor<64x64xf32>) outs(%init : tensor<64xf32>)
      dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<f32>
  %s = linalg.fill ins(%zero : f32) outs(%se : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%r, %v : tensor<64xf32>, tensor<64xf32>) outs(%s : tensor<f32>) -> tensor<f32>
  return %k, %d : tensor<64x64xf32>, tensor<f32>
}
