//===- Epilogues.cpp - the epilogues a library call writes itself ---------===//
//
// Part of amp-mlir. The epilogues of amp-linalg-to-library-calls: a
// contraction's zero-filled f32 accumulator (a scaled matmul's f32
// destination) whose readers only narrow it (ContractionEpilogues.h) is
// written by the call in the 16-bit type instead, into the output of a
// conversion-only generic (erased; through the inverse reshape where the
// generic read a reshaped view) or into a 16-bit buffer that the fused
// epilogue generics read in place of their truncf.
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "amp/Transforms/ContractionEpilogues.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>

namespace mlir {
namespace amp {
namespace library_calls {

/// Matches the accumulator `acc` of `op`, set whole by `init` before `op`
/// reads it (its zero fill, or `op` itself where it only writes `acc`;
/// null: nothing matches): a memref.alloc in op's block whose users are
/// `init`, `op`, deallocs and,
/// after `op` in the block, generics that read it, directly or through
/// reshaped views, only to narrow it to `type`.
std::optional<NarrowedAccumulator>
matchNarrowedAccumulator(Operation *op, Value acc, Operation *init, Type type) {
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != op->getBlock() || !init)
    return std::nullopt;
  NarrowedAccumulator result{alloc, {}, {}, {}};
  auto isNarrowingRead = [&](OpOperand &use) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || generic->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(generic))
      return false;
    FloatType narrow = getNarrowedType(generic, use);
    return narrow && narrow == type;
  };
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == op || user == init || isa<memref::DeallocOp>(user))
      continue;
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
      for (OpOperand &viewUse : user->getResult(0).getUses()) {
        if (!isNarrowingRead(viewUse))
          return std::nullopt;
        result.reads.push_back(&viewUse);
      }
      result.views.push_back(user);
      continue;
    }
    if (!isNarrowingRead(use))
      return std::nullopt;
    result.reads.push_back(&use);
  }
  if (result.reads.empty())
    return std::nullopt;
  result.type = cast<FloatType>(type);
  return result;
}

/// If `generic` does nothing but narrow its one input into its one output
/// (identity maps), that output; else null.
Value getConversionOnlyOutput(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return {};
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 2 || yield.getNumOperands() != 1)
    return {};
  auto trunc = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
  if (!trunc || trunc.getIn() != body.getArgument(0))
    return {};
  return generic.getDpsInits()[0];
}

/// Whether a call at `op` may write `out`, the output of `generic` (the
/// only reader of `op`'s accumulator), in the generic's place: `out`
/// dominates `op` (or is an operand-less alloc in its block, to be moved
/// before it) and nothing between `op` and `generic` touches memory (the
/// call writes `out` earlier than the generic did).
static bool canWriteEarlier(Operation *op, linalg::GenericOp generic,
                            Value out) {
  auto outAlloc = out.getDefiningOp<memref::AllocOp>();
  bool movable = outAlloc && outAlloc->getNumOperands() == 0 &&
                 outAlloc->getBlock() == op->getBlock();
  if (!movable && !DominanceInfo().properlyDominates(out, op))
    return false;
  if (generic->getBlock() != op->getBlock())
    return false;
  for (Operation *between = op->getNextNode(); between != generic;
       between = between->getNextNode())
    if (!isa<memref::AllocOp>(between) && !isMemoryEffectFree(between))
      return false;
  return true;
}

/// Makes `out`, the output of `generic` (the only reader of `op`'s
/// accumulator, directly or through `view`, one reshape of it: a batched
/// GEMM's [B*H, S, S] result narrowed as [B, H, S, S]), the buffer that a
/// call at `op` writes, if it can (canWriteEarlier) and `acceptable` takes
/// it: `out` itself, or `out` through the inverse reshape, built right
/// before `op`, where that reshape is valid for its layout. Returns that
/// buffer and erases `generic` and `view`; null (nothing erased) if not.
Value takeOutput(RewriterBase &rewriter, Operation *op,
                 linalg::GenericOp generic, Value out, Operation *view,
                 llvm::function_ref<bool(Value)> acceptable) {
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || !canWriteEarlier(op, generic, out))
    return {};
  SmallVector<ReassociationIndices> reassociation;
  if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(view)) {
    reassociation = expand.getReassociationIndices();
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(outType,
                                                          reassociation))
      return {};
  } else if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(view)) {
    reassociation = collapse.getReassociationIndices();
    if (!outType.getLayout().isIdentity())
      return {};
  }
  // The alloc of `out` moves before `op` where it does not dominate it.
  if (!DominanceInfo().properlyDominates(out, op))
    rewriter.moveOpBefore(out.getDefiningOp(), op);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Value buffer = out;
  if (isa_and_nonnull<memref::ExpandShapeOp>(view)) {
    buffer = memref::CollapseShapeOp::create(rewriter, view->getLoc(), out,
                                             reassociation);
  } else if (view) {
    // The accumulator's sizes: its alloc's dynamic sizes dominate `op`.
    Value acc = view->getOperand(0);
    auto type = MemRefType::get(
        cast<MemRefType>(acc.getType()).getShape(), outType.getElementType(),
        MemRefLayoutAttrInterface(), outType.getMemorySpace());
    buffer = memref::ExpandShapeOp::create(
        rewriter, view->getLoc(), type, out, reassociation,
        memref::getMixedSizes(rewriter, view->getLoc(), acc));
  }
  if (!acceptable(buffer)) {
    if (view)
      rewriter.eraseOp(buffer.getDefiningOp());
    return {};
  }
  rewriter.eraseOp(generic);
  if (view)
    rewriter.eraseOp(view);
  return buffer;
}

