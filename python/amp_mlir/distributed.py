"""Data-parallel training across processes: the process group of
``amp.all_reduce``, from Python.

    import amp_mlir
    rank, size = amp_mlir.rank(), amp_mlir.world_size()
    step = amp_mlir.compile(module_with_all_reduce, level="O2")
    # mpirun -n 4 python3 train.py: each rank feeds its shard; the compiled
    # amp.all_reduce averages the gradients of all of them.

A process started by an MPI launcher (``mpirun -n N``) is one rank of
MPI_COMM_WORLD; a process started alone is a group of one (rank 0 of 1,
every reduction the identity). The group is libamp_runtime's
(runtime/include/amp/runtime/AmpCollectives.h): the code amp_mlir.compile
makes calls the same library, so this module and the compiled collectives
agree on ranks. MPI is initialised on first use and finalised at exit (or by
finalize()). See docs/runtime-api.md.
"""

import ctypes

from . import _abi, _runtime

__all__ = ["DistributedError", "all_reduce", "backend", "finalize", "rank",
           "world_size"]

# AmpReduceKind.
_KINDS = {"sum": 0, "mean": 1, "max": 2, "min": 3}


class DistributedError(RuntimeError):
    """The process group cannot be used (e.g. started by mpirun with
    several processes while the MPI backend libamp_runtime_mpi.so is
    missing)."""


def _lib():
    return _runtime.lib()


def _check(value, failed):
    if value == failed:
        raise DistributedError(_runtime.last_error() or
                               "the collectives' backend failed")
    return value


def rank():
    """This process's rank in the group (0 without an MPI launcher)."""
    return _check(_lib().ampCollectiveRank(), -1)


def world_size():
    """The number of processes in the group (1 without an MPI launcher)."""
    return _check(_lib().ampCollectiveWorldSize(), -1)


def backend():
    """'single' (one process) or 'mpi'."""
    return _check(_lib().ampCollectiveBackend(), None).decode()


def finalize():
    """Finalises MPI now if the runtime initialised it (else it happens at
    exit); later collectives fail."""
    _lib().ampCollectiveFinalize()


def _dtype_code(array):
    name = _abi.dtype_name(array)
    if name is not None:
        return _abi.DTYPES[name]
    raise TypeError(f"all_reduce: dtype {array.dtype} is not supported; "
                    f"expected float32, float16, bfloat16 (ml_dtypes, or "
                    f"uint16 bits), int32 or bool")


def all_reduce(array, op="sum"):
    """Reduces the numpy array elementwise across the group, in place, as
    amp.all_reduce does ('sum', 'mean', 'max', 'min'; bool: 'max' is or,
    'min' is and; f16/bf16 reduced in f32 and rounded once). Every rank
    must call it with the same shape, dtype and op. Returns the array."""
    if op not in _KINDS:
        raise ValueError(f"all_reduce: unknown op {op!r}; expected one of "
                         f"{', '.join(_KINDS)}")
    _runtime.check_buffer(array, "all_reduce's array")
    code = _dtype_code(array)
    if code == _abi.I1 and op in ("sum", "mean"):
        raise ValueError(f"all_reduce: cannot {op} bool values (use 'max' "
                         f"for or, 'min' for and)")
    if code == _abi.I32 and op == "mean":
        raise ValueError("all_reduce: cannot mean int32 values (use 'sum' "
                         "and divide)")
    backend()  # Raises DistributedError if the group cannot be used.
    _lib().ampAllReduce(array.ctypes.data_as(ctypes.c_void_p), array.size,
                        code, _KINDS[op])
    return array
