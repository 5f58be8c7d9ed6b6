// RUN: amp-opt %s -split-input-file --amp-linalg-to-library-calls=target=gpu --cse -verify-diagnostics | FileCheck %s

// amp.attention on buffers becomes ampGpuAttention: the bshd views of one
// projection buffer passed with their (batch, head, sequence) strides and
// offsets (k at +64 elements: 128 bytes, v at +128), the mask's broadcast
// head with stride 0, no stats (NULL), scale and causal.
// CHECK-LABEL: func.func @bshd
// CHECK-DAG: %[[B:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[S:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[D:.*]] = arith.constant 16 : i64
// (f16's code and causal are both the i32 1.)
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[QSB:.*]] = arith.constant 12288 : i64
// CHECK-DAG: %[[QSS:.*]] = arith.constant 192 : i64
// CHECK-DAG: %[[OSB:.*]] = arith.constant 4096 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @ampGpuAttention(%[[B]], %[[H]], %[[S]], %[[S]], %[[D]], %[[F16]], %{{.*}}, %[[QSB]], %[[D]], %[[QSS]], %{{.*}}, %[[QSB]], %[[D]], %[[QSS]], %{{.*}}, %[[QSB]], %[[D]], %[[QSS]], %{{.*}}, %[[OSB]], %[[D]], %[[S]], %{{.*}}, %[[OSB]], %[[ZERO]], %[[S]], %[[NULL]], %[[SCALE]], %[[F16]])
// CHECK-NOT: amp.attention
func.func @bshd(%qkv: memref<2x64x192xf16>, %mask: memref<2x1x64x64xf16>, %out: memref<2x64x4x16xf16>) {
  %q0 = memref.subview %qkv[0, 0, 0] [2, 64, 64] [1, 1, 1] : memref<2x64x192xf16> to memref<2x64x64xf16, strided<[12288, 192, 1]>>
  %k0 = memref.subview %qkv[0, 0, 64] [2, 64, 64] [1, 1, 1] : memref<2x64x192xf16> to memref<2x64x64xf16, strided<[12288, 192, 1], offset: 64>>
  %v0 = memref.subview %qkv[0, 0, 128] [2, 64, 64] [1, 1, 1] : memref<2x64x192xf16> to memref<2x64x64xf16, strided<[12288, 192, 1], offset: 128>>
  %q = memref.expand_shape %q0 [[0], [1], [2, 3]] output_shape [2, 64, 4, 16] : memref<2x64x64xf16, strided<[12288, 192, 1]>> into memref<2x64x4x16xf16, strided<[12288, 192, 16, 1]>>
  %k = memref.expand_shape %k0 [[0], [1], [2, 3]] output_shape [2, 64, 4, 16] : memref<2x64x64xf16, strided<[12288, 192, 1], offset: 64>> into memref<2x64x4x16xf16, strided<[12288, 192, 16, 1], offset: 64>>
  %v = memref.expand_shape %v0 [[0], [1], [2, 3]] output_shape [2, 64, 4, 16] : memref<2x64x64xf16, strided<[12288, 192, 1], offset: 128>> into memref<2x64x4x16xf16, strided<[12288, 192, 16, 1], offset: 128>>
  amp.attention ins(%q, %k, %v : memref<2x64x4x16xf16, strided<[12288, 192, 16, 1]>>, memref<2x64x4x16xf16, strided<[12288, 192, 16, 1], offset: 64>>, memref<2x64x4x16xf16, strided<[12288, 192, 16, 1], offset: 128>>)
      bias(%mask : memref<2x1x64x64xf16>) outs(%out : memref<2x64x4x16xf16>) scale = 0.25 causal bshd
  return
}

// -----

// Dense B x H x S x D buffers with a dynamic batch (its size read from the
// descriptor), bf16 (code 2), the stats, no mask.
// CHECK-LABEL: func.func @dynamic_with_stats
// CHECK: %[[DIM:.*]] = memref.dim %arg0, %c0
// CHECK: %[[BATCH:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[STATS:.*]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK: call @ampGpuAttention(%[[BATCH]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c2_i32, %{{.*}}, %c256_i64, %c128_i64, %c16_i64
// CHECK-NOT: llvm.mlir.zero
func.func @dynamic_with_stats(%q: memref<?x2x8x16xbf16>, %out: memref<?x2x8x16xbf16>, %stats: memref<2x2x8xf32>) {
  amp.attention ins(%q, %q, %q : memref<?x2x8x16xbf16>, memref<?x2x8x16xbf16>, memref<?x2x8x16xbf16>)
      outs(%out, %stats : memref<?x2x8x16xbf16>, memref<2x2x8xf32>) scale = 1.0
  return
}

