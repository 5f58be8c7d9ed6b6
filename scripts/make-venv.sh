#!/usr/bin/env bash
#===- make-venv.sh - a pinned virtual environment from a wheel cache -----===#
#
# The one implementation behind scripts/install-frontends.sh and
# scripts/install-peers.sh: creates (or brings up to date) VENV with the
# pins of REQUIREMENTS, then checks that each MODULE imports.
#
#   scripts/make-venv.sh LABEL REQUIREMENTS VENV MODULE...
#
# Wheels are downloaded once into a cache on this machine
# (AMP_WHEEL_CACHE, default ~/.cache/amp-mlir/wheels) and installed from
# there; they are never part of the repository. Idempotent: does nothing
# when the environment already has the pins (a copy of REQUIREMENTS in the
# environment records them). LABEL names the caller in the messages.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

if [[ $# -lt 4 ]]; then
  echo "make-venv: usage: make-venv.sh LABEL REQUIREMENTS VENV MODULE..." >&2
  exit 2
fi
LABEL="$1"
REQUIREMENTS="$2"
VENV="$3"
shift 3
CACHE="${AMP_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/amp-mlir/wheels}"
PYTHON="${PYTHON:-/usr/bin/python3}"
STAMP="$VENV/.amp-requirements"
LOG="/tmp/amp-$LABEL"

if [[ -x "$VENV/bin/python" && -f "$STAMP" ]] &&
    cmp -s "$STAMP" "$REQUIREMENTS"; then
  exit 0
fi

start=$(date +%s)
echo "$LABEL: creating $VENV (pins: $REQUIREMENTS)" >&2
mkdir -p "$CACHE" "$(dirname "$VENV")"
# The environments are large (PyPI's Linux torch is the CUDA build): say so
# before pip runs out of space halfway. AMP_VENV_MIN_FREE_GB (default 8)
# is what the environment and the wheels it lacks need, with room to spare.
need_gb="${AMP_VENV_MIN_FREE_GB:-8}"
for dir in "$(dirname "$VENV")" "$CACHE" "${TMPDIR:-/tmp}"; do
  free_kb=$(df -Pk "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')
  if [[ -n "$free_kb" ]] && (( free_kb < need_gb * 1024 * 1024 )); then
    echo "$LABEL: error: $(( free_kb / 1024 / 1024 )) GB free on the" \
         "file system of $dir; $need_gb GB are needed" \
         "(AMP_VENV_MIN_FREE_GB sets the bound)" >&2
    exit 1
  fi
done
"$PYTHON" -m venv "$VENV"
# Download what the cache lacks (files already there are reused), then
# install from the cache alone.
if ! "$VENV/bin/pip" download --quiet --no-cache-dir --dest "$CACHE" --find-links "$CACHE" \
    -r "$REQUIREMENTS" >"$LOG-download.log" 2>&1; then
  echo "$LABEL: error: 'pip download' failed; PyPI is needed" \
       "once (see $LOG-download.log):" >&2
  tail -n 5 "$LOG-download.log" >&2
  exit 1
fi
if ! "$VENV/bin/pip" install --quiet --no-cache-dir --no-index --find-links "$CACHE" \
    -r "$REQUIREMENTS" >"$LOG-install.log" 2>&1; then
  echo "$LABEL: error: 'pip install' failed (see $LOG-install.log):" >&2
  tail -n 10 "$LOG-install.log" >&2
  exit 1
fi
# Each import on its own, so that the message names the one that fails.
for module in "$@"; do
  if ! "$VENV/bin/python" -c "import $module" >/dev/null 2>&1; then
    echo "$LABEL: error: the environment does not import $module:" >&2
    "$VENV/bin/python" -c "import $module" 2>&1 | tail -n 3 >&2
    exit 1
  fi
done
cp "$REQUIREMENTS" "$STAMP"
echo "$LABEL: done in $(( $(date +%s) - start ))s" >&2
