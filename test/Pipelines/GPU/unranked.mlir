// A function that returns its own unranked tensor argument, the mutant that
// aborted --lower-to-gpu with an assertion (issue 45): a located error from
// amp-memref-to-gpu now, at O0 and after --amp-o2. The CPU pipeline runs it.
// RUN: not amp-opt %s --lower-to-gpu="format=isa" 2>&1 | FileCheck %s
// RUN: not amp-opt %s --amp-o2 --lower-to-gpu="format=isa" 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-o2 --lower-to-cpu | FileCheck %s --check-prefix=CPU

// CHECK: error: 'bufferization.clone' op of an unranked buffer 'memref<*xf32>' cannot be put on the GPU
// CHECK-NOT: Assertion
// CPU-LABEL: llvm.func @identity
func.func @identity(%x: tensor<*xf32>) -> tensor<*xf32> {
  return %x : tensor<*xf32>
}
