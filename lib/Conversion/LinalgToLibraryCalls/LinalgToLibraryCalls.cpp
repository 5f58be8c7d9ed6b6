//===- LinalgToLibraryCalls.cpp - the amp-linalg-to-library-calls pass ----===//
//
// Part of amp-mlir. Matmuls and 2-D convolutions on memrefs become calls of
// libamp_runtime's cuBLAS/cuDNN wrappers (runtime/include/amp/runtime/
// AmpRuntime.h):
//
//   ampGpuGemm(transA, transB, batch, m, n, k, a, aType, lda, strideA,
//              b, bType, ldb, strideB, c, cType, ldc, strideC, beta)
//   ampGpuConv2d(layout, n, c, h, w, f, kh, kw, oh, ow, padTop, padLeft,
//                strideH, strideW, dilH, dilW, x, xType, w, wType, y, yType,
//                beta)
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
// FP8 GEMMs (amp-float8-contractions) become ampGpuScaledGemm
// (ampCpuLibraryScaledGemm on the CPU): when the zero-filled accumulator's
// one reader multiplies it by a 0-d buffer written before the GEMM (the
// dequantization factor 1 / (scale_a * scale_b)), the call takes that
// buffer as its scale pointer (cuBLASLt's A scale) and the multiplication
// leaves the epilogue; an epilogue left with nothing but a narrowing to
// bf16 or f16 is then folded as above (a bf16 D), one left with a copy
// into another f32 buffer too (the call writes that buffer). An abs-max
// reduction of the call's f32 output (amp.amax, lowered) becomes the call's
// dAmax.
//
// The families of calls are one file each (LibraryCallLowering.h).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPLINALGTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::library_calls;

namespace {
struct AmpLinalgToLibraryCallsPass
    : public amp::impl::AmpLinalgToLibraryCallsPassBase<
          AmpLinalgToLibraryCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target != "gpu" && target != "cpu") {
      module.emitError() << "amp-linalg-to-library-calls: target must be gpu "
                            "or cpu, got '"
                         << target << "'";
      return signalPassFailure();
    }
    bool onCpu = target == "cpu";
    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
              linalg::Conv2DNhwcHwcfOp>(op) ||
          (onCpu && isConvolution(op)))
        if (convolutions || isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
          ops.push_back(op);
    });
    Lowering lowering(module);
    lowering.onCpu = onCpu;
    for (linalg::LinalgOp op : ops) {
      if (!op.hasPureBufferSemantics()) {
        op->emitRemark("amp: not a library call: the op is on tensors "
                       "(run after bufferization)");
        continue;
      }
      std::string why;
      Operation *raw = op.getOperation();
      std::optional<ConvLayout> layout = getConvLayout(raw, onCpu);
      if (onCpu && !layout &&
          !isa<linalg::MatmulOp, linalg::BatchMatmulOp>(raw)) {
        raw->emitRemark()
            << "amp: kept as loops, not a library call: the CPU library "
               "calls compute 2-D convolutions of the forms "
               "conv_2d_nchw_fchw, conv_2d_nhwc_hwcf and conv_2d_nhwc_fhwc "
               "only (no groups, depthwise, 1-D or 3-D), not "
            << raw->getName();
        continue;
      }
      LogicalResult lowered = isa<linalg::MatmulOp>(raw)
                                  ? lowering.lowerGemm(op, false, why)
                              : isa<linalg::BatchMatmulOp>(raw)
                                  ? lowering.lowerGemm(op, true, why)
                                  : lowering.lowerConv(op, *layout, why);
      if (failed(lowered))
        raw->emitRemark() << (onCpu ? "amp: kept as loops, not a library "
                                      "call: "
                                    : "amp: kept as a generated kernel, not a "
                                      "library call: ")
                          << why;
    }
    if (lowering.hadError)
      signalPassFailure();
  }
};
} // namespace
