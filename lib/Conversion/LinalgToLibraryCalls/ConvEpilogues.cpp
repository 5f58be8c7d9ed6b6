//===- ConvEpilogues.cpp - a convolution's per-channel epilogue -----------===//
//
// Part of amp-mlir. The epilogue that the GPU's convolution-with-epilogue
// call (ampGpuConv2dEpilogue: cuDNN's graph API) computes from the
// convolution's f32 sum:
//
//   y = relu?(conv * scale[f] + bias[f] + residual)
//
// found in the one elementwise generic that reads an NHWC convolution's
// output: its value must be an affine function of the convolution's
// element, a * conv + b, where a and b depend on the output channel only
// (per-channel operands read along the last loop, constants), maybe plus
// a residual read where the generic writes, maybe rectified, maybe rounded
// once to the output's type. Batch norm in inference is one:
// ((conv - mean) * rsqrt(var + eps)) * gamma + beta has a = rsqrt(var +
// eps) * gamma and b = (-mean) * a + beta, in the body's own operations.
//
// The analysis follows each value of the body: a per-channel value (its
// operands per-channel or outside the body), or the affine form of the
// convolution's element (a, b: per-channel values, or 1 and 0 unset); add,
// subtract, multiply, divide and negate keep that form, the residual may be
// added once, the ReLU and the rounding come last. The build clones the
// per-channel values into a generic over the channels that writes a and b
// (f32 buffers of f elements), computing them as the body would, so the
// call's f32 result differs from the generic's by the order of the f32
// operations only (and by the 16-bit rounding of the convolution's output,
// which the call does not make: it rounds once).
//
//===----------------------------------------------------------------------===//

#include "LibraryCallLowering.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace amp {
namespace library_calls {

namespace {
/// How a value of the epilogue's body depends on the convolution's element.
enum class Form {
  Channel,  ///< Per-channel: no element of the convolution or the residual.
  Raw,      ///< The convolution's element in a 16-bit type (widened to use).
  Affine,   ///< a * conv + b (f32), a and b per-channel.
  Residual, ///< The residual's element (maybe rectified), f32.
  ResidualTest,   ///< A comparison of the residual's element (a ReLU's).
  AffineResidual, ///< a * conv + b + residual (f32).
  Rectified,      ///< relu of an Affine or AffineResidual value.
};

/// The affine terms of a value in the built generic: null a is 1, null b
/// is 0.
struct Terms {
  Value a, b;
};
/// Which terms a value has (the analysis's view of Terms).
struct TermsPresent {
  bool a = false, b = false;
};

/// The analysis (no builder) and the build (a builder inside the
/// per-channel generic's body, `mapping` taking the epilogue's per-channel
/// block arguments to its) of an epilogue generic's body.
class EpilogueWalk {
public:
  EpilogueWalk(linalg::GenericOp generic, BlockArgument conv,
               BlockArgument residual, ArrayRef<BlockArgument> channels)
      : generic(generic), body(&generic.getRegion().front()), conv(conv),
        residual(residual) {
    for (BlockArgument arg : channels)
      forms[arg] = Form::Channel;
    forms[conv] = conv.getType().isF32() ? Form::Affine : Form::Raw;
    if (residual)
      forms[residual] = residual.getType().isF32() ? Form::Residual : Form::Raw;
  }

  /// Classifies (and with `b`, builds) every op of the body but the final
  /// ReLU, rounding and yield; true if the body is such an epilogue.
  /// `result` is then the value before the ReLU (Affine or
  /// AffineResidual), `relu` whether the ReLU follows.
  bool walk(OpBuilder *b, IRMapping *mapping) {
    Block &body = generic.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (yield.getNumOperands() != 1 || !body.getArguments().back().use_empty())
      return false;
    // The tail: [truncf] [relu] value.
    SmallVector<Operation *> tail;
    Value value = yield.getOperand(0);
    Type outElement = value.getType();
    if (auto trunc = value.getDefiningOp<arith::TruncFOp>();
        trunc && trunc->getBlock() == &body && !trunc.getRoundingmodeAttr()) {
      tail.push_back(trunc);
      value = trunc.getIn();
    }
    if (Value x = matchReluInput(value, tail)) {
      relu = true;
      value = x;
    }
    if (!value.getType().isF32() || !(outElement.isF32() || !tail.empty()))
      return false;
    for (Operation &op : body.without_terminator()) {
      if (llvm::is_contained(tail, &op))
        continue;
      if (!visit(op, b, mapping))
        return false;
    }
    // Every op of the tail reads the result only (the ReLU's compare and
    // select, the rounding of its output).
    for (Operation *op : tail)
      for (Value operand : op->getOperands())
        if (operand.getParentBlock() == &body &&
            !llvm::is_contained(tail, operand.getDefiningOp()) &&
            operand != value)
          return false;
    auto form = forms.find(value);
    if (form == forms.end() ||
        (form->second != Form::Affine && form->second != Form::AffineResidual))
      return false;
    result = value;
    withResidual = form->second == Form::AffineResidual;
    // The residual, if the generic has one, was added.
    return !residual || withResidual;
  }

