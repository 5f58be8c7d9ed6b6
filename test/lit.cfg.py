# -*- Python -*-
# lit configuration of the amp-mlir test suite.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AMP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amp_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%amp_src_root", config.amp_src_root))
config.substitutions.append(("%amp_obj_root", config.amp_obj_root))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
python = config.python_executable or "python3"
# Sanitizer builds: Python loads libAmpRunnerCAPI.so, which needs the
# sanitizer runtime loaded first; Python's own allocations are not ours to
# check for leaks (docs/reliability.md).
if getattr(config, "amp_sanitizer_preload", ""):
    python = "env LD_PRELOAD=%s ASAN_OPTIONS=allow_user_poisoning=0:" \
             "detect_leaks=0 %s" % (config.amp_sanitizer_preload, python)
config.substitutions.append(("%python", python))
# The interpreter alone (for PYTHON=... of scripts that run Python
# themselves, such as the GPU kit's run.sh).
config.substitutions.append(("%pyexe", config.python_executable or "python3"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# `not` and `count` are substituted verbatim: they must be on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.amp_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

tool_dirs = [config.amp_tools_dir, config.llvm_tools_dir]
tools = [
    # CIRCT-style: AMP_OPT_CHECK_IR_ROUNDTRIP=1 reroutes every amp-opt run
    # through --verify-roundtrip.
    ToolSubst("amp-opt",
              extra_args=["--verify-roundtrip"]
              if "AMP_OPT_CHECK_IR_ROUNDTRIP" in os.environ else [],
              unresolved="fatal"),
    ToolSubst("amp-run", unresolved="fatal"),
    ToolSubst("amp-compile", unresolved="fatal"),
    ToolSubst("mlir-opt", unresolved="ignore"),
    ToolSubst("mlir-translate", unresolved="ignore"),
    ToolSubst("mlir-runner", unresolved="ignore"),
    ToolSubst("llc", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# CPU execution tests: mlir-runner with the runner utilities (printMemref*).
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%mlir_runner_utils",
                             os.path.join(llvm_lib_dir,
                                          "libmlir_runner_utils.so")))
config.substitutions.append(("%mlir_c_runner_utils",
                             os.path.join(llvm_lib_dir,
                                          "libmlir_c_runner_utils.so")))
# The runtime, for mlir-runner runs of code that calls it (--lower-to-cpu's
# ampCpuLibraryGemm).
config.substitutions.append(("%amp_runtime",
                             os.path.join(config.amp_obj_root, "lib",
                                          "libamp_runtime.so")))

# Features ------------------------------------------------------------------
# `asan`, `ubsan`: amp-mlir's code is built with those sanitizers
# (AMP_SANITIZERS; `make check-sanitize`, docs/reliability.md).
sanitizers = [s.strip() for s in
              getattr(config, "amp_sanitizers", "").split(",") if s.strip()]
if "address" in sanitizers:
    config.available_features.add("asan")
if "undefined" in sanitizers:
    config.available_features.add("ubsan")
if sanitizers:
    # Every UBSan report is fatal (-fno-sanitize-recover=all); say where.
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    # LLVM's BumpPtrAllocator, inlined into our instrumented code, poisons
    # the free part of its slabs; Debian's uninstrumented libMLIR allocates
    # from the same slabs without unpoisoning: false use-after-poison
    # reports. Manual poisoning off (docs/reliability.md).
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
# `cuda-toolkit`: nvcc/ptxas available (compiling for NVIDIA GPUs works).
# `cuda-gpu`: a usable NVIDIA GPU (execution tests). Neither is needed by the
# tests that run in CI.
cuda_root = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_root, "bin", "ptxas")):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_root", cuda_root))
nvidia_smi = shutil.which("nvidia-smi")
if nvidia_smi:
    try:
        out = subprocess.run([nvidia_smi, "-L"], capture_output=True,
                             timeout=20, text=True)
        if out.returncode == 0 and "GPU" in out.stdout:
            config.available_features.add("cuda-gpu")
    except (OSError, subprocess.SubprocessError):
        pass
if shutil.which(config.cmake_command) and shutil.which(
        os.path.basename(config.cmake_make_program) or "ninja"):
    config.available_features.add("cmake")
# `pkg-config`: the pkg-config tool (Debian's pkg-config/pkgconf), for the
# tests of the installed amp_runtime.pc.
if shutil.which("pkg-config"):
    config.available_features.add("pkg-config")
