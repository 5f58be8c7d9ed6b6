// RUN: amp-opt %s --amp-to-library-calls=device=true --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-to-library-calls --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=HOST

// amp.optimizer_update on device buffers (what amp-training's op bufferizes
// to, put on the device) becomes one call of the runtime's multi-tensor
// optimizer: host arrays (allocated once in the entry block) of the current
// values' and the destinations' pointers (parameters, then each state),
// gradient pointers and types and element counts, then the kind and its
// settings as f32, then the device pointers of the step count and of the
// flag. On host buffers (the CPU pipeline) the op is left to
// amp-loss-scaling-to-linalg (loops), without a remark.
// CHECK-LABEL: func.func @adamw
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[KIND:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[LR:.*]] = arith.constant 1.000000e-03 : f32
// CHECK-DAG: %[[WD:.*]] = arith.constant 0.00999999977 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NO:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[B1:.*]] = arith.constant 0.899999976 : f32
// CHECK-DAG: %[[B2:.*]] = arith.constant 9.990000e-01 : f32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999993E-9 : f32
// CHECK-DAG: %[[BF16:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[N0:.*]] = arith.constant 12 : i64
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: %[[PARAMS:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[PARAMSOUT:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[S0:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[S0OUT:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[S1OUT:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[GRADS:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[TYPES:.*]] = llvm.alloca %[[TWO]] x i32 : (i64) -> !llvm.ptr
// CHECK: %[[NUMELS:.*]] = llvm.alloca %[[TWO]] x i64 : (i64) -> !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %arg4
// CHECK: llvm.store %{{.*}}, %[[PARAMS]] : !llvm.ptr, !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %arg10
// CHECK: llvm.store %{{.*}}, %[[PARAMSOUT]] : !llvm.ptr, !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %arg6
// CHECK: llvm.store %{{.*}}, %[[S0]] : !llvm.ptr, !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %arg6
// CHECK: llvm.store %{{.*}}, %[[S0OUT]] : !llvm.ptr, !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %arg8
// CHECK: llvm.store %{{.*}}, %[[S1]] : !llvm.ptr, !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %arg8
// CHECK: llvm.store %{{.*}}, %[[S1OUT]] : !llvm.ptr, !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: llvm.store %{{.*}}, %[[GRADS]] : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[BF16]], %[[TYPES]] : i32, !llvm.ptr
// CHECK: llvm.store %[[N0]], %[[NUMELS]] : i64, !llvm.ptr
// The second parameter's entries at index 1.
// CHECK: llvm.getelementptr %[[PARAMS]][1]
// CHECK: call @ampGpuOptimizerUpdateBuffers(%[[COUNT]], %[[PARAMS]], %[[PARAMSOUT]], %[[GRADS]], %[[TYPES]], %[[S0]], %[[S0OUT]], %[[S1]], %[[S1OUT]], %[[NUMELS]], %[[KIND]], %[[LR]], %[[WD]], %[[ZERO]], %[[ZERO]], %[[NO]], %[[B1]], %[[B2]], %[[EPS]], %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, f32, f32, f32, f32, i32, f32, f32, f32, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: amp.optimizer_update
// CHECK: func.func private @ampGpuOptimizerUpdateBuffers({{.*}}) attributes {amp.stream_ordered}
// HOST-LABEL: func.func @adamw
// HOST-NOT: call
// HOST: amp.optimizer_update adamw
func.func @adamw(%g0: memref<4x3xbf16>, %g1: memref<3xf32>, %step: memref<i32>,
                 %skip: memref<i1>, %p0: memref<4x3xf32>, %p1: memref<3xf32>,
                 %m0: memref<4x3xf32>, %m1: memref<3xf32>,
                 %v0: memref<4x3xf32>, %v1: memref<3xf32>, %n0: memref<4x3xf32>) {
  amp.optimizer_update adamw ins(%g0, %g1 : memref<4x3xbf16>, memref<3xf32>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p0, %p1, %m0, %m1, %v0, %v1 : memref<4x3xf32>, memref<3xf32>,
           memref<4x3xf32>, memref<3xf32>, memref<4x3xf32>, memref<3xf32>)
      outs(%n0, %p1, %m0, %m1, %v0, %v1 : memref<4x3xf32>, memref<3xf32>,
           memref<4x3xf32>, memref<3xf32>, memref<4x3xf32>, memref<3xf32>)
      {lr = 1.0e-03 : f64, weight_decay = 1.0e-02 : f64}
  return
}

// -----

// SGD has no state: both state arrays are NULL. Nesterov momentum passes 1.
// CHECK-LABEL: func.func @sgd
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @ampGpuOptimizerUpdateBuffers(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %{{.*}})
// CHECK-LABEL: func.func @nesterov
// CHECK-DAG: %[[KIND:.*]] = arith.constant 1 : i32
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @ampGpuOptimizerUpdateBuffers(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{[^,]*}}, %{{[^,]*}}, %[[NULL]], %[[NULL]], %{{.*}}, %[[KIND]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[KIND]],
func.func @sgd(%g: memref<?xf16>, %step: memref<i32>, %skip: memref<i1>,
               %p: memref<?xf32>) {
  amp.optimizer_update sgd ins(%g : memref<?xf16>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p : memref<?xf32>) outs(%p : memref<?xf32>) {lr = 1.0e-01 : f64}
  return
}
func.func @nesterov(%g: memref<8xf32>, %step: memref<i32>, %skip: memref<i1>,
                    %p: memref<8xf32>, %v: memref<8xf32>) {
  amp.optimizer_update momentum ins(%g : memref<8xf32>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p, %v : memref<8xf32>, memref<8xf32>)
      outs(%p, %v : memref<8xf32>, memref<8xf32>)
      {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64, nesterov}
  return
}

// -----

// A strided parameter buffer: left for amp-loss-scaling-to-linalg (a
// generated kernel per parameter), with a remark.
// CHECK-LABEL: func.func @strided
// CHECK-NOT: call
// CHECK: amp.optimizer_update sgd
func.func @strided(%g: memref<4xf32>, %step: memref<i32>, %skip: memref<i1>,
                   %p: memref<4xf32, strided<[2]>>) {
  // expected-remark @below {{amp: optimizer_update left for amp-loss-scaling-to-linalg (a generated kernel per parameter), not a library call: the parameter, gradient and state buffers must be contiguous}}
  amp.optimizer_update sgd ins(%g : memref<4xf32>)
      step(%step : memref<i32>) skip(%skip : memref<i1>)
      params(%p : memref<4xf32, strided<[2]>>) outs(%p : memref<4xf32, strided<[2]>>) {lr = 1.0e-01 : f64}
  return
}
