//===- LibraryCallLowering.h - the library calls' parts ---------*- C++ -*-===//
//
// Part of amp-mlir. What the families of library calls of
// amp-linalg-to-library-calls share (LinalgToLibraryCalls.cpp says what the
// pass does): operands as the runtime takes them, the epilogues a call
// writes itself, and the builder that emits the calls. One file per family
// defines its part of the builder: GemmCalls.cpp (GEMMs, FP8 GEMMs),
// ConvCalls.cpp (2-D convolutions); LibraryCallLowering.cpp the shared
// helpers. (The amp ops' calls are amp-to-library-calls'.)
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_LINALGTOLIBRARYCALLS_LIBRARYCALLLOWERING_H
#define AMP_LIB_CONVERSION_LINALGTOLIBRARYCALLS_LIBRARYCALLLOWERING_H

#include "amp/Conversion/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

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

/// The `layout` argument of the convolution calls (the runtime's
/// AmpConvLayout, AmpRuntime.h).
enum class ConvLayout : int32_t { NchwFchw = 0, NhwcHwcf = 1, NhwcFhwc = 2 };

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
/// (cuBLASLt's: E4M3 x E4M3, E4M3 x E5M2 or E5M2 x E4M3, f32 result).
FailureOr<ContractionTypes> getContractionTypes(const BufferInfo &lhs,
                                                const BufferInfo &rhs,
                                                const BufferInfo &result,
                                                std::string &why);

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

std::optional<NarrowedAccumulator> matchNarrowedAccumulator(Operation *op,
                                                            Value acc,
                                                            linalg::FillOp fill,
                                                            Type type);
Value getConversionOnlyOutput(linalg::GenericOp generic);
bool takeOutput(Operation *op, linalg::GenericOp generic, Value out,
                llvm::function_ref<bool(Value)> acceptable);
Value takeCopiedOutput(Operation *op, Value acc, linalg::FillOp fill,
                       llvm::function_ref<bool(Value)> acceptable);
Value narrowAccumulator(Operation *op, NarrowedAccumulator &narrowed,
                        llvm::function_ref<bool(Value)> acceptable);
Value narrowOutput(Operation *op, Value acc, linalg::FillOp fill, Type low,
                   llvm::function_ref<bool(Value)> acceptable);
Type getReadersNarrowedType(Value acc);
Value getViewSource(Value value);
bool isWrittenBetween(Operation *op, Operation *last, Value buffer);

struct Lowering {
  ModuleOp module;
  OpBuilder b;
  Type i32, i64, f32, ptr;

  /// The CPU pipeline's calls (ampCpuLibraryGemm, ampCpuLibraryConv2d)
  /// instead of the GPU's.
  bool onCpu = false;

  explicit Lowering(ModuleOp module) : module(module), b(module.getContext()) {
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f32 = b.getF32Type();
    ptr = LLVM::LLVMPointerType::get(module.getContext());
  }

  Value i32c(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32);
  }
  Value i64c(Location loc, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64);
  }

  /// Set when a call could not be emitted (an error was reported).
  bool hadError = false;

  /// Calls `function` with `args` at `op`, declaring it on first use.
  LogicalResult emitCall(Operation *op, RuntimeFunction function,
                         ArrayRef<Value> args) {
    if (succeeded(createRuntimeCall(b, op, function, args)))
      return success();
    hadError = true;
    return failure();
  }

  LogicalResult lowerGemm(linalg::LinalgOp op, bool batched, std::string &why);
  LogicalResult lowerConv(linalg::LinalgOp op, ConvLayout layout,
                          std::string &why);
};

/// Convolutions the CPU calls take (ConvCalls.cpp).
bool isConvolution(linalg::LinalgOp op);
std::optional<ConvLayout> getConvLayout(Operation *op, bool onCpu);

} // namespace library_calls
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_CONVERSION_LINALGTOLIBRARYCALLS_LIBRARYCALLLOWERING_H