/// Makes `narrowed` ready for a call that writes its 16-bit type at `op`:
/// returns the buffer the call writes, either the output of a lone
/// conversion-only generic (erased; an operand-less alloc of it is moved
/// before `op`) or a new 16-bit buffer in place of the f32 one, which its
/// readers now read without truncf. The f32 buffer is left for the caller
/// to erase with `op` and the fill. `acceptable` says whether the call can
/// write a given buffer.
Value narrowAccumulator(RewriterBase &rewriter, Operation *op,
                        NarrowedAccumulator &narrowed,
                        llvm::function_ref<bool(Value)> acceptable) {
  memref::AllocOp alloc = narrowed.alloc;
  auto dropDeallocs = [&](Value replacement) {
    for (OpOperand &use : llvm::make_early_inc_range(alloc->getUses())) {
      if (!isa<memref::DeallocOp>(use.getOwner()))
        continue;
      if (replacement)
        rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(replacement); });
      else
        rewriter.eraseOp(use.getOwner());
    }
  };
  if (narrowed.reads.size() == 1 && narrowed.views.size() <= 1) {
    auto generic = cast<linalg::GenericOp>(narrowed.reads[0]->getOwner());
    Operation *view = narrowed.views.empty() ? nullptr : narrowed.views[0];
    if (Value out = getConversionOnlyOutput(generic))
      if (Value buffer =
              takeOutput(rewriter, op, generic, out, view, acceptable)) {
        dropDeallocs(Value());
        return buffer;
      }
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(alloc);
  auto type = cast<MemRefType>(alloc.getType());
  auto narrowType = MemRefType::get(type.getShape(), narrowed.type,
                                    type.getLayout(), type.getMemorySpace());
  auto replacement = memref::AllocOp::create(
      rewriter, alloc.getLoc(), narrowType, alloc.getDynamicSizes(),
      alloc.getSymbolOperands(), alloc.getAlignmentAttr());
  if (!acceptable(replacement)) {
    rewriter.eraseOp(replacement);
    return {};
  }
  // Each view of the f32 buffer becomes the same view of the 16-bit one.
  DenseMap<Value, Value> narrowViews;
  for (Operation *view : narrowed.views) {
    rewriter.setInsertionPoint(view);
    Operation *clone = rewriter.clone(*view);
    auto viewType = cast<MemRefType>(view->getResult(0).getType());
    rewriter.modifyOpInPlace(clone, [&] {
      clone->setOperand(0, replacement);
      clone->getResult(0).setType(
          MemRefType::get(viewType.getShape(), narrowed.type,
                          viewType.getLayout(), viewType.getMemorySpace()));
    });
    narrowViews[view->getResult(0)] = clone->getResult(0);
  }
  for (OpOperand *read : narrowed.reads) {
    auto generic = cast<linalg::GenericOp>(read->getOwner());
    BlockArgument arg = generic.getMatchingBlockArgument(read);
    Value view = narrowViews.lookup(read->get());
    rewriter.modifyOpInPlace(generic, [&] {
      read->set(view ? view : Value(replacement));
      arg.setType(narrowed.type);
    });
    // The truncf of the argument: the argument is its type now.
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers()))
      rewriter.replaceOp(user, arg);
  }
  for (Operation *view : narrowed.views)
    rewriter.eraseOp(view);
  dropDeallocs(replacement);
  return replacement;
}

/// The 16-bit buffer that a library call for `op` writes instead of its f32
/// accumulator `acc` (set whole by `init`, as in matchNarrowedAccumulator)
/// when its readers narrow it to
/// `low` (f16 or bf16), after rewriting its epilogue; null if `acc` must
/// stay f32.
Value narrowOutput(RewriterBase &rewriter, Operation *op, Value acc,
                   Operation *init, Type low,
                   llvm::function_ref<bool(Value)> acceptable) {
  auto accType = cast<MemRefType>(acc.getType());
  if (!low || !accType.getElementType().isF32() ||
      !(low.isF16() || low.isBF16()))
    return {};
  std::optional<NarrowedAccumulator> narrowed =
      matchNarrowedAccumulator(op, acc, init, low);
  if (!narrowed)
    return {};
  return narrowAccumulator(rewriter, op, *narrowed, acceptable);
}

