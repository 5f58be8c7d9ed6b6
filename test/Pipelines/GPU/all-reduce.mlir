// amp.all_reduce through --lower-to-gpu: the buffer is a device buffer, so
// the host collective becomes the runtime's device twin, ampGpuAllReduce
// (stream-ordered: no host wait around it), with simulate=true too.
// Execution in the simulator: test/amp-run/all-reduce*.test.
// RUN: amp-opt %s --lower-to-gpu="format=isa" | FileCheck %s
// RUN: amp-opt %s --lower-to-gpu="simulate=true" | FileCheck %s --check-prefix=SIM

// CHECK-LABEL: llvm.func @grads
// CHECK: llvm.call @ampGpuAllReduce({{.*}}) : (!llvm.ptr, i64, i32, i32) -> ()
// CHECK: llvm.call @ampGpuAllReduce({{.*}}) : (!llvm.ptr, i64, i32, i32) -> ()
// CHECK-NOT: @ampAllReduce
// CHECK: llvm.func @ampGpuAllReduce(!llvm.ptr, i64, i32, i32)
// CHECK-NOT: @ampAllReduce
// SIM-LABEL: llvm.func @grads
// SIM: llvm.call @ampGpuAllReduce
// SIM: llvm.call @ampGpuAllReduce
// SIM-NOT: @ampAllReduce
func.func @grads(%g: tensor<?x8xf16>, %n: tensor<4xi32>) -> (tensor<?x8xf16>, tensor<4xi32>) {
  %0 = amp.all_reduce mean %g : tensor<?x8xf16>
  %1 = amp.all_reduce sum %n : tensor<4xi32>
  return %0, %1 : tensor<?x8xf16>, tensor<4xi32>
}
