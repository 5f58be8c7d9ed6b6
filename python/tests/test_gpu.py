"""target="gpu": without a usable GPU, compiling a function is an AmpError
that says why (never a crash); with one, results match the CPU's."""

import ctypes
import re
import subprocess
import sys
from pathlib import Path

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


ADD_CONSTANT = """
func.func @add(%x: tensor<64xf32>) -> tensor<64xf32> {{
  %c = arith.constant dense<[{values}]> : tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.add ins(%x, %c : tensor<64xf32>, tensor<64xf32>)
                  outs(%e : tensor<64xf32>) -> tensor<64xf32>
  return %r : tensor<64xf32>
}}
"""


def test_gpu_sim_each_module_uploads_its_own_constants():
    """Modules compiled, called and freed one after the other: each later
    one's constant, which the JIT may place where a freed one's was, is its
    own on the device (ampGpuConstant caches the copy in a slot of the
    module, not by host address: by address, every module after the first
    read the first one's values)."""
    import gc
    x = np.zeros(64, np.float32)
    for i in range(6):
        values = np.arange(64, dtype=np.float32) + 100 * i
        text = ADD_CONSTANT.format(
            values=", ".join(f"{v:.1f}" for v in values))
        module = amp_mlir.compile(text, level="O0", target="gpu-sim")
        np.testing.assert_array_equal(module.add(x), values,
                                      err_msg=f"module {i}")
        del module
        gc.collect()


def test_gpu_sim_without_the_simulator_library_is_an_error(repo):
    m = amp_mlir.compile(repo / "examples" / "tosa_mlp_classifier.mlir",
                         target="gpu-sim",
                         runtime_library="/nonexistent/libamp_runtime_gpusim.so")
    with pytest.raises(amp_mlir.AmpError, match="does not exist"):
        m.classifier_loss


_MATMUL_ADD = """
func.func @mm(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>,
              %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %z = tensor.empty() : tensor<64x32xf32>
  %cst = arith.constant 0.0 : f32
  %f = linalg.fill ins(%cst : f32) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x128xf32>, tensor<128x32xf32>)
                     outs(%f : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = arith.addf %m, %c : tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
"""


def check_estimate(m):
    """The counts and estimate of _MATMUL_ADD's call (m: compiled for the
    simulator), exactly."""
    args = [np.ones((64, 128), np.float32), np.ones((128, 32), np.float32),
            np.ones((64, 32), np.float32)]
    m.mm(*args)
    m.reset_simulator()
    np.testing.assert_array_equal(m.mm(*args), np.full((64, 32), 129.0))
    stats = m.simulator_stats()
    assert stats["libraryCalls"] == 1 and stats["launches"] == 1
    assert stats["libraryFlops"] == 2 * 64 * 32 * 128
    assert stats["kernelFlops"] == 64 * 32
    h100, h200 = m.estimate("h100-sxm"), m.estimate("h200")
    assert h100["peaks"]["bandwidth"] == 3.35e12
    kinds = [r["kind"] for r in h100["records"]]
    assert kinds.count("library") == 1 and kinds.count("kernel") == 1
    gemm = next(r for r in h100["records"] if r["kind"] == "library")
    assert gemm["name"] == "ampGpuGemm f32*f32->f32 m=64 n=32 k=128"
    assert gemm["flops"] == 2 * 64 * 32 * 128
    assert gemm["bytes_read"] == (64 * 128 + 128 * 32) * 4
    assert gemm["bytes_written"] == 64 * 32 * 4
    kernel = next(r for r in h100["records"] if r["kind"] == "kernel")
    assert kernel["bytes_read"] == 2 * 64 * 32 * 4  # the product and c
    assert kernel["bytes_written"] == 64 * 32 * 4
    assert kernel["flops"] == 64 * 32
    assert sum(kernel["loads_by_width"].values()) > 0
    assert kernel["threads"] >= 1 and kernel["block"][0] >= 1
    assert h100["launches"] == 2
    assert h100["seconds"] == pytest.approx(
        h100["kernel_seconds"] + h100["library_seconds"] +
        h100["copy_seconds"], rel=1e-12)
    assert 0 < h200["seconds"] <= h100["seconds"]
    with pytest.raises(ValueError, match=r"unknown chip 'a100' \(known: "
                                         r"h100-sxm, h200\)"):
        m.estimate("a100")
    # The failed lookup left no error behind for the next call.
    m.mm(*args)


