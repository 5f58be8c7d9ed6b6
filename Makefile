# amp-mlir: the two README commands.
#
#   make demo    set up, build, and run amp-opt and amp-run on the bundled
#                examples
#   make check   set up, build, and run every test
#   make install install into PREFIX (relocatable: the prefix can be
#                copied or moved afterwards)
#   make wheel   a platform wheel of the Python package that carries amp-opt,
#                amp-run and the libraries, in $(BUILD_DIR)/wheel
#   make frontends  the PyTorch frontend environment (.venv-frontends:
#                pinned torch, torchvision, torch-mlir, onnx from PyPI, about
#                4 GB); make check then also runs the model tests
#   make gpu-kit $(BUILD_DIR)/gpu-kit: libraries compiled ahead of time,
#                the runtime's tests, inputs and CPU references, run.sh; copy
#                it to a CUDA machine and run `bash gpu-kit/run.sh --quick`
#                (docs/gpu.md)
#   make onnx-conformance  ONNX's own backend test models (the onnx wheel's
#                data) through amp_mlir.from_onnx at O0, O1 and O2 in the
#                frontend environment; rewrites the table in docs/frontends.md
#   make peers   amp-mlir beside ONNX float16/auto-mixed, TVM Relax, torch
#                autocast (eager and torch.compile), IREE and TF grappler
#                on five models (.venv-peers, bench/peers/); rewrites the
#                table in docs/performance.md
#   make fuzz    libFuzzer on amp-opt's parser and pipelines for FUZZ_TIME
#                seconds (build-fuzz; docs/reliability.md)
#   make check-sanitize  every test on an ASan+UBSan build (build-asan)
#
# Each target does its own set-up: missing Debian packages are installed
# (scripts/install-deps.sh), CMake is configured once, and the build is
# incremental. Variables: BUILD_DIR, BUILD_TYPE, CMAKE_ARGS, PREFIX.

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
PREFIX     ?= $(CURDIR)/install
CMAKE_ARGS ?=
PYTHON     ?= /usr/bin/python3

.PHONY: all deps configure build demo check docs bench install wheel clean \
	frontends deps-sanitize fuzz check-sanitize peers gpu-kit onnx-conformance

all: build

deps:
	@scripts/install-deps.sh
	@scripts/fetch-cudnn-frontend.sh

$(BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS)

configure: deps
	@$(MAKE) --no-print-directory $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR)

demo: build
	$(PYTHON) scripts/demo.py --amp-opt $(BUILD_DIR)/bin/amp-opt \
	  --amp-run $(BUILD_DIR)/bin/amp-run \
	  examples/amp_training_step.mlir \
	  examples/linalg_convnet.mlir examples/tosa_mlp_classifier.mlir

check: build
	cmake --build $(BUILD_DIR) --target check-amp

frontends:
	scripts/install-frontends.sh

# The GPU kit (docs/gpu.md): what a bare CUDA machine needs to run the GPU
# tests and benchmark, in $(BUILD_DIR)/gpu-kit (at most 48 MiB). GPU_KIT_ARGS
# passes options to scripts/gpu-kit/build_kit.py (--no-large, --only ...).
# With the frontend environment (make frontends), the imported PyTorch models
# are added (scripts/gpu-kit/export_models.py).
GPU_KIT_ARGS ?=
GPU_KIT_TARGETS = amp-compile amp-opt amp_runtime amp_runtime_gpusim \
  AmpRuntimeTests AmpRuntimeGpuTests AmpGpuContractTests AmpGpuSimTests
GPU_KIT_FRONTEND_PYTHON ?= .venv-frontends/bin/python
gpu-kit: configure
	cmake --build $(BUILD_DIR) --target $(GPU_KIT_TARGETS)
	@if [ -x $(GPU_KIT_FRONTEND_PYTHON) ]; then \
	  AMP_MLIR_ROOT=$(CURDIR)/$(BUILD_DIR) $(GPU_KIT_FRONTEND_PYTHON) \
	    scripts/gpu-kit/export_models.py $(BUILD_DIR)/gpu-kit-models && \
	  models="--frontend-models $(BUILD_DIR)/gpu-kit-models"; \
	else \
	  echo "gpu-kit: no $(GPU_KIT_FRONTEND_PYTHON) (make frontends): the frontend models are left out"; \
	fi; \
	$(PYTHON) scripts/gpu-kit/build_kit.py --build $(BUILD_DIR) \
	  --out $(BUILD_DIR)/gpu-kit $$models $(GPU_KIT_ARGS)

