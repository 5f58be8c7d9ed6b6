// A matmul with K = 0 (8x0 times 0x4) accumulates nothing: its result is
// its zero fill, then exp makes it all ones. Upstream's tile-and-fuse
// crashed on the empty reduction inside amp-fuse-contraction-epilogues;
// amp-prepare-contractions now replaces the matmul by its fill first, at
// every level (the fp32 reference of --compare too).
// RUN: amp-opt %s --amp-o2 --lower-to-cpu \
// RUN:     --mlir-print-ir-after=amp-prepare-contractions -o /dev/null 2>&1 \
// RUN: | FileCheck %s
// RUN: amp-opt %s --amp-o1 --lower-to-cpu -o /dev/null
// RUN: amp-opt %s --lower-to-cpu -o /dev/null
// RUN: amp-run %s --level=O2 --compare --print | FileCheck %s --check-prefix=EXEC
// RUN: amp-run %s --level=O2 --dtype=bf16 --compare --print | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @empty_k
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[F]] : tensor<8x4xf32>)
// CHECK-NOT: linalg.matmul

// EXEC: 0 tensor<8x4xf32> 0 0 0
// EXEC-NOT: error
// EXEC: output #0 (O2 {{b?f16}}): tensor<8x4xf32>
// EXEC-NEXT: {{^\[\[1 1 1 1\]$}}
// EXEC-COUNT-7: {{^ \[1 1 1 1\]}}

func.func @empty_k(%a: tensor<8x0xf32>, %b: tensor<0x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x0xf32>, tensor<0x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = math.exp %mm : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
