// math.fpowi with an i64 exponent (torch-mlir's `x ** 3`, in GPT-2's tanh
// GELU) on the GPU. convert-gpu-to-nvvm declared libdevice's
// __nv_powif(float, int) from the op's types, (f32, i64): the PTX called it
// through a prototype with a 64-bit exponent, and the function read its
// 32-bit one from a register the call never set. Every GPT-2 row of the
// GPU kit of d63d663 was 7% off PyTorch on an H200 at every level, O0
// included; the CPU and the simulator computed x^3. amp-gpu-integer-powers
// gives math.fpowi libdevice's i32 exponent.
// RUN: amp-opt %s --lower-to-gpu="format=isa" -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: FileCheck %s --check-prefix=ABI < %t.mlir

// With libdevice's types the call is inlined: x^3 is (1 * x) * (x * x),
// as the CPU's x * (x * x). Before, the kernel called __nv_powif through a
// `.callprototype` with a `.param .b64` exponent (`st.param.b64 [param1],
// 3;`), which the function, declared with a `.param .b32` one, did not
// read. (An exponent that is not a constant is clamped and truncated to 32
// bits: test/Transforms/gpu-integer-powers.mlir. The CPU pipeline cannot
// compile one of i64: x86's powi libcall takes an int.)
// CHECK: gpu.binary @cube_kernel [{{.*}}mul.rn.f32 {{.*}}mul.rn.f32 {{.*}}mul.rn.f32
// ABI-NOT: callprototype
// ABI-NOT: st.param.b64
// ABI: llvm.func @mgpuStreamCreate

// In the simulator against --target=cpu at O0, within an ulp (the CPU
// multiplies in f32, the simulator's __nv_powif rounds pow's double).
// Before the fix the simulator computed this too (its host __nv_powif got
// the i64's low half); it now refuses a libdevice call of another
// signature (test/Conversion/GPUToSim/gpu-to-sim.mlir).
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %python %S/Inputs/uniform-npy.py %t.d/x.npy float32 -2 2 64
// RUN: amp-run %s --level=O0 --inputs %t.d/x.npy --target=cpu --output-dir %t.d/c0
// RUN: amp-run %s --level=O0 --inputs %t.d/x.npy --target=gpu-sim --output-dir %t.d/s0
// RUN: %python %S/../../amp-run/Inputs/compare-npy.py 1e-6 %t.d/s0/out0.npy %t.d/c0/out0.npy | FileCheck %s --check-prefix=CLOSE
// CLOSE: output 0: rel L2 {{.*}} ok

#id = affine_map<(d0) -> (d0)>

func.func @cube(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c3 = arith.constant 3 : i64
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = math.fpowi %in, %c3 : f32, i64
    linalg.yield %p : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
