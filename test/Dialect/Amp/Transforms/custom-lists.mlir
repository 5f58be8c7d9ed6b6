// Custom white and black lists, from options or a policy file; the black
// list wins over everything but an amp.precision pin.
// RUN: amp-opt %s --amp-o1="custom-white-list=math.exp custom-black-list=linalg.matmul,arith.addf" | FileCheck %s --check-prefix=LISTS
// RUN: amp-opt %s --amp-o1="policy-file=%S/Inputs/policy.json" | FileCheck %s --check-prefix=FILE
// RUN: amp-opt %s --amp-o1="policy-file=%S/Inputs/policy.json dtype=f16" | FileCheck %s --check-prefix=FILE-F16

// LISTS-LABEL: func.func @lists
// Black-listed matmul stays f32 even though it is white.
// LISTS: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>)
// White-listed exp goes low even though it is black.
// LISTS: math.exp %{{.*}} : tensor<4x4xf16>
// A pin beats the black list.
// LISTS: arith.addf %{{.*}}, %{{.*}} {amp.precision = "f16"} : tensor<4x4xf16>
// LISTS: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf16>, tensor<1x4x4xf16>)
// LISTS: math.tanh %{{.*}} : tensor<4x4xf32>

// The policy file: bf16, exp white, batch_matmul black, tanh recategorized.
// FILE-LABEL: func.func @lists
// FILE: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xbf16>, tensor<4x4xbf16>)
// FILE: math.exp %{{.*}} : tensor<4x4xbf16>
// FILE: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x4x4xf32>, tensor<1x4x4xf32>)
// FILE: math.tanh %{{.*}} : tensor<4x4xf32>
// An explicit dtype option beats the file's.
// FILE-F16: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>)
func.func @lists(%a: tensor<4x4xf32>, %b: tensor<1x4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<1x4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>)
                      outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ex = math.exp %mm : tensor<4x4xf32>
  %ad = arith.addf %ex, %ex {amp.precision = "f16"} : tensor<4x4xf32>
  %be = tensor.empty() : tensor<1x4x4xf32>
  %bm = linalg.batch_matmul ins(%b, %b : tensor<1x4x4xf32>, tensor<1x4x4xf32>)
                            outs(%be : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %th = math.tanh %a : tensor<4x4xf32>
  return %ex, %ad, %bm, %th
      : tensor<4x4xf32>, tensor<4x4xf32>, tensor<1x4x4xf32>, tensor<4x4xf32>
}
