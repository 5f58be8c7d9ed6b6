//===- CpuLibraries.cpp - the CPU's library calls -------------------------===//
//
// Part of amp-mlir. The CPU backend of amp-linalg-to-library-calls
// (target=cpu, --lower-to-cpu's `libraries`): the runtime's host calls on
// host pointers. GEMMs are the host's CBLAS (OpenBLAS) with f16/bf16
// operands widened to f32 and f32 accumulation; convolutions pack each
// image into a column buffer (im2col) for that GEMM, in the NCHW/FCHW,
// NHWC/HWCF and NHWC/FHWC (tosa.conv2d's) layouts, grouped ones per group
// and depthwise ones directly, with a batch read at the call; FP8 operands are
// widened exactly, so every FP8 contraction the families match is taken.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"
#include "amp/Conversion/RuntimeCalls.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
class CpuLibraryBackend final : public LibraryBackend {
public:
  StringRef getFallback() const override { return "loops"; }

  std::optional<RuntimeFunction> getFunction(LibraryCall call) const override {
    return getCpuLibraryFunction(call);
  }

  std::string getScaledGemmRefusal(Type, Type, bool, bool, int64_t,
                                   int64_t) const override {
    return {};
  }

  bool takesDynamicConvBatch() const override { return true; }
  StringRef getFloat8ConvRefusal() const override { return {}; }
};
} // namespace

const LibraryBackend &mlir::amp::getCpuLibraryBackend() {
  static const CpuLibraryBackend backend;
  return backend;
}
