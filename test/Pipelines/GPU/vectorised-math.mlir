// Elementwise kernels with math functions are vectorised: 16-byte loads and
// stores, the functions computed per element (libdevice's, inlined). With
// vector-bytes=0 every access is scalar. In the simulator the vectorised
// kernel's results are the scalar kernel's, bit for bit (the same function
// per element), in a quarter of the threads.
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" | FileCheck %s --check-prefix=PTX
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa vector-bytes=0" | FileCheck %s --check-prefix=SCALAR
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-run %s --level=O2 --target=gpu-sim --outputs %t/vector.npy | FileCheck %s --check-prefix=VECTOR
// RUN: amp-run %s --level=O2 --target=gpu-sim --gpu-options=vector-bytes=0 --outputs %t/scalar.npy | FileCheck %s --check-prefix=ONE
// RUN: %python %S/../../amp-run/Inputs/compare-npy.py 0 %t/vector.npy %t/scalar.npy | FileCheck %s --check-prefix=CMP

// PTX: ld.global.v4.b32
// PTX: ex2.approx
// PTX: st.global.v4.b32
// SCALAR-NOT: .v4.
// SCALAR: ld.global.b32
// VECTOR: gpu-sim: 1 kernel launches (4096 threads)
// ONE: gpu-sim: 1 kernel launches (16384 threads)
// CMP: output 0: rel L2 0.000e+00 ok
func.func @gelu(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %h = arith.constant 0.5 : f32
    %k = arith.constant 0.70710678 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %v, %k : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %q = arith.mulf %v, %p : f32
    %g = arith.mulf %q, %h : f32
    %t = math.tanh %g : f32
    %ex = math.exp %t : f32
    linalg.yield %ex : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