/// Whether `value` is the constant +0.0 or -0.0 of its float type.
static bool isFloatZero(Value value) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) && attr.getValue().isZero();
}

Value matchReluInput(Value value, SmallVectorImpl<Operation *> &ops) {
  if (auto max = value.getDefiningOp<arith::MaximumFOp>()) {
    Value x = isFloatZero(max.getRhs())   ? max.getLhs()
              : isFloatZero(max.getLhs()) ? max.getRhs()
                                          : Value();
    if (x)
      ops.push_back(max);
    return x;
  }
  auto select = value.getDefiningOp<arith::SelectOp>();
  if (!select || !isFloatZero(select.getFalseValue()))
    return {};
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  Value x = select.getTrueValue();
  if (!cmp || cmp.getLhs() != x || !isFloatZero(cmp.getRhs()) ||
      !(cmp.getPredicate() == arith::CmpFPredicate::UGT ||
        cmp.getPredicate() == arith::CmpFPredicate::OGT) ||
      !cmp->hasOneUse())
    return {};
  ops.append({select, cmp});
  return x;
}

/// Whether `value` is a float constant within a relative 1e-6 of `expected`
/// (or its conversion: torch-mlir's f64 constants truncated in the body).
static bool isFloatNear(Value value, double expected) {
  if (auto trunc = value.getDefiningOp<arith::TruncFOp>())
    value = trunc.getIn();
  else if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    value = ext.getIn();
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) &&
         std::fabs(attr.getValueAsDouble() - expected) <=
             1e-6 * std::fabs(expected);
}

/// The operands of `value`'s defining op of type OpTy (a commutative
/// binary op) as (the one `isOther` takes, the other), or failure; the op
/// goes into `ops`.
template <typename OpTy>
static FailureOr<std::pair<Value, Value>>
matchCommutative(Value value, llvm::function_ref<bool(Value)> isOther,
                 SmallVectorImpl<Operation *> &ops) {
  auto op = value.getDefiningOp<OpTy>();
  if (!op)
    return failure();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  if (isOther(lhs))
    std::swap(lhs, rhs);
  else if (!isOther(rhs))
    return failure();
  ops.push_back(op);
  return std::make_pair(lhs, rhs);
}

/// Whether `a` and `b` are the same value: equal, or equal widenings
/// (arith.extf) of one value (a fused body widens its input once per
/// reader).
static bool isSameValue(Value a, Value b) {
  if (a == b)
    return true;
  auto extA = a.getDefiningOp<arith::ExtFOp>();
  auto extB = b.getDefiningOp<arith::ExtFOp>();
  return extA && extB && extA.getIn() == extB.getIn() &&
         extA.getType() == extB.getType();
}

/// Whether `value` is x cubed: math.fpowi(x, 3), math.powf(x, 3.0) or
/// mulf(mulf(x, x), x) in either order. Its ops go into `ops`.
static bool isCube(Value value, Value x, SmallVectorImpl<Operation *> &ops) {
  if (auto pow = value.getDefiningOp<math::FPowIOp>()) {
    IntegerAttr exponent;
    if (!isSameValue(pow.getLhs(), x) ||
        !matchPattern(pow.getRhs(), m_Constant(&exponent)) ||
        exponent.getValue() != 3)
      return false;
    ops.push_back(pow);
    return true;
  }
  if (auto pow = value.getDefiningOp<math::PowFOp>()) {
    if (!isSameValue(pow.getLhs(), x) || !isFloatNear(pow.getRhs(), 3.0))
      return false;
    ops.push_back(pow);
    return true;
  }
  auto outer = value.getDefiningOp<arith::MulFOp>();
  if (!outer)
    return false;
  Value square =
      isSameValue(outer.getLhs(), x) ? outer.getRhs() : outer.getLhs();
  auto inner = square.getDefiningOp<arith::MulFOp>();
  if ((!isSameValue(outer.getLhs(), x) && !isSameValue(outer.getRhs(), x)) ||
      !inner || !isSameValue(inner.getLhs(), x) ||
      !isSameValue(inner.getRhs(), x))
    return false;
  ops.append({outer, inner});
  return true;
}

