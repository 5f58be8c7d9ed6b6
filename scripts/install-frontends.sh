#!/usr/bin/env bash
#===- install-frontends.sh - the PyTorch frontend's virtual environment --===#
#
# Creates (or brings up to date) a virtual environment with the pinned
# frontend packages of python/requirements-frontends.txt: torch, torchvision
# and torch-mlir from PyPI. The core build and tests do not need it; the
# tests under test/Frontends run when it exists (lit feature `torch`).
#
#   scripts/install-frontends.sh [VENV]     (default: .venv-frontends)
#
# Wheels are downloaded once into a cache on this machine
# (AMP_WHEEL_CACHE, default ~/.cache/amp-mlir/wheels) and installed from
# there; they are never part of the repository. PyPI's Linux torch is the
# CUDA build: the download is about 4 GB, the environment about 5 GB.
# Idempotent: does nothing when the environment already has the pins.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-frontends}"
REQUIREMENTS="$ROOT/python/requirements-frontends.txt"
CACHE="${AMP_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/amp-mlir/wheels}"
PYTHON="${PYTHON:-/usr/bin/python3}"
STAMP="$VENV/.amp-requirements"

if [[ -x "$VENV/bin/python" && -f "$STAMP" ]] &&
    cmp -s "$STAMP" "$REQUIREMENTS"; then
  exit 0
fi

start=$(date +%s)
echo "install-frontends: creating $VENV (pins: $REQUIREMENTS)" >&2
"$PYTHON" -m venv "$VENV"
mkdir -p "$CACHE"
# Download what the cache lacks (files already there are reused), then
# install from the cache alone.
if ! "$VENV/bin/pip" download --quiet --dest "$CACHE" --find-links "$CACHE" \
    -r "$REQUIREMENTS" >/tmp/amp-frontends-download.log 2>&1; then
  echo "install-frontends: error: 'pip download' failed; PyPI is needed" \
       "once (see /tmp/amp-frontends-download.log):" >&2
  tail -n 5 /tmp/amp-frontends-download.log >&2
  exit 1
fi
if ! "$VENV/bin/pip" install --quiet --no-index --find-links "$CACHE" \
    -r "$REQUIREMENTS" >/tmp/amp-frontends-install.log 2>&1; then
  echo "install-frontends: error: 'pip install' failed" \
       "(see /tmp/amp-frontends-install.log):" >&2
  tail -n 10 /tmp/amp-frontends-install.log >&2
  exit 1
fi
"$VENV/bin/python" -c "import torch, torchvision, torch_mlir.fx" || {
  echo "install-frontends: error: the environment does not import" >&2
  exit 1
}
cp "$REQUIREMENTS" "$STAMP"
echo "install-frontends: done in $(( $(date +%s) - start ))s" >&2