def check_launches(m):
    """AotLibrary's launch list, its estimate and count-only mode on
    _MATMUL_ADD's call (m: a library compiled for the simulator)."""
    args = [np.ones((64, 128), np.float32), np.ones((128, 32), np.float32),
            np.ones((64, 32), np.float32)]
    m.mm(*args)
    m.reset_simulator()
    m.mm(*args)
    launches = m.launches()
    kinds = [launch["kind"] for launch in launches]
    assert kinds.count("library") == 1 and kinds.count("kernel") == 1
    gemm = launches[kinds.index("library")]
    assert gemm["peak"] == "fp32" and gemm["library"]
    assert gemm["flops"] == 2 * 64 * 32 * 128
    for chip in ("h100-sxm", "h200"):
        listed, recorded = m.estimate_launches(launches, chip), \
            m.estimate(chip)
        assert listed["seconds"] == pytest.approx(recorded["seconds"],
                                                  rel=1e-12)
        assert listed["launches"] == recorded["launches"] == 2
    # Counts of one's own: the GEMM at 1000 times the FLOPs is compute
    # bound, at the FMA rate over the library efficiency.
    big = [dict(launch, flops=launch["flops"] * 1000) if launch is gemm
           else launch for launch in launches]
    peaks = m.estimate("h100-sxm")["peaks"]
    grown = m.estimate_launches(big, "h100-sxm")
    assert grown["library_seconds"] == pytest.approx(
        gemm["flops"] * 1000 / peaks["fp32_flops"] /
        peaks["library_efficiency"] + peaks["launch_seconds"], rel=1e-9)
    with pytest.raises(ValueError, match="negative count"):
        m.estimate_launches([dict(gemm, flops=-1)], "h100-sxm")
    with pytest.raises(ValueError, match="unknown chip 'a100'"):
        m.estimate_launches(launches, "a100")
    # Count-only: the same launches and counts, the GEMM not computed.
    m.count_only(True)
    try:
        m.reset_simulator()
        result = m.mm(*args)
    finally:
        m.count_only(False)
    np.testing.assert_array_equal(result, np.ones((64, 32), np.float32))
    assert [{k: v for k, v in launch.items()} for launch in m.launches()] \
        == launches
    np.testing.assert_array_equal(m.mm(*args), np.full((64, 32), 129.0))


def test_gpu_sim_estimate():
    """target='gpu-sim' (the JIT): the simulator's counts and roofline
    estimate of a call: the GEMM's FLOPs and bytes from its shape, the add
    kernel's from its accesses, exactly; the H200 (more bandwidth, same
    compute) no slower than the H100."""
    check_estimate(amp_mlir.compile(_MATMUL_ADD, level="O0",
                                    target="gpu-sim"))