  /// The built terms of the result, and which there are.
  Terms getResultTerms() const { return terms.lookup(result); }
  TermsPresent getResultPresence() const { return present.lookup(result); }

  bool relu = false, withResidual = false;
  /// The residual is read rectified: relu(residual), a ReLU the body
  /// recomputes (the previous block's, fused into its readers).
  bool residualRectified = false;

private:
  /// The form of `value`: its entry, or Channel for values defined outside
  /// the body (constants); none for a value the walk has not seen.
  std::optional<Form> formOf(Value value) const {
    if (value.getParentBlock() != body)
      return Form::Channel;
    auto it = forms.find(value);
    if (it == forms.end())
      return std::nullopt;
    return it->second;
  }

  bool visit(Operation &op, OpBuilder *b, IRMapping *mapping) {
    if (op.getNumResults() != 1 || !isMemoryEffectFree(&op) ||
        op.getNumRegions() != 0)
      return false;
    Value out = op.getResult(0);
    SmallVector<Form> operandForms;
    for (Value operand : op.getOperands()) {
      std::optional<Form> form = formOf(operand);
      if (!form)
        return false;
      operandForms.push_back(*form);
    }
    if (llvm::all_of(operandForms, [](Form f) { return f == Form::Channel; })) {
      forms[out] = Form::Channel;
      if (b)
        b->clone(op, *mapping);
      return true;
    }
    // The residual rectified (select(cmpf(r, 0), r, 0) or maximumf(r, 0)):
    // the compare, then the ReLU.
    if (isa<arith::CmpFOp>(op) && operandForms[0] == Form::Residual &&
        operandForms[1] == Form::Channel && op.hasOneUse()) {
      forms[out] = Form::ResidualTest;
      return true;
    }
    SmallVector<Operation *> reluOps;
    if (isa<arith::SelectOp, arith::MaximumFOp>(op) && !residualRectified)
      if (Value x = matchReluInput(out, reluOps);
          x && formOf(x) == Form::Residual) {
        residualRectified = true;
        forms[out] = Form::Residual;
        return true;
      }
    if (!out.getType().isF32())
      return false;
    // The widening of the convolution's 16-bit element, or the residual's.
    if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      Value in = ext.getIn();
      if (in == conv) {
        forms[out] = Form::Affine;
        return true;
      }
      if (in == residual) {
        forms[out] = Form::Residual;
        return true;
      }
      return false;
    }
    if (isa<arith::NegFOp>(op)) {
      if (operandForms[0] != Form::Affine)
        return false;
      forms[out] = Form::Affine;
      present[out] = {true, present.lookup(op.getOperand(0)).b};
      if (b) {
        Terms t = terms.lookup(op.getOperand(0));
        terms[out] = {t.a ? arith::NegFOp::create(*b, op.getLoc(), t.a)
                          : createConstant(*b, op.getLoc(), -1.0),
                      t.b ? arith::NegFOp::create(*b, op.getLoc(), t.b)
                          : Value()};
      }
      return true;
    }
    if (op.getNumOperands() != 2)
      return false;
    Value lhs = op.getOperand(0), rhs = op.getOperand(1);
    Form l = operandForms[0], r = operandForms[1];
    auto channel = [&](Value v) {
      return b ? mapChannel(*b, op.getLoc(), v, *mapping) : Value();
    };
    Location loc = op.getLoc();
    bool add = isa<arith::AddFOp>(op), sub = isa<arith::SubFOp>(op);
    if (add || sub) {
      // a x + b + c either way round (the residual added once), a x + b - c,
      // or c - (a x + b).
      if (add &&
          (l == Form::Channel || (r != Form::Channel && l == Form::Residual))) {
        std::swap(lhs, rhs);
        std::swap(l, r);
      }
      if ((l == Form::Affine || l == Form::AffineResidual) &&
          r == Form::Channel) {
        forms[out] = l;
        present[out] = {present.lookup(lhs).a, true};
        if (b) {
          Terms t = terms.lookup(lhs);
          Value c = channel(rhs);
          Value shift =
              !t.b  ? (add ? c : arith::NegFOp::create(*b, loc, c).getResult())
              : add ? arith::AddFOp::create(*b, loc, t.b, c).getResult()
                    : arith::SubFOp::create(*b, loc, t.b, c).getResult();
          terms[out] = {t.a, shift};
        }
        return true;
      }
      if (add && l == Form::Affine && r == Form::Residual) {
        forms[out] = Form::AffineResidual;
        present[out] = present.lookup(lhs);
        if (b)
          terms[out] = terms.lookup(lhs);
        return true;
      }
      if (sub && l == Form::Channel && r == Form::Affine) {
        forms[out] = Form::Affine;
        present[out] = {true, true};
        if (b) {
          Terms t = terms.lookup(rhs);
          Value c = channel(lhs);
          terms[out] = {t.a ? arith::NegFOp::create(*b, loc, t.a)
                            : createConstant(*b, loc, -1.0),
                        t.b ? arith::SubFOp::create(*b, loc, c, t.b) : c};
        }
        return true;
      }
      return false;
    }
    if (isa<arith::MulFOp, arith::DivFOp>(op)) {
      bool divide = isa<arith::DivFOp>(op);
      if (!divide && l == Form::Channel) {
        std::swap(lhs, rhs);
        std::swap(l, r);
      }
      if (l != Form::Affine || r != Form::Channel)
        return false;
      forms[out] = Form::Affine;
      present[out] = {true, present.lookup(lhs).b};
      if (b) {
        Terms t = terms.lookup(lhs);
        Value c = channel(rhs);
        auto apply = [&](Value term) -> Value {
          if (divide)
            return arith::DivFOp::create(*b, loc, term, c);
          return arith::MulFOp::create(*b, loc, term, c);
        };
        terms[out] = {t.a ? apply(t.a)
                          : (divide ? apply(createConstant(*b, loc, 1.0)) : c),
                      t.b ? apply(t.b) : Value()};
      }
      return true;
    }
    return false;
  }

