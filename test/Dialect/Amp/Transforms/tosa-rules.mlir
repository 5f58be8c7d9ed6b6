// The policy rules on TOSA inputs: guards, pins, custom lists, bf16 at O1;
// every output still passes --tosa-validate.
// RUN: amp-opt %s --amp-o2 | FileCheck %s --check-prefix=GUARD
// RUN: amp-opt %s --amp-o2 | mlir-opt --tosa-validate -o /dev/null
// RUN: amp-opt %s --amp-o2="use-fp16-guard=false custom-black-list=tosa.sigmoid" | FileCheck %s --check-prefix=LISTS
// RUN: amp-opt %s --amp-o2="use-fp16-guard=false custom-black-list=tosa.sigmoid" | mlir-opt --tosa-validate -o /dev/null
// RUN: amp-opt %s --amp-o1="dtype=bf16 use-fp16-guard=false placement=greedy" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-o1="dtype=bf16 use-fp16-guard=false" | mlir-opt --tosa-attach-target="extensions=bf16" --tosa-validate -o /dev/null

// With the guard: only the guarded matmul and add go low; the sigmoid
// outside stays f32; the pinned tanh follows its pin.
// GUARD-LABEL: func.func @f
// GUARD: tosa.matmul %{{.*}} : (tensor<1x4x8xf16>, tensor<1x8x4xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x4xf32>
// GUARD: tosa.add %{{.*}} : (tensor<1x4x4xf16>, tensor<1x4x4xf16>) -> tensor<1x4x4xf16>
// GUARD: tosa.sigmoid %{{.*}} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
// GUARD: tosa.tanh %{{.*}} {amp.precision = "bf16"} : (tensor<1x4x4xbf16>) -> tensor<1x4x4xbf16>

// Without the guard and with sigmoid black-listed.
// LISTS-LABEL: func.func @f
// LISTS: tosa.sigmoid %{{.*}} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
// LISTS: tosa.tanh %{{.*}} {amp.precision = "bf16"} : (tensor<1x4x4xbf16>) -> tensor<1x4x4xbf16>

// bf16 at O1 (greedy): the matmul is white, the add follows it, the
// sigmoid follows the add.
// BF16-LABEL: func.func @f
// BF16: tosa.matmul %{{.*}} : (tensor<1x4x8xbf16>, tensor<1x8x4xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x4x4xf32>
// BF16: tosa.add %{{.*}} : (tensor<1x4x4xbf16>, tensor<1x4x4xbf16>) -> tensor<1x4x4xbf16>
// BF16: tosa.sigmoid %{{.*}} : (tensor<1x4x4xbf16>) -> tensor<1x4x4xbf16>
func.func @f(%a: tensor<1x4x8xf32>, %b: tensor<1x8x4xf32>) -> tensor<1x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %g = amp.fp16_guard -> tensor<1x4x4xf32> {
    %mm = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
    %s = tosa.add %mm, %mm : (tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
    amp.yield %s : tensor<1x4x4xf32>
  }
  %sg = tosa.sigmoid %g : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %th = tosa.tanh %sg {amp.precision = "bf16"} : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  return %th : tensor<1x4x4xf32>
}
