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
# scripts/make-venv.sh does the work. Wheels are downloaded once into a
# cache on this machine (AMP_WHEEL_CACHE, default ~/.cache/amp-mlir/wheels) and installed from
# there; they are never part of the repository. PyPI's Linux torch is the
# CUDA build: the download is about 4 GB, the environment about 5 GB.
# Idempotent: does nothing when the environment already has the pins.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
exec "$ROOT/scripts/make-venv.sh" install-frontends \
  "$ROOT/python/requirements-frontends.txt" "${1:-$ROOT/.venv-frontends}" \
  torch torchvision torch_mlir.fx transformers timm
