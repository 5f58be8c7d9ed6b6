#!/usr/bin/env bash
#===- install-deps.sh - install the build and test dependencies ----------===#
#
# Idempotent and quiet: does nothing when every package is present; otherwise
# installs the missing ones with apt-get (as root, or through sudo). Fails
# with a clear message if apt cannot reach its index.
#
#   install-deps.sh               what `make build` / `make check` need
#   install-deps.sh --sanitizers  also clang-22 and its sanitizer and libFuzzer
#                                 runtimes (`make fuzz`, `make check-sanitize`)
#
#===----------------------------------------------------------------------===#
set -euo pipefail

PACKAGES=(
  # LLVM/MLIR 22: MLIRConfig.cmake and libMLIR, mlir-tblgen, lit/FileCheck.
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # Build tools.
  cmake ninja-build g++ make
  # The tests of the installed amp_runtime.pc (pkg-config --cflags --libs).
  pkg-config
  # Unit tests, lit, Python tests.
  libgtest-dev python3 python3-numpy python3-pytest
  # The collectives' MPI backend (libamp_runtime_mpi.so) and mpirun for its
  # tests (amp.all_reduce across ranks).
  openmpi-bin libopenmpi-dev
  # The CPU pipeline's matmuls (ampCpuLibraryGemm): OpenBLAS, opened with
  # dlopen by libamp_runtime (plain loops without it; docs/performance.md,
  # "Contractions through a CPU library").
  libopenblas-dev
  # The Python package: offline `pip install ./python` (tested in a venv),
  # plots of the training demo, precision graphs rendered with Graphviz.
  python3-pip python3-venv python3-matplotlib graphviz
)

case "${1:-}" in
  "") ;;
  --sanitizers)
    # clang 22 (the libMLIR it links against is 22.1) with ASan/UBSan and
    # libFuzzer runtimes; only for the opt-in reliability builds.
    PACKAGES+=(clang-22 libclang-rt-22-dev) ;;
  *)
    echo "install-deps: error: unknown option '$1' (known: --sanitizers)" >&2
    exit 2 ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: error: missing packages (${missing[*]}) and not root;" \
         "run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${SUDO[@]}" apt-get update -qq >/tmp/amp-apt-update.log 2>&1; then
  echo "install-deps: error: 'apt-get update' failed: apt cannot reach its" \
       "package index (see /tmp/amp-apt-update.log):" >&2
  tail -n 5 /tmp/amp-apt-update.log >&2
  exit 1
fi
if ! "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/tmp/amp-apt-install.log 2>&1; then
  echo "install-deps: error: 'apt-get install ${missing[*]}' failed" \
       "(see /tmp/amp-apt-install.log):" >&2
  tail -n 10 /tmp/amp-apt-install.log >&2
  exit 1
fi
echo "install-deps: done" >&2
