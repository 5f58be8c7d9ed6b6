// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-fuse-contraction-epilogues{tile-size=16}),canonicalize)" \
// RUN:     --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not amp-opt %s --pass-pipeline="builtin.module(func.func(amp-fuse-contraction-epilogues{tile-size=0}))" \
// RUN:     --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: amp-fuse-contraction-epilogues: tile-size must be positive

// The narrowing (fused with a bias add) is tiled 16x16 and the matmul and
// its zero fill are computed per tile into a 16x16 f32 accumulator; nothing
// of the full 64x256 size is in f32.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x16xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<16x16xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x128xf16>, tensor<128x16xf16>) outs(%[[F]] : tensor<16x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<16x16xf32>, tensor<16xf16>)
// CHECK: arith.truncf
// CHECK: tensor.insert_slice
// CHECK-NOT: 64x256xf32
// CHECK: return
func.func @matmul(%a: tensor<64x128xf16>, %b: tensor<128x256xf16>, %bias: tensor<256xf16>) -> tensor<64x256xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x128xf16>, tensor<128x256xf16>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  %e16 = tensor.empty() : tensor<64x256xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<64x256xf32>, tensor<256xf16>) outs(%e16 : tensor<64x256xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    linalg.yield %s : f16
  } -> tensor<64x256xf16>
  return %r : tensor<64x256xf16>
}

// -----

// A convolution (NHWC): tiles of 1 x 1 x 8 x 16 output; the input slice is
// taken from the padded input, which is computed once, outside the loops.
// CHECK-LABEL: func.func @conv
// CHECK: tensor.pad
// CHECK: scf.for
// CHECK: linalg.fill {{.*}} -> tensor<1x1x8x16xf32>
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x1x8x16xf32>
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK-NOT: 2x8x8x16xf32
// CHECK: return
func.func @conv(%x: tensor<2x8x8x4xbf16>, %w: tensor<3x3x4x16xbf16>) -> tensor<2x8x8x16xbf16> {
  %pz = arith.constant 0.0 : bf16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pz : bf16
  } : tensor<2x8x8x4xbf16> to tensor<2x10x10x4xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  %y = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %w : tensor<2x10x10x4xbf16>, tensor<3x3x4x16xbf16>) outs(%init : tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  %e16 = tensor.empty() : tensor<2x8x8x16xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<2x8x8x16xf32>) outs(%e16 : tensor<2x8x8x16xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x8x8x16xbf16>
  return %r : tensor<2x8x8x16xbf16>
}

// -----

// Negative: the f32 result is also returned, so it must exist whole.
// CHECK-LABEL: func.func @f32_user
// CHECK-NOT: scf.for
// CHECK: linalg.matmul {{.*}} -> tensor<8x8xf32>
// CHECK: linalg.generic
func.func @f32_user(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>) -> (tensor<8x8xf16>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e16 = tensor.empty() : tensor<8x8xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x8xf32>) outs(%e16 : tensor<8x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x8xf16>
  return %r, %mm : tensor<8x8xf16>, tensor<8x8xf32>
}

// -----

// Negative: the consumer computes in f32 from the accumulator (no narrowing
// of it), and an accumulator that is not a fill (it is whole anyway).
// CHECK-LABEL: func.func @not_narrowed
// CHECK-NOT: scf.for
// CHECK: return
func.func @not_narrowed(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %c: tensor<8x8xf32>) -> (tensor<8x8xf16>, tensor<8x8xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e16 = tensor.empty() : tensor<8x8xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x8xf32>) outs(%e16 : tensor<8x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %s = arith.mulf %x, %x : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x8xf16>
  %mm2 = linalg.matmul ins(%a, %b : tensor<8x8xf16>, tensor<8x8xf16>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%mm2 : tensor<8x8xf32>) outs(%e16 : tensor<8x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x8xf16>
  return %r, %r2 : tensor<8x8xf16>, tensor<8x8xf16>
}

// -----

// One zero fill for two matmuls (as --cse leaves it): each epilogue is
// fused, with a fill of its own in each tile; the shared one goes.
// CHECK-LABEL: func.func @shared_fill
// CHECK-COUNT-2: scf.for
// CHECK: linalg.fill {{.*}} -> tensor<16x16xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<16x16xf32>
// CHECK-COUNT-2: scf.for
// CHECK: linalg.fill {{.*}} -> tensor<16x16xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<16x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @shared_fill(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> (tensor<32x32xf16>, tensor<32x32xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m0 = linalg.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%init : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m1 = linalg.matmul ins(%b, %a : tensor<32x32xf16>, tensor<32x32xf16>) outs(%init : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e16 = tensor.empty() : tensor<32x32xf16>
  %r0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%m0 : tensor<32x32xf32>) outs(%e16 : tensor<32x32xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x32xf16>
  %r1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<32x32xf32>) outs(%e16 : tensor<32x32xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x32xf16>
  return %r0, %r1 : tensor<32x32xf16>, tensor<32x32xf16>
}

// -----

// Negative: a matmul with K = 0 (upstream's tile-and-fuse crashes on the
// empty loop) is left whole, with a remark.
// CHECK-LABEL: func.func @empty_k
// CHECK-NOT: scf.for
// CHECK: linalg.matmul
// CHECK: linalg.generic
func.func @empty_k(%a: tensor<8x0xf16>, %b: tensor<0x4xf16>) -> tensor<8x4xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  // expected-remark @below {{amp: epilogue not fused: the contraction has a loop of size 0}}
  %mm = linalg.matmul ins(%a, %b : tensor<8x0xf16>, tensor<0x4xf16>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e16 = tensor.empty() : tensor<8x4xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<8x4xf32>) outs(%e16 : tensor<8x4xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %x2 = math.exp %t : f16
    linalg.yield %x2 : f16
  } -> tensor<8x4xf16>
  return %r : tensor<8x4xf16>
}