  /// The built value of the per-channel `value` (a mapped value, or one
  /// defined outside the body: a constant, used as it is).
  static Value mapChannel(OpBuilder &, Location, Value value,
                          IRMapping &mapping) {
    return mapping.lookupOrDefault(value);
  }

  static Value createConstant(OpBuilder &b, Location loc, double value) {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(static_cast<float>(value)));
  }

  linalg::GenericOp generic;
  Block *body;
  BlockArgument conv, residual;
  DenseMap<Value, Form> forms;
  DenseMap<Value, Terms> terms;
  DenseMap<Value, TermsPresent> present;
  Value result;
};

/// Whether `map`, of a generic's loops of `ranges`, reads the last loop
/// (the NHWC channel) and nothing else: each result that loop, a constant
/// 0 or a loop of extent 1 (ResNet's last stage at a small input: a 1x1
/// image), the channel loop once.
bool readsChannelOnly(AffineMap map, ArrayRef<int64_t> ranges) {
  unsigned rank = ranges.size();
  AffineExpr channel = getAffineDimExpr(rank - 1, map.getContext());
  unsigned uses = 0;
  for (AffineExpr result : map.getResults()) {
    if (result == channel)
      ++uses;
    else if (auto dim = dyn_cast<AffineDimExpr>(result);
             dim && ranges[dim.getPosition()] == 1)
      continue;
    else if (auto constant = dyn_cast<AffineConstantExpr>(result);
             !constant || constant.getValue() != 0)
      return false;
  }
  return uses == 1;
}