def test_gpu_sim_estimate_of_a_library(tmp_path):
    """The same through a library of amp-compile (AotLibrary), in a process
    of its own: one process holds one simulator, and the JIT's tests load
    the build's while the library loads the copy next to it. Its CUDA
    graphs too (check_graph)."""
    tests = Path(__file__).parent
    script = (f"import sys; sys.path[:0] = [{str(tests)!r}, "
              f"{str(tests.parent)!r}]\n"
              f"import amp_mlir, test_gpu\n"
              f"m = amp_mlir.compile(test_gpu._MATMUL_ADD, level='O0', "
              f"target='gpu-sim', output={str(tmp_path / 'mm.so')!r})\n"
              f"test_gpu.check_estimate(m)\ntest_gpu.check_launches(m)\n"
              f"test_gpu.check_graph(m)\nprint('ok')\n")
    result = subprocess.run([sys.executable, "-c", script],
                            capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == "ok\n", \
        result.stderr


def check_graph(m):
    """AotFunction.capture on _MATMUL_ADD (m: a library compiled for the
    simulator): each replay is one graph launch that runs the call's GEMM
    and kernel, with no host wait and no allocation of its own; close()
    frees what the graph held."""
    args = [np.ones((64, 128), np.float32), np.ones((128, 32), np.float32),
            np.ones((64, 32), np.float32)]
    live = m.simulator_stats()["liveBuffers"]
    graph = m.mm.capture(*args)
    m.reset_simulator()
    graph.replay()
    graph.replay()
    stats = m.simulator_stats()
    assert stats["graphLaunches"] == 2, stats
    assert stats["libraryCalls"] == 2 and stats["launches"] == 2, stats
    assert stats["synchronizations"] == 0 and stats["allocations"] == 0
    assert len(graph.time(repeat=3, warmup=0)) == 3
    graph.close()
    assert m.simulator_stats()["liveBuffers"] == live
    # The result fed back into c: c += a b at each replay, on the device.
    graph = m.mm.capture(*args, feedback=[2])
    graph.replay()
    graph.replay()
    np.testing.assert_array_equal(graph.argument(2),
                                  np.full((64, 32), 257.0))
    graph.close()
    assert m.simulator_stats()["liveBuffers"] == live
    for feedback, message in (([0], "cannot feed argument #0"),
                              ([3], "feeds argument #3, which does not"),
                              ([1, 2], "feedback has 2 entries")):
        try:
            m.mm.capture(*args, feedback=feedback)
        except ValueError as error:
            assert message in str(error), error
        else:
            raise AssertionError(f"feedback {feedback} was taken")


def test_gpu_sim_estimate_needs_the_simulator():
    m = amp_mlir.compile(_MATMUL_ADD, level="O0")
    with pytest.raises(amp_mlir.AmpError, match="not 'gpu-sim'"):
        m.estimate("h100-sxm")


CONV = """
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>)
      outs(%z : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %y : tensor<1x8x6x6xf32>
}
"""


def test_transform_takes_the_lowerings_options():
    """transform(lower='gpu', gpu_options=...) lowers with them, as
    compile() does: channels-last makes the convolution's cuDNN call NHWC/
    FHWC (layout 2, transposes around it) where the default is NCHW; the
    options without a lowering, and unknown ones, are errors."""
    def layouts(text):
        constants = dict(re.findall(
            r"(%\w+) = llvm\.mlir\.constant\((\d+) : i32\)", text))
        return [int(constants[first]) for first in
                re.findall(r"call @ampGpuConv2d\((%\w+),", text)]

    nchw = amp_mlir.transform(CONV, level="O0", lower="gpu")
    nhwc = amp_mlir.transform(CONV, level="O0", lower="gpu",
                              gpu_options={"channels-last": True})
    assert layouts(nchw) == [0]
    assert layouts(nhwc) == [2]
    assert layouts(amp_mlir.transform(CONV, level="O0", lower="gpu",
                                      gpu_options="channels-last=true")) == [2]
    with pytest.raises(ValueError, match="pass lower='gpu' or lower='cpu'"):
        amp_mlir.transform(CONV, level="O0",
                           gpu_options={"channels-last": True})
    with pytest.raises(ValueError, match="unknown option 'channels-lst'"):
        amp_mlir.transform(CONV, level="O0", lower="gpu",
                           gpu_options={"channels-lst": True})


DEVICE_MODULE = """
func.func @axpy(%a: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %r = tosa.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = tosa.reduce_sum %r {axis = 0 : i32} : (tensor<4xf32>) -> tensor<1xf32>
  %c = tosa.const_shape {values = dense<> : tensor<0xindex>} : () -> !tosa.shape<0>
  %t = tosa.reshape %s, %c : (tensor<1xf32>, !tosa.shape<0>) -> tensor<f32>
  return %r, %t : tensor<4xf32>, tensor<f32>
}
"""


@pytest.fixture
def axpy(tmp_path):
    module = tmp_path / "axpy.mlir"
    module.write_text(DEVICE_MODULE)
    return module


def test_gpu_sim_results_stay_on_the_device(axpy):
    """CompiledFunction.call(..., keep=...): a kept result is a DeviceArray;
    passed back, it is used in place (nothing crosses the host link for
    it), and the values are those of plain calls."""
    module = amp_mlir.compile(axpy, level="O0", target="gpu-sim")
    f = module.axpy
    a = np.arange(4, dtype=np.float32)
    x = np.full(4, 0.5, np.float32)
    module.reset_simulator()
    r, total = f.call(a, x, keep=[True, False])
    uploaded = module.simulator_stats()["hostBytes"]
    assert isinstance(r, amp_mlir.DeviceArray)
    assert (r.shape, r.dtype) == ((4,), np.float32)
    assert uploaded == a.nbytes + x.nbytes + 4  # the total comes back
    np.testing.assert_array_equal(r.numpy(), a + x)
    assert float(total) == float(np.sum(a + x))
    module.reset_simulator()
    r2, total2 = f.call(r, x, keep=[True, False])
    assert module.simulator_stats()["hostBytes"] == x.nbytes + 4
    del r  # the result's buffer is its own
    expected = f(a + x, x)
    np.testing.assert_array_equal(r2.numpy(), expected[0])
    assert float(total2) == float(expected[1])
    np.testing.assert_array_equal(np.asarray(r2), expected[0])
    # Without keep, call is __call__ returning a tuple.
    plain = f.call(a, x)
    np.testing.assert_array_equal(plain[0], a + x)


def test_gpu_sim_device_array_errors(axpy):
    """Each misuse of call() is an exception at the call that says what is
    wrong."""
    module = amp_mlir.compile(axpy, level="O0", target="gpu-sim")
    f = module.axpy
    a = np.ones(4, np.float32)
    r, total = f.call(a, a, keep=[True, False])
    with pytest.raises(ValueError, match="keep has 1 flags; @axpy has 2"):
        f.call(a, a, keep=[True])
    with pytest.raises(amp_mlir.SignatureError, match="takes 2 arguments"):
        f.call(r, keep=[True, False])
    # A device array where the function takes another type.
    _, scalar = amp_mlir.compile(axpy, level="O0", target="gpu-sim").axpy.call(
        a, a, keep=[False, True])
    with pytest.raises(amp_mlir.AmpError,
                       match=r"argument #0 of '@axpy' is tensor<4xf32>, "
                             r"got the device tensor tensor<f32>"):
        f.call(scalar, a)
    cpu = amp_mlir.compile(axpy, level="O0").axpy
    with pytest.raises(amp_mlir.AmpError,
                       match="runs on the CPU: it has no device"):
        cpu.call(a, a, keep=[True, False])
    with pytest.raises(amp_mlir.AmpError,
                       match="is a device tensor, but the function runs on "
                             "the CPU"):
        cpu.call(r, a)
