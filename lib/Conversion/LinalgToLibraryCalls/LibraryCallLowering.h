//===- LibraryCallLowering.h - the library calls' parts ---------*- C++ -*-===//
//
// Part of amp-mlir. What the families of library calls of
// amp-linalg-to-library-calls share (LinalgToLibraryCalls.cpp says what the
// pass does): operands as the runtime takes them (LibraryCallLowering.cpp),
// the epilogues a call writes itself (Epilogues.cpp), and the GEMM's
// operands and arguments, which the scaled GEMM builds on (GemmCalls.cpp).
// Every change to the IR goes through the pattern's rewriter. (The amp
// ops' calls are amp-to-library-calls'.)
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_LINALGTOLIBRARYCALLS_LIBRARYCALLLOWERING_H
#define AMP_LIB_CONVERSION_LINALGTOLIBRARYCALLS_LIBRARYCALLLOWERING_H

#include "amp/Conversion/LinalgToLibraryCalls/LinalgToLibraryCalls.h"
#include "amp/Conversion/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir {
namespace amp {
namespace library_calls {

/// The runtime's code of a floating-point element type the library calls
/// take (RuntimeCalls.h); -1 for other element types, and for the FP8
/// types unless `allowFloat8` (only the GEMM and the CPU's convolution take
/// them).
int32_t getDTypeCode(Type type, bool allowFloat8 = false);

/// The code of f32, the accumulator type every library call may write.
constexpr int32_t kF32Code = static_cast<int32_t>(RuntimeDType::F32);

/// A memref operand as the runtime wants it: static strides and offset.
struct BufferInfo {
  MemRefType type;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
};

/// The runtime's codes of a contraction's operand and result types (FP8
/// allowed for the operands) and whether it is an FP8 contraction.
struct ContractionTypes {
  int32_t lhs = -1, rhs = -1, result = -1;
  bool float8 = false;
};

/// The ContractionTypes of a GEMM's or a convolution's buffers; failure
/// (`why` set) for FP8 operands other than those the libraries take
/// (cuBLASLt's: E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3, f32 result; an
/// f16 or bf16 result too where `float8Narrow`, a scaled GEMM's).
FailureOr<ContractionTypes> getContractionTypes(const BufferInfo &lhs,
                                                const BufferInfo &rhs,
                                                const BufferInfo &result,
                                                std::string &why,
                                                bool float8Narrow = false);

/// `dynamic`: sizes and strides may be dynamic (read from the descriptor at
/// the call, see getSize/getStride); the innermost stride must still be a
/// static 1.
FailureOr<BufferInfo> getBufferInfo(Value value, std::string &why,
                                    bool dynamic = false);
Value getSize(OpBuilder &b, Location loc, Value value, unsigned dim);
Value getStride(OpBuilder &b, Location loc, Value value, const BufferInfo &info,
                unsigned dim);
/// True if `info` describes a contiguous row-major buffer.
bool isContiguous(const BufferInfo &info);

/// True if `value` is the constant +0.0.
bool isPositiveZero(Value value);
/// A linalg.fill of +0.0 into `output` earlier in the same block with no
/// other use of `output` in between.
linalg::FillOp findZeroFill(Operation *op, Value output);
/// True if `op` sets every element of `buffer` to +0.
bool isZeroFillOf(Operation *op, Value buffer);

/// A zero-filled f32 accumulator buffer of a contraction whose readers only
/// narrow it to one 16-bit type.
struct NarrowedAccumulator {
  memref::AllocOp alloc;
  FloatType type;
  SmallVector<OpOperand *> reads;
  /// Reshaped views of the buffer that readers read it through (a
  /// [B*S, N] result read as [B, S, N] by its epilogue).
  SmallVector<Operation *> views;
};

/// The accumulator arguments of these (Epilogues.cpp): `init` is the op
/// that sets `acc` whole before `op` reads it, its zero fill or `op`
/// itself where `op` only writes it; null matches nothing.
std::optional<NarrowedAccumulator>
matchNarrowedAccumulator(Operation *op, Value acc, Operation *init, Type type);
Value getConversionOnlyOutput(linalg::GenericOp generic);
Value takeOutput(RewriterBase &rewriter, Operation *op,
                 linalg::GenericOp generic, Value out, Operation *view,
                 llvm::function_ref<bool(Value)> acceptable);
Value narrowAccumulator(RewriterBase &rewriter, Operation *op,
                        NarrowedAccumulator &narrowed,
                        llvm::function_ref<bool(Value)> acceptable);
Value narrowOutput(RewriterBase &rewriter, Operation *op, Value acc,
                   Operation *init, Type low,
                   llvm::function_ref<bool(Value)> acceptable);
Type getReadersNarrowedType(Value acc);
bool isWrittenBetween(Operation *op, Operation *last, Value buffer);

/// A GEMM's epilogue that the GEMM-with-epilogue call computes itself
/// (Epilogues.cpp): the one generic reading the GEMM's zero-filled f32
/// accumulator (directly or through `view`, one reshape that keeps its
/// last dimension) adds a bias along that dimension and, maybe, a
/// residual of the output's type (the call's addend, beta = 1; maybe the
/// output itself, in place), then maybe a ReLU or a GELU (tanh form),
/// and stores the f32 sum rounded once, in f32 or a 16-bit type.
struct BiasEpilogue {
  linalg::GenericOp generic;
  Operation *view = nullptr;
  /// The rank-1 bias buffer: of the output's element type, or f32 for a
  /// 16-bit output (the call reads it narrowed).
  Value bias;
  /// The generic's output buffer, which the call writes instead.
  Value out;
  /// What follows the sums: nothing (Bias), a ReLU or GELU's tanh form.
  GemmEpilogueKind kind = GemmEpilogueKind::Bias;
  /// The buffer of `out`'s type whose elements the sum includes (the
  /// call's addend), or null: `out` itself (in place) or another.
  Value residual;
};

/// The bias epilogue of the GEMM `op` into the accumulator `acc`, set
/// whole by `init` (its zero fill), or std::nullopt (see BiasEpilogue).
/// The call computes the generic's f32 sum (in its own order, as the
/// product's) and rounds it once. Two roundings differ from the
/// generic's: an f32 bias of a 16-bit output is rounded to that type
/// (cuBLASLt reads the bias in the output's type, as PyTorch autocast's
/// addmm passes it), and an accumulator the generic reads rounded to 16
/// bits (the GPU's narrowed GEMM output) is read unrounded.
std::optional<BiasEpilogue> matchBiasEpilogue(Operation *op, Value acc,
                                              Operation *init);

/// The backward of an activation as a GEMM's epilogue: the one generic
/// reading the GEMM's zero-filled f32 accumulator (directly or through
/// `view`, as a BiasEpilogue's; maybe read rounded to 16 bits) and `input`,
/// the activation's input (read where it writes), computing the gradient
/// at `input` of the accumulator (the output gradient) into `out`, maybe
/// rounded once. The GEMM-with-epilogue call computes it from the
/// unrounded product.
struct ActivationGradEpilogue {
  linalg::GenericOp generic;
  Operation *view = nullptr;
  Value input;
  Value out;
};

/// A GELU's (tanh form): the accumulator times GELU's derivative at
/// `input` (of the output's type), as from_torch_training writes
/// gelu_backward; the call's DGELU reads `input` as its aux operand.
std::optional<ActivationGradEpilogue>
matchGeluGradEpilogue(Operation *op, Value acc, Operation *init);

/// A ReLU's: the accumulator where `input` is positive and 0 elsewhere, as
/// from_torch_training writes threshold_backward (select(relu(x) <= 0, 0,
/// dy), the ReLU maybe recomputed, or select(x > 0, dy, 0)); the call's
/// DRELU reads the sign from the ReLU mask its forward wrote, of the
/// unrounded sum.
std::optional<ActivationGradEpilogue>
matchReluGradEpilogue(Operation *op, Value acc, Operation *init);

/// The generic, after `op` in its block, that computes GELU's tanh form of
/// `h` (a bias epilogue's output, which a call at `op` writes), read whole,
/// maybe widened, its result maybe rounded to h's type, into another
/// buffer of h's type, and does nothing else; null if none. A call at `op`
/// with cuBLASLt's GELU_AUX_BIAS writes both, from the unrounded sum
/// (h's own rounding before the GELU is not made).
linalg::GenericOp matchGeluFollower(Operation *op, Value h);
/// The same for a ReLU of `h` (maximumf(x, 0) or select(x > 0, x, 0)).
/// (At O1 the ReLU of an f32 bias epilogue is rounded to 16 bits: a call
/// writing that would round the f32 bias to 16 bits too, which O1 does
/// not, so it is not matched.)
linalg::GenericOp matchReluFollower(Operation *op, Value h);

/// If `value` is a ReLU of x (maximumf(x, 0) either way round, or
/// select(cmpf ugt/ogt x, 0), x, 0)), x; else null. `ops` gets the ops.
Value matchReluInput(Value value, SmallVectorImpl<Operation *> &ops);

/// A convolution's epilogue that the convolution-with-epilogue call
/// (ampGpuConv2dEpilogue) computes itself (ConvEpilogues.cpp): the one
/// elementwise generic reading the convolution's zero-filled output `y`
/// (an allocation, read where the generic writes) computes
/// relu?(a * y + b + residual), a and b per output channel (operands read
/// along the last loop, the NHWC channel, and constants), rounded once to
/// its output (f32 or the convolution's input type); a ReLU-only generic
/// that is its output's one reader may take the ReLU. Every operand is
/// there at the convolution and unchanged until the generic, and the
/// output the call writes is an allocation nothing touches before.
struct ConvEpilogue {
  linalg::GenericOp generic;
  /// The ReLU-only generic of the generic's output, or null.
  linalg::GenericOp follower;
  /// The generic's operand reading y, its per-channel operands, and its
  /// residual's (or null).
  OpOperand *read = nullptr, *residualRead = nullptr;
  SmallVector<OpOperand *> channels;
  Value residual;
  /// The buffer the call writes (the generic's output, or the follower's).
  Value out;
  bool relu = false;
  /// Reshapes of the operands and sizes of the output (memref.dim) after
  /// the convolution, in order, to move before it.
  SmallVector<Operation *> views;
};
std::optional<ConvEpilogue> matchConvEpilogue(Operation *conv, Value y,
                                              Operation *fill, Type xElement);

/// Builds, before `conv`, the generic over the output channels that
/// computes `epilogue`'s a and b into new f32 buffers of one element per
/// channel, as the epilogue's body computes them; returns them, null for a
/// term that is 1 (a) or 0 (b).
std::pair<Value, Value> buildConvEpilogueTerms(RewriterBase &rewriter,
                                               Operation *conv,
                                               const ConvEpilogue &epilogue);

/// True if an operand of `op` is of an FP8 type the libraries take
/// (E4M3FN or E5M2): an amp-float8-contractions contraction.
bool hasFloat8Operand(linalg::LinalgOp op);

/// The reason a family's pattern gives for an op on tensors.
constexpr llvm::StringLiteral kOnTensors =
    "the op is on tensors (run after bufferization)";

/// The backend's function for `call`, or failure with `why` set.
FailureOr<RuntimeFunction> getCallFunction(const LibraryBackend &backend,
                                           LibraryCall call, std::string &why);

/// The i32, i64 and f32 constants of a call's arguments.
Value createI32(OpBuilder &b, Location loc, int64_t value);
Value createI64(OpBuilder &b, Location loc, int64_t value);
Value createF32(OpBuilder &b, Location loc, float value);

/// A (batch) matmul as a GEMM call takes it (GemmCalls.cpp).
struct GemmOperands {
  /// The backend's function of the call.
  RuntimeFunction function;
  bool batched = false, transA = false, transB = false;
  Value a, b, c;
  BufferInfo ai, bi, ci;
  ContractionTypes types;
  /// The first non-batch loop.
  unsigned o() const { return batched ? 1 : 0; }
};

/// The (batch) matmul `op` as the backend's `call` takes it: Gemm for
/// 16-bit or f32 operands, ScaledGemm for FP8 ones. Fails silently for the
/// other family's op, and with the reason notified to `rewriter` (the
/// driver's remark) when the call cannot compute it.
FailureOr<GemmOperands> matchGemmCall(linalg::LinalgOp op,
                                      PatternRewriter &rewriter,
                                      const LibraryBackend &backend,
                                      LibraryCall call);

/// Completes `gemm`, whose layout (batched, transposes) and buffers (a, b,
/// c) are set, for the backend's `call` at `op`: its function, the
/// buffers' strides and the element types (`float8Narrow`: an FP8 GEMM may
/// write f16 or bf16). Fails with the reason notified to `rewriter`.
FailureOr<GemmOperands> completeGemmCall(Operation *op, GemmOperands gemm,
                                         PatternRewriter &rewriter,
                                         const LibraryBackend &backend,
                                         LibraryCall call,
                                         bool float8Narrow = false);

/// The arguments of the GEMM call (AmpRuntime.h's ampGpuGemm, in order) for
/// `gemm` writing `c` (of `cType`) with `beta`, built at the rewriter's
/// insertion point. The sizes are read from `c`, the buffer the call
/// writes: a memref.dim of an f32 accumulator would be one more reader of
/// it, and keep it from being narrowed.
SmallVector<Value> buildGemmArguments(OpBuilder &b, Location loc,
                                      const GemmOperands &gemm, Value c,
                                      const BufferInfo &ci, int32_t cType,
                                      float beta);

/// Calls `function` with `args` in place of `op`, then erases `op` and
/// `replaced` (the buffers and ops the call makes unneeded; null entries
/// skipped). A call that cannot be declared is reported as an error (the
/// driver fails) and changes nothing.
void replaceWithCall(RewriterBase &rewriter, Operation *op,
                     RuntimeFunction function, ArrayRef<Value> args,
                     ArrayRef<Operation *> replaced);

/// Whether a GEMM call can write `buffer` in place of a result of `shape`.
bool isGemmOutput(Value buffer, ArrayRef<int64_t> shape);

/// The buffer a GEMM call writes: `gemm.c`, or, when `init` sets that f32
/// accumulator whole (as in matchNarrowedAccumulator) and its readers only
/// narrow it to `low` (f16 or bf16), the 16-bit buffer narrowOutput makes
/// (`accumulator` is then the f32 buffer the call makes unneeded).
struct GemmOutput {
  Value c;
  BufferInfo ci;
  int32_t type;
  memref::AllocOp accumulator;
};
GemmOutput getGemmOutput(RewriterBase &rewriter, Operation *op,
                         const GemmOperands &gemm, Operation *init, Type low);

/// True if `op` is a convolution (linalg.conv_* or
/// linalg.depthwise_conv_*): the convolution family's, taken or explained.
bool isConvolution(linalg::LinalgOp op);

} // namespace library_calls
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_CONVERSION_LINALGTOLIBRARYCALLS_LIBRARYCALLLOWERING_H