/// If `value` is GELU's tanh approximation of x (cuBLASLt's GELU, PyTorch's
/// gelu(approximate="tanh") and GPT-2's gelu_new):
///   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
/// with its products in any order, x; else null. `ops` gets the ops.
static Value matchGelu(Value value, SmallVectorImpl<Operation *> &ops) {
  constexpr double kSqrt2OverPi = 0.7978845608028654, kCubic = 0.044715;
  SmallVector<Operation *> matched;
  auto isOnePlusTanh = [&](Value v) {
    auto add = v.getDefiningOp<arith::AddFOp>();
    return add &&
           (isFloatNear(add.getLhs(), 1.0) || isFloatNear(add.getRhs(), 1.0));
  };
  // 0.5 x (1 + t): (x 0.5) (1 + t), x ((1 + t) 0.5) (torch-mlir's GELU),
  // or (x (1 + t)) 0.5 below.
  Value x, onePlusTanh;
  auto outer = value.getDefiningOp<arith::MulFOp>();
  if (!outer)
    return {};
  matched.push_back(outer);
  for (auto [first, second] :
       {std::make_pair(outer.getLhs(), outer.getRhs()),
        std::make_pair(outer.getRhs(), outer.getLhs())}) {
    if (isOnePlusTanh(second)) {
      auto half = first.getDefiningOp<arith::MulFOp>();
      if (half && isFloatNear(half.getRhs(), 0.5))
        x = half.getLhs();
      else if (half && isFloatNear(half.getLhs(), 0.5))
        x = half.getRhs();
      if (x) {
        matched.push_back(half);
        onePlusTanh = second;
        break;
      }
    }
    if (auto halved = second.getDefiningOp<arith::MulFOp>()) {
      for (auto [sum, factor] :
           {std::make_pair(halved.getLhs(), halved.getRhs()),
            std::make_pair(halved.getRhs(), halved.getLhs())})
        if (isOnePlusTanh(sum) && isFloatNear(factor, 0.5)) {
          x = first;
          onePlusTanh = sum;
          matched.push_back(halved);
          break;
        }
      if (x)
        break;
    }
  }
  // (x (1 + t)) 0.5
  if (!x) {
    Value product = isFloatNear(outer.getRhs(), 0.5)   ? outer.getLhs()
                    : isFloatNear(outer.getLhs(), 0.5) ? outer.getRhs()
                                                       : Value();
    auto inner = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
    if (!inner)
      return {};
    matched.push_back(inner);
    if (isOnePlusTanh(inner.getRhs())) {
      x = inner.getLhs();
      onePlusTanh = inner.getRhs();
    } else if (isOnePlusTanh(inner.getLhs())) {
      x = inner.getRhs();
      onePlusTanh = inner.getLhs();
    } else {
      return {};
    }
  }
  auto add = onePlusTanh.getDefiningOp<arith::AddFOp>();
  Value t = isFloatNear(add.getLhs(), 1.0) ? add.getRhs() : add.getLhs();
  auto tanh = t.getDefiningOp<math::TanhOp>();
  if (!tanh)
    return {};
  matched.append({add, tanh});
  // sqrt(2/pi) (x + 0.044715 x^3)
  FailureOr<std::pair<Value, Value>> scaled = matchCommutative<arith::MulFOp>(
      tanh.getOperand(), [&](Value v) { return isFloatNear(v, kSqrt2OverPi); },
      matched);
  if (failed(scaled))
    return {};
  FailureOr<std::pair<Value, Value>> sum = matchCommutative<arith::AddFOp>(
      scaled->first, [&](Value v) { return isSameValue(v, x); }, matched);
  if (failed(sum))
    return {};
  FailureOr<std::pair<Value, Value>> cubic = matchCommutative<arith::MulFOp>(
      sum->first, [&](Value v) { return isFloatNear(v, kCubic); }, matched);
  if (failed(cubic) || !isCube(cubic->first, x, matched))
    return {};
  ops.append(matched.begin(), matched.end());
  return x;
}

/// Whether every op of `body` is in `ops` or is pure and reads nothing of
/// the body (a constant, its conversion), and no op in `ops` has a reader
/// outside them.
static bool bodyIsOnly(Block &body, ArrayRef<Operation *> ops) {
  return llvm::none_of(ops,
                       [&](Operation *matched) {
                         return llvm::any_of(
                             matched->getUsers(), [&](Operation *reader) {
                               return !llvm::is_contained(ops, reader);
                             });
                       }) &&
         llvm::all_of(body, [&](Operation &other) {
           return llvm::is_contained(ops, &other) ||
                  (isMemoryEffectFree(&other) &&
                   llvm::all_of(other.getOperands(), [&](Value operand) {
                     return operand.getParentBlock() != &body;
                   }));
         });
}

/// The generic after `op` in its block that computes `activation` (which
/// returns its input and collects its ops, or null) of `h`, as
/// matchGeluFollower says; null if none.
static linalg::GenericOp
matchFollower(Operation *op, Value h,
              llvm::function_ref<Value(Value, SmallVectorImpl<Operation *> &)>
                  activation) {
  auto hType = dyn_cast<MemRefType>(h.getType());
  if (!hType)
    return {};
  for (Operation *user : h.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(generic) || !generic.hasPureBufferSemantics() ||
        generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
        generic.getDpsInputs()[0] != h ||
        generic.getNumParallelLoops() != generic.getNumLoops() ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      continue;
    Value out = generic.getDpsInits()[0];
    if (out.getType() != hType ||
        memref::skipViewLikeOps(cast<MemrefValue>(out)) ==
            memref::skipViewLikeOps(cast<MemrefValue>(h)))
      continue;
    Block &body = generic.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    SmallVector<Operation *> ops = {yield};
    Value value = yield.getOperand(0);
    if (auto trunc = value.getDefiningOp<arith::TruncFOp>();
        trunc && !trunc.getRoundingmodeAttr()) {
      ops.push_back(trunc);
      value = trunc.getIn();
    }
    Value x = activation(value, ops);
    if (!x || !x.getType().isF32())
      continue;
    if (auto ext = x.getDefiningOp<arith::ExtFOp>())
      x = ext.getIn();
    // Its widenings (one per reader in a fused body).
    for (Operation *reader : body.getArgument(0).getUsers())
      if (isa<arith::ExtFOp>(reader))
        ops.push_back(reader);
    // The activation of the input, and nothing else: no other op reads a
    // value of the body (constants' conversions read none).
    if (x != body.getArgument(0) || !bodyIsOnly(body, ops))
      continue;
    return generic;
  }
  return {};
}

