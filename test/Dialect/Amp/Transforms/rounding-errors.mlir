// rounding takes once or per-op: anything else is an error at the module
// (the precision pipelines, before anything changes), at the op a lowering
// pass runs on, or where the lowering pipelines read their options; a bad
// amp.rounding attribute fails verification.
// RUN: amp-opt %s --split-input-file --amp-o2="rounding=twice" -verify-diagnostics
// RUN: not amp-opt %s --split-input-file --amp-o1="rounding=per_op" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not amp-opt %s --split-input-file --amp-round-once="rounding=never" 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: not amp-opt %s --split-input-file --amp-fuse-elementwise="rounding=ONCE" 2>&1 | FileCheck %s --check-prefix=FUSE
// RUN: not amp-opt %s --split-input-file --lower-to-cpu="rounding=fused" 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not amp-opt %s --split-input-file --lower-to-gpu="rounding=fused simulate=true" 2>&1 | FileCheck %s --check-prefix=GPU

// PIPELINE: error: amp: rounding must be once or per-op, got 'per_op'
// PIPELINE-NOT: func.func
// LOWER: error: rounding must be once or per-op, got 'never'
// FUSE: error: rounding must be once or per-op, got 'ONCE'
// CPU: lower-to-cpu: rounding must be once or per-op, got 'fused'
// GPU: lower-to-gpu: rounding must be once or per-op, got 'fused'

// expected-error @+1 {{amp: rounding must be once or per-op, got 'twice'}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = arith.addf %x, %x : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
