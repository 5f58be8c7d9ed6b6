//===- FuseAttention.cpp - the amp-fuse-attention pass --------------------===//
//
// Part of amp-mlir. A model's attention chain (matmul, constant factors, an
// additive mask, softmax, matmul; Passes.td says which forms) becomes one
// amp.attention, which the GPU pipeline makes cuDNN's fused attention.
//
// The match starts at the second batch matmul and walks the chain back
// through the precision passes' casts (generics that only convert),
// recording every op of it: none may have a reader outside the chain but
// the last. Q, K and V are taken where the chain's reshapes start (the
// head-split transposes of a B x S x H x D tensor give the op's bshd
// layout).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFUSEATTENTIONPASS
#include "amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The permutation of a head split (B x S x H x D to B x H x S x D) and of
/// the keys' split into K^T (B x S x H x D to B x H x D x S).
constexpr int64_t kHeadSplit[] = {0, 2, 1, 3};
constexpr int64_t kKeySplit[] = {0, 2, 3, 1};
constexpr int64_t kKeyTranspose[] = {0, 1, 3, 2};

/// `value` with its float conversions (arith.extf/truncf) stripped.
Value stripCasts(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// True if `generic` is elementwise: all loops parallel, its one output
/// read through the identity.
bool isElementwise(linalg::GenericOp generic) {
  return generic.getNumDpsInits() == 1 && generic.getNumReductionLoops() == 0 &&
         generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
             .isIdentity();
}

/// The value `generic` yields (first result), its conversions stripped.
Value getYielded(linalg::GenericOp generic, unsigned index = 0) {
  return stripCasts(generic.getBody()->getTerminator()->getOperand(index));
}

/// The input operand of `generic` whose block argument `value` is (its
/// conversions stripped), or null.
OpOperand *getInputOf(linalg::GenericOp generic, Value value) {
  auto arg = dyn_cast<BlockArgument>(stripCasts(value));
  if (!arg || arg.getOwner() != generic.getBody() ||
      arg.getArgNumber() >= generic.getNumDpsInputs())
    return nullptr;
  return generic.getDpsInputOperand(arg.getArgNumber());
}

/// The float constant `value` is (through conversions), or std::nullopt.
std::optional<double> getConstant(Value value) {
  FloatAttr attr;
  if (matchPattern(stripCasts(value), m_Constant(&attr)))
    return attr.getValueAsDouble();
  return std::nullopt;
}

/// A chain being matched: its ops (each read only inside it, but the last)
/// and the reason a match failed.
struct Chain {
  SetVector<Operation *> ops;
  std::string why;

  bool fail(StringRef reason) {
    if (why.empty())
      why = reason.str();
    return false;
  }
};

/// `value` with the generics that only convert it (one input, identity
/// maps, the body a conversion) looked through, each added to `chain`.
Value skipCastGenerics(Value value, Chain &chain) {
  while (auto generic = value.getDefiningOp<linalg::GenericOp>()) {
    if (generic.getNumDpsInputs() != 1 || !isElementwise(generic) ||
        !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
             .isIdentity() ||
        generic.getBody()->getOperations().size() != 2 ||
        !isa<arith::ExtFOp, arith::TruncFOp>(generic.getBody()->front()))
      break;
    chain.ops.insert(generic);
    value = generic.getDpsInputOperand(0)->get();
  }
  return value;
}

/// The 4-D source of `value`, a collapse of B x H into one batch dimension
/// (or an expansion back), added to `chain` when `inChain`.
template <typename ReshapeOp>
Value getBatchReshapeSource(Value value, Chain &chain, bool inChain) {
  auto reshape = value.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return {};
  SmallVector<ReassociationIndices> groups = reshape.getReassociationIndices();
  if (groups.size() != 3 || groups[0] != ReassociationIndices{0, 1} ||
      groups[1] != ReassociationIndices{2} ||
      groups[2] != ReassociationIndices{3})
    return {};
  if (inChain)
    chain.ops.insert(reshape);
  return reshape.getSrc();
}

/// A row statistic of the softmax, read by `generic` as its second input
/// broadcast along the rows (B x H x Sq x 1 read at (b, h, i, 0), or
/// B x H x Sq at (b, h, i)): its reduction generic over `rowsOf`, with
/// the max (`maximum`) or the sum in its body. Adds the ops to `chain`.
linalg::GenericOp matchRowReduction(Value statistic, Value rowsOf, Chain &chain,
                                    bool maximum) {
  statistic = skipCastGenerics(statistic, chain);
  if (auto expand = statistic.getDefiningOp<tensor::ExpandShapeOp>()) {
    chain.ops.insert(expand);
    statistic = skipCastGenerics(expand.getSrc(), chain);
  }
  auto reduction = statistic.getDefiningOp<linalg::GenericOp>();
  if (!reduction || reduction.getNumDpsInputs() != 1 ||
      reduction.getNumLoops() != 4 || reduction.getNumReductionLoops() != 1 ||
      reduction.getIteratorTypesArray()[3] != utils::IteratorType::reduction ||
      skipCastGenerics(reduction.getDpsInputOperand(0)->get(), chain) != rowsOf)
    return {};
  auto combiner = getYielded(reduction).getDefiningOp();
  bool combines = maximum ? isa_and_nonnull<arith::MaximumFOp>(combiner)
                          : isa_and_nonnull<arith::AddFOp>(combiner);
  if (!combines)
    return {};
  // The max's argmax result (torch-mlir's max.dim) must be unused.
  for (OpResult result : reduction->getResults().drop_front())
    if (!result.use_empty())
      return {};
  // The initial value: 0 for the sum, at most every value for the max.
  auto fill =
      reduction.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  std::optional<double> init =
      fill ? getConstant(fill.getInputs()[0]) : std::nullopt;
  if (!init || (maximum ? !(*init < -6.0e4) : *init != 0.0))
    return {};
  chain.ops.insert(reduction);
  return reduction;
}

/// The softmax whose result is `probabilities` (4-D): X - max, exp, the
/// sum of the exponentials and the division (torch-mlir's decomposition),
/// as separate generics or sub and exp in one: what it reads (X, the scores
/// after their scaling and mask), or null. Adds its ops to `chain`.
Value matchSoftmax(Value probabilities, Chain &chain) {
  auto divide = probabilities.getDefiningOp<linalg::GenericOp>();
  if (!divide || !isElementwise(divide) || divide.getNumDpsInputs() != 2)
    return {};
  auto quotient = getYielded(divide).getDefiningOp<arith::DivFOp>();
  if (!quotient)
    return {};
  OpOperand *numerator = getInputOf(divide, quotient.getLhs());
  OpOperand *denominator = getInputOf(divide, quotient.getRhs());
  if (!numerator || !denominator ||
      !divide.getMatchingIndexingMap(numerator).isIdentity())
    return {};
  chain.ops.insert(divide);
  Value exponentials = skipCastGenerics(numerator->get(), chain);
  if (!matchRowReduction(denominator->get(), exponentials, chain, false))
    return {};
  // exp(X - max), in one generic or an exp of a subtraction.
  auto exp = exponentials.getDefiningOp<linalg::GenericOp>();
  if (!exp || !isElementwise(exp) ||
      !isa_and_nonnull<math::ExpOp>(getYielded(exp).getDefiningOp()))
    return {};
  chain.ops.insert(exp);
  Value shiftedValue =
      stripCasts(getYielded(exp).getDefiningOp()->getOperand(0));
  auto subtract = shiftedValue.getDefiningOp<arith::SubFOp>();
  linalg::GenericOp shift = exp;
  if (!subtract) {
    OpOperand *input = getInputOf(exp, shiftedValue);
    if (!input)
      return {};
    shift = skipCastGenerics(input->get(), chain)
                .getDefiningOp<linalg::GenericOp>();
    if (!shift || !isElementwise(shift))
      return {};
    subtract = getYielded(shift).getDefiningOp<arith::SubFOp>();
    chain.ops.insert(shift);
  }
  if (!subtract)
    return {};
  OpOperand *scores = getInputOf(shift, subtract.getLhs());
  OpOperand *largest = getInputOf(shift, subtract.getRhs());
  if (!scores || !largest || !shift.getMatchingIndexingMap(scores).isIdentity())
    return {};
  Value x = skipCastGenerics(scores->get(), chain);
  if (!matchRowReduction(largest->get(), x, chain, true))
    return {};
  return x;
}

/// The scores' elementwise chain from `x` back to the product's 4-D view:
/// constant factors (multiplied into `scale`) and one additive `bias`
/// (4-D, its batch and head dimensions maybe broadcast). Returns the
/// product (the B*H x Sq x Skv batch matmul), or null.
linalg::BatchMatmulOp matchScores(Value x, Chain &chain, double &scale,
                                  Value &bias) {
  while (true) {
    x = skipCastGenerics(x, chain);
    if (Value source =
            getBatchReshapeSource<tensor::ExpandShapeOp>(x, chain, true)) {
      auto product = skipCastGenerics(source, chain)
                         .getDefiningOp<linalg::BatchMatmulOp>();
      if (product)
        chain.ops.insert(product);
      return product;
    }
    auto generic = x.getDefiningOp<linalg::GenericOp>();
    if (!generic || !isElementwise(generic))
      return (chain.fail("the scores are computed by an op other than a "
                         "constant factor or an additive mask"),
              linalg::BatchMatmulOp());
    Operation *op = getYielded(generic).getDefiningOp();
    if (!op || op->getNumOperands() != 2 ||
        !isa<arith::MulFOp, arith::DivFOp, arith::AddFOp>(op))
      return (chain.fail("the scores are computed by an op other than a "
                         "constant factor or an additive mask"),
              linalg::BatchMatmulOp());
    OpOperand *main = getInputOf(generic, op->getOperand(0));
    Value other = op->getOperand(1);
    if (!main && !isa<arith::DivFOp>(op)) {
      main = getInputOf(generic, op->getOperand(1));
      other = op->getOperand(0);
    }
    if (!main || !generic.getMatchingIndexingMap(main).isIdentity())
      return (chain.fail("the scores are read through a map"),
              linalg::BatchMatmulOp());
    if (isa<arith::AddFOp>(op)) {
      OpOperand *added = getInputOf(generic, other);
      if (!added || bias)
        return (chain.fail("the scores are added something other than one "
                           "mask"),
                linalg::BatchMatmulOp());
      // The mask: B|1 x H|1 x Sq x Skv, its size-1 batch or heads read at 0.
      AffineMap map = generic.getMatchingIndexingMap(added);
      auto type = cast<RankedTensorType>(added->get().getType());
      if (type.getRank() != 4 || map.getNumResults() != 4)
        return (chain.fail("the mask is not B|1 x H|1 x Sq x Skv"),
                linalg::BatchMatmulOp());
      for (unsigned dim = 0; dim < 4; ++dim) {
        AffineExpr expr = map.getResult(dim);
        bool same = expr == getAffineDimExpr(dim, map.getContext());
        bool broadcast = dim < 2 && type.getDimSize(dim) == 1 &&
                         expr == getAffineConstantExpr(0, map.getContext());
        if (!same && !broadcast)
          return (chain.fail("the mask is not B|1 x H|1 x Sq x Skv"),
                  linalg::BatchMatmulOp());
      }
      bias = added->get();
    } else {
      std::optional<double> factor = getConstant(other);
      if (!factor || *factor == 0.0)
        return (chain.fail("the scores are multiplied by a value that is not "
                           "a constant"),
                linalg::BatchMatmulOp());
      scale = isa<arith::MulFOp>(op) ? scale * *factor : scale / *factor;
    }
    chain.ops.insert(generic);
    x = main->get();
  }
}

/// The operands of the fused op, in its layout.
struct AttentionOperands {
  Value query, key, value;
  bool bshd = false;
};

/// Q, K and V of the products (B*H collapses of Q, K^T and V), in bshd
/// where all three are head splits of B x S x H x D tensors. `keyTranspose`
/// is set when K must be made from K^T (a transpose the caller builds).
/// (The products may read them converted: at O1 a collapse of an f32
/// tensor converted to 16 bits; the caller converts what is returned.)
std::optional<AttentionOperands> matchOperands(linalg::BatchMatmulOp scores,
                                               linalg::BatchMatmulOp output,
                                               Chain &chain,
                                               Value &keyTranspose) {
  auto source = [&](Value operand) {
    Chain conversions;
    return getBatchReshapeSource<tensor::CollapseShapeOp>(
        skipCastGenerics(operand, conversions), chain, false);
  };
  Value query = source(scores.getDpsInputOperand(0)->get());
  Value keyT = source(scores.getDpsInputOperand(1)->get());
  Value value = source(output.getDpsInputOperand(1)->get());
  if (!query || !keyT || !value) {
    chain.fail("Q, K^T or V is not a collapse of a 4-D tensor");
    return std::nullopt;
  }
  auto splitOf = [](Value v, ArrayRef<int64_t> permutation) -> Value {
    auto transpose = v.getDefiningOp<linalg::TransposeOp>();
    if (transpose && transpose.getPermutation() == permutation)
      return transpose.getInput();
    return {};
  };
  Value q = splitOf(query, kHeadSplit), k = splitOf(keyT, kKeySplit),
        v = splitOf(value, kHeadSplit);
  if (q && k && v)
    return AttentionOperands{q, k, v, true};
  AttentionOperands operands{query, splitOf(keyT, kKeyTranspose), value, false};
  if (!operands.key)
    keyTranspose = keyT;
  return operands;
}

/// True if every op of `chain` but `last` is read only by ops of it.
bool isClosed(const Chain &chain, Operation *last, Operation *&outside) {
  for (Operation *op : chain.ops) {
    if (op == last)
      continue;
    for (Operation *user : op->getUsers())
      if (!chain.ops.contains(user)) {
        outside = user;
        return false;
      }
  }
  return true;
}

/// `value` (4-D) transposed by `permutation`, built at the insertion point.
Value transpose(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> permutation) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> permuted;
  for (int64_t dim : permutation)
    permuted.push_back(sizes[dim]);
  Value empty = tensor::EmptyOp::create(b, loc, permuted,
                                        getElementTypeOrSelf(value.getType()));
  return linalg::TransposeOp::create(b, loc, value, empty, permutation)
      ->getResult(0);
}

