// RUN: amp-opt %s --amp-approximate-math --split-input-file -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-o2 --lower-to-cpu --split-input-file 2>/dev/null | FileCheck %s --check-prefix=CPU
// RUN: amp-opt %s --amp-o2 --lower-to-cpu=approximate-math=false --split-input-file 2>/dev/null | FileCheck %s --check-prefix=LIBM

// f32 erf, scalar and vector, becomes arithmetic: no math.erf is left.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT: math.erf
// CHECK: math.fma
// CHECK: return
// CPU-LABEL: llvm.func @scalar
// CPU-NOT: erff
// CPU: llvm.return
// LIBM-LABEL: llvm.func @scalar
// LIBM: llvm.call @erff
func.func @scalar(%x: f32) -> f32 {
  %e = math.erf %x : f32
  return %e : f32
}

// -----

// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.erf
// CHECK: math.fma {{.*}} : vector<8xf32>
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %e = math.erf %x : vector<8xf32>
  return %e : vector<8xf32>
}

// -----

// tanh (GELU's tanh form, GPT-2's gelu_new) too; LLVM 22 has an intrinsic
// for it, which becomes a call of libm's tanhf.
// CHECK-LABEL: func.func @tanh
// CHECK-NOT: math.tanh
// CHECK: return
// CPU-LABEL: llvm.func @tanh
// CPU-NOT: llvm.intr.tanh
// CPU: llvm.return
// LIBM-LABEL: llvm.func @tanh
// LIBM: llvm.intr.tanh
func.func @tanh(%x: f32) -> f32 {
  %e = math.tanh %x : f32
  return %e : f32
}

// -----

// f64 is left to libm, with the reason.
// CHECK-LABEL: func.func @f64_stays
// CHECK: math.erf {{.*}} : f64
// CHECK: math.tanh {{.*}} : f64
func.func @f64_stays(%x: f64) -> f64 {
  // expected-remark @below {{amp: math.erf on 'f64' is left to libm (the approximation is of f32)}}
  %e = math.erf %x : f64
  // expected-remark @below {{amp: math.tanh on 'f64' is left to libm (the approximation is of f32)}}
  %t = math.tanh %e : f64
  return %t : f64
}

// -----

// f32 exp (a softmax's) becomes arithmetic too; libm's (an intrinsic that
// LLVM calls expf for) without the approximation.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT: math.exp
// CHECK: return
// CPU-LABEL: llvm.func @exp_f32
// CPU-NOT: llvm.intr.exp
// CPU: llvm.return
// LIBM-LABEL: llvm.func @exp_f32
// LIBM: llvm.intr.exp
func.func @exp_f32(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}
