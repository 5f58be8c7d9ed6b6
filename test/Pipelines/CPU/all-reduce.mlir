// amp.all_reduce through --lower-to-cpu: a call of the runtime's ampAllReduce
// (host buffers), with the f16 gradient and the i1 flag of a training step.
// Execution: test/amp-run/all-reduce*.test.
// RUN: amp-opt %s --lower-to-cpu | FileCheck %s
// RUN: amp-opt %s --amp-o2 --lower-to-cpu | FileCheck %s

// CHECK-LABEL: llvm.func @step
// CHECK: llvm.call @ampAllReduce({{.*}}) : (!llvm.ptr, i64, i32, i32) -> ()
// CHECK: llvm.call @ampAllReduce({{.*}}) : (!llvm.ptr, i64, i32, i32) -> ()
func.func @step(%g: tensor<16x8xf32>, %x: tensor<f32>) -> (tensor<16x8xf32>, tensor<i1>) {
  %0 = amp.all_reduce mean %g : tensor<16x8xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %init = tensor.empty() : tensor<i1>
  %flag = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>],
                          iterator_types = []}
      ins(%x, %zero : tensor<f32>, tensor<f32>) outs(%init : tensor<i1>) {
  ^bb0(%a: f32, %b: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %b : f32
    linalg.yield %c : i1
  } -> tensor<i1>
  %1 = amp.all_reduce max %flag : tensor<i1>
  return %0, %1 : tensor<16x8xf32>, tensor<i1>
}

// An unused result still communicates, after the whole pipeline: every rank
// must make the same calls.
// CHECK-LABEL: llvm.func @unused
// CHECK: llvm.call @ampAllReduce
// CHECK: llvm.call @ampAllReduce
// CHECK: llvm.return
// The runtime's entry point itself, not a C wrapper.
// CHECK-NOT: _mlir_ciface_ampAllReduce
// CHECK: llvm.func @ampAllReduce(!llvm.ptr, i64, i32, i32)
// CHECK-NOT: _mlir_ciface_ampAllReduce
func.func @unused(%g: tensor<8xf32>) -> tensor<8xf32> {
  %0 = amp.all_reduce sum %g : tensor<8xf32>
  %1 = amp.all_reduce max %g : tensor<8xf32>
  return %1 : tensor<8xf32>
}
