"""Installs the amp_mlir package offline: `pip install ./python` (in a venv
made with --system-site-packages, for Debian's numpy). `pip install
"./python[torch]"` also installs the pinned PyTorch frontend packages of
requirements-frontends.txt (from PyPI, about 4 GB: torch is the CUDA build).

There is deliberately no pyproject.toml: pip would then build in an isolated
environment and fetch setuptools from an index, which fails offline. The
install records where amp-mlir's tools are (AMP_MLIR_ROOT if set, else this
repository's build/) in amp_mlir/_install_config.py; AMP_MLIR_ROOT at run
time still wins.
"""

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def frontend_requirements():
    """The pinned frontend packages (requirements-frontends.txt): the
    `torch` extra, `pip install "./python[torch]"`."""
    lines = (HERE / "requirements-frontends.txt").read_text().splitlines()
    return [line.strip() for line in lines
            if line.strip() and not line.lstrip().startswith("#")]


class BuildWithConfig(build_py):
    """Writes _install_config.py into the built package."""

    def run(self):
        super().run()
        root = os.environ.get("AMP_MLIR_ROOT") or str(HERE.parent / "build")
        target = Path(self.build_lib) / "amp_mlir" / "_install_config.py"
        target.write_text(
            '"""Written by setup.py: the amp-mlir tree this package uses."""\n'
            f"ROOT = {str(Path(root).resolve())!r}\n")


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
    cmdclass={"build_py": BuildWithConfig},
)
