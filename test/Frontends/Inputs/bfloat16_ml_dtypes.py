"""bf16 through ml_dtypes, which the frontend environment has (through
onnx): compiled functions take and return ml_dtypes.bfloat16 arrays, and
GradScaler unscales them in place."""
import ml_dtypes
import numpy as np

import amp_mlir

BF16 = np.dtype(ml_dtypes.bfloat16)
f = amp_mlir.compile("""
func.func @double(%g: tensor<4xbf16>) -> tensor<4xbf16> {
  %d = arith.addf %g, %g : tensor<4xbf16>
  return %d : tensor<4xbf16>
}
""", level="O0").double
x = np.array([0.5, 1.0, 1.5, -2.0], np.float32).astype(BF16)
y = f(x)
print("result dtype:", y.dtype)
print("doubled:", y.astype(np.float32).tolist())
print("from bits:", f(x.view(np.uint16)).astype(np.float32).tolist())

grads = np.array([4096.0, -1024.0], np.float32).astype(BF16)
found = amp_mlir.GradScaler(init_scale=1024.0).unscale_([grads])
print("found inf:", found, "unscaled:", grads.astype(np.float32).tolist())
