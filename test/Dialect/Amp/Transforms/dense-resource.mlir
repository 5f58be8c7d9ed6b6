// dense_resource constants (torch-mlir's weights) are converted at compile
// time like dense<> ones: round to nearest even into a new blob named after
// the original, with no conversion left at run time. One that overflows is
// not converted: its users stay f32, with the warning.
// RUN: amp-opt %s -split-input-file --amp-o2="report=text report-file=-" -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,F16
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=bf16" | FileCheck %s --check-prefixes=CHECK,BF16

// 1.0, 0.1, -2.5 and 65519 (which rounds to f16's largest, 65504), as
// little-endian f32; f16: 3C00 2E66 C100 7BFF, bf16: 3F80 3DCD C020 4780.
// The report comes first. Its 24 B are the argument's conversion
// (4 x (4 + 2) B); none is left for the weight.
// F16: amp-o2: 1/2 float ops in f16, 1 cast, 24 B converted per call
// CHECK-LABEL: func.func @weights
// F16: %[[W:.*]] = arith.constant dense_resource<w0_f16> : tensor<2x2xf16>
// BF16: %[[W:.*]] = arith.constant dense_resource<w0_bf16> : tensor<2x2xbf16>
// CHECK: linalg.matmul ins(%{{.*}}, %[[W]] : tensor<2x2x{{b?}}f16>, tensor<2x2x{{b?}}f16>)
// CHECK-NOT: arith.truncf %{{.*}} : tensor<2x2xf32> to tensor<2x2x{{b?}}f16>
// CHECK-NOT: {{^ *}}w0: "
// F16: w0_f16: "0x02000000003C662E00C1FF7B"
// BF16: w0_bf16: "0x02000000803FCD3D20C08047"
func.func @weights(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense_resource<w0> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803FCDCCCC3D000020C000EF7F47"
    }
  }
#-}

// -----

// The derived name is unique: w1_f16 is taken by another blob.
// CHECK-LABEL: func.func @name_taken
// F16: %[[W:.*]] = arith.constant dense_resource<w1_f16_{{[0-9]+}}> : tensor<2xf16>
// F16: arith.constant dense_resource<w1_f16> : tensor<2xf16>
// F16: arith.mulf %{{.*}}, %[[W]] : tensor<2xf16>
// F16-DAG: w1_f16: "0x020000000042003C"
// F16-DAG: w1_f16_{{[0-9]+}}: "0x02000000003C0040"
func.func @name_taken(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf16>) {
  %w = arith.constant dense_resource<w1> : tensor<2xf32>
  %other = arith.constant dense_resource<w1_f16> : tensor<2xf16>
  %y = arith.mulf %x, %w : tensor<2xf32>
  return %y, %other : tensor<2xf32>, tensor<2xf16>
}
{-#
  dialect_resources: {
    builtin: {
      w1: "0x040000000000803F00000040",
      w1_f16: "0x020000000042003C"
    }
  }
#-}

// -----

// 1e5 overflows f16: the multiplication stays f32 with the warning, and the
// f32 blob is kept as it is. bf16 has the range of f32: there it converts.
// CHECK-LABEL: func.func @overflowing
// F16: %[[W:.*]] = arith.constant dense_resource<big> : tensor<2xf32>
// F16: arith.mulf %{{.*}}, %[[W]] : tensor<2xf32>
// F16: big: "0x04000000000000400050C347"
// BF16: arith.constant dense_resource<big_bf16> : tensor<2xbf16>
// BF16: arith.mulf %{{.*}}, %{{.*}} : tensor<2xbf16>
func.func @overflowing(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-warning @+1 {{amp: constant does not fit in f16 (it would overflow to infinity); its users stay in f32}}
  %w = arith.constant dense_resource<big> : tensor<2xf32>
  %y = arith.mulf %x, %w : tensor<2xf32>
  return %y : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      big: "0x04000000000000400050C347"
    }
  }
#-}
