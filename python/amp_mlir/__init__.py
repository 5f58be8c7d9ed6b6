"""amp_mlir: automatic mixed precision for MLIR modules, from Python.

    import amp_mlir, numpy as np
    m = amp_mlir.compile("model.mlir", level="O2", dtype="float16")
    m = amp_mlir.compile(amp_mlir.from_torch(net, x), level="O2")  # PyTorch
    step = amp_mlir.from_torch_training(net, F.cross_entropy, opt, x, y)
    y = m.forward(x, w)                    # numpy in, numpy out
    lib = amp_mlir.compile("model.mlir", target="gpu", output="model.so")
    lib = amp_mlir.load("model.so")        # ahead of time: no MLIR needed
    amp_mlir.report("model.mlir", level="O1")["summary"]

    scaler = amp_mlir.GradScaler(init_loss_scaling=2.0**15)  # Paddle names
    scaler.step(optimizer); scaler.update()
    amp_mlir.rank(), amp_mlir.world_size()  # under mpirun (amp.all_reduce)

It calls amp-mlir's libraries (found as _paths explains) with ctypes, in
process (only compile(..., output=) runs amp-compile); Debian's MLIR has no
Python bindings. See docs/python.md.
"""

from ._paths import ToolsNotFound, find_root
from .compiler import (AmpDiagnostic, AmpError, AmpRemark, AmpWarning,
                       CompiledFunction, CompiledModule, CompileTiming,
                       DeviceArray, SignatureError,
                       TensorType,
                       amp_option_kinds, build_amp_options, compile,
                       lowering_options,
                       precision_graph,
                       record_ranges, report, transform)
from .aot import AotError, AotFunction, AotLibrary, load
from .dtypes import from_bfloat16, to_bfloat16
from .frontends import (FrontendError, UnsupportedOpError, from_onnx,
                        from_torch)
from .scaler import GradScaler
from .training import buffers_of, from_torch_training
from .trainer import Trainer, make_training_step, parameters_of
from . import distributed, optim, philox
from .distributed import rank, world_size

__version__ = "0.1.0"

__all__ = [
    "AmpDiagnostic", "AmpError", "AmpRemark", "AotError", "AotFunction", "AotLibrary", "AmpWarning", "CompiledFunction", "CompiledModule", "CompileTiming", "DeviceArray", "FrontendError",
    "GradScaler", "UnsupportedOpError", "from_onnx", "from_torch",
    "buffers_of", "from_torch_training", "Trainer", "make_training_step",
    "parameters_of",
    "SignatureError", "TensorType", "ToolsNotFound", "amp_option_kinds",
    "build_amp_options",
    "compile", "distributed", "find_root", "from_bfloat16", "optim",
    "philox",
    "load", "lowering_options", "precision_graph", "rank", "record_ranges", "report",
    "world_size",
    "to_bfloat16", "transform",
]
