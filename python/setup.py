"""Installs the amp_mlir package offline: `pip install ./python` (in a venv
made with --system-site-packages, for Debian's numpy). `pip install
"./python[torch]"` also installs the pinned PyTorch frontend packages of
requirements-frontends.txt (from PyPI, about 4 GB: torch is the CUDA build).

There is deliberately no pyproject.toml: pip would then build in an isolated
environment and fetch setuptools from an index, which fails offline.

Two kinds of package:

- Without AMP_MLIR_BUILD_DIR (`pip install ./python`): a pure package that
  records where amp-mlir's tools are (AMP_MLIR_ROOT if set, else this
  repository's build/) in amp_mlir/_install_config.py; AMP_MLIR_ROOT at run
  time still wins.
- With AMP_MLIR_BUILD_DIR=<a configured and built amp-mlir build tree>
  (`make wheel`): a platform wheel that carries amp-opt, amp-run,
  libAmpRunnerCAPI.so and libamp_runtime.so in amp_mlir/_prefix/{bin,lib},
  installed from that tree with `cmake --install --component` (so with the
  relocatable $ORIGIN RPATH, stripped). The binaries still link Debian's
  libMLIR/libLLVM 22 (/usr/lib/llvm-22/lib): the wheel is for machines with
  those packages (libmlir-22, libllvm22), which it does not bundle.
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
# The build tree whose tools a wheel carries; unset: a pure package.
BUILD_DIR = os.environ.get("AMP_MLIR_BUILD_DIR")
# The CMake install components the wheel carries, and what they must give.
BUNDLED_COMPONENTS = ("amp-opt", "amp-run", "AmpRunnerCAPI", "amp-runtime")
BUNDLED_FILES = ("bin/amp-opt", "bin/amp-run", "lib/libAmpRunnerCAPI.so",
                 "lib/libamp_runtime.so")
# amp_mlir/_paths.py looks here first (after AMP_MLIR_ROOT).
BUNDLED_DIR = "_prefix"


def frontend_requirements():
    """The pinned frontend packages (requirements-frontends.txt): the
    `torch` extra, `pip install "./python[torch]"`."""
    lines = (HERE / "requirements-frontends.txt").read_text().splitlines()
    return [line.strip() for line in lines
            if line.strip() and not line.lstrip().startswith("#")]


def bundle_tools(build_dir, target):
    """Installs the tools and libraries of the build tree `build_dir` into
    `target` (a <prefix> with bin/ and lib/)."""
    build_dir = Path(build_dir).resolve()
    if not (build_dir / "cmake_install.cmake").is_file():
        raise SystemExit(
            f"AMP_MLIR_BUILD_DIR={build_dir} is not a configured amp-mlir "
            "build tree (no cmake_install.cmake): run `make build` first")
    cmake = os.environ.get("CMAKE") or shutil.which("cmake") or "cmake"
    if target.exists():
        shutil.rmtree(target)
    for component in BUNDLED_COMPONENTS:
        subprocess.run([cmake, "--install", str(build_dir), "--prefix",
                        str(target), "--component", component, "--strip"],
                       check=True, stdout=subprocess.DEVNULL)
    missing = [f for f in BUNDLED_FILES if not (target / f).is_file()]
    if missing:
        raise SystemExit(f"{build_dir} did not install {', '.join(missing)}: "
                         "build all targets (make build) first")


class BuildWithConfig(build_py):
    """Writes _install_config.py into the built package, or with
    AMP_MLIR_BUILD_DIR puts the tools into it."""

    def run(self):
        super().run()
        package = Path(self.build_lib) / "amp_mlir"
        config = package / "_install_config.py"
        if BUILD_DIR:
            bundle_tools(BUILD_DIR, package / BUNDLED_DIR)
            # The wheel is for other machines: no path of this one in it.
            if config.exists():
                config.unlink()
            return
        # A build/ left by an earlier wheel build must not leak its tools.
        if (package / BUNDLED_DIR).exists():
            shutil.rmtree(package / BUNDLED_DIR)
        root = os.environ.get("AMP_MLIR_ROOT") or str(HERE.parent / "build")
        config.write_text(
            '"""Written by setup.py: the amp-mlir tree this package uses."""\n'
            f"ROOT = {str(Path(root).resolve())!r}\n")


class PlatformDistribution(Distribution):
    """With the tools inside, the package is platform-specific: bdist_wheel
    then makes a linux_x86_64 wheel installed into platlib."""

    def has_ext_modules(self):
        return bool(BUILD_DIR)


cmdclass = {"build_py": BuildWithConfig}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        """py3-none-<platform>: the tools are executables and ctypes
        libraries, usable from any Python 3, not a CPython extension."""

        def get_tag(self):
            python, abi, platform = super().get_tag()
            if BUILD_DIR:
                return "py3", "none", platform
            return python, abi, platform

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:  # no `wheel`: pip install still works through setup.py
    pass


setup(
    name="amp_mlir",
    version="0.1.0",
    description="Automatic mixed precision for MLIR modules: compile at "
                "O1/O2, run on numpy arrays, precision reports, GradScaler",
    packages=["amp_mlir"],
    python_requires=">=3.9",
    install_requires=["numpy"],
    # amp_mlir.from_torch; the rest of the package works without it.
    extras_require={"torch": frontend_requirements()},
    # torch.compile(model, backend="amp_mlir") without importing
    # amp_mlir.dynamo first: PyTorch looks backends up in this group.
    entry_points={"torch_dynamo_backends": [
        "amp_mlir = amp_mlir.dynamo:amp_mlir_backend"]},
    cmdclass=cmdclass,
    distclass=PlatformDistribution,
)
