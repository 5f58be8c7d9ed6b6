// Modules imported by amp_mlir.from_torch (Inputs/torch-*.mlir, saved so
// that this test needs no torch): torch-mlir computes each layer norm's
// variance in f64 over the f32 input. By default (f64=demote) nothing is
// left in f64: the variance reads the low input and accumulates in f32,
// as the mean does, and every tensor of the O2 ideal is stored low. With
// f64=keep the f64 chain stays, and the share of the ideal drops.
// RUN: amp-opt %S/Inputs/torch-layer-norm.mlir --amp-o2 | FileCheck %s
// RUN: amp-opt %S/Inputs/torch-layer-norm.mlir --amp-o2="dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %S/Inputs/torch-layer-norm.mlir --amp-o2="report=text" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: amp-opt %S/Inputs/torch-layer-norm.mlir --amp-o2="report=text f64=keep" -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %S/Inputs/torch-encoder-layer.mlir --amp-o2="report=text" 2>%t.report | FileCheck %s --check-prefix=ENCODER
// RUN: FileCheck %s --check-prefix=ENCODER-REPORT < %t.report
// RUN: amp-opt %S/Inputs/torch-encoder-layer.mlir --amp-o1 -verify-diagnostics | mlir-opt > /dev/null

// The mean and the variance: sums of the f16 input (and of the f16
// squared deviations) into f32 accumulators.
// CHECK-LABEL: func.func @main
// CHECK-NOT: f64
// CHECK: %[[X:.*]] = arith.truncf %arg0 : tensor<2x4x8xf32> to tensor<2x4x8xf16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<2x4x8xf16>) outs(%{{.*}} : tensor<2x4x1xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<2x4x8xf16>, tensor<2x4x1xf16>) outs(%{{.*}} : tensor<2x4x8xf16>)
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x4x8xf16>) outs(%{{.*}} : tensor<2x4x1xf32>)
// CHECK: math.rsqrt
// CHECK: return

// BF16-NOT: f64
// BF16: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x4x8xbf16>) outs(%{{.*}} : tensor<2x4x1xf32>)

// REPORT: low-precision bytes: {{.*}} (100.0%)
// REPORT-NOT: f64

// KEEP: low-precision bytes: {{.*}} of an ideal {{.*}} (49.0%)
// KEEP: op f32 f16 f64

// ENCODER-LABEL: func.func @main
// ENCODER-NOT: f64
// ENCODER: return
// ENCODER-REPORT: low-precision bytes: {{.*}} (100.0%)
// ENCODER-REPORT-NOT: f64
