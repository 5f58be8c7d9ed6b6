// --lower-to-gpu with dtype=fp8: the FP8 GEMM is ampGpuScaledGemm
// (cuBLASLt), which takes amp-float8-contractions' dequantization factor
// 1 / (scale_a * scale_b) as its scale pointer instead of an epilogue
// multiplication: a linear layer without bias whose output is stored in
// bf16 is one call writing bf16 (no epilogue kernel); with a bias and a
// ReLU, the call writes the scaled f32 product and the epilogue kernel
// adds and clamps. (Run: test/amp-run/dtype-fp8.test.)
// RUN: amp-opt %S/../../amp-run/Inputs/fp8-linear.mlir --amp-o2="dtype=fp8" --lower-to-gpu="format=isa" \
// RUN:   --mlir-print-ir-after=amp-linalg-to-library-calls -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @linear_bf16
// The factor: scale_a * scale_b, inverted, in a 0-d buffer before the call.
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<1xf32>, memref<1xf32>) outs(%[[F1:.*]] : memref<1xf32>)
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: %[[FACTOR:.*]] = memref.collapse_shape %[[F1]] [] : memref<1xf32> into memref<f32>
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<64x80xbf16>
// CHECK-NOT: linalg.generic
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[FP:.*]] = memref.extract_aligned_pointer_as_index %[[FACTOR]] : memref<f32> -> index
// CHECK: %[[FI:.*]] = arith.index_cast %[[FP]] : index to i64
// CHECK: %[[FPTR:.*]] = llvm.inttoptr %[[FI]] : i64 to !llvm.ptr
// cType 2 = bf16; aScale = the factor; bScale and dAmax NULL.
// CHECK: call @ampGpuScaledGemm(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c2_i32, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[FPTR]], %[[NULL]], %[[NULL]])
// CHECK-NEXT: return %[[OUT]] : memref<64x80xbf16>

// CHECK-LABEL: func.func @linear_relu
// CHECK: %[[FACTOR:.*]] = memref.collapse_shape %{{.*}} [] : memref<1xf32> into memref<f32>
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[FP:.*]] = memref.extract_aligned_pointer_as_index %[[FACTOR]]
// CHECK: %[[FI:.*]] = arith.index_cast %[[FP]] : index to i64
// CHECK: %[[FPTR:.*]] = llvm.inttoptr %[[FI]] : i64 to !llvm.ptr
// cType 0 = f32.
// CHECK: call @ampGpuScaledGemm(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %c0_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[FPTR]], %[[NULL]], %[[NULL]])
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<64x80xf32>, memref<80xf32>)
// CHECK-NOT: arith.mulf
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: return

// The second layer's amax of the first's output is the first call's dAmax:
// the amax reductions left are those of x and w1 before the first call and
// of w2 after it, not one of the first call's output.
// CHECK-LABEL: func.func @linear_chain
// CHECK-COUNT-2: math.absf
// CHECK-NOT: math.absf
// CHECK: %[[AMAX:.*]] = memref.alloc() {{.*}} : memref<f32>
// CHECK-NOT: math.absf
// CHECK: %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[AMAX]] : memref<f32> -> index
// CHECK: %[[AI:.*]] = arith.index_cast %[[AP]] : index to i64
// CHECK: %[[APTR:.*]] = llvm.inttoptr %[[AI]] : i64 to !llvm.ptr
// CHECK: call @ampGpuScaledGemm({{.*}}, %[[APTR]])
// CHECK-NEXT: memref.expand_shape %[[AMAX]]
// CHECK: math.absf
// CHECK-NOT: math.absf
// CHECK: call @ampGpuScaledGemm(