// -----

// What the call does not take stays, with the reason (for
// amp-attention-to-linalg); the CPU backend has no attention call.
// CHECK-LABEL: func.func @refused
// CHECK-COUNT-2: amp.attention
func.func @refused(%q: memref<1x2x8x16xf32>, %h: memref<1x2x8x12xf16>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: cuDNN's fused attention takes f16 or bf16 elements}}
  amp.attention ins(%q, %q, %q : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) outs(%q : memref<1x2x8x16xf32>) scale = 1.0
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: cuDNN's fused attention takes a static head dimension that is a multiple of 8 up to 128}}
  amp.attention ins(%h, %h, %h : memref<1x2x8x12xf16>, memref<1x2x8x12xf16>, memref<1x2x8x12xf16>) outs(%h : memref<1x2x8x12xf16>) scale = 1.0
  return
}

// -----

// amp.attention_backward becomes ampGpuAttentionBackward: q, k, v, out and
// dOut with their strides (here dense bshd: batch 1024, head 16, sequence
// 64), the stats' pointer, dq, dk and dv with theirs, the mask (its
// broadcast batch and head with stride 0), scale and causal.
// CHECK-LABEL: func.func @backward
// CHECK-DAG: %[[B:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[SQ:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[SKV:.*]] = arith.constant 24 : i64
// CHECK-DAG: %[[QSB:.*]] = arith.constant 1024 : i64
// CHECK-DAG: %[[KSB:.*]] = arith.constant 1536 : i64
// CHECK-DAG: %[[SS:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[F16:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[CAUSAL:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-DAG: %[[SI:.*]] = memref.extract_aligned_pointer_as_index %arg4
// CHECK-DAG: %[[SL:.*]] = arith.index_cast %[[SI]] : index to i64
// CHECK-DAG: %[[SP:.*]] = llvm.inttoptr %[[SL]] : i64 to !llvm.ptr
// CHECK: call @ampGpuAttentionBackward(%[[B]], %[[H]], %[[SQ]], %[[SKV]], %[[SQ]], %[[F16]], %{{.*}}, %[[QSB]], %[[SQ]], %[[SS]], %{{.*}}, %[[KSB]], %[[SQ]], %[[SS]], %{{.*}}, %[[KSB]], %[[SQ]], %[[SS]], %{{.*}}, %[[QSB]], %[[SQ]], %[[SS]], %{{.*}}, %[[QSB]], %[[SQ]], %[[SS]], %[[SP]], %{{.*}}, %[[QSB]], %[[SQ]], %[[SS]], %{{.*}}, %[[KSB]], %[[SQ]], %[[SS]], %{{.*}}, %[[KSB]], %[[SQ]], %[[SS]], %{{.*}}, %[[ZERO]], %[[ZERO]], %[[SKV]], %[[SCALE]], %[[CAUSAL]])
// CHECK-NOT: amp.attention_backward
func.func @backward(%q: memref<2x16x4x16xf16>, %k: memref<2x24x4x16xf16>, %o: memref<2x16x4x16xf16>,
                    %do: memref<2x16x4x16xf16>, %stats: memref<2x4x16xf32>, %mask: memref<1x1x16x24xf16>,
                    %dq: memref<2x16x4x16xf16>, %dk: memref<2x24x4x16xf16>, %dv: memref<2x24x4x16xf16>) {
  amp.attention_backward ins(%q, %k, %k, %o, %do, %stats : memref<2x16x4x16xf16>, memref<2x24x4x16xf16>,
                             memref<2x24x4x16xf16>, memref<2x16x4x16xf16>, memref<2x16x4x16xf16>, memref<2x4x16xf32>)
      bias(%mask : memref<1x1x16x24xf16>)
      outs(%dq, %dk, %dv : memref<2x16x4x16xf16>, memref<2x24x4x16xf16>, memref<2x24x4x16xf16>) scale = 0.125 bshd
  return
}

// -----

// The backward's refusals, as the forward's.
// CHECK-LABEL: func.func @backward_refused
// CHECK: amp.attention_backward
func.func @backward_refused(%t: memref<1x2x8x16xf32>, %s: memref<1x2x8xf32>) {
  // expected-remark @+1 {{amp: kept as a generated kernel, not a library call: cuDNN's fused attention takes f16 or bf16 elements}}
  amp.attention_backward ins(%t, %t, %t, %t, %t, %s : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8xf32>)
      outs(%t, %t, %t : memref<1x2x8x16xf32>, memref<1x2x8x16xf32>, memref<1x2x8x16xf32>) scale = 1.0
  return
}
