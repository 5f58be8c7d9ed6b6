#!/usr/bin/env bash
#===- install-peers.sh - the peer AMP systems' virtual environment -------===#
#
# Creates (or brings up to date) a virtual environment with the pinned
# packages of bench/peers/requirements.txt: the frontend pins (torch,
# torchvision, torch-mlir, onnx) plus ONNX Runtime, onnxconverter-common,
# Apache TVM and TensorFlow (CPU), for `make peers` (bench/peers/run.py).
# Neither the build nor `make check` needs it.
#
#   scripts/install-peers.sh [VENV]     (default: .venv-peers)
#
# Wheels are downloaded once into a cache on this machine
# (AMP_WHEEL_CACHE, default ~/.cache/amp-mlir/wheels, shared with
# scripts/install-frontends.sh) and installed from there; they are never
# part of the repository. About 4 GB of wheels (PyPI's Linux torch is the
# CUDA build), 7 GB installed. Idempotent: does nothing when the
# environment already has the pins.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-peers}"
REQUIREMENTS="$ROOT/bench/peers/requirements.txt"
CACHE="${AMP_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/amp-mlir/wheels}"
PYTHON="${PYTHON:-/usr/bin/python3}"
STAMP="$VENV/.amp-requirements"

if [[ -x "$VENV/bin/python" && -f "$STAMP" ]] &&
    cmp -s "$STAMP" "$REQUIREMENTS"; then
  exit 0
fi

start=$(date +%s)
echo "install-peers: creating $VENV (pins: $REQUIREMENTS)" >&2
"$PYTHON" -m venv "$VENV"
mkdir -p "$CACHE"
if ! "$VENV/bin/pip" download --quiet --dest "$CACHE" --find-links "$CACHE" \
    -r "$REQUIREMENTS" >/tmp/amp-peers-download.log 2>&1; then
  echo "install-peers: error: 'pip download' failed; PyPI is needed" \
       "once (see /tmp/amp-peers-download.log):" >&2
  tail -n 5 /tmp/amp-peers-download.log >&2
  exit 1
fi
if ! "$VENV/bin/pip" install --quiet --no-index --find-links "$CACHE" \
    -r "$REQUIREMENTS" >/tmp/amp-peers-install.log 2>&1; then
  echo "install-peers: error: 'pip install' failed" \
       "(see /tmp/amp-peers-install.log):" >&2
  tail -n 10 /tmp/amp-peers-install.log >&2
  exit 1
fi
# Each import on its own: the peers run in separate processes.
for module in torch torchvision torch_mlir.fx onnxruntime \
    onnxconverter_common tvm tensorflow; do
  if ! "$VENV/bin/python" -c "import $module" >/dev/null 2>&1; then
    echo "install-peers: error: the environment does not import $module:" >&2
    "$VENV/bin/python" -c "import $module" 2>&1 | tail -n 3 >&2
    exit 1
  fi
done
cp "$REQUIREMENTS" "$STAMP"
echo "install-peers: done in $(( $(date +%s) - start ))s" >&2
