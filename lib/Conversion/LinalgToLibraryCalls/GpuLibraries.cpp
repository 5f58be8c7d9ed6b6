//===- GpuLibraries.cpp - the GPU's library calls -------------------------===//
//
// Part of amp-mlir. The GPU backend of amp-linalg-to-library-calls
// (target=gpu): the runtime's device calls on device pointers. GEMMs are
// cuBLASLt's (cublasGemmEx where it has no algorithm; Tensor Core math, f32
// compute; with a bias epilogue or a bias gradient),
// FP8 GEMMs cuBLASLt's, under its rules (Float8Kernels.h) on sm_89 and
// later, and convolutions cuDNN's legacy cudnnConvolutionForward in the
// NCHW/FCHW, NHWC/HWCF and NHWC/FHWC layouts (grouped and depthwise ones
// with a group count; their gradients cuDNN's backward calls in NCHW/FCHW
// and NHWC/FHWC), static but for the batch (whose descriptors the call sets
// at each call), with no FP8 form.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/Transforms/Float8Kernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
class GpuLibraryBackend final : public LibraryBackend {
public:
  explicit GpuLibraryBackend(bool float8Gemms) : float8Gemms(float8Gemms) {}

  StringRef getFallback() const override { return "a generated kernel"; }

  std::optional<RuntimeFunction> getFunction(LibraryCall call) const override {
    return getGpuFunction(call);
  }

  std::string getScaledGemmRefusal(Type a, Type b, bool transA, bool transB,
                                   int64_t k, int64_t n) const override {
    if (!float8Gemms)
      return kNoFloat8GemmsRefusal.str();
    return getCublasLtFloat8Refusal(a, b, transA, transB, k, n).str();
  }

  bool takesDynamicConvBatch() const override { return true; }
  StringRef getFloat8ConvRefusal() const override {
    return kNoFloat8ConvRefusal;
  }

private:
  bool float8Gemms;
};
} // namespace

const LibraryBackend &mlir::amp::getGpuLibraryBackend(bool float8Gemms) {
  static const GpuLibraryBackend withFloat8(true), withoutFloat8(false);
  return float8Gemms ? withFloat8 : withoutFloat8;
}
