// f16 conversions lowered by --lower-to-cpu become F16C instructions where
// the target has them and libgcc/compiler-rt calls otherwise.
// RUN: amp-opt %s --lower-to-cpu | mlir-translate --mlir-to-llvmir > %t.ll
// RUN: llc -O2 -mtriple=x86_64-unknown-linux-gnu -mattr=+f16c %t.ll -o - \
// RUN: | FileCheck %s --check-prefix=F16C
// RUN: llc -O2 -mtriple=x86_64-unknown-linux-gnu -mattr=-f16c %t.ll -o - \
// RUN: | FileCheck %s --check-prefix=SOFT

// F16C-LABEL: widen_narrow:
// F16C: vcvtph2ps
// F16C: vcvtps2ph
// F16C-NOT: __extendhfsf2
// SOFT-LABEL: widen_narrow:
// SOFT: __extendhfsf2
// SOFT: __truncsfhf2
func.func @widen_narrow(%x: tensor<8xf16>) -> tensor<8xf16> {
  %w = arith.extf %x : tensor<8xf16> to tensor<8xf32>
  %s = arith.mulf %w, %w : tensor<8xf32>
  %n = arith.truncf %s : tensor<8xf32> to tensor<8xf16>
  return %n : tensor<8xf16>
}
