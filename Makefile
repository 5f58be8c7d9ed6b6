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
#
# Each target does its own set-up: missing Debian packages are installed
# (scripts/install-deps.sh), CMake is configured once, and the build is
# incremental. Variables: BUILD_DIR, BUILD_TYPE, CMAKE_ARGS, PREFIX.

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
PREFIX     ?= $(CURDIR)/install
CMAKE_ARGS ?=
PYTHON     ?= /usr/bin/python3

.PHONY: all deps configure build demo check docs bench install wheel clean frontends

all: build

deps:
	@scripts/install-deps.sh

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

# Regenerates the dialect and pass references under docs/reference/.
docs: build
	cmake --build $(BUILD_DIR) --target amp-doc
	$(PYTHON) scripts/update-docs.py $(BUILD_DIR)/docs docs/reference

# Cast placement and compile-time benchmark (minutes; not part of check).
# Timings come from a release build without assertions, like Debian's
# libMLIR that the baselines run in (the test build keeps amp-mlir's asserts,
# which also turn on MLIR's debug-only checks in inline header code).
BENCH_BUILD_DIR ?= build-release
$(BENCH_BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BENCH_BUILD_DIR) -DCMAKE_BUILD_TYPE=Release \
	  -DAMP_ENABLE_ASSERTIONS=OFF -DAMP_BUILD_TESTS=OFF \
	  -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_ARGS)

bench: deps
	@$(MAKE) --no-print-directory $(BENCH_BUILD_DIR)/build.ninja
	cmake --build $(BENCH_BUILD_DIR) --target amp-opt
	$(PYTHON) bench/run.py --amp-opt $(BENCH_BUILD_DIR)/bin/amp-opt --repeat 9

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
