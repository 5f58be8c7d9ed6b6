"""`pip install ./python` works offline (in a venv that sees Debian's numpy)
and the installed package finds the tools it was installed against; a wheel
built with AMP_MLIR_BUILD_DIR carries the tools and needs no build tree."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PYTHON_DIR

SCRIPT = """
import numpy as np, amp_mlir, amp_mlir._install_config as c
assert amp_mlir.__file__.startswith(%r), amp_mlir.__file__
m = amp_mlir.compile("func.func @f(%%a: tensor<3xf32>) -> tensor<3xf32> {\\n"
                     "  %%b = arith.mulf %%a, %%a : tensor<3xf32>\\n"
                     "  return %%b : tensor<3xf32>\\n}\\n", level="O2")
print("root", c.ROOT)
print("result", m(np.array([1, 2, 3], np.float32)).tolist())
from importlib.metadata import entry_points
for entry in entry_points(group="torch_dynamo_backends"):
    print("backend", entry.name, entry.value)
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
    # torch.compile(backend="amp_mlir") finds the backend by this name.
    assert "backend amp_mlir amp_mlir.dynamo:amp_mlir_backend" in out


WHEEL_SCRIPT = """
import os, numpy as np, amp_mlir
from pathlib import Path
assert "AMP_MLIR_ROOT" not in os.environ
package = Path(amp_mlir.__file__).resolve().parent
assert package.is_relative_to(%r), package
print("root in package", amp_mlir.find_root() == package / "_prefix")
m = amp_mlir.compile("func.func @f(%%a: tensor<3xf32>) -> tensor<3xf32> {\\n"
                     "  %%b = arith.mulf %%a, %%a : tensor<3xf32>\\n"
                     "  return %%b : tensor<3xf32>\\n}\\n", level="O2")
print("result", m(np.array([1, 2, 3], np.float32)).tolist())
print("capi", Path(amp_mlir._capi.lib()._name).resolve().relative_to(package))
"""

BUNDLED = ("amp_mlir/_prefix/bin/amp-opt", "amp_mlir/_prefix/bin/amp-run",
           "amp_mlir/_prefix/lib/libAmpRunnerCAPI.so",
           "amp_mlir/_prefix/lib/libamp_runtime.so")


def test_wheel_carries_the_tools(tmp_path):
    """AMP_MLIR_BUILD_DIR=<build> pip wheel ./python: a platform wheel with
    amp-opt, amp-run and both libraries inside, usable from a venv with no
    AMP_MLIR_ROOT and no build tree in sight."""
    import zipfile
    pytest.importorskip("wheel")
    root = Path(os.environ["AMP_MLIR_ROOT"]).resolve()
    if not (root / "cmake_install.cmake").is_file():
        pytest.skip(f"AMP_MLIR_ROOT={root} is not a build tree")
    source = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, source,
                    ignore=shutil.ignore_patterns("__pycache__", "build",
                                                  "*.egg-info", "tests"))
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               AMP_MLIR_BUILD_DIR=str(root))
    env.pop("AMP_MLIR_ROOT")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet",
                    "--no-deps", "--no-index", "--no-build-isolation",
                    "-w", str(dist), str(source)],
                   check=True, env=env, cwd=tmp_path)
    wheels = list(dist.glob("*.whl"))
    assert [w.name for w in wheels] == [
        "amp_mlir-0.1.0-py3-none-linux_x86_64.whl"], wheels
    with zipfile.ZipFile(wheels[0]) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        wheel_metadata = archive.read("amp_mlir-0.1.0.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: false" in wheel_metadata
    for name in BUNDLED:
        assert name in infos, sorted(infos)
        if "/bin/" in name:
            assert infos[name].external_attr >> 16 & 0o111, name
    # Nothing of this machine's build tree is recorded.
    assert "amp_mlir/_install_config.py" not in infos

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                    str(venv)], check=True)
    env.pop("AMP_MLIR_BUILD_DIR")
    subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index",
                    "--quiet", str(wheels[0])], check=True, env=env,
                   cwd=tmp_path)
    package = next(venv.glob("lib/python3*/site-packages/amp_mlir"))
    # The bundled binaries find libMLIR (the system's) and nothing of the
    # build tree: their RUNPATH is $ORIGIN-relative.
    readelf = shutil.which("readelf") or shutil.which("llvm-readelf")
    if readelf:
        for name in ("bin/amp-opt", "bin/amp-run", "lib/libAmpRunnerCAPI.so"):
            dynamic = subprocess.run(
                [readelf, "-d", str(package / "_prefix" / name)], check=True,
                capture_output=True, text=True).stdout
            assert "$ORIGIN/../lib" in dynamic, dynamic
            assert str(root) not in dynamic, dynamic
    # Run from elsewhere, with the build's bin/ off PATH.
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep)
        if p and Path(p).resolve() != root / "bin")
    out = subprocess.run([str(venv / "bin" / "python"), "-c",
                          WHEEL_SCRIPT % str(venv)], check=True, env=env,
                         cwd=tmp_path, capture_output=True, text=True).stdout
    assert "root in package True" in out, out
    assert "result [1.0, 4.0, 9.0]" in out, out
    assert "capi _prefix/lib/libAmpRunnerCAPI.so" in out, out
