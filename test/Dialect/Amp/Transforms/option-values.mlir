// Every enumerated option of --amp-o1/--amp-o2 takes the values of its one
// spelling table (amp/Dialect/Amp/Transforms/Options.h); any other value is
// an error located at the module, before anything changes, whether the
// pipeline runs its stages as one pass, as separate passes (split-stages),
// or the passes are named directly.
// RUN: not amp-opt %s --amp-o1="loss-scaling=maybe" 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not amp-opt %s --amp-o1="loss-scaling=maybe split-stages=true" 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not amp-opt %s --amp-auto-mixed-precision="loss-scaling=ON" 2>&1 | FileCheck %s --check-prefix=LOSSCASE
// RUN: not amp-opt %s --amp-o2="placement=best split-stages=true" 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// RUN: not amp-opt %s --amp-precision-pipeline="placement=best" 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// RUN: not amp-opt %s --amp-o2="use-fp16-guard=yes split-stages=true" 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not amp-opt %s --amp-o2="arg-precision=LOW split-stages=true" 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not amp-opt %s --amp-o1="rounding=per_op split-stages=true" 2>&1 | FileCheck %s --check-prefix=ROUNDING
// RUN: not amp-opt %s --amp-o2="report=html" 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not amp-opt %s --amp-o2="report=html split-stages=true" 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not amp-opt %s --amp-o2="dtype=fp4 split-stages=true" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not amp-opt %s --amp-precision-pipeline="level=O3" 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: amp-opt %s --amp-o2="report=html" -verify-diagnostics -o /dev/null
// The accepted values: the module is rewritten.
// RUN: amp-opt %s --amp-o1="loss-scaling=off placement=greedy use-fp16-guard=false arg-precision=low rounding=per-op report=none dtype=HALF" | FileCheck %s --check-prefix=OK
// RUN: amp-opt %s --amp-o1="loss-scaling=on placement=optimal use-fp16-guard=auto arg-precision=keep rounding=once dtype=bfloat16 split-stages=true" | FileCheck %s --check-prefix=OKSPLIT

// LOSS: error: amp: loss-scaling must be auto, on or off, got 'maybe'
// LOSS-NOT: func.func
// LOSSCASE: error: amp: loss-scaling must be auto, on or off, got 'ON'
// PLACEMENT: error: amp: placement must be auto, optimal, greedy or autocast, got 'best'
// PLACEMENT-NOT: func.func
// GUARD: error: amp: use-fp16-guard must be true, false or auto, got 'yes'
// ARG: error: amp: arg-precision must be keep or low, got 'LOW'
// ROUNDING: error: amp: rounding must be once or per-op, got 'per_op'
// REPORT: error: amp: report must be none, text or json, got 'html'
// REPORT-NOT: func.func
// DTYPE: error: amp: unknown dtype 'fp4' (expected f16, bf16 or fp8, or fp16, float16, half, bfloat16, float8)
// LEVEL: error: amp: unknown level 'O3' (expected O1 or O2)
// OK: module attributes {amp.applied = "O1:f16", amp.rounding = "per-op"}
// OK: func.func @f(%arg0: tensor<4x8xf16>
// OKSPLIT: module attributes {amp.applied = "O1:bf16", amp.rounding = "once"}

// expected-error @+1 {{amp: report must be none, text or json, got 'html'}}
module {
  func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<4x2xf32>
    %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x2xf32>) -> tensor<4x2xf32>
    %c = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
    return %c : tensor<4x2xf32>
  }
}
