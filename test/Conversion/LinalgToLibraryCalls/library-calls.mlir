// RUN: amp-opt %s --amp-linalg-to-library-calls --canonicalize --split-input-file \
// RUN:     --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s

// A zero fill before the matmul becomes beta = 0 and is erased.
// CHECK-LABEL: func.func @gemm_beta0
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 256 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 128 : i64
// CHECK: call @ampGpuGemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]], %[[N]], %[[K]], {{.*}}, %[[BETA]])
// CHECK-NOT: linalg.matmul
// CHECK: func.func private @ampGpuGemm(i32, i32, i64, i64, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, !llvm.ptr, i32, i64, i64, f32)
func.func @gemm_beta0(%a: memref<64x128xf16>, %b: memref<128x256xf16>, %c: memref<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x256xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x256xf16>) outs(%c : memref<64x256xf32>)
  return
}

// -----

// Accumulating into an existing C: beta = 1, the non-zero fill stays.
// CHECK-LABEL: func.func @gemm_beta1
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: linalg.fill
// CHECK: call @ampGpuGemm({{.*}}, %[[ONE]])
func.func @gemm_beta1(%a: memref<64x128xf16>, %b: memref<128x256xf16>, %c: memref<64x256xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.fill ins(%two : f32) outs(%c : memref<64x256xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x256xf16>) outs(%c : memref<64x256xf32>)
  return
}

// -----

// Transposed B (indexing map (n, k)), batched: transB = 1, batch strides.
// CHECK-LABEL: func.func @batch_transposed
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[B:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[SA:.*]] = arith.constant 512 : i64
// CHECK: call @ampGpuGemm(%[[Z]], %[[T]], %[[B]], {{.*}}, %[[SA]],
func.func @batch_transposed(%a: memref<4x16x32xbf16>, %b: memref<4x8x32xbf16>, %c: memref<4x16x8xf32>) {
  linalg.batch_matmul
    indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                     affine_map<(b, m, n, k) -> (b, n, k)>,
                     affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : memref<4x16x32xbf16>, memref<4x8x32xbf16>) outs(%c : memref<4x16x8xf32>)
  return
}

// -----

// Must not fire: mixed operand types, tensors.
// CHECK-LABEL: func.func @mixed
// CHECK: linalg.matmul
func.func @mixed(%a: memref<8x8xf16>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: element types must be f16, bf16 or f32 operands of one type and an f32 or same-typed result}}
  linalg.matmul ins(%a, %b : memref<8x8xf16>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// Dynamic sizes (a frontend's dynamic batch): m from the descriptor, the
// leading dimensions static.
// CHECK-LABEL: func.func @dynamic
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[DIM:.*]] = memref.dim %{{.*}}, %[[C0]] : memref<?x8xf32>
// CHECK-DAG: %[[M:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: call @ampGpuGemm(%{{.*}}, %{{.*}}, %{{.*}}, %[[M]],
// CHECK-NOT: linalg.matmul
func.func @dynamic(%a: memref<?x8xf16>, %b: memref<8x8xf16>, %c: memref<?x8xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf16>, memref<8x8xf16>) outs(%c : memref<?x8xf32>)
  return
}

// -----

