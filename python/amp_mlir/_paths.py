"""Where amp_mlir finds amp-opt, amp-run, libAmpRunnerCAPI.so and
libamp_runtime.so: a *root* with ``bin/`` and ``lib/`` (a build tree, an
install prefix, or the tree a wheel carries). In order:

1. ``AMP_MLIR_ROOT``: a build tree or an install prefix (``bin/amp-opt``,
   ``lib/libAmpRunnerCAPI.so``, ``lib/libamp_runtime.so``); when set, the only
   candidate;
2. the tree inside the package, ``amp_mlir/_prefix/{bin,lib}``, that a wheel
   built with ``AMP_MLIR_BUILD_DIR`` carries;
3. the install prefix around the package (``cmake --install`` puts it in
   ``<prefix>/python/amp_mlir`` and records the relative path ``../..`` in
   ``_install_config.py``), so a copied or moved prefix still works;
4. the tree recorded when the package was installed with ``pip install
   ./python`` (the repository's ``build/``, or AMP_MLIR_ROOT at install
   time), in ``_install_config.py``;
5. the repository the package is imported from (``python/amp_mlir`` next to
   ``build/``);
6. an ``amp-opt`` on ``PATH`` (its ``../lib`` holds the libraries).
"""

import os
import shutil
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
# Where a wheel built with AMP_MLIR_BUILD_DIR carries the tools (setup.py).
BUNDLED_ROOT = _PACKAGE_DIR / "_prefix"


class ToolsNotFound(RuntimeError):
    """amp-opt or a library of amp-mlir cannot be found."""


def _looks_like_root(root):
    return root is not None and (Path(root) / "bin" / "amp-opt").is_file()


def _candidates():
    env = os.environ.get("AMP_MLIR_ROOT")
    if env:
        # An explicit choice is the only candidate: a wrong path is an error,
        # not a reason to pick another tree silently.
        yield Path(env), "AMP_MLIR_ROOT"
        return
    yield BUNDLED_ROOT, "the tools in the package"
    try:
        from . import _install_config  # written at install time
    except ImportError:
        _install_config = None
    relative = getattr(_install_config, "PREFIX_FROM_PACKAGE", None)
    if relative:
        yield ((_PACKAGE_DIR / relative).resolve(),
               "the install prefix around the package")
    recorded = getattr(_install_config, "ROOT", None)
    if recorded:
        yield Path(recorded), "the tree recorded at install time"
    yield _PACKAGE_DIR.parent.parent / "build", "the repository's build/"
    tool = shutil.which("amp-opt")
    if tool:
        yield Path(tool).resolve().parent.parent, "amp-opt on PATH"


def find_root():
    """The build tree or install prefix in use, as a Path."""
    tried = []
    for root, origin in _candidates():
        if _looks_like_root(root):
            return root
        tried.append(f"{root} ({origin})")
    raise ToolsNotFound(
        "cannot find amp-mlir's tools (bin/amp-opt); tried: " +
        "; ".join(tried) +
        ". Build the repository (make) or set AMP_MLIR_ROOT to a build tree "
        "or install prefix.")


def tool(name):
    """The path of a tool of amp-mlir (amp-opt, amp-run)."""
    path = find_root() / "bin" / name
    if not path.is_file():
        raise ToolsNotFound(f"{path} does not exist")
    return path


def library(name):
    """The path of a shared library of amp-mlir (lib/<name>)."""
    root = find_root()
    for sub in ("lib", "lib64"):
        path = root / sub / name
        if path.is_file():
            return path
    raise ToolsNotFound(f"{name} is not in {root}/lib: build the target "
                        f"that makes it, or reinstall")
