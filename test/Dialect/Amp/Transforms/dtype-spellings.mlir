// The spellings of the low type that users write (numpy's, PyTorch's,
// Paddle's) are accepted everywhere, as in the Python package: fp16,
// float16 and half are f16; bfloat16 is bf16; case does not matter.
// RUN: amp-opt %s --amp-o2="dtype=f16" > %t.f16.mlir
// RUN: amp-opt %s --amp-o2="dtype=fp16" | diff %t.f16.mlir -
// RUN: amp-opt %s --amp-o2="dtype=float16" | diff %t.f16.mlir -
// RUN: amp-opt %s --amp-o2="dtype=Half" | diff %t.f16.mlir -
// RUN: amp-opt %s --amp-o2="dtype=bfloat16" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision="level=O2 dtype=FP16" | FileCheck %s
// RUN: not amp-opt %s --amp-o2="dtype=float32" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: amp-run %s --entry f --level=O2 --dtype=float16 | FileCheck %s --check-prefix=JIT
// RUN: amp-run %s --entry f --level=O2 --dtype=bfloat16 | FileCheck %s --check-prefix=JIT-BF16

// CHECK: module attributes {amp.applied = "O2:f16", amp.rounding = "once"}
// CHECK: math.tanh %{{.*}} : tensor<4xf16>
// BF16: module attributes {amp.applied = "O2:bf16", amp.rounding = "once"}
// BF16: math.tanh %{{.*}} : tensor<4xbf16>
// BAD: error: amp: unknown dtype 'float32' (expected f16, bf16 or fp8, or fp16, float16, half, bfloat16, float8)
// JIT: O2 f16 on cpu
// JIT-BF16: O2 bf16 on cpu
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
