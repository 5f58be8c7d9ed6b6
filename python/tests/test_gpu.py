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


@pytest.mark.parametrize("level,dtype,tol", [("O0", None, 1e-6),
                                             ("O2", "bf16", 1e-2)])
def test_gpu_sim_matches_cpu(repo, rng, level, dtype, tol):
    """target='gpu-sim': the GPU pipeline's output, run in the simulator on
    the CPU, gives the CPU pipeline's results."""
    path = repo / "examples" / "tosa_mlp_classifier.mlir"
    cpu = amp_mlir.compile(path, level=level, dtype=dtype).classifier_loss
    sim = amp_mlir.compile(path, level=level, dtype=dtype,
                           target="gpu-sim").classifier_loss
    args = [rng.uniform(-1, 1, t.shape).astype(t.dtype)
            for t in cpu.arguments]
    for a, b in zip(sim(*args), cpu(*args)):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_gpu_sim_runs_a_six_dimensional_add(tmp_path):
    """A 6-D elementwise op with gpu_options: launches within CUDA's limits
    (the simulator checks them) and the right values."""
    module = tmp_path / "add.mlir"
    module.write_text("""
func.func @add(%a: tensor<2x2x2x2x2x2xf32>) -> tensor<2x2x2x2x2x2xf32> {
  %r = tosa.add %a, %a : (tensor<2x2x2x2x2x2xf32>, tensor<2x2x2x2x2x2xf32>) -> tensor<2x2x2x2x2x2xf32>
  return %r : tensor<2x2x2x2x2x2xf32>
}
""")
    f = amp_mlir.compile(module, level="O0", target="gpu-sim",
                         gpu_options="block-size=2").add
    x = np.ones((2,) * 6, np.float32)
    np.testing.assert_array_equal(f(x), 2 * x)


def test_gpu_sim_without_the_simulator_library_is_an_error(repo):
    m = amp_mlir.compile(repo / "examples" / "tosa_mlp_classifier.mlir",
                         target="gpu-sim",
                         runtime_library="/nonexistent/libamp_runtime_gpusim.so")
    with pytest.raises(amp_mlir.AmpError, match="does not exist"):
        m.classifier_loss
