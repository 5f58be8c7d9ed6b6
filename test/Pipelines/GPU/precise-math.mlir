// Issue #16: math.sqrt, math.rsqrt and f32 division in kernels are correctly
// rounded, as on the CPU: sqrt.rn.f32 and div.rn.f32 in the PTX, never
// libdevice's default sqrt.approx.f32 (__CUDA_PREC_SQRT reads 0) nor
// div.approx/div.full.
// RUN: amp-opt %s --lower-to-gpu="format=isa merge-launches=false" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=NOAPPROX < %t.mlir
// The four ops are independent: by default they are one launch of one
// kernel (amp-merge-gpu-launches), its four bodies as precise.
// RUN: amp-opt %s --lower-to-gpu="format=isa" -o %t.merged.mlir
// RUN: FileCheck %s --check-prefix=MERGED < %t.merged.mlir
// RUN: FileCheck %s --check-prefix=NOAPPROX < %t.merged.mlir
// MERGED: gpu.binary @math_merged_kernel{{.*}} [{{.*}}sqrt.rn.f32
// MERGED-NOT: gpu.binary

// Executed in the GPU simulator (where sqrt.rn is the host's correctly
// rounded sqrt) on positive inputs against --target=cpu: bit for bit at O0.
// RUN: rm -rf %t.d && mkdir -p %t.d
// DEFINE: %{cmp} = %python %S/../../amp-run/Inputs/compare-npy.py
// RUN: %python %S/Inputs/uniform-npy.py %t.d/x.npy float32 0.001 100 64
// RUN: %python %S/Inputs/uniform-npy.py %t.d/y.npy float32 0.001 100 64
// RUN: %python %S/Inputs/uniform-npy.py %t.d/h.npy float16 0.001 100 64
// DEFINE: %{in} = --inputs %t.d/x.npy,%t.d/y.npy,%t.d/h.npy
// RUN: amp-run %s --level=O0 %{in} --target=cpu --output-dir %t.d/c0
// RUN: amp-run %s --level=O0 %{in} --target=gpu-sim --output-dir %t.d/s0
// RUN: %{cmp} 0 %t.d/s0/out0.npy,%t.d/s0/out1.npy,%t.d/s0/out2.npy,%t.d/s0/out3.npy \
// RUN:   %t.d/c0/out0.npy,%t.d/c0/out1.npy,%t.d/c0/out2.npy,%t.d/c0/out3.npy | FileCheck %s --check-prefix=EXACT
// EXACT: output 0: rel L2 0.000e+00 ok
// EXACT: output 1: rel L2 0.000e+00 ok
// EXACT: output 2: rel L2 0.000e+00 ok
// EXACT: output 3: rel L2 0.000e+00 ok
// At O2 (every op in f16): bit for bit too, rsqrt included. Both sides
// compute f16 math in f32 and round once (the CPU pipeline extends f16 math
// ops with math-extend-to-supported-types; without it LLVM rounded rsqrt's
// sqrt to f16 and then 1/that again, one f16 ulp off on a third of these
// inputs, which this check caught).
// RUN: amp-run %s --level=O2 %{in} --target=cpu --output-dir %t.d/c2
// RUN: amp-run %s --level=O2 %{in} --target=gpu-sim --output-dir %t.d/s2
// RUN: %{cmp} 0 %t.d/s2/out0.npy,%t.d/s2/out1.npy,%t.d/s2/out2.npy,%t.d/s2/out3.npy \
// RUN:   %t.d/c2/out0.npy,%t.d/c2/out1.npy,%t.d/c2/out2.npy,%t.d/c2/out3.npy | FileCheck %s --check-prefix=EXACT

// Apart (merge-launches=false), one kernel per op: sqrt, rsqrt (a correctly rounded reciprocal of the
// correctly rounded root, as 1/sqrt on the CPU), division, f16 sqrt (on the
// value widened to f32, narrowed once), each vectorised (16-byte accesses,
// the math per element; the f16 results narrowed two at a time).
// CHECK: gpu.binary @math_kernel [{{.*}}ld.global.v4.b32 {{.*}}sqrt.rn.f32
// CHECK: gpu.binary @math_kernel_0 [{{.*}}sqrt.rn.f32 {{.*}}rcp.rn.f32
// CHECK: gpu.binary @math_kernel_1 [{{.*}}div.rn.f32
// CHECK: gpu.binary @math_kernel_2 [{{.*}}cvt.f32.f16 {{.*}}sqrt.rn.f32 {{.*}}cvt.rn.f16x2.f32
// NOAPPROX-NOT: sqrt.approx
// NOAPPROX-NOT: rsqrt.approx
// NOAPPROX-NOT: div.approx
// NOAPPROX-NOT: div.full
// NOAPPROX-NOT: rcp.approx
// NOAPPROX-NOT: __nv_sqrtf
// NOAPPROX: llvm.func @math
func.func @math(%x: tensor<64xf32>, %y: tensor<64xf32>, %h: tensor<64xf16>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf16>) {
  %s = math.sqrt %x : tensor<64xf32>
  %r = math.rsqrt %y : tensor<64xf32>
  %d = arith.divf %x, %y : tensor<64xf32>
  %hs = math.sqrt %h : tensor<64xf16>
  return %s, %r, %d, %hs : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf16>
}