linalg::GenericOp matchGeluFollower(Operation *op, Value h) {
  return matchFollower(op, h, matchGelu);
}

linalg::GenericOp matchReluFollower(Operation *op, Value h) {
  return matchFollower(op, h, matchReluInput);
}

/// Whether `map` (of a generic's `rank` loops) reads the last loop only.
static bool readsLastLoopOnly(AffineMap map, unsigned rank) {
  return map.getNumResults() == 1 &&
         map.getResult(0) == getAffineDimExpr(rank - 1, map.getContext());
}

/// Whether `view`, a reshape of a GEMM's accumulator, keeps its last
/// dimension as its own last dimension (the bias's dimension).
static bool keepsLastDimension(Operation *view) {
  SmallVector<ReassociationIndices> groups;
  if (auto expand = dyn_cast<memref::ExpandShapeOp>(view))
    groups = expand.getReassociationIndices();
  else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view))
    groups = collapse.getReassociationIndices();
  return !groups.empty() && groups.back().size() == 1;
}

/// `value` without an exact widening (extf), and the widening into `ops`.
static Value skipWidening(Value value, SmallVectorImpl<Operation *> &ops) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>()) {
    ops.push_back(ext);
    return ext.getIn();
  }
  return value;
}

/// The body of `generic` as a BiasEpilogue's, its inputs' block arguments
/// being `accArg`, `biasArg` and `residualArg` (or null): yield [truncf]
/// [relu | gelu] (the f32 sum, by addf in any order, of the accumulator, the
/// bias and the residual, each maybe widened by extf), and nothing else. The
/// accumulator may be read rounded to 16 bits (truncf then extf: the
/// GPU's narrowing of a GEMM's output, which the call makes unneeded).
static bool matchBiasBody(linalg::GenericOp generic, BlockArgument accArg,
                          BlockArgument biasArg, BlockArgument residualArg,
                          GemmEpilogueKind &kind) {
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return false;
  SmallVector<Operation *> ops = {yield};
  Value value = yield.getOperand(0);
  if (auto trunc = value.getDefiningOp<arith::TruncFOp>()) {
    if (trunc.getRoundingmodeAttr())
      return false;
    ops.push_back(trunc);
    value = trunc.getIn();
  }
  kind = GemmEpilogueKind::Bias;
  if (Value x = matchReluInput(value, ops)) {
    kind = GemmEpilogueKind::ReluBias;
    value = x;
  } else if (Value x = matchGelu(value, ops)) {
    kind = GemmEpilogueKind::GeluBias;
    value = x;
  }
  // The leaves of the f32 addf tree.
  SmallVector<Value> leaves, worklist = {value};
  while (!worklist.empty()) {
    Value term = worklist.pop_back_val();
    auto add = term.getDefiningOp<arith::AddFOp>();
    if (add && add->getBlock() == &body) {
      if (!add.getType().isF32())
        return false;
      ops.push_back(add);
      worklist.append({add.getLhs(), add.getRhs()});
      continue;
    }
    leaves.push_back(term);
  }
  unsigned expected = residualArg ? 3 : 2;
  if (leaves.size() != expected)
    return false;
  SmallVector<Value> found;
  for (Value leaf : leaves) {
    Value arg = skipWidening(leaf, ops);
    if (arg != accArg)
      if (auto trunc = arg.getDefiningOp<arith::TruncFOp>();
          trunc && leaf != arg && trunc.getIn() == accArg &&
          !trunc.getRoundingmodeAttr()) {
        ops.push_back(trunc);
        arg = accArg;
      }
    if (!isa<FloatType>(leaf.getType()) || !leaf.getType().isF32())
      return false;
    found.push_back(arg);
  }
  for (Value arg : {Value(accArg), Value(biasArg), Value(residualArg)})
    if (arg && llvm::count(found, arg) != 1)
      return false;
  // Nothing but the ops matched reads a value between.
  for (Operation *op : ops)
    for (Operation *user : op->getUsers())
      if (!llvm::is_contained(ops, user))
        return false;
  // Besides those, only constants' conversions (torch-mlir's f64
  // constants truncated in the body), which read nothing of the body.
  return llvm::all_of(body, [&](Operation &op) {
    return llvm::is_contained(ops, &op) ||
           (isMemoryEffectFree(&op) &&
            llvm::all_of(op.getOperands(), [&](Value operand) {
              return operand.getParentBlock() != &body;
            }));
  });
}

