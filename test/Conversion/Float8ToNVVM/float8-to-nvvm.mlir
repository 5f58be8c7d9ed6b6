// amp-float8-to-nvvm: in kernels, a truncf to FP8 of an f32 value clamped
// to the type's finite range (amp.quantize's rounding) becomes PTX's
// cvt.rn.satfinite, whose low byte is the code; other conversions and host
// code are left to amp-expand-float8.
// RUN: amp-opt %s --amp-float8-to-nvvm --split-input-file | FileCheck %s

// CHECK-LABEL: gpu.func @quantize
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK: %[[C1:.*]] = arith.minimumf
// CHECK: %[[P1:.*]] = nvvm.convert.f32x2.to.f8x2 %[[C1]], %[[C1]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[B1:.*]] = arith.trunci %[[P1]] : i16 to i8
// CHECK: arith.bitcast %[[B1]] : i8 to f8E4M3FN
// The clamp in the other order and operand order, to E5M2.
// CHECK: %[[C2:.*]] = arith.maximumf
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[C2]], %[[C2]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E5M2)
// Not clamped, or not to this type's range: left alone.
// CHECK: arith.truncf %[[X]] : f32 to f8E4M3FN
// CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK-NOT: nvvm.convert
gpu.module @kernels {
  gpu.func @quantize(%x: f32, %y: f32) -> (f8E4M3FN, f8E5M2, f8E4M3FN, f8E4M3FN) {
    %max = arith.constant 448.0 : f32
    %min = arith.constant -448.0 : f32
    %lo = arith.maximumf %x, %min : f32
    %c1 = arith.minimumf %lo, %max : f32
    %q1 = arith.truncf %c1 : f32 to f8E4M3FN
    %max2 = arith.constant 57344.0 : f32
    %min2 = arith.constant -57344.0 : f32
    %hi = arith.minimumf %max2, %y : f32
    %c2 = arith.maximumf %min2, %hi : f32
    %q2 = arith.truncf %c2 : f32 to f8E5M2
    %q3 = arith.truncf %x : f32 to f8E4M3FN
    %q4 = arith.truncf %c2 : f32 to f8E4M3FN
    gpu.return %q1, %q2, %q3, %q4 : f8E4M3FN, f8E5M2, f8E4M3FN, f8E4M3FN
  }
}

// -----

// Host code has no PTX.
// CHECK-LABEL: func.func @host
// CHECK: arith.truncf
// CHECK-NOT: nvvm.convert
func.func @host(%x: f32) -> f8E4M3FN {
  %max = arith.constant 448.0 : f32
  %min = arith.constant -448.0 : f32
  %lo = arith.maximumf %x, %min : f32
  %c = arith.minimumf %lo, %max : f32
  %q = arith.truncf %c : f32 to f8E4M3FN
  return %q : f8E4M3FN
}