# `graphviz`: Graphviz's `dot` renders precision graphs to SVG/PNG.
if shutil.which("dot"):
    config.available_features.add("graphviz")
# The Python package (python/amp_mlir) and what its tests use.
config.substitutions.append(("%amp_python_dir",
                             os.path.join(config.amp_src_root, "python")))
try:
    subprocess.run([config.python_executable or "python3", "-c",
                    "import matplotlib"], check=True, capture_output=True,
                   timeout=60)
    config.available_features.add("matplotlib")
except (OSError, subprocess.SubprocessError):
    pass
# `torch`: the PyTorch frontend environment (scripts/install-frontends.sh,
# or AMP_FRONTENDS_PYTHON naming a Python with torch, torchvision and
# torch-mlir); the tests under test/Frontends need it. %frontend_python runs
# that Python with python/ on its path; %frontend_bin is its bin/.
frontend_python = os.environ.get("AMP_FRONTENDS_PYTHON") or os.path.join(
    config.amp_src_root, ".venv-frontends", "bin", "python")
if os.path.exists(frontend_python):
    try:
        subprocess.run([frontend_python, "-c",
                        "import torch, torchvision, torch_mlir.fx"],
                       check=True, capture_output=True, timeout=300)
        config.available_features.add("torch")
        # torch-mlir-import-onnx, torch-mlir-opt.
        config.substitutions.append(("%frontend_bin",
                                     os.path.dirname(frontend_python)))
        config.substitutions.append(
            ("%frontend_python",
             "env AMP_MLIR_ROOT=%s PYTHONPATH=%s PYTHONDONTWRITEBYTECODE=1 %s"
             % (config.amp_obj_root, os.path.join(config.amp_src_root,
                                                  "python"),
                frontend_python)))
    except (OSError, subprocess.SubprocessError):
        pass
    # `transformers`, `timm`: the real-model tests' packages; `ml_dtypes`:
    # the reference of the f8 conversions (test/Transforms). Pinned in the
    # same environment (an environment made before they were pinned lacks
    # them: scripts/install-frontends.sh brings it up to date).
    if "torch" in config.available_features:
        for module in ("transformers", "timm", "ml_dtypes"):
            try:
                subprocess.run([frontend_python, "-c", f"import {module}"],
                               check=True, capture_output=True, timeout=300)
                config.available_features.add(module)
            except (OSError, subprocess.SubprocessError):
                pass
# AMP_REQUIRE_FRONTENDS=1 (.ci/run sets it when it installs the frontend
# environment): a missing frontend feature is an error, not a silent skip
# of the model tests.
if os.environ.get("AMP_REQUIRE_FRONTENDS", "0") not in ("", "0"):
    missing = [f for f in ("torch", "transformers", "timm", "ml_dtypes")
               if f not in config.available_features]
    if missing:
        lit_config.fatal(
            f"AMP_REQUIRE_FRONTENDS is set but the frontend environment "
            f"({frontend_python}) lacks {', '.join(missing)}: the model "
            f"tests would be skipped (run scripts/install-frontends.sh)")
# `peers-results`: the run `make peers` keeps in bench/peers/results/ (the
# peers table of docs/performance.md is checked against it).
if os.path.exists(os.path.join(config.amp_src_root, "bench", "peers",
                               "results", "peers.json")):
    config.available_features.add("peers-results")
# `mpi`: an MPI launcher (mpirun) and the runtime's MPI backend
# (libamp_runtime_mpi.so, built when CMake found MPI). %mpirun starts N ranks
# of a command: `%mpirun -n 2 amp-run ...`; with Open MPI it may run as root
# (CI containers) and start more ranks than there are cores.
mpirun = shutil.which("mpirun")
mpi_backend = os.path.join(config.amp_obj_root, "lib", "libamp_runtime_mpi.so")
if mpirun and os.path.exists(mpi_backend):
    config.available_features.add("mpi")
    flags = []
    try:
        version = subprocess.run([mpirun, "--version"], capture_output=True,
                                 text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        version = ""
    if "Open MPI" in version:
        flags.append("--oversubscribe")
        if os.geteuid() == 0:
            flags.append("--allow-run-as-root")
    config.substitutions.append(("%mpirun", " ".join([mpirun] + flags)))
# The launchers' variables from the environment lit runs in (lit itself
# under mpirun) would make every test a rank of that job.
for variable in ["OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE",
                 "PMI_RANK"]:
    config.environment.pop(variable, None)
