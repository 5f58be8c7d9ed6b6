// Invalid policies are reported before anything changes: a clear error
// naming the offending item, exit status 1, no module printed.
// RUN: not amp-opt %s --amp-o1="custom-black-list=linalg.sofmax" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amp-opt %s --amp-o1="custom-white-list=math.exp custom-black-list=math.exp" 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not amp-opt %s --amp-o2="dtype=f8" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not amp-opt %s --amp-o2="use-fp16-guard=maybe" 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not amp-opt %s --amp-o1="policy-file=%S/Inputs/no-such-file.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-opt %s --amp-o1="policy-file=%S/Inputs/malformed.json" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not amp-opt %s --amp-o1="policy-file=%S/Inputs/unknown-key.json" 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not amp-opt %s --amp-o1="policy-file=%S/Inputs/bad-category.json" 2>&1 | FileCheck %s --check-prefix=CATEGORY
// RUN: not amp-opt %s --amp-o1="policy-file=%S/Inputs/unknown-op.json" 2>&1 | FileCheck %s --check-prefix=FILEOP
// RUN: not amp-opt %s --amp-o1="policy-file=%S/Inputs/bad-dtype.json" 2>&1 | FileCheck %s --check-prefix=FILEDTYPE
// RUN: not amp-opt %s --amp-auto-mixed-precision="level=O3" 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not amp-opt %s --amp-o1="placement=best" 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// RUN: amp-opt %s --amp-o1="custom-black-list=linalg.sofmax"; test $? -eq 1

// UNKNOWN: error: amp: unknown operation 'linalg.sofmax' in custom-black-list
// UNKNOWN-NOT: func.func
// BOTH: error: amp: operation 'math.exp' is in both custom-white-list and custom-black-list
// BOTH-NOT: func.func
// DTYPE: error: amp: unknown dtype 'f8' (expected f16, bf16 or fp8, or fp16, float16, half, bfloat16, float8)
// GUARD: error: amp: use-fp16-guard must be true, false or auto, got 'maybe'
// MISSING: error: amp: cannot read policy file '{{.*}}no-such-file.json': No such file or directory
// MALFORMED: error: amp: malformed policy file '{{.*}}malformed.json':
// KEY: error: amp: policy file '{{.*}}unknown-key.json': unknown key 'white_list' (expected dtype, custom_white_list, custom_black_list, categories, use_fp16_guard)
// CATEGORY: error: amp: policy file '{{.*}}bad-category.json': category of 'math.exp' must be "white", "black" or "gray"
// FILEOP: error: amp: unknown operation 'linalg.matmull' in custom-black-list
// FILEDTYPE: error: amp: policy file '{{.*}}bad-dtype.json': 'dtype' must be "f16" or "bf16"
// LEVEL: error: amp: unknown level 'O3' (expected O1 or O2)
// PLACEMENT: error: amp: placement must be auto, optimal, greedy or autocast, got 'best'

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
