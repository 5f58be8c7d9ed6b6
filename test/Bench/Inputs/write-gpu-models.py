"""write-gpu-models.py DIR: writes small versions of bench/gpu/models.py's
modules (the GPU benchmark's gemm with f32, f16 and bf16 arguments, chain,
mlp and transformer) to DIR/<name>.mlir, at sizes that are no multiple of a
warp or a block."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "bench", "gpu"))
import models  # noqa: E402

out = sys.argv[1]
modules = {
    "gemm-f32": models.gemm(33, 45, 70),
    "gemm-f16": models.gemm(33, 45, 70, "f16"),
    "gemm-bf16": models.gemm(33, 45, 70, "bf16"),
    "chain": models.chain(37, 300),
    "mlp": models.mlp(24, [16, 64, 48, 8]),
    "transformer": models.transformer(2, 8, 32, 4, 2),
}
for name, (text, _) in modules.items():
    with open(os.path.join(out, name + ".mlir"), "w") as f:
        f.write(text)
