// RUN: amp-opt %s --amp-to-library-calls=device=true --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-to-library-calls --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=HOST

// amp.unscale_gradients on device buffers (what amp-loss-scaling-to-linalg
// makes of amp.check_finite_and_unscale, bufferized and put on the device)
// becomes one call of the runtime's table kernel:
// host arrays (allocated once in the entry block) of gradient in and out
// pointers, element counts and dtypes, and the device pointers of the
// inverse scale and of the flag. On host buffers (the CPU pipeline) the op
// is left to amp-loss-scaling-to-linalg (loops), without a remark.
// CHECK-LABEL: func.func @unscale
// CHECK-DAG: %[[N:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 1 : i64
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[INS:.*]] = llvm.alloca %[[ONE]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[OUTS:.*]] = llvm.alloca %[[ONE]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK: %[[NUMELS:.*]] = llvm.alloca %[[ONE]] x i64 : (i64) -> !llvm.ptr
// CHECK: %[[TYPES:.*]] = llvm.alloca %[[ONE]] x i32 : (i64) -> !llvm.ptr
// CHECK: %[[GI:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[GA:.*]] = arith.index_cast %[[GI]]
// CHECK: %[[GP:.*]] = llvm.inttoptr %[[GA]]
// CHECK: llvm.store %[[GP]], %[[INS]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[OI:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK: %[[OA:.*]] = arith.index_cast %[[OI]]
// CHECK: %[[OP:.*]] = llvm.inttoptr %[[OA]]
// CHECK: llvm.store %[[OP]], %[[OUTS]] : !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[N]], %[[NUMELS]] : i64, !llvm.ptr
// CHECK: llvm.store %[[T]], %[[TYPES]] : i32, !llvm.ptr
// CHECK: call @ampGpuCheckFiniteAndUnscaleBuffers(%[[COUNT]], %[[INS]], %[[OUTS]], %[[NUMELS]], %[[TYPES]], %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: amp.unscale_gradients
// CHECK-NOT: linalg.generic
// CHECK: func.func private @ampGpuCheckFiniteAndUnscaleBuffers(i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) attributes {amp.stream_ordered}
// HOST-LABEL: func.func @unscale
// HOST-NOT: call
// HOST: amp.unscale_gradients ins(%arg0 : memref<8x8xf16>)
func.func @unscale(%g: memref<8x8xf16>, %inv: memref<f32>, %out: memref<8x8xf16>, %flag: memref<i1>) {
  amp.unscale_gradients ins(%g : memref<8x8xf16>) by %inv : memref<f32>
      outs(%out, %flag : memref<8x8xf16>, memref<i1>)
  return
}

// -----

// A scalar (0-d) gradient: one element.
// CHECK-LABEL: func.func @unscale_scalar
// CHECK: %[[N:.*]] = arith.constant 1 : i64
// CHECK: llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
// CHECK: call @ampGpuCheckFiniteAndUnscaleBuffers(
func.func @unscale_scalar(%g: memref<f32>, %inv: memref<f32>, %out: memref<f32>, %flag: memref<i1>) {
  amp.unscale_gradients ins(%g : memref<f32>) by %inv : memref<f32>
      outs(%out, %flag : memref<f32>, memref<i1>)
  return
}

// -----

// Dynamic sizes (the element count is computed at run time) and a flag that
// is a slice of a history buffer (its offset is applied at run time).
// CHECK-LABEL: func.func @unscale_dynamic
// CHECK-SAME: (%[[G:.*]]: memref<?xbf16>, %{{.*}}: memref<f32>, %{{.*}}: memref<?xbf16>, %[[HIST:.*]]: memref<8xi1>, %[[I:.*]]: index)
// CHECK: %[[VIEW:.*]] = memref.subview %[[HIST]][%[[I]]] [1] [1]
// CHECK: %[[D:.*]] = memref.dim %[[G]], %{{.*}} : memref<?xbf16>
// CHECK: %[[N:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
// CHECK: %{{.*}}, %[[OFF:.*]] = memref.extract_strided_metadata %[[VIEW]]
// CHECK: arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: call @ampGpuCheckFiniteAndUnscaleBuffers(
func.func @unscale_dynamic(%g: memref<?xbf16>, %inv: memref<f32>, %out: memref<?xbf16>,
                           %hist: memref<8xi1>, %i: index) {
  %flag = memref.subview %hist[%i] [1] [1] : memref<8xi1> to memref<i1, strided<[], offset: ?>>
  amp.unscale_gradients ins(%g : memref<?xbf16>) by %inv : memref<f32>
      outs(%out, %flag : memref<?xbf16>, memref<i1, strided<[], offset: ?>>)
  return
}

// -----

// Every gradient of the op in one call: a table of two entries with their
// own types and sizes.
// CHECK-LABEL: func.func @unscale_table
// CHECK-DAG: %[[N1:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[N0:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[T1:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[T0:.*]] = arith.constant 0 : i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: %[[INS:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr
// CHECK: %[[OUTS:.*]] = llvm.alloca %[[TWO]] x !llvm.ptr
// CHECK: %[[NUMELS:.*]] = llvm.alloca %[[TWO]] x i64
// CHECK: %[[TYPES:.*]] = llvm.alloca %[[TWO]] x i32
// CHECK-NOT: llvm.alloca
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: llvm.store %{{.*}}, %[[INS]]
// CHECK: memref.extract_aligned_pointer_as_index %arg3
// CHECK: llvm.store %{{.*}}, %[[OUTS]]
// CHECK: llvm.store %[[N0]], %[[NUMELS]] : i64
// CHECK: llvm.store %[[T0]], %[[TYPES]] : i32
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[I1:.*]] = llvm.getelementptr %[[INS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[I1]]
// CHECK: memref.extract_aligned_pointer_as_index %arg4
// CHECK: %[[O1:.*]] = llvm.getelementptr %[[OUTS]][1]
// CHECK: llvm.store %{{.*}}, %[[O1]]
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[NUMELS]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK: llvm.store %[[N1]], %[[S1]]
// CHECK: %[[D1:.*]] = llvm.getelementptr %[[TYPES]][1] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.store %[[T1]], %[[D1]]
// CHECK: call @ampGpuCheckFiniteAndUnscaleBuffers(%[[COUNT]], %[[INS]], %[[OUTS]], %[[NUMELS]], %[[TYPES]]
// CHECK-NOT: call @ampGpuCheckFiniteAndUnscaleBuffers
// CHECK: return
func.func @unscale_table(%g0: memref<8xf32>, %g1: memref<16xbf16>, %inv: memref<f32>,
                         %o0: memref<8xf32>, %o1: memref<16xbf16>, %flag: memref<i1>) {
  amp.unscale_gradients ins(%g0, %g1 : memref<8xf32>, memref<16xbf16>) by %inv : memref<f32>
      outs(%o0, %o1, %flag : memref<8xf32>, memref<16xbf16>, memref<i1>)
  return
}

// -----

// A gradient the call cannot take (a strided view; an f64 gradient), or a
// host-scalar scale: the op is left for amp-loss-scaling-to-linalg, with a
// remark, and no call.
// CHECK-LABEL: func.func @unscale_strided
// CHECK-NOT: call
// CHECK: amp.unscale_gradients
func.func @unscale_strided(%g: memref<4xf32, strided<[2]>>, %inv: memref<f32>, %out: memref<4xf32>, %flag: memref<i1>) {
  // expected-remark @+1 {{amp: unscale_gradients left for amp-loss-scaling-to-linalg (one-thread generated kernels), not a library call: the gradient buffers must be contiguous}}
  amp.unscale_gradients ins(%g : memref<4xf32, strided<[2]>>) by %inv : memref<f32>
      outs(%out, %flag : memref<4xf32>, memref<i1>)
  return
}

// -----

// CHECK-LABEL: func.func @unscale_f64
// CHECK-NOT: call
// CHECK: amp.unscale_gradients
func.func @unscale_f64(%g: memref<4xf64>, %inv: memref<f32>, %out: memref<4xf64>, %flag: memref<i1>) {
  // expected-remark @+1 {{amp: unscale_gradients left for amp-loss-scaling-to-linalg (one-thread generated kernels), not a library call: gradients must be f32, f16 or bf16}}
  amp.unscale_gradients ins(%g : memref<4xf64>) by %inv : memref<f32>
      outs(%out, %flag : memref<4xf64>, memref<i1>)
  return
}

// -----

// CHECK-LABEL: func.func @unscale_host_scale
// CHECK-NOT: call
// CHECK: amp.unscale_gradients
func.func @unscale_host_scale(%g: memref<4xf32>, %inv: f32, %out: memref<4xf32>, %flag: memref<i1>) {
  // expected-remark @+1 {{amp: unscale_gradients left for amp-loss-scaling-to-linalg (one-thread generated kernels), not a library call: the scale is a host scalar (hold the scaler state in 0-d tensors on the GPU)}}
  amp.unscale_gradients ins(%g : memref<4xf32>) by %inv : f32
      outs(%out, %flag : memref<4xf32>, memref<i1>)
  return
}

// -----

// On tensors (before bufferization) it is left as it is.
// CHECK-LABEL: func.func @unscale_tensors
// CHECK: amp.unscale_gradients
func.func @unscale_tensors(%g: tensor<4xf32>, %inv: tensor<f32>, %out: tensor<4xf32>, %flag: tensor<i1>) -> (tensor<4xf32>, tensor<i1>) {
  // expected-remark @+1 {{amp: unscale_gradients left for amp-loss-scaling-to-linalg (one-thread generated kernels), not a library call: the op is on tensors (run after bufferization)}}
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f32>
      outs(%out, %flag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1>
  return %u#0, %u#1 : tensor<4xf32>, tensor<i1>
}
