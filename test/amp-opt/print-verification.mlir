// amp-opt does not verify the module again before printing it when the
// parser and the pass manager have verified it (it would cost as much as a
// pass). When verification is turned off, the printer still checks, so an
// invalid module is printed in generic form instead of reaching a custom
// printer.

// RUN: amp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNVERIFIED
// RUN: amp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing \
// RUN:   --verify-each=false 2>&1 | FileCheck %s --check-prefix=UNVERIFIED
// RUN: not amp-opt %s 2>&1 | FileCheck %s --check-prefix=VERIFIED

// UNVERIFIED: "linalg.add"(%arg0, %arg0, %0)
// UNVERIFIED: }) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf16>
// VERIFIED: error: 'linalg.add' op expected type of operand #2 ('tensor<4xf32>') to match type of corresponding result ('tensor<4xf16>')

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf16>
  return %a : tensor<4xf32>
}