/// The one generic after `op` in its block that reads the zero-filled f32
/// accumulator `acc` of `op` (set whole by `init`), directly or through
/// `view` (one reshape that keeps its last dimension, the one use of it),
/// elementwise (all loops parallel, the accumulator and the one output
/// read and written through identity maps), or null. `read` is the
/// generic's operand that reads it.
static linalg::GenericOp getEpilogueGeneric(Operation *op, Value acc,
                                            Operation *init, Operation *&view,
                                            OpOperand *&read) {
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  view = nullptr;
  read = nullptr;
  if (!alloc || alloc->getBlock() != op->getBlock() || !init ||
      !alloc.getType().getElementType().isF32())
    return {};
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == op || user == init || isa<memref::DeallocOp>(user))
      continue;
    if (read)
      return {};
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user)) {
      if (!user->getResult(0).hasOneUse() || !keepsLastDimension(user))
        return {};
      view = user;
      read = &*user->getResult(0).getUses().begin();
    } else {
      read = &use;
    }
  }
  auto generic = read ? dyn_cast<linalg::GenericOp>(read->getOwner()) : nullptr;
  if (!generic || generic->getBlock() != op->getBlock() ||
      !op->isBeforeInBlock(generic) || generic.getNumDpsInits() != 1 ||
      !generic.hasPureBufferSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.isDpsInput(read) ||
      !generic.getMatchingIndexingMap(read).isIdentity() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return {};
  return generic;
}

namespace {
/// A structural matcher of GELU's derivative (tanh form) in a generic's
/// body, as from_torch_training writes gelu_backward (ATen's formula):
///   dy * (0.5 (1 + T) + ((0.5 x) (1 - T T)) (beta (1 + 3 kappa x^2)))
/// with T = tanh(x (beta + beta kappa x^2)) (or the forward's
/// tanh(beta (x + kappa x^3))), each T maybe its own copy (a fused body
/// recomputes a value per reader), products and sums in either order.
/// `x` is the block argument of the GELU's input (maybe widened), `dy` that
/// of the output gradient (maybe read rounded to 16 bits: truncf, extf).
class GeluGradMatcher {
public:
  GeluGradMatcher(BlockArgument x, BlockArgument dy) : x(x), dy(dy) {}

  bool matches(Value value) {
    return isMul(
        value, [&](Value v) { return isDy(v); },
        [&](Value v) {
          return isAdd(
              v, [&](Value l) { return isLeft(l); },
              [&](Value r) { return isRight(r); });
        });
  }

private:
  using Pred = llvm::function_ref<bool(Value)>;

  template <typename OpTy> static bool isBinary(Value v, Pred a, Pred b) {
    auto op = v.getDefiningOp<OpTy>();
    return op && ((a(op.getLhs()) && b(op.getRhs())) ||
                  (a(op.getRhs()) && b(op.getLhs())));
  }
  static bool isMul(Value v, Pred a, Pred b) {
    return isBinary<arith::MulFOp>(v, a, b);
  }
  static bool isAdd(Value v, Pred a, Pred b) {
    return isBinary<arith::AddFOp>(v, a, b);
  }
  static auto near(double c) {
    return [c](Value v) { return isFloatNear(v, c); };
  }