// A dynamic innermost stride: not contiguous for cuBLAS.
// CHECK-LABEL: func.func @dynamic_inner_stride
// CHECK: linalg.matmul
func.func @dynamic_inner_stride(%a: memref<8x8xf16, strided<[?, ?]>>, %b: memref<8x8xf16>, %c: memref<8x8xf32>) {
  // expected-remark @+1 {{the innermost dimension of every operand must be contiguous}}
  linalg.matmul ins(%a, %b : memref<8x8xf16, strided<[?, ?]>>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @tensors
// CHECK: linalg.matmul
func.func @tensors(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @+1 {{amp: not a library call: the op is on tensors (run after bufferization)}}
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// A subview with an offset: the pointer advances by offset * element bytes.
// CHECK-LABEL: func.func @offset
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<8x8xf16, strided<[16, 1], offset: 8>>
// CHECK: arith.addi %[[P]], %c16
// CHECK: call @ampGpuGemm
func.func @offset(%a: memref<8x16xf16>, %b: memref<8x8xf16>, %c: memref<8x8xf32>) {
  %s = memref.subview %a[0, 8] [8, 8] [1, 1] : memref<8x16xf16> to memref<8x8xf16, strided<[16, 1], offset: 8>>
  linalg.matmul ins(%s, %b : memref<8x8xf16, strided<[16, 1], offset: 8>>, memref<8x8xf16>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// The per-gradient unscale of amp-lower-loss-scaling (library_call
// "amp_check_finite_and_unscale") becomes one call of the runtime's table
// kernel: host arrays (allocated once in the entry block) of gradient in and
// out pointers, element counts and dtypes, and the device pointers of the
// inverse scale and of the flag.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#sc2 = affine_map<(d0, d1) -> ()>
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
// CHECK-NOT: linalg.generic
// CHECK: func.func private @ampGpuCheckFiniteAndUnscaleBuffers(i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) attributes {amp.stream_ordered}
func.func @unscale(%g: memref<8x8xf16>, %inv: memref<f32>, %out: memref<8x8xf16>, %flag: memref<i1>) {
  linalg.generic {indexing_maps = [#id2, #sc2, #id2, #sc2], iterator_types = ["reduction", "reduction"],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g, %inv : memref<8x8xf16>, memref<f32>) outs(%out, %flag : memref<8x8xf16>, memref<i1>) {
  ^bb0(%x: f16, %i: f32, %o: f16, %acc: i1):
    %w = arith.extf %x : f16 to f32
    %p = arith.mulf %w, %i : f32
    %t = arith.truncf %p : f32 to f16
    %a = math.absf %w : f32
    %inf = arith.constant 0x7F800000 : f32
    %bad = arith.cmpf uge, %a, %inf : f32
    %any = arith.ori %acc, %bad : i1
    linalg.yield %t, %any : f16, i1
  }
  return
}

// -----

// With the scale a host scalar, the generic stays (a one-thread kernel).
#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
func.func @unscale_host_scale(%g: memref<8xf32>, %inv: f32, %out: memref<8xf32>, %flag: memref<i1>) {
  // expected-remark @+1 {{amp: check_finite_and_unscale kept as a one-thread generated kernel: the scale is a host scalar (hold the scaler state in 0-d tensors on the GPU)}}
  linalg.generic {indexing_maps = [#id1, #id1, #sc1], iterator_types = ["reduction"],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g : memref<8xf32>) outs(%out, %flag : memref<8xf32>, memref<i1>) {
  ^bb0(%x: f32, %o: f32, %acc: i1):
    %p = arith.mulf %x, %inv : f32
    %a = math.absf %x : f32
    %inf = arith.constant 0x7F800000 : f32
    %bad = arith.cmpf uge, %a, %inf : f32
    %any = arith.ori %acc, %bad : i1
    linalg.yield %p, %any : f32, i1
  }
  return
}

// -----

// A scalar (0-d) gradient: one element.
#none = affine_map<() -> ()>
// CHECK-LABEL: func.func @unscale_scalar
// CHECK: %[[N:.*]] = arith.constant 1 : i64
// CHECK: llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
// CHECK: call @ampGpuCheckFiniteAndUnscaleBuffers(
func.func @unscale_scalar(%g: memref<f32>, %inv: memref<f32>, %out: memref<f32>, %flag: memref<i1>) {
  linalg.generic {indexing_maps = [#none, #none, #none, #none], iterator_types = [],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g, %inv : memref<f32>, memref<f32>) outs(%out, %flag : memref<f32>, memref<i1>) {
  ^bb0(%x: f32, %i: f32, %o: f32, %acc: i1):
    %p = arith.mulf %x, %i : f32
    %a = math.absf %x : f32
    %inf = arith.constant 0x7F800000 : f32
    %bad = arith.cmpf uge, %a, %inf : f32
    %any = arith.ori %acc, %bad : i1
    linalg.yield %p, %any : f32, i1
  }
  return
}

// -----

// Dynamic sizes (the element count is computed at run time) and a flag that
// is a slice of a history buffer (its offset is applied at run time).
#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
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
  linalg.generic {indexing_maps = [#id1, #sc1, #id1, #sc1], iterator_types = ["reduction"],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g, %inv : memref<?xbf16>, memref<f32>)
      outs(%out, %flag : memref<?xbf16>, memref<i1, strided<[], offset: ?>>) {
  ^bb0(%x: bf16, %s: f32, %o: bf16, %acc: i1):
    %w = arith.extf %x : bf16 to f32
    %p = arith.mulf %w, %s : f32
    %t = arith.truncf %p : f32 to bf16
    %a = math.absf %w : f32
    %inf = arith.constant 0x7F800000 : f32
    %bad = arith.cmpf uge, %a, %inf : f32
    %any = arith.ori %acc, %bad : i1
    linalg.yield %t, %any : bf16, i1
  }
  return
}

// -----

// Every gradient of one amp.check_finite_and_unscale (one inverse scale, one
// flag) in one call: a table of two entries with their own types and sizes
// (an allocation between them does not split the table).
#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
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
  linalg.generic {indexing_maps = [#id1, #sc1, #id1, #sc1], iterator_types = ["reduction"],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g0, %inv : memref<8xf32>, memref<f32>) outs(%o0, %flag : memref<8xf32>, memref<i1>) {
  ^bb0(%x: f32, %s: f32, %o: f32, %acc: i1):
    %p = arith.mulf %x, %s : f32
    linalg.yield %p, %acc : f32, i1
  }
  %unused = memref.alloc() : memref<4xf32>
  linalg.generic {indexing_maps = [#id1, #sc1, #id1, #sc1], iterator_types = ["reduction"],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g1, %inv : memref<16xbf16>, memref<f32>) outs(%o1, %flag : memref<16xbf16>, memref<i1>) {
  ^bb0(%x: bf16, %s: f32, %o: bf16, %acc: i1):
    %w = arith.extf %x : bf16 to f32
    %p = arith.mulf %w, %s : f32
    %t = arith.truncf %p : f32 to bf16
    linalg.yield %t, %acc : bf16, i1
  }
  return
}

// -----

// Something that touches memory between two gradients (it could read the
// first one's output) splits the table: two calls, in order.
#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @unscale_split
// CHECK: call @ampGpuCheckFiniteAndUnscaleBuffers
// CHECK: memref.store
// CHECK: call @ampGpuCheckFiniteAndUnscaleBuffers
func.func @unscale_split(%g0: memref<8xf32>, %g1: memref<8xf32>, %inv: memref<f32>,
                         %o0: memref<8xf32>, %o1: memref<8xf32>, %flag: memref<i1>) {
  linalg.generic {indexing_maps = [#id1, #sc1, #id1, #sc1], iterator_types = ["reduction"],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g0, %inv : memref<8xf32>, memref<f32>) outs(%o0, %flag : memref<8xf32>, memref<i1>) {
  ^bb0(%x: f32, %s: f32, %o: f32, %acc: i1):
    %p = arith.mulf %x, %s : f32
    linalg.yield %p, %acc : f32, i1
  }
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  memref.store %z, %g1[%c0] : memref<8xf32>
  linalg.generic {indexing_maps = [#id1, #sc1, #id1, #sc1], iterator_types = ["reduction"],
                  library_call = "amp_check_finite_and_unscale"}
      ins(%g1, %inv : memref<8xf32>, memref<f32>) outs(%o1, %flag : memref<8xf32>, memref<i1>) {
  ^bb0(%x: f32, %s: f32, %o: f32, %acc: i1):
    %p = arith.mulf %x, %s : f32
    linalg.yield %p, %acc : f32, i1
  }
  return
}

// -----

// FP8 operands (amp-float8-contractions) in cuBLASLt's TN layout: an
// ampGpuScaledGemm with the FP8 codes (5 = f8E4M3FN, 6 = f8E5M2), an f32 C,
// and no scales or amax (NULL: no epilogue multiplies C here).
// CHECK-LABEL: func.func @float8_tn
// CHECK-DAG: %[[T:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[E4M3:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[E5M2:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NOT: call @ampGpuGemm
// CHECK: call @ampGpuScaledGemm(%[[Z]], %[[T]], {{.*}}, %[[E4M3]], {{.*}}, %[[E5M2]], {{.*}}, %[[Z]], {{.*}}, %[[NULL]], %[[NULL]], %[[NULL]])
func.func @float8_tn(%a: memref<16x32xf8E4M3FN>, %b: memref<16x32xf8E5M2>, %c: memref<16x16xf32>) {
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<16x32xf8E4M3FN>, memref<16x32xf8E5M2>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// FP8 that cuBLASLt does not take stays a generated kernel, with the reason.
// CHECK-LABEL: func.func @float8_refused
// CHECK-COUNT-3: linalg.matmul
func.func @float8_refused(%a: memref<16x32xf8E4M3FN>, %b: memref<32x16xf8E4M3FN>,
    %bt: memref<16x32xf8E5M2>, %at: memref<16x32xf8E5M2>,
    %b24: memref<16x24xf8E4M3FN>, %a24: memref<16x24xf8E4M3FN>, %c: memref<16x16xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: an FP8 GEMM on the GPU needs cuBLASLt's TN layout: A m x k and B stored n x k (a transposed B operand)}}
  linalg.matmul ins(%a, %b : memref<16x32xf8E4M3FN>, memref<32x16xf8E4M3FN>) outs(%c : memref<16x16xf32>)
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: FP8 operands must be E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3 with an f32 result}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%at, %bt : memref<16x32xf8E5M2>, memref<16x32xf8E5M2>) outs(%c : memref<16x16xf32>)
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: an FP8 GEMM on the GPU needs k and n multiples of 16 (cuBLASLt)}}
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                     affine_map<(m, n, k) -> (n, k)>,
                     affine_map<(m, n, k) -> (m, n)>]
    ins(%a24, %b24 : memref<16x24xf8E4M3FN>, memref<16x24xf8E4M3FN>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// cuDNN's legacy API has no FP8 convolution: it stays a generated kernel.
// CHECK-LABEL: func.func @float8_conv_refused
// CHECK: linalg.conv_2d_nchw_fchw
func.func @float8_conv_refused(%x: memref<1x16x6x6xf8E4M3FN>, %w: memref<16x16x3x3xf8E4M3FN>, %y: memref<1x16x4x4xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: cuDNN's legacy API has no FP8 convolution}}
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x16x6x6xf8E4M3FN>, memref<16x16x3x3xf8E4M3FN>) outs(%y : memref<1x16x4x4xf32>)
  return
}