# The peer AMP systems side by side (bench/peers/, issue 18; about 15
# minutes on 2 cores, not part of check). Makes the peers' environment
# (scripts/install-peers.sh, PyPI once) and rewrites the table between the
# peers-table markers of docs/performance.md; the run is kept in
# bench/peers/results/peers.json (commit it with the table:
# test/Bench/peers-table-doc.test checks that the table is its rendering).
PEERS_VENV   ?= .venv-peers
PEERS_MODELS ?= torchvision:resnet18 torchvision:mobilenet_v2 \
  torch:models:transformer_encoder torch:models:bert_block \
  torch:models:hf_bert
peers: build
	scripts/install-peers.sh $(PEERS_VENV)
	AMP_MLIR_ROOT=$(CURDIR)/$(BUILD_DIR) PYTHONPATH=$(CURDIR)/python \
	  $(PEERS_VENV)/bin/python bench/peers/run.py \
	  $(foreach m,$(PEERS_MODELS),--model $(m)) \
	  --work $(BUILD_DIR)/peers --json bench/peers/results/peers.json \
	  --update-doc docs/performance.md

# ONNX's backend test models (the model tests of the onnx wheel's
# onnx/backend/test/data: suites simple, pytorch-converted, pytorch-operator
# and light; nothing is downloaded) through amp_mlir.from_onnx and compile
# at O0, O1 and O2 against their reference outputs (scripts/onnx-conformance.py,
# issue 45; 5 minutes or more on 2 cores, not part of check). Makes the
# frontend environment (scripts/install-frontends.sh) and rewrites the table
# between the onnx-conformance markers of docs/frontends.md; the run is kept
# in bench/results/onnx-conformance.json (commit it with the table:
# test/Docs/onnx-conformance-table.test checks that the table is its
# rendering).
FRONTENDS_VENV ?= .venv-frontends
onnx-conformance: build
	scripts/install-frontends.sh $(FRONTENDS_VENV)
	AMP_MLIR_ROOT=$(CURDIR)/$(BUILD_DIR) PYTHONPATH=$(CURDIR)/python \
	  $(FRONTENDS_VENV)/bin/python scripts/onnx-conformance.py \
	  --json bench/results/onnx-conformance.json \
	  --update-doc docs/frontends.md

# Regenerates the dialect and pass references under docs/reference/.
docs: build
	cmake --build $(BUILD_DIR) --target amp-doc
	$(PYTHON) scripts/update-docs.py $(BUILD_DIR)/docs docs/reference

# Cast placement and compile-time benchmark (minutes; not part of check).
# Keeps the run in bench/results/cpu.json and rewrites the bench-* tables of
# docs/performance.md and docs/policies.md (test/Bench/bench-tables.test
# checks them against it).
# Timings come from a release build without assertions, like Debian's
# libMLIR that the baselines run in (the test build keeps amp-mlir's asserts,
# which also turn on MLIR's debug-only checks in inline header code).
BENCH_BUILD_DIR ?= build-release
$(BENCH_BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BENCH_BUILD_DIR) -DCMAKE_BUILD_TYPE=Release \
	  -DAMP_ENABLE_ASSERTIONS=OFF -DAMP_BUILD_TESTS=OFF \
	  -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS)

