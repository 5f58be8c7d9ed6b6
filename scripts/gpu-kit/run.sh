#!/usr/bin/env bash
# amp-mlir's GPU kit: checks the GPU path on any CUDA machine (no LLVM/MLIR
# needed there).
#
#   bash gpu-kit/run.sh [--quick [--budget=SECONDS]] [--sim] [--only SUBSTRINGS]
#                       [--no-torch]
#
#   --quick   fewer timed repetitions, and the whole run within 7 minutes
#             (a deadline run.py keeps: later steps are skipped, said so)
#   --sim     the GPU simulator instead of the GPU (CPU only: what CI runs)
#
# Needs bash, python3 with numpy, the NVIDIA driver, and cuBLAS/cuDNN: found
# where PyTorch's wheels put them (site-packages/nvidia/*/lib), else in
# /usr/local/cuda/lib64 (or $CUDA_HOME/lib64). Prints one table and writes
# results.json to $OUT if set, else next to this script. Exit status: 0 when
# every row passed, 1 when one failed, 2 without a GPU.
set -u
KIT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PYTHON:-python3}"

sim=0
quick=0
budget=420
args=()
for arg in "$@"; do
  case "$arg" in
    --sim) sim=1 ;;
    --quick) quick=1 ;;
    --budget=*)
      budget="${arg#--budget=}"
      case "$budget" in
        ''|*[!0-9]*) echo "gpu-kit: --budget takes whole seconds, not '$budget'" >&2
                     exit 2 ;;
      esac
      continue ;;
  esac
  args+=("$arg")
done

if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "gpu-kit: $PY cannot import numpy (set PYTHON=...)" >&2
  exit 2
fi

# cuBLAS and cuDNN from PyTorch's wheels (nvidia-cublas, nvidia-cudnn-cu13):
# the folders of site-packages/nvidia/*/lib that hold them.
wheel_dirs="$("$PY" - <<'EOF'
import glob, os, site, sys
roots = []
try:
    roots += site.getsitepackages()
except AttributeError:
    pass
roots.append(site.getusersitepackages())
roots += [p for p in sys.path if p.endswith("-packages")]
found = []
for root in dict.fromkeys(roots):
    for pattern in ("nvidia/*/lib", "nvidia/*/lib64", "nvidia/cu*/lib"):
        for folder in sorted(glob.glob(os.path.join(root, pattern))):
            if any(glob.glob(os.path.join(folder, name)) for name in
                   ("libcublas.so*", "libcublasLt.so*", "libcudnn*.so*")):
                found.append(folder)
print(":".join(dict.fromkeys(found)))
EOF
)"
find_lib() { # find_lib NAME DIRS... -> the first DIR/NAME that exists
  local name="$1" dir
  shift
  for dir in "$@"; do
    [ -e "$dir/$name" ] && { echo "$dir/$name"; return 0; }
  done
  return 1
}
IFS=: read -r -a wheel_list <<< "$wheel_dirs"
cuda_root="${CUDA_HOME:-/usr/local/cuda}"
search=("${wheel_list[@]}" "$cuda_root/lib64" /usr/local/cuda/lib64
        /usr/lib/x86_64-linux-gnu)
if [ -z "${AMP_RUNTIME_LIBCUBLAS:-}" ]; then
  if lib="$(find_lib libcublas.so.13 "${search[@]}")"; then
    export AMP_RUNTIME_LIBCUBLAS="$lib"
  fi
fi
if [ -z "${AMP_RUNTIME_LIBCUDNN:-}" ]; then
  if lib="$(find_lib libcudnn.so.9 "${search[@]}")"; then
    export AMP_RUNTIME_LIBCUDNN="$lib"
  fi
fi
# cuDNN opens its sub-libraries (libcudnn_ops, _cnn, engines) and cuBLAS
# its Lt part by name: their folders go on the loader path too.
extra=""
for lib in "${AMP_RUNTIME_LIBCUBLAS:-}" "${AMP_RUNTIME_LIBCUDNN:-}"; do
  [ -n "$lib" ] && extra="$extra:$(dirname "$lib")"
done
export LD_LIBRARY_PATH="$KIT/lib:$KIT/sim${extra}${wheel_dirs:+:$wheel_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "gpu-kit: cuBLAS ${AMP_RUNTIME_LIBCUBLAS:-not found (the runtime searches the loader path)}"
echo "gpu-kit: cuDNN  ${AMP_RUNTIME_LIBCUDNN:-not found (the runtime searches the loader path)}"

# --sim: the contract tests run against the simulator under the runtime's
# name.
sim_dir=""
cleanup() { [ -n "$sim_dir" ] && rm -rf "$sim_dir"; }
trap cleanup EXIT
if [ "$sim" = 1 ]; then
  sim_dir="$(mktemp -d)"
  ln -s "$KIT/sim/libamp_runtime_gpusim.so" "$sim_dir/libamp_runtime.so"
  args+=(--sim-lib-dir "$sim_dir")
fi

# A crash (a fault in a library call) ends the process, and so does a row
# that outlasts its cap (run.py's ROW_CAP_S): resume after that row, up to
# 11 times. --quick: run.py skips what would end
# after the deadline (the budget less 20 s for the closing table), and the
# run stops after 420 s in all, whatever happens (results.json keeps the
# rows that ran). --budget=SECONDS sets those 420 s.
deadline=$(( $(date +%s) + budget - 20 ))
status=0
for attempt in 1 2 3 4 5 6 7 8 9 10 11 12; do
  resume=()
  [ "$attempt" -gt 1 ] && resume=(--resume)
  limit=()
  timing=()
  [ "$quick" = 1 ] && timing=(--deadline "$deadline")
  if [ "$quick" = 1 ] && command -v timeout > /dev/null; then
    left=$((budget - SECONDS))
    if [ "$left" -le 5 ]; then
      echo "gpu-kit: out of time" >&2
      status=124
      break
    fi
    limit=(timeout -k 10 "$left")
  fi
  "${limit[@]}" "$PY" "$KIT/run.py" "${args[@]}" "${resume[@]}" "${timing[@]}"
  status=$?
  case "$status" in
    0|1|2) break ;;
    124|137)
      echo "gpu-kit: stopped after the time limit" >&2
      # The row in flight is recorded 'timeout', and the summary written.
      "$PY" "$KIT/run.py" --close-timeout
      break ;;
    3) echo "gpu-kit: a row outlasted its cap (recorded 'timeout'): resuming" >&2 ;;
    *) echo "gpu-kit: run.py died (status $status): resuming" >&2 ;;
  esac
done
exit "$status"
