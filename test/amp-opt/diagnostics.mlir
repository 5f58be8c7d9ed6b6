// Malformed and invalid input: MLIR diagnostics with file:line:col, a failing
// exit status (`not` also fails on a crash), never a crash.
// RUN: not amp-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: not amp-opt %s -split-input-file --amp-inline-guards 2>&1 | FileCheck %s
// RUN: not amp-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=BADFLAG
// RUN: amp-opt %s -split-input-file; test $? -eq 1

// MISSING: cannot open input file {{.*}}does-not-exist.mlir
// BADFLAG: Unknown command line argument '--no-such-pass'

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:19: error: expected ':'
func.func @syntax(%a: f32) {
  %0 = amp.cast %a f32 to f16
  return
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:8: error: 'amp.cast' op expects source and result of the same shape
func.func @verifier(%a: tensor<4xf32>) {
  %0 = amp.cast %a : tensor<4xf32> to tensor<5xf16>
  return
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: unknown loss_scaling preset "nope"
func.func @attribute() attributes {
  c = #amp.loss_scaling<preset = "nope">
} {
  return
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 2]]:3: error: custom op 'amp.no_such_op' is unknown
func.func @unknown_op() {
  amp.no_such_op
  return
}

// -----

// CHECK: diagnostics.mlir:[[# @LINE + 1]]:1: error: expected operation name in quotes
}