#
# Then CPU execution of real models beside PyTorch and ONNX Runtime
# (bench/cpu_models.py, issue 28; with the peers' environment, which has
# onnxruntime): keeps bench/results/cpu-models.json and rewrites the
# cpu-models table and verdict lines of docs/performance.md
# (test/Bench/cpu-models-doc.test checks them against it). Then the
# torch.compile backend beside Inductor (bench/torch_compile.py, issue 47;
# in the frontend environment): bench/results/torch-compile.json and the
# torch-compile table (test/Bench/torch-compile-doc.test).
bench: deps build
	@$(MAKE) --no-print-directory $(BENCH_BUILD_DIR)/build.ninja
	cmake --build $(BENCH_BUILD_DIR) --target amp-opt
	$(PYTHON) bench/run.py --amp-opt $(BENCH_BUILD_DIR)/bin/amp-opt --repeat 9 \
	  --build "release build of \`make bench\`" --json bench/results/cpu.json \
	  --update-doc docs/performance.md --update-doc docs/policies.md
	scripts/install-peers.sh $(PEERS_VENV)
	AMP_MLIR_ROOT=$(CURDIR)/$(BUILD_DIR) PYTHONPATH=$(CURDIR)/python \
	  $(PEERS_VENV)/bin/python bench/cpu_models.py \
	  --json bench/results/cpu-models.json --update-doc docs/performance.md
	scripts/install-frontends.sh
	AMP_MLIR_ROOT=$(CURDIR)/$(BUILD_DIR) PYTHONPATH=$(CURDIR)/python \
	  $(GPU_KIT_FRONTEND_PYTHON) bench/torch_compile.py \
	  --json bench/results/torch-compile.json --update-doc docs/performance.md

# Reliability builds (docs/reliability.md), with clang 22 and its sanitizer
# runtimes (installed on first use; not needed by the targets above). Only
# amp-mlir's code is instrumented: Debian's libMLIR.so is not.
SANITIZE_CC  ?= /usr/lib/llvm-22/bin/clang
SANITIZE_CXX ?= /usr/lib/llvm-22/bin/clang++
SANITIZERS   ?= address,undefined
SANITIZE_CMAKE_ARGS = -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=$(SANITIZE_CC) -DCMAKE_CXX_COMPILER=$(SANITIZE_CXX) \
  -DAMP_SANITIZERS=$(SANITIZERS) -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS)

deps-sanitize:
	@scripts/install-deps.sh --sanitizers

# libFuzzer target amp-opt-fuzzer (ASan+UBSan), seeded with the lit tests'
# -split-input-file chunks, run for FUZZ_TIME seconds; reproducers stay in
# $(FUZZ_BUILD_DIR)/fuzz/artifacts and make fails when there is a new one.
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_TIME      ?= 60
FUZZ_ARGS      ?=
$(FUZZ_BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(FUZZ_BUILD_DIR) $(SANITIZE_CMAKE_ARGS) \
	  -DAMP_ENABLE_FUZZER=ON -DAMP_BUILD_TESTS=OFF

fuzz: deps-sanitize
	@$(MAKE) --no-print-directory $(FUZZ_BUILD_DIR)/build.ninja
	cmake --build $(FUZZ_BUILD_DIR) --target amp-opt-fuzzer
	$(PYTHON) scripts/run-fuzzer.py $(FUZZ_BUILD_DIR)/bin/amp-opt-fuzzer \
	  $(FUZZ_BUILD_DIR)/fuzz $(FUZZ_TIME) $(FUZZ_ARGS)

# The whole test suite on an ASan+UBSan build (tens of minutes on two
# cores: not part of `make check` nor of CI).
SANITIZE_BUILD_DIR ?= build-asan
$(SANITIZE_BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(SANITIZE_BUILD_DIR) $(SANITIZE_CMAKE_ARGS)

check-sanitize: deps-sanitize
	@$(MAKE) --no-print-directory $(SANITIZE_BUILD_DIR)/build.ninja
	cmake --build $(SANITIZE_BUILD_DIR) --target check-amp

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# The Python package as a wheel with the tools inside (amp_mlir/_prefix),
# built offline from a copy of python/ (no build/ left in the tree). Its
# binaries link Debian's libMLIR/libLLVM 22: install it where those are.
wheel: build
	rm -rf $(BUILD_DIR)/wheel-src $(BUILD_DIR)/wheel
	mkdir -p $(BUILD_DIR)/wheel-src
	cp -r python/setup.py python/requirements-frontends.txt python/amp_mlir \
	  $(BUILD_DIR)/wheel-src/
	cd $(BUILD_DIR)/wheel-src && AMP_MLIR_BUILD_DIR=$(abspath $(BUILD_DIR)) \
	  PIP_NO_INDEX=1 $(PYTHON) -m pip wheel --no-deps --no-index \
	  --no-build-isolation -w $(abspath $(BUILD_DIR))/wheel .
	@ls $(BUILD_DIR)/wheel/*.whl

clean:
	rm -rf $(BUILD_DIR)