  bool isX(Value v) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      v = ext.getIn();
    return v == x && x.getType().isIntOrFloat();
  }
  bool isDy(Value v) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>()) {
      auto trunc = ext.getIn().getDefiningOp<arith::TruncFOp>();
      if (!trunc || trunc.getRoundingmodeAttr())
        return false;
      v = trunc.getIn();
    }
    return v == dy;
  }
  bool isSquare(Value v) {
    if (auto pow = v.getDefiningOp<math::FPowIOp>()) {
      IntegerAttr exponent;
      return isX(pow.getLhs()) &&
             matchPattern(pow.getRhs(), m_Constant(&exponent)) &&
             exponent.getValue() == 2;
    }
    return isMul(
        v, [&](Value a) { return isX(a); }, [&](Value b) { return isX(b); });
  }
  bool isCube(Value v) {
    if (auto pow = v.getDefiningOp<math::FPowIOp>()) {
      IntegerAttr exponent;
      return isX(pow.getLhs()) &&
             matchPattern(pow.getRhs(), m_Constant(&exponent)) &&
             exponent.getValue() == 3;
    }
    return isMul(
        v, [&](Value a) { return isSquare(a); },
        [&](Value b) { return isX(b); });
  }
  bool isTanh(Value v) {
    auto tanh = v.getDefiningOp<math::TanhOp>();
    if (!tanh)
      return false;
    Value arg = tanh.getOperand();
    auto square = [&](Value a) { return isSquare(a); };
    auto cube = [&](Value a) { return isCube(a); };
    auto xOf = [&](Value a) { return isX(a); };
    // x (beta + beta kappa x^2), or beta (x + kappa x^3).
    return isMul(arg, xOf,
                 [&](Value poly) {
                   return isAdd(
                       poly,
                       [&](Value q) {
                         return isMul(q, square, near(kBeta * kKappa));
                       },
                       near(kBeta));
                 }) ||
           isMul(arg, near(kBeta), [&](Value sum) {
             return isAdd(sum, xOf, [&](Value c) {
               return isMul(c, cube, near(kKappa));
             });
           });
  }
  /// 0.5 (1 + T).
  bool isLeft(Value v) {
    return isMul(
        v,
        [&](Value sum) {
          return isAdd(
              sum, [&](Value t) { return isTanh(t); }, near(1.0));
        },
        near(0.5));
  }
  /// ((0.5 x) (1 - T T)) (beta (1 + 3 kappa x^2)).
  bool isRight(Value v) {
    auto halfX = [&](Value h) {
      return isMul(
          h, [&](Value a) { return isX(a); }, near(0.5));
    };
    auto oneMinusSquare = [&](Value d) {
      auto sub = d.getDefiningOp<arith::SubFOp>();
      return sub && isFloatNear(sub.getLhs(), 1.0) &&
             isMul(
                 sub.getRhs(), [&](Value t) { return isTanh(t); },
                 [&](Value t) { return isTanh(t); });
    };
    auto poly = [&](Value p) {
      return isMul(
          p,
          [&](Value sum) {
            return isAdd(
                sum,
                [&](Value q) {
                  return isMul(
                      q, [&](Value s) { return isSquare(s); },
                      near(3.0 * kKappa));
                },
                near(1.0));
          },
          near(kBeta));
    };
    return isMul(
        v, [&](Value p) { return isMul(p, halfX, oneMinusSquare); }, poly);
  }

  static constexpr double kBeta = 0.7978845608028654, kKappa = 0.044715;
  BlockArgument x, dy;
};
} // namespace

/// The epilogue generic of `op`'s accumulator (getEpilogueGeneric) when it
/// has one more input, `other`, read where it writes (the activation's
/// input of a gradient epilogue); null if not.
static linalg::GenericOp getGradientEpilogue(Operation *op, Value acc,
                                             Operation *init, Operation *&view,
                                             OpOperand *&read,
                                             OpOperand *&other) {
  linalg::GenericOp generic = getEpilogueGeneric(op, acc, init, view, read);
  if (!generic || generic.getNumDpsInputs() != 2)
    return {};
  other =
      generic.getDpsInputOperand(generic.getDpsInputOperand(0) == read ? 1 : 0);
  if (!generic.getMatchingIndexingMap(other).isIdentity())
    return {};
  return generic;
}

std::optional<ActivationGradEpilogue>
matchGeluGradEpilogue(Operation *op, Value acc, Operation *init) {
  Operation *view;
  OpOperand *read, *other;
  linalg::GenericOp generic =
      getGradientEpilogue(op, acc, init, view, read, other);
  if (!generic)
    return std::nullopt;
  Value aux = other->get(), out = generic.getDpsInits()[0];
  // The GELU's input is of the output's type and layout (the call, moved
  // to the generic, reads it there).
  if (aux.getType() != out.getType())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  Value value = cast<linalg::YieldOp>(body.getTerminator()).getOperand(0);
  if (auto trunc = value.getDefiningOp<arith::TruncFOp>()) {
    if (trunc.getRoundingmodeAttr())
      return std::nullopt;
    value = trunc.getIn();
  }
  if (!value.getType().isF32() ||
      !GeluGradMatcher(generic.getMatchingBlockArgument(other),
                       generic.getMatchingBlockArgument(read))
           .matches(value))
    return std::nullopt;
  return ActivationGradEpilogue{generic, view, aux, out};
}

/// If `value` is `arg` or its widening (extf), with the op into `ops`.
static bool isArgument(Value value, BlockArgument arg,
                       SmallVectorImpl<Operation *> &ops) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>()) {
    ops.push_back(ext);
    value = ext.getIn();
  }
  return value == arg;
}

/// If `value` is `dy` or `dy` read rounded to 16 bits (truncf then extf:
/// the GPU's narrowing of a GEMM's output), with its ops into `ops`.
static bool isRoundedArgument(Value value, BlockArgument dy,
                              SmallVectorImpl<Operation *> &ops) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>()) {
    auto trunc = ext.getIn().getDefiningOp<arith::TruncFOp>();
    if (!trunc || trunc.getRoundingmodeAttr())
      return false;
    ops.append({ext, trunc});
    value = trunc.getIn();
  }
  return value == dy;
}

