// --lower-to-gpu with dtype=fp8: amp.quantize's rounding in the kernels is
// PTX's cvt.rn.satfinite where the chip and PTX version have it
// (amp-float8-to-nvvm: sm_90 from PTX 7.8, sm_89 from 8.1), and integer
// code (amp-expand-float8) elsewhere; ptxas takes it (test/amp-run/compile-only.test).
// RUN: amp-opt %s --amp-o2="dtype=fp8" --lower-to-gpu="format=isa" | FileCheck %s --check-prefix=SM90
// RUN: amp-opt %s --amp-o2="dtype=fp8" --lower-to-gpu="format=isa chip=sm_89 features=+ptx81" | FileCheck %s --check-prefix=SM90
// RUN: amp-opt %s --amp-o2="dtype=fp8" --lower-to-gpu="format=isa chip=sm_89" | FileCheck %s --check-prefix=SM80
// RUN: amp-opt %s --amp-o2="dtype=fp8" --lower-to-gpu="format=isa chip=sm_80" | FileCheck %s --check-prefix=SM80
// Both operands of the matmul are quantized in kernels.
// SM90-COUNT-2: cvt.rn.satfinite.e4m3x2.f32
// SM80-NOT: cvt.rn.satfinite
func.func @mm(%x: tensor<64x128xf32>, %w: tensor<128x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x96xf32>)
                     outs(%acc : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
