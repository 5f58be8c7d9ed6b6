"""amp_mlir.distributed (rank, world_size, all_reduce) and compiled
amp.all_reduce in one process, a group of one; the errors of a launcher job
without the MPI backend are exceptions. Two MPI ranks:
test/Python/distributed-mpi.test."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import amp_mlir
from amp_mlir import distributed

MODULE = """
func.func @step(%g: tensor<2x3xf32>, %h: tensor<4xf16>, %n: tensor<i32>)
    -> (tensor<2x3xf32>, tensor<4xf16>, tensor<i32>) {
  %0 = amp.all_reduce mean %g : tensor<2x3xf32>
  %1 = amp.all_reduce sum %h : tensor<4xf16>
  %2 = amp.all_reduce max %n : tensor<i32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4xf16>, tensor<i32>
}
"""


def test_single_process_group():
    assert amp_mlir.rank() == 0
    assert amp_mlir.world_size() == 1
    assert distributed.backend() == "single"


@pytest.mark.parametrize("dtype,op", [
    (np.float32, "sum"), (np.float32, "mean"), (np.float16, "max"),
    (np.uint16, "min"), (np.int32, "sum"), (np.bool_, "max"),
    (np.bool_, "min")])
def test_all_reduce_is_the_identity(dtype, op):
    array = np.arange(6).reshape(2, 3).astype(dtype)
    before = array.copy()
    assert distributed.all_reduce(array, op) is array
    np.testing.assert_array_equal(array, before)


def test_all_reduce_errors():
    with pytest.raises(ValueError, match="unknown op 'prod'"):
        distributed.all_reduce(np.zeros(2, np.float32), "prod")
    with pytest.raises(ValueError, match="cannot sum bool values"):
        distributed.all_reduce(np.zeros(2, np.bool_), "sum")
    with pytest.raises(ValueError, match="cannot mean int32 values"):
        distributed.all_reduce(np.zeros(2, np.int32), "mean")
    with pytest.raises(TypeError, match="dtype float64 is not supported"):
        distributed.all_reduce(np.zeros(2), "sum")
    with pytest.raises(ValueError, match="read-only"):
        frozen = np.zeros(2, np.float32)
        frozen.flags.writeable = False
        distributed.all_reduce(frozen)


@pytest.mark.parametrize("target", ["cpu", "gpu-sim"])
@pytest.mark.parametrize("level", ["O0", "O2"])
def test_compiled_all_reduce_is_the_identity(target, level):
    m = amp_mlir.compile(MODULE, level=level, target=target)
    g = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    h = np.array([0.5, -1, 2, 1000], np.float16)
    n = np.array(7, np.int32)
    out_g, out_h, out_n = m.step(g, h, n)
    np.testing.assert_array_equal(out_g, g)
    assert out_h.dtype == np.float16
    np.testing.assert_array_equal(out_h, h)
    assert int(out_n) == 7


def run_python(code, **env):
    """Runs `code` in a fresh interpreter with extra environment variables."""
    environment = dict(os.environ, **env)
    environment["PYTHONPATH"] = str(Path(amp_mlir.__file__).parent.parent)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          env=environment, capture_output=True, text=True,
                          timeout=300)


def test_launcher_without_backend_raises(tmp_path):
    # One of two ranks of an Open MPI job, the backend missing: exceptions
    # naming the library, never a silent single-process run.
    result = run_python(f"""
        import numpy as np, amp_mlir
        from amp_mlir import distributed
        try:
            amp_mlir.rank()
        except distributed.DistributedError as e:
            print("rank:", e)
        try:
            distributed.all_reduce(np.zeros(2, np.float32))
        except distributed.DistributedError as e:
            print("all_reduce:", e)
        m = amp_mlir.compile({MODULE!r}, level="O0")
        try:
            m.step(np.zeros((2, 3), np.float32), np.zeros(4, np.float16),
                   np.array(1, np.int32))
        except amp_mlir.AmpError as e:
            print("compiled:", e)
        """, OMPI_COMM_WORLD_SIZE="2", OMPI_COMM_WORLD_RANK="1",
        AMP_MPI_BACKEND=str(tmp_path / "missing" / "libamp_runtime_mpi.so"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3, result.stdout + result.stderr
    for line, prefix in zip(lines, ["rank: ampCollectiveRank:",
                                    "all_reduce: ampCollectiveBackend:",
                                    "compiled: "]):
        assert line.startswith(prefix), line
        assert ("this process is one of 2 started by an MPI launcher "
                "(OMPI_COMM_WORLD_SIZE=2) but the MPI backend "
                "libamp_runtime_mpi.so cannot be loaded") in line, line


def test_launcher_with_one_process_needs_no_backend(tmp_path):
    # `mpirun -n 1` without the backend: a group of one, no error.
    result = run_python("""
        import amp_mlir
        print(amp_mlir.rank(), amp_mlir.world_size(),
              amp_mlir.distributed.backend())
        """, OMPI_COMM_WORLD_SIZE="1", OMPI_COMM_WORLD_RANK="0",
        AMP_MPI_BACKEND=str(tmp_path / "missing" / "libamp_runtime_mpi.so"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "1", "single"]