std::optional<ActivationGradEpilogue>
matchReluGradEpilogue(Operation *op, Value acc, Operation *init) {
  Operation *view;
  OpOperand *read, *other;
  linalg::GenericOp generic =
      getGradientEpilogue(op, acc, init, view, read, other);
  if (!generic)
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  SmallVector<Operation *> ops = {yield};
  Value value = yield.getOperand(0);
  if (auto trunc = value.getDefiningOp<arith::TruncFOp>()) {
    if (trunc.getRoundingmodeAttr())
      return std::nullopt;
    ops.push_back(trunc);
    value = trunc.getIn();
  }
  auto select = value.getDefiningOp<arith::SelectOp>();
  auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpFOp>()
                    : arith::CmpFOp();
  if (!value.getType().isF32() || !cmp || !isFloatZero(cmp.getRhs()) ||
      !cmp->hasOneUse())
    return std::nullopt;
  ops.append({select, cmp});
  // select(r <= 0, 0, dy) or select(r > 0, dy, 0), r the input or its ReLU
  // (threshold_backward of the ReLU's output, recomputed).
  arith::CmpFPredicate predicate = cmp.getPredicate();
  Value dy;
  if ((predicate == arith::CmpFPredicate::OLE ||
       predicate == arith::CmpFPredicate::ULE) &&
      isFloatZero(select.getTrueValue()))
    dy = select.getFalseValue();
  else if ((predicate == arith::CmpFPredicate::OGT ||
            predicate == arith::CmpFPredicate::UGT) &&
           isFloatZero(select.getFalseValue()))
    dy = select.getTrueValue();
  if (!dy ||
      !isRoundedArgument(dy, generic.getMatchingBlockArgument(read), ops))
    return std::nullopt;
  Value r = cmp.getLhs();
  if (Value x = matchReluInput(r, ops))
    r = x;
  if (!isArgument(r, generic.getMatchingBlockArgument(other), ops) ||
      !bodyIsOnly(body, ops))
    return std::nullopt;
  return ActivationGradEpilogue{generic, view, other->get(),
                                generic.getDpsInits()[0]};
}

std::optional<BiasEpilogue> matchBiasEpilogue(Operation *op, Value acc,
                                              Operation *init) {
  BiasEpilogue epilogue;
  OpOperand *read;
  linalg::GenericOp generic =
      getEpilogueGeneric(op, acc, init, epilogue.view, read);
  if (!generic)
    return std::nullopt;
  OpOperand *outOperand = generic.getDpsInitOperand(0);
  // The other inputs: the bias (its map reads the last loop only) and,
  // maybe, the residual, read where the generic writes, of the output's
  // type (maybe the output itself).
  unsigned rank = generic.getNumLoops();
  OpOperand *biasOperand = nullptr, *residualOperand = nullptr;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input == read)
      continue;
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (!biasOperand && readsLastLoopOnly(map, rank))
      biasOperand = input;
    else if (!residualOperand && map.isIdentity() &&
             input->get().getType() == outOperand->get().getType())
      residualOperand = input;
    else
      return std::nullopt;
  }
  if (!biasOperand)
    return std::nullopt;
  // The bias: read by the call at `op`, so there already and unchanged
  // until the generic; of the output's type, as cuBLASLt reads it, or
  // f32 (to be narrowed).
  Value bias = biasOperand->get(), out = outOperand->get();
  auto biasType = dyn_cast<MemRefType>(bias.getType());
  Type outElement = cast<MemRefType>(out.getType()).getElementType();
  if (!biasType || biasType.getRank() != 1 ||
      !(biasType.getElementType() == outElement ||
        (biasType.getElementType().isF32() &&
         (outElement.isF16() || outElement.isBF16()))) ||
      !DominanceInfo().properlyDominates(bias, op) ||
      isWrittenBetween(op, generic, bias))
    return std::nullopt;
  // The residual is read by the call at `op` too (beta = 1), so it must be
  // there and unchanged until the generic (which may write it).
  Value residual = residualOperand ? residualOperand->get() : Value();
  if (residual && (!DominanceInfo().properlyDominates(residual, op) ||
                   isWrittenBetween(op, generic->getPrevNode(), residual)))
    return std::nullopt;
  GemmEpilogueKind kind = GemmEpilogueKind::Bias;
  if (!matchBiasBody(generic, generic.getMatchingBlockArgument(read),
                     generic.getMatchingBlockArgument(biasOperand),
                     residualOperand
                         ? generic.getMatchingBlockArgument(residualOperand)
                         : BlockArgument(),
                     kind))
    return std::nullopt;
  epilogue.generic = generic;
  epilogue.bias = bias;
  epilogue.out = out;
  epilogue.kind = kind;
  epilogue.residual = residual;
  return epilogue;
}

/// The type that the first generic reading `acc` narrows it to (f16 or
/// bf16), or null: the type an FP8 GEMM's output may be written in.
Type getReadersNarrowedType(Value acc) {
  for (OpOperand &use : acc.getUses())
    if (auto generic = dyn_cast<linalg::GenericOp>(use.getOwner()))
      return getNarrowedType(generic, use);
  return {};
}

} // namespace library_calls
} // namespace amp
} // namespace mlir
