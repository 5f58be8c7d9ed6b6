//===- LinalgToLibraryCalls.h - linalg to runtime calls ---------*- C++ -*-===//
//
// Part of amp-mlir. amp-linalg-to-library-calls: matmuls and convolutions on
// buffers as calls of libamp_runtime's library wrappers. One family of
// calls per file, each exporting its patterns (GEMM, scaled FP8 GEMM,
// convolution); what a target's libraries take is its backend's
// (LibraryBackend: the CPU's CBLAS and im2col, the GPU's cuBLAS, cuBLASLt
// and cuDNN), one file each, as IREE keeps LLVMCPU and LLVMGPU apart.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_LINALGTOLIBRARYCALLS_LINALGTOLIBRARYCALLS_H
#define AMP_CONVERSION_LINALGTOLIBRARYCALLS_LINALGTOLIBRARYCALLS_H

#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class FrozenRewritePatternSet;
class RewritePatternSet;

namespace linalg {
class LinalgOp;
} // namespace linalg

namespace amp {
// RuntimeCalls.h (which reads the runtime's table).
enum class RuntimeFunction;
enum class LibraryCall;

#define GEN_PASS_DECL_AMPLINALGTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"

/// The `layout` argument of the convolution calls (the runtime's
/// AmpConvLayout, AmpRuntime.h).
enum class ConvLayout : int32_t { NchwFchw = 0, NhwcHwcf = 1, NhwcFhwc = 2 };
/// The epilogues of the GEMM-with-epilogue call (the runtime's
/// AmpGemmEpilogue, AmpRuntime.h; values are ABI).
enum class GemmEpilogueKind : int32_t {
  Bias = 1,
  ReluBias = 2,
  GeluBias = 3,
  /// GeluBias that also writes the GELU's input (its aux output).
  GeluAuxBias = 4,
  /// The product times GELU's derivative at the aux input (no bias).
  GeluGrad = 5,
  /// ReluBias that also writes the ReLU mask (the sign of its input).
  ReluAuxBias = 6,
  /// The product where the aux input's ReLU mask is set, else 0 (no bias).
  ReluGrad = 7
};

/// The target-specific half of the library calls: which runtime function
/// each family calls, and what the target's libraries take. The families
/// ask it; nothing else in them depends on the target.
class LibraryBackend {
public:
  virtual ~LibraryBackend();

  /// What an op that is not a call stays, for the remark that says why
  /// ("loops", "a generated kernel").
  virtual llvm::StringRef getFallback() const = 0;

  /// The function that computes `call` on this target, or std::nullopt
  /// when its libraries have none. The GPU's is every row's entry point;
  /// the CPU's, the CPU pipeline's own calls. Both are read from the
  /// runtime's table, so a new row is a call of the GPU backend without a
  /// change here.
  virtual std::optional<RuntimeFunction>
  getFunction(LibraryCall call) const = 0;

  /// Why the library cannot compute the FP8 GEMM of element types `a` and
  /// `b` with these transposes (A stored k x m when `transA`, B stored
  /// n x k when `transB`) and sizes `k` and `n` (maybe dynamic); empty
  /// when it can.
  virtual std::string getScaledGemmRefusal(Type a, Type b, bool transA,
                                           bool transB, int64_t k,
                                           int64_t n) const = 0;

  /// Whether the convolution call may read its batch at run time.
  virtual bool takesDynamicConvBatch() const = 0;
  /// Why the library has no convolution of FP8 operands; empty if it has.
  virtual llvm::StringRef getFloat8ConvRefusal() const = 0;
};

/// The host's libraries (CpuLibraries.cpp): CBLAS GEMMs, im2col
/// convolutions, FP8 operands widened exactly.
const LibraryBackend &getCpuLibraryBackend();
/// The GPU's (GpuLibraries.cpp): cuBLAS GEMMs, cuBLASLt's FP8 GEMMs (with
/// `float8Gemms`: a chip of sm_89 or later), cuDNN's convolutions.
const LibraryBackend &getGpuLibraryBackend(bool float8Gemms = true);

/// linalg.matmul and linalg.batch_matmul of f16, bf16 or f32 operands as
/// the backend's GEMM call, with the narrowing epilogue folded into it
/// (GemmCalls.cpp).
void populateAmpGemmToLibraryCallsPatterns(RewritePatternSet &patterns,
                                           const LibraryBackend &backend);
/// The same of FP8 operands (amp-float8-contractions) as the backend's
/// scaled GEMM call, with the dequantization, the narrowing and the amax
/// of the output folded into it (ScaledGemmCalls.cpp).
void populateAmpScaledGemmToLibraryCallsPatterns(RewritePatternSet &patterns,
                                                 const LibraryBackend &backend);
/// 2-D convolutions as the backend's convolution call, reading a
/// zero-padded input in place (ConvCalls.cpp); with `epilogues`, an
/// NHWC/FHWC convolution's per-channel scale, bias, residual and ReLU
/// (batch norm in inference) as the backend's convolution-with-epilogue
/// call where it has one (ConvEpilogues.cpp).
void populateAmpConvToLibraryCallsPatterns(RewritePatternSet &patterns,
                                           const LibraryBackend &backend,
                                           bool epilogues = true);
void populateAmpAttentionToLibraryCallsPatterns(RewritePatternSet &patterns,
                                                const LibraryBackend &backend);

/// Every family's patterns; the convolutions' only with `convolutions`,
/// their epilogues only with `convEpilogues`.
void populateAmpLinalgToLibraryCallsPatterns(RewritePatternSet &patterns,
                                             const LibraryBackend &backend,
                                             bool convolutions = true,
                                             bool convEpilogues = true);

/// Applies the library calls' patterns to the linalg ops under `root`, once
/// each, in program order (a call's epilogue is matched in the IR that the
/// ops before it left). An op that a pattern declined with a reason keeps
/// a remark "amp: kept as <backend's fallback>, not a library call:
/// <reason>". Fails if a call could not be emitted (reported).
LogicalResult applyLibraryCallPatterns(Operation *root,
                                       const FrozenRewritePatternSet &patterns,
                                       const LibraryBackend &backend);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_LINALGTOLIBRARYCALLS_LINALGTOLIBRARYCALLS_H
