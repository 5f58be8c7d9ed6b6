"""`pip install ./python` works offline (in a venv that sees Debian's numpy)
and the installed package finds the tools it was installed against."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import PYTHON_DIR

SCRIPT = """
import numpy as np, amp_mlir, amp_mlir._install_config as c
assert amp_mlir.__file__.startswith(%r), amp_mlir.__file__
m = amp_mlir.compile("func.func @f(%%a: tensor<3xf32>) -> tensor<3xf32> {\\n"
                     "  %%b = arith.mulf %%a, %%a : tensor<3xf32>\\n"
                     "  return %%b : tensor<3xf32>\\n}\\n", level="O2")
print("root", c.ROOT)
print("result", m(np.array([1, 2, 3], np.float32)).tolist())
"""


def test_pip_install_offline(tmp_path):
    root = Path(os.environ["AMP_MLIR_ROOT"]).resolve()
    source = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, source,
                    ignore=shutil.ignore_patterns("__pycache__", "build",
                                                  "*.egg-info", "tests"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                    str(venv)], check=True)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["AMP_MLIR_ROOT"] = str(root)  # recorded by setup.py
    subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index",
                    "--quiet", str(source)], check=True, env=env,
                   cwd=tmp_path)
    # At run time nothing points to the build but the recorded root.
    env.pop("AMP_MLIR_ROOT")
    out = subprocess.run([str(venv / "bin" / "python"), "-c",
                          SCRIPT % str(venv)], check=True, env=env,
                         cwd=tmp_path, capture_output=True, text=True).stdout
    assert f"root {root}" in out
    assert "result [1.0, 4.0, 9.0]" in out
