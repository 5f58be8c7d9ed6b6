//===- OptimizerToLibraryCalls.cpp - the optimizer as one runtime call ----===//
//
// Part of amp-mlir. amp.optimizer_update on device buffers as one call of
// the runtime's multi-tensor optimizer (a family of amp-to-library-calls,
// AmpToLibraryCalls.cpp):
//
//   amp.optimizer_update momentum ins(%g0, %g1 : memref<8xf32>, memref<4xbf16>)
//       step(%step : memref<i32>) skip(%flag : memref<i1>)
//       params(%p0, %p1, %v0, %v1 : ...) outs(%n0, %n1, %w0, %w1 : ...)
//       {lr = 0.1 : f64, momentum = 0.9 : f64}
//   // becomes, with host arrays of the function's entry block
//   %params = llvm.alloca %c2 x !llvm.ptr   (and %paramsOut, %state0,
//                                            %state0Out, %grads, %types,
//                                            %numels)
//   llvm.store (pointer of %p0), %params ...  (one entry per parameter)
//   call @ampGpuOptimizerUpdateBuffers(%c2, %params, %paramsOut, %grads,
//       %types, %state0, %state0Out, null, null, %numels, kind, lr,
//       weight_decay, momentum, dampening, nesterov, beta1, beta2, eps,
//       (pointer of %step), (pointer of %flag))
//
// The call reads the step count and the flag on the device (no host
// synchronisation): one launch per 48 parameters.
//
//===----------------------------------------------------------------------===//

#include "HostTables.h"
#include "amp/Conversion/AmpToLibraryCalls/AmpToLibraryCalls.h"
#include "amp/Conversion/RuntimeCalls.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::amp;

std::optional<std::string>
mlir::amp::getOptimizerCallMismatch(OptimizerUpdateOp op) {
  if (!op.hasPureBufferSemantics())
    return std::string("the op is on tensors (run after bufferization)");
  for (Value operand : op->getOperands())
    if (!isDenseBuffer(cast<MemRefType>(operand.getType())))
      return std::string("the parameter, gradient and state buffers must be "
                         "contiguous");
  return std::nullopt;
}

namespace {
struct OptimizerUpdateToLibraryCall
    : public OpRewritePattern<OptimizerUpdateOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(OptimizerUpdateOp op,
                                PatternRewriter &rewriter) const override {
    if (std::optional<std::string> why = getOptimizerCallMismatch(op))
      return rewriter.notifyMatchFailure(op, *why);
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Type ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    auto integer = [&](int64_t value, unsigned width) -> Value {
      return arith::ConstantIntOp::create(rewriter, loc, value, width);
    };
    auto real = [&](APFloat value) -> Value {
      bool lost = false;
      value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      return arith::ConstantFloatOp::create(rewriter, loc,
                                            rewriter.getF32Type(), value);
    };

    // The table: host arrays of pointers, types and sizes, filled right
    // before the call. The state arrays a kind has none of are NULL.
    int64_t count = static_cast<int64_t>(op.getGradients().size());
    unsigned numStates = OptimizerUpdateOp::getNumStates(op.getKind());
    HostTable table(rewriter, op, count);
    // Current values and destinations: the master weights, then each state.
    SmallVector<std::pair<Value, Value>, 3> arrays;
    for (unsigned s = 0; s <= numStates; ++s) {
      Value from = table.addArray(ptr);
      arrays.push_back({from, table.addArray(ptr)});
    }
    Value grads = table.addArray(ptr), types = table.addArray(i32);
    Value numels = table.addArray(i64);
    for (auto [index, gradient] : llvm::enumerate(op.getGradients())) {
      int64_t k = static_cast<int64_t>(index);
      Type element = cast<MemRefType>(gradient.getType()).getElementType();
      for (auto [s, array] : llvm::enumerate(arrays)) {
        size_t operand = s * count + k;
        table.store(
            array.first, ptr, k,
            createBufferPointer(rewriter, loc, op.getCurrent()[operand]));
        table.store(array.second, ptr, k,
                    createBufferPointer(rewriter, loc, op.getInits()[operand]));
      }
      table.store(grads, ptr, k, createBufferPointer(rewriter, loc, gradient));
      table.store(
          types, i32, k,
          integer(static_cast<int64_t>(*getRuntimeFloatDType(element)), 32));
      table.store(numels, i64, k,
                  createBufferElementCount(rewriter, loc, gradient));
    }
    Value null = LLVM::ZeroOp::create(rewriter, loc, ptr);
    auto state = [&](unsigned s, bool out) -> Value {
      if (s + 1 >= arrays.size())
        return null;
      return out ? arrays[s + 1].second : arrays[s + 1].first;
    };
    SmallVector<Value> args = {
        integer(count, 64),
        arrays[0].first,
        arrays[0].second,
        grads,
        types,
        state(0, false),
        state(0, true),
        state(1, false),
        state(1, true),
        numels,
        integer(static_cast<int64_t>(op.getKind()), 32),
        real(op.getLr()),
        real(op.getWeightDecay()),
        real(op.getMomentum()),
        real(op.getDampening()),
        integer(op.getNesterov() ? 1 : 0, 32),
        real(op.getBeta1()),
        real(op.getBeta2()),
        real(op.getEps()),
        createBufferPointer(rewriter, loc, op.getStep()),
        createBufferPointer(rewriter, loc, op.getSkip())};
    if (failed(createRuntimeCall(
            rewriter, op, RuntimeFunction::ampGpuOptimizerUpdateBuffers, args)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void mlir::amp::populateAmpOptimizerToLibraryCallsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<OptimizerUpdateToLibraryCall>(patterns.getContext());
}
