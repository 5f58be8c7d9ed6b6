// Elementwise kernels with broadcast operands are vectorised too: a bias
// along the rows is read as a vector per group, a per-channel scale and
// shift over NCHW planes (a batch norm's, with a dynamic batch) as one
// element per group, broadcast. With vector-bytes=0 every access is scalar. In the
// simulator (which checks the alignment of every access) the results are
// the CPU's, bit for bit.
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" | FileCheck %s --check-prefix=PTX
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa vector-bytes=0" | FileCheck %s --check-prefix=SCALAR
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-run %s --entry bias --level=O2 --target=cpu --outputs %t/bias.cpu.npy
// RUN: amp-run %s --entry bias --level=O2 --target=gpu-sim --outputs %t/bias.sim.npy | FileCheck %s --check-prefix=BIAS
// RUN: amp-run %s --entry channels --level=O2 --target=cpu --dynamic-size=3 --outputs %t/channels.cpu.npy
// RUN: amp-run %s --entry channels --level=O2 --target=gpu-sim --dynamic-size=3 --outputs %t/channels.sim.npy | FileCheck %s --check-prefix=CHANNELS
// RUN: %python %S/../../amp-run/Inputs/compare-npy.py 0 %t/bias.sim.npy,%t/channels.sim.npy %t/bias.cpu.npy,%t/channels.cpu.npy | FileCheck %s --check-prefix=CMP

// @bias: one kernel (O2 leaves this elementwise work in f32), 4 elements
// of x and 4 consecutive ones of the bias per thread: 64 x 512 / 4 = 8192
// threads. @channels: one kernel, 4 elements of x per thread and one of
// the scale and of the shift, broadcast (a 16x16 plane holds 64 groups),
// at batch 3: 3 x 32 x 16 x 16 / 4 = 6144 threads.
// PTX-LABEL: .entry bias_kernel(
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// PTX-LABEL: .entry channels_kernel(
// PTX: ld.global.v4.b32
// PTX: ld.global.b32
// PTX: ld.global.b32
// PTX: st.global.v4.b32
// SCALAR-NOT: .v4.
// SCALAR-NOT: .v2.
// BIAS: gpu-sim: 1 kernel launches (8192 threads)
// CHANNELS: gpu-sim: 1 kernel launches (6144 threads)
// CMP-COUNT-2: rel L2 0.000e+00 ok
func.func @bias(%x: tensor<64x512xf32>, %b: tensor<512xf32>) -> tensor<64x512xf32> {
  %e = tensor.empty() : tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x512xf32>, tensor<512xf32>) outs(%e : tensor<64x512xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %s = arith.addf %v, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}

func.func @channels(%x: tensor<?x32x16x16xf32>, %scale: tensor<32x1x1xf32>, %shift: tensor<32x1x1xf32>) -> tensor<?x32x16x16xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x32x16x16xf32>
  %e = tensor.empty(%n) : tensor<?x32x16x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c, 0, 0)>,
                                        affine_map<(n, c, h, w) -> (c, 0, 0)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %scale, %shift : tensor<?x32x16x16xf32>, tensor<32x1x1xf32>, tensor<32x1x1xf32>) outs(%e : tensor<?x32x16x16xf32>) {
  ^bb0(%v: f32, %s: f32, %t: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %t : f32
    %z = arith.constant 0.0 : f32
    %y = arith.maximumf %a, %z : f32
    linalg.yield %y : f32
  } -> tensor<?x32x16x16xf32>
  return %r : tensor<?x32x16x16xf32>
}
