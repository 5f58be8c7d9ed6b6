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
# scripts/make-venv.sh does the work. Wheels are downloaded once into a
# cache on this machine (AMP_WHEEL_CACHE, default ~/.cache/amp-mlir/wheels,
# shared with scripts/install-frontends.sh) and installed from there; they
# are never part of the repository. About 4 GB of wheels (PyPI's Linux torch
# is the CUDA build), 7 GB installed. Idempotent: does nothing when the
# environment already has the pins.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# Each peer runs in a process of its own: each must import on its own.
exec "$ROOT/scripts/make-venv.sh" install-peers \
  "$ROOT/bench/peers/requirements.txt" "${1:-$ROOT/.venv-peers}" \
  torch torchvision torch_mlir.fx onnxruntime onnxconverter_common tvm \
  tensorflow transformers iree.compiler iree.runtime
