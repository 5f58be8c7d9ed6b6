"""amp-float8-contractions executed on the CPU (amp-opt, then amp-run at
O0) against its recipe written with numpy and ml_dtypes: per-tensor
scales fp8_max / amax (in f32), the operands quantized with saturation and
rounded to nearest even, an f32 product of the FP8 values, times
1 / (scale_a * scale_b). Then the error of the FP8 matmul against the f32
one. With `conv`, a padded, strided NCHW convolution instead (its input
quantized before the padding, which zeros keep). Usage:
float8_contractions.py WORKDIR FORMAT (e4m3 or e5m2) [conv]."""

import os
import subprocess
import sys

import ml_dtypes
import numpy as np

MODULE = """
func.func @mm(%x: tensor<64x128xf32>, %w: tensor<128x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x96xf32>)
                     outs(%acc : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %y : tensor<64x96xf32>
}
"""


CONV = """
func.func @mm(%x: tensor<2x6x11x11xf32>, %w: tensor<8x6x3x3xf32>) -> tensor<2x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x6x11x11xf32> to tensor<2x6x13x13xf32>
  %e = tensor.empty() : tensor<2x8x6x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%p, %w : tensor<2x6x13x13xf32>, tensor<8x6x3x3xf32>)
         outs(%acc : tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32>
  return %y : tensor<2x8x6x6xf32>
}
"""


def conv(x, w):
    """NCHW/FCHW cross-correlation in float64, padding 1, stride 2."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    f, _, kh, kw = w.shape
    oh = (x.shape[2] - kh) // 2 + 1
    ow = (x.shape[3] - kw) // 2 + 1
    y = np.zeros((x.shape[0], f, oh, ow))
    for r in range(kh):
        for s in range(kw):
            window = x[:, :, r:r + 2 * oh:2, s:s + 2 * ow:2]
            y += np.einsum("nchw,fc->nfhw", window, w[:, :, r, s])
    return y


def quantized(x, dtype):
    largest = np.float32(ml_dtypes.finfo(dtype).max)
    amax = np.float32(np.abs(x).max())
    scale = np.float32(largest / amax)
    v = np.clip((x * scale).astype(np.float32), -largest, largest)
    return v.astype(dtype).astype(np.float32), scale


def main():
    work, fmt = sys.argv[1], sys.argv[2]
    is_conv = sys.argv[3:] == ["conv"]
    dtype = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}[fmt]
    rng = np.random.default_rng(7)
    if is_conv:
        x = rng.standard_normal((2, 6, 11, 11)).astype(np.float32)
        w = (rng.standard_normal((8, 6, 3, 3)) * 0.05).astype(np.float32)
        product = conv
    else:
        x = rng.standard_normal((64, 128)).astype(np.float32)
        w = (rng.standard_normal((128, 96)) * 0.05).astype(np.float32)
        product = np.matmul
    paths = {name: os.path.join(work, name) for name in
             ("mm.mlir", "mm8.mlir", "x.npy", "w.npy", "y.npy")}
    with open(paths["mm.mlir"], "w") as f:
        f.write(CONV if is_conv else MODULE)
    np.save(paths["x.npy"], x)
    np.save(paths["w.npy"], w)
    subprocess.run(["amp-opt", paths["mm.mlir"],
                    f"--amp-float8-contractions=format={fmt}",
                    "-o", paths["mm8.mlir"]], check=True)
    subprocess.run(["amp-run", paths["mm8.mlir"], "--entry", "mm",
                    "--level=O0", "--inputs",
                    f"{paths['x.npy']},{paths['w.npy']}", "--outputs",
                    paths["y.npy"]], check=True, stdout=subprocess.DEVNULL)
    got = np.load(paths["y.npy"])
    qx, sx = quantized(x, dtype)
    qw, sw = quantized(w, dtype)
    inverse = np.float32(1) / np.float32(sx * sw)
    want = product(qx.astype(np.float64), qw.astype(np.float64)).astype(
        np.float32) * inverse
    exact = np.abs(got - want).max() / np.abs(want).max()
    fp32 = product(x.astype(np.float64), w.astype(np.float64))
    error = np.linalg.norm(got - fp32) / np.linalg.norm(fp32)
    name = "convolution" if is_conv else "matmul"
    print(f"{fmt}: {name}: against the recipe in numpy: max difference "
          f"{exact:.1e} of the largest value "
          f"({'ok' if exact < 1e-5 else 'WRONG'})")
    print(f"{fmt}: FP8 {name} against f32: rel L2 {error:.2e}")
    return 0 if exact < 1e-5 else 1


if __name__ == "__main__":
    sys.exit(main())