/// Whether `value` is a buffer the call at `conv` may write in place of
/// `last`'s output: an allocation in `conv`'s block (moved before `conv` if
/// after, with the memref.dim ops of its sizes, which `moves` gets),
/// nothing but `last`, later ops and its deallocation touching it before
/// `last`.
bool isMovableOutput(Value value, Operation *conv, Operation *last,
                     SmallVectorImpl<Operation *> &moves) {
  auto alloc = value.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock())
    return false;
  // Its dynamic sizes (a frontend's dynamic batch): there at the
  // convolution, or a memref.dim after it of a buffer that is, moved too.
  DominanceInfo dominance;
  for (Value size : alloc->getOperands()) {
    if (dominance.properlyDominates(size, conv))
      continue;
    auto dim = size.getDefiningOp<memref::DimOp>();
    if (!dim || dim->getBlock() != conv->getBlock() ||
        !llvm::all_of(dim->getOperands(), [&](Value operand) {
          return dominance.properlyDominates(operand, conv);
        }))
      return false;
    if (conv->isBeforeInBlock(dim) && !llvm::is_contained(moves, dim))
      moves.push_back(dim);
  }
  return llvm::all_of(alloc->getUsers(), [&](Operation *user) {
    Operation *inBlock = conv->getBlock()->findAncestorOpInBlock(*user);
    return inBlock && (inBlock == last || last->isBeforeInBlock(inBlock));
  });
}

/// Whether `buffer` is there at `conv`: defined before it, or a reshape
/// (expand or collapse shape, pure) after it in its block of a buffer that
/// is, which `views` gets, to be moved before `conv`.
bool isAvailableAt(Value buffer, Operation *conv,
                   SmallVectorImpl<Operation *> &views) {
  if (DominanceInfo().properlyDominates(buffer, conv))
    return true;
  Operation *view = buffer.getDefiningOp();
  if (!isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(view) ||
      view->getBlock() != conv->getBlock() ||
      !isAvailableAt(view->getOperand(0), conv, views))
    return false;
  views.push_back(view);
  return true;
}

/// The analysis of `epilogue`'s generic (its walk's block arguments).
EpilogueWalk getWalk(const ConvEpilogue &epilogue) {
  linalg::GenericOp generic = epilogue.generic;
  SmallVector<BlockArgument> channels;
  for (OpOperand *input : epilogue.channels)
    channels.push_back(generic.getMatchingBlockArgument(input));
  return EpilogueWalk(generic, generic.getMatchingBlockArgument(epilogue.read),
                      epilogue.residual ? generic.getMatchingBlockArgument(
                                              epilogue.residualRead)
                                        : BlockArgument(),
                      channels);
}
} // namespace

std::optional<ConvEpilogue> matchConvEpilogue(Operation *conv, Value y,
                                              Operation *fill, Type xElement) {
  auto alloc = y.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock() || !fill)
    return std::nullopt;
  ConvEpilogue epilogue;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == conv || user == fill || isa<memref::DeallocOp>(user))
      continue;
    if (epilogue.read)
      return std::nullopt;
    epilogue.read = &use;
  }
  auto generic = epilogue.read
                     ? dyn_cast<linalg::GenericOp>(epilogue.read->getOwner())
                     : nullptr;
  if (!generic || generic->getBlock() != conv->getBlock() ||
      !conv->isBeforeInBlock(generic) || generic.getNumDpsInits() != 1 ||
      !generic.hasPureBufferSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.isDpsInput(epilogue.read) ||
      !generic.getMatchingIndexingMap(epilogue.read).isIdentity() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return std::nullopt;
  epilogue.generic = generic;
  Value out = generic.getDpsInits()[0];
  auto outType = cast<MemRefType>(out.getType());
  Type outElement = outType.getElementType();
  if (outType.getShape() != cast<MemRefType>(y.getType()).getShape() ||
      !outType.getLayout().isIdentity() ||
      !(outElement.isF32() || outElement == xElement))
    return std::nullopt;
  // The other inputs: per-channel operands, and maybe the residual (of the
  // output's type, read where the generic writes). Each must be there at
  // the convolution, unchanged until the generic.
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input == epilogue.read)
      continue;
    Value buffer = input->get();
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (!isAvailableAt(buffer, conv, epilogue.views) ||
        isWrittenBetween(conv, generic, buffer))
      return std::nullopt;
    if (readsChannelOnly(map, ranges)) {
      epilogue.channels.push_back(input);
    } else if (!epilogue.residual && map.isIdentity() &&
               buffer.getType() == out.getType() &&
               memref::skipViewLikeOps(cast<MemrefValue>(buffer)) !=
                   memref::skipViewLikeOps(cast<MemrefValue>(out))) {
      epilogue.residual = buffer;
      epilogue.residualRead = input;
    } else {
      return std::nullopt;
    }
  }
  EpilogueWalk walk = getWalk(epilogue);
  if (!walk.walk(nullptr, nullptr))
    return std::nullopt;
  // A rectified residual: the buffer of its ReLU, a ReLU-only generic of
  // the residual before the convolution, unchanged until the generic.
  if (walk.residualRectified) {
    Block *block = conv->getBlock();
    linalg::GenericOp rectifier =
        matchReluFollower(&block->front(), epilogue.residual);
    if (!rectifier || !rectifier->isBeforeInBlock(conv))
      return std::nullopt;
    // It holds the ReLU of what the generic reads: neither changes between.
    Value rectified = rectifier.getDpsInits()[0];
    if (rectified.getType() != out.getType() ||
        isWrittenBetween(rectifier, generic, rectified) ||
        isWrittenBetween(rectifier, generic, epilogue.residual))
      return std::nullopt;
    epilogue.residual = rectified;
  }
  epilogue.relu = walk.relu;
  epilogue.out = out;
  // A ReLU-only generic of the output, its one reader, takes the ReLU (the
  // residual's block: conv, BN, add, then the ReLU as its own op).
  SmallVector<Operation *> moves;
  if (!epilogue.relu && isMovableOutput(out, conv, generic, moves))
    if (linalg::GenericOp follower = matchReluFollower(generic, out))
      if (llvm::all_of(out.getUsers(),
                       [&](Operation *user) {
                         return user == generic || user == follower ||
                                isa<memref::DeallocOp>(user);
                       }) &&
          isMovableOutput(follower.getDpsInits()[0], conv, follower, moves)) {
        epilogue.follower = follower;
        epilogue.relu = true;
        epilogue.out = follower.getDpsInits()[0];
      }
  Operation *last = epilogue.follower ? epilogue.follower : generic;
  moves.clear();
  if (!isMovableOutput(epilogue.out, conv, last, moves))
    return std::nullopt;
  epilogue.views.append(moves.begin(), moves.end());
  return epilogue;
}

