#!/usr/bin/env bash
#===- fetch-cudnn-frontend.sh - the cudnn-frontend headers ---------------===#
#
# cudnn-frontend (NVIDIA's header-only C++ API over cuDNN's graph API) for
# the runtime's fused attention (runtime/lib/CudnnAttention.cpp). It comes
# from PyPI's nvidia-cudnn-frontend wheel, pinned with its hash; only the
# wheel's include/ directory is kept. Idempotent (nothing to do when the
# headers are there); `make deps` runs it.
#
#   fetch-cudnn-frontend.sh [DIR]   headers into DIR/cudnn-frontend-VERSION/
#                                   (default: <repo>/.deps), where the
#                                   runtime's CMake looks for them
#
#===----------------------------------------------------------------------===#
set -euo pipefail

VERSION=1.32.0
WHEEL=nvidia_cudnn_frontend-${VERSION}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
SHA256=c6006556017a4d1c914c52a556c71b1267f2d6a0500f742e7b4edef539878df0

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST="${1:-$REPO/.deps}/cudnn-frontend-${VERSION}"
[[ -f "$DEST/include/cudnn_frontend.h" ]] && exit 0

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "fetch-cudnn-frontend: downloading nvidia-cudnn-frontend ${VERSION}" >&2
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 --python-version 3.11 \
    "nvidia-cudnn-frontend==${VERSION}" -d "$TMP" >"$TMP/pip.log" 2>&1; then
  echo "fetch-cudnn-frontend: error: pip could not download" \
       "nvidia-cudnn-frontend==${VERSION} from PyPI:" >&2
  tail -n 5 "$TMP/pip.log" >&2
  exit 1
fi
if ! echo "${SHA256}  $TMP/${WHEEL}" | sha256sum --check --quiet; then
  echo "fetch-cudnn-frontend: error: ${WHEEL} does not have the pinned" \
       "SHA-256 ${SHA256}" >&2
  exit 1
fi
python3 - "$TMP/${WHEEL}" "$TMP/unpacked" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    wheel.extractall(sys.argv[2], [name for name in wheel.namelist()
                                   if name.startswith("include/")])
PY
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST.partial"
mkdir -p "$DEST.partial"
mv "$TMP/unpacked/include" "$DEST.partial/include"
mv "$DEST.partial" "$DEST"
echo "fetch-cudnn-frontend: headers in $DEST/include" >&2