/// `value` converted to `type` elementwise (a generic whose body is
/// convertFloat's), built at the insertion point.
Value convert(OpBuilder &b, Location loc, Value value, FloatType type) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source.getElementType() == type)
    return value;
  Value empty = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, value), type);
  AffineMap identity = b.getMultiDimIdentityMap(source.getRank());
  SmallVector<utils::IteratorType> parallel(source.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, empty.getType(), value, empty, {identity, identity},
             parallel,
             [&](OpBuilder &nested, Location at, ValueRange args) {
               linalg::YieldOp::create(nested, at,
                                       convertFloat(nested, at, args[0], type));
             })
      .getResult(0);
}

/// The chain ending at `output` (the batch matmul of the probabilities by
/// V) as one amp.attention; the reason it stays otherwise (empty when it
/// is no attention at all).
std::string fuseAttention(RewriterBase &rewriter,
                          linalg::BatchMatmulOp output) {
  Chain chain;
  Value probabilities = getBatchReshapeSource<tensor::CollapseShapeOp>(
      skipCastGenerics(output.getDpsInputOperand(0)->get(), chain), chain,
      true);
  if (!probabilities)
    return {};
  Value x = matchSoftmax(skipCastGenerics(probabilities, chain), chain);
  if (!x)
    return {};
  // From here on, a softmax read by a matmul: an attention, fused or not.
  double scale = 1.0;
  Value bias;
  linalg::BatchMatmulOp scores = matchScores(x, chain, scale, bias);
  if (!scores)
    return chain.why;
  chain.ops.insert(output);
  Value keyTranspose;
  std::optional<AttentionOperands> operands =
      matchOperands(scores, output, chain, keyTranspose);
  if (!operands)
    return chain.why;
  // The products' operand type, which the op computes in.
  auto element = cast<FloatType>(
      getElementTypeOrSelf(scores.getDpsInputOperand(0)->get().getType()));
  auto type = cast<RankedTensorType>(operands->query.getType());
  if (!element.isF16() && !element.isBF16()) {
    std::string why = "the fused attention call (cuDNN) takes f16 or bf16, "
                      "and Q is ";
    llvm::raw_string_ostream os(why);
    os << element;
    return why;
  }
  int64_t headDim = type.getDimSize(3);
  if (ShapedType::isDynamic(headDim) || headDim % 8 != 0 || headDim > 128)
    return "the fused attention call (cuDNN) takes a head dimension that is "
           "a multiple of 8 up to 128";
  if (getElementTypeOrSelf(output.getDpsInputOperand(1)->get().getType()) !=
          element ||
      getElementTypeOrSelf(scores.getDpsInputOperand(1)->get().getType()) !=
          element)
    return "the products read Q, K and V in different element types";
  // The chain's result: the product of P and V, or its one conversion,
  // which must be to Q's type.
  Operation *last = output;
  Value result = output.getResult(0);
  if (result.hasOneUse()) {
    auto cast = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
    Chain casts;
    if (cast && skipCastGenerics(cast.getResult(0), casts) == result) {
      last = cast;
      result = cast.getResult(0);
      chain.ops.insert(cast);
    }
  }
  for (Operation *op : chain.ops)
    if (op->getBlock() != output->getBlock())
      return "the chain spans several blocks";
  Operation *outside = nullptr;
  if (!isClosed(chain, last, outside))
    return "a value of the chain is also read by " +
           outside->getName().getStringRef().str() +
           " (a training step's backward reads the probabilities: the fused "
           "backward is not done yet)";

  Location loc = output.getLoc();
  rewriter.setInsertionPoint(last->getNextNode());
  Value key = operands->key;
  if (!key)
    key = transpose(rewriter, loc, keyTranspose, kKeyTranspose);
  // In the products' type (at O1 the chain converted them, as here).
  Value query = convert(rewriter, loc, operands->query, element);
  key = convert(rewriter, loc, key, element);
  Value value = convert(rewriter, loc, operands->value, element);
  if (bias)
    bias = convert(rewriter, loc, bias, element);
  Value init = tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, query), element);
  auto attention = AttentionOp::create(
      rewriter, loc, TypeRange{init.getType()}, query, key, value, bias,
      ValueRange{init}, rewriter.getF32FloatAttr(static_cast<float>(scale)),
      /*causal=*/nullptr, operands->bshd ? rewriter.getUnitAttr() : nullptr);
  // The output in the type the chain stored it in (f32 at O1: its reader
  // converts it back).
  auto resultElement = cast<FloatType>(getElementTypeOrSelf(result.getType()));
  Value out = convert(rewriter, loc, attention.getResult(0), resultElement);
  // Where the output is split back (B*H x Sq x D to B x H x Sq x D, then
  // to B x S x H x D), the bshd result replaces that transpose.
  if (operands->bshd && result.hasOneUse()) {
    auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
    Chain reshapes;
    if (expand && expand->hasOneUse() &&
        getBatchReshapeSource<tensor::ExpandShapeOp>(expand.getResult(),
                                                     reshapes, false)) {
      auto back = dyn_cast<linalg::TransposeOp>(*expand->getUsers().begin());
      if (back && back.getPermutation() == ArrayRef<int64_t>(kHeadSplit)) {
        rewriter.replaceOp(back, out);
        rewriter.eraseOp(expand);
        result = Value();
      }
    }
  }
  if (result) {
    if (operands->bshd)
      out = transpose(rewriter, loc, out, kHeadSplit);
    out = tensor::CollapseShapeOp::create(
        rewriter, loc, out,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    rewriter.replaceAllUsesWith(result, out);
  }
  // The chain, last op first (each is read only by later ones).
  SmallVector<Operation *> ops(chain.ops.begin(), chain.ops.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : ops)
    rewriter.eraseOp(op);
  return {};
}

struct AmpFuseAttentionPass
    : public amp::impl::AmpFuseAttentionPassBase<AmpFuseAttentionPass> {
  void runOnOperation() override {
    SmallVector<linalg::BatchMatmulOp> products;
    getOperation().walk([&](linalg::BatchMatmulOp op) {
      if (op.hasPureTensorSemantics())
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // In program order: a fused chain erases its first product, which
    // comes before its second (it was visited already), and nothing later.
    for (linalg::BatchMatmulOp product : products) {
      std::string why = fuseAttention(rewriter, product);
      if (!why.empty())
        product.emitRemark() << "amp: attention kept as separate ops, not "
                                "one fused call: "
                             << why;
    }
  }
};
} // namespace