std::pair<Value, Value> buildConvEpilogueTerms(RewriterBase &rewriter,
                                               Operation *conv,
                                               const ConvEpilogue &epilogue) {
  linalg::GenericOp generic = epilogue.generic;
  Location loc = generic.getLoc();
  // Which terms there are (a null term is 1 or 0 and gets no buffer).
  EpilogueWalk probe = getWalk(epilogue);
  probe.walk(nullptr, nullptr);
  TermsPresent present = probe.getResultPresence();
  bool hasScale = present.a, hasBias = present.b;
  if (!hasScale && !hasBias)
    return {};

  rewriter.setInsertionPoint(conv);
  int64_t channels = cast<MemRefType>(epilogue.out.getType()).getShape().back();
  auto termType = MemRefType::get({channels}, rewriter.getF32Type());
  SmallVector<Value> outputs;
  Value scale, bias;
  if (hasScale)
    outputs.push_back(scale = memref::AllocOp::create(rewriter, loc, termType));
  if (hasBias)
    outputs.push_back(bias = memref::AllocOp::create(rewriter, loc, termType));
  // The per-channel operands, read through their maps with the channel
  // loop as the one loop.
  MLIRContext *ctx = rewriter.getContext();
  unsigned rank = generic.getNumLoops();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : epilogue.channels) {
    inputs.push_back(input->get());
    // The channel loop is the one loop; the others do not appear.
    SmallVector<AffineExpr> dims(rank, getAffineConstantExpr(0, ctx));
    dims[rank - 1] = getAffineDimExpr(0, ctx);
    maps.push_back(generic.getMatchingIndexingMap(input).replaceDimsAndSymbols(
        dims, {}, 1, 0));
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    maps.push_back(AffineMap::getMultiDimIdentityMap(1, ctx));
  linalg::GenericOp::create(
      rewriter, loc, TypeRange(), inputs, outputs, maps,
      SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &b, Location, ValueRange args) {
        IRMapping mapping;
        for (auto [i, input] : llvm::enumerate(epilogue.channels))
          mapping.map(generic.getMatchingBlockArgument(input), args[i]);
        EpilogueWalk walk = getWalk(epilogue);
        walk.walk(&b, &mapping);
        Terms t = walk.getResultTerms();
        SmallVector<Value> yielded;
        if (hasScale)
          yielded.push_back(t.a);
        if (hasBias)
          yielded.push_back(t.b);
        linalg::YieldOp::create(b, loc, yielded);
      });
  return {scale, bias};
}

} // namespace library_calls
} // namespace amp
} // namespace mlir
