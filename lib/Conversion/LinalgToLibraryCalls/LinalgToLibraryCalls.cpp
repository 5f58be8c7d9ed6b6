//===- LinalgToLibraryCalls.cpp - the amp-linalg-to-library-calls pass ----===//
//
// Part of amp-mlir. Matmuls and 2-D convolutions on memrefs become calls of
// libamp_runtime's cuBLAS/cuDNN wrappers (runtime/include/amp/runtime/
// AmpRuntime.h):
//
//   ampGpuGemm(transA, transB, batch, m, n, k, a, aType, lda, strideA,
//              b, bType, ldb, strideB, c, cType, ldc, strideC, beta)
//   ampGpuConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, padTop, padLeft,
//                strideH, strideW, dilH, dilW, groups, x, xType, w, wType,
//                y, yType, beta)                             (groups = 1)
//
// Buffers are passed as raw device pointers; a linalg.fill of zero into the
// output right before the op becomes beta = 0 (and is erased).
//
// With target=cpu (the CPU pipeline), matmuls and batch matmuls become
// ampCpuLibraryGemm and convolutions ampCpuLibraryConv2d on host pointers
// instead (same arguments: the host's CBLAS, f32 accumulation; the
// convolutions packed im2col, also in the NHWC/FHWC form of tosa.conv2d,
// and with a dynamic batch).
//
// Epilogues: a zero-filled f32 accumulator (a memref.alloc) whose only
// readers narrow it (arith.truncf to the operands' f16/bf16 type, see
// ContractionEpilogues.h) is not materialised: the call writes the 16-bit
// type itself (f32 compute, one rounding), straight into the output of a
// conversion-only generic, which is erased, or else into a 16-bit buffer
// that the fused epilogue generics read in place of their truncf.
//
// FP8 GEMMs (amp.scaled_matmul, from amp-float8-contractions) become
// ampGpuScaledGemm (ampCpuLibraryScaledGemm on the CPU), the op's scale
// the call's scale pointer (cuBLASLt's A scale); an f32 destination only
// narrowed to bf16 or f16 is folded as above (a bf16 D). An abs-max
// reduction of the call's f32 output (amp.amax, lowered) becomes the call's
// dAmax.
//
// amp.attention on buffers becomes ampGpuAttention (cuDNN's fused
// attention) where the backend has it (AttentionCalls.cpp).
//
// The families of calls are one file each, exporting their patterns
// (GemmCalls.cpp, ScaledGemmCalls.cpp, ConvCalls.cpp, AttentionCalls.cpp),
// and ask the target's backend what its libraries take (CpuLibraries.cpp,
// GpuLibraries.cpp); the driver, which applies them once per op in program
// order and says why an op stays, is LibraryCallLowering.cpp's.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPLINALGTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpLinalgToLibraryCallsPass
    : public amp::impl::AmpLinalgToLibraryCallsPassBase<
          AmpLinalgToLibraryCallsPass> {
  using Base::Base;

  /// The backend `target` names, chosen once, with its patterns; none for
  /// a target that names no backend (reported at the module).
  LogicalResult initialize(MLIRContext *context) override {
    backend = target == "cpu"   ? &getCpuLibraryBackend()
              : target == "gpu" ? &getGpuLibraryBackend(float8Gemms)
                                : nullptr;
    if (!backend)
      return success();
    RewritePatternSet set(context);
    populateAmpLinalgToLibraryCallsPatterns(set, *backend, convolutions,
                                            convEpilogues);
    patterns = std::move(set);
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!backend) {
      module.emitError() << "amp-linalg-to-library-calls: target must be gpu "
                            "or cpu, got '"
                         << target << "'";
      return signalPassFailure();
    }
    if (failed(applyLibraryCallPatterns(module, patterns, *backend)))
      signalPassFailure();
  }

  const LibraryBackend *backend = nullptr;
  FrozenRewritePatternSet patterns;
};
} // namespace

void mlir::amp::populateAmpLinalgToLibraryCallsPatterns(
    RewritePatternSet &patterns, const LibraryBackend &backend,
    bool convolutions, bool convEpilogues) {
  populateAmpGemmToLibraryCallsPatterns(patterns, backend);
  populateAmpScaledGemmToLibraryCallsPatterns(patterns, backend);
  populateAmpAttentionToLibraryCallsPatterns(patterns, backend);
  if (convolutions)
    populateAmpConvToLibraryCallsPatterns(patterns, backend, convEpilogues);
}
