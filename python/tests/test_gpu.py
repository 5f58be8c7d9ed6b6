"""target="gpu": without a usable GPU, compiling a function is an AmpError
that says why (never a crash); with one, results match the CPU's."""

import ctypes

import numpy as np
import pytest

import amp_mlir
from amp_mlir import _runtime


def gpu_available():
    lib = _runtime.lib()
    lib.ampGpuAvailable.restype = ctypes.c_int
    return lib.ampGpuAvailable() == 1


@pytest.mark.skipif(gpu_available(), reason="a GPU is usable here")
def test_gpu_target_without_gpu_is_an_error(repo):
    m = amp_mlir.compile(repo / "examples" / "tosa_mlp_classifier.mlir",
                         level="O2", target="gpu")
    with pytest.raises(amp_mlir.AmpError, match="CUDA driver|GPU"):
        m.classifier_loss


@pytest.mark.skipif(not gpu_available(), reason="needs a usable GPU")
def test_gpu_matches_cpu(repo, rng):
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    cpu = amp_mlir.compile(path, level="O2").classifier_loss
    gpu = amp_mlir.compile(path, level="O2", target="gpu").classifier_loss
    args = [rng.uniform(-1, 1, t.shape).astype(t.dtype)
            for t in cpu.arguments]
    for a, b in zip(gpu(*args), cpu(*args)):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)
