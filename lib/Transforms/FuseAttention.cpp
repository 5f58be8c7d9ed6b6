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
/// The merge of K^T's gradient back (B x H x D x S to B x S x H x D), and
/// a B*H x M x N product operand's transpose.
constexpr int64_t kKeyMerge[] = {0, 3, 1, 2};
constexpr int64_t kOperandTranspose[] = {0, 2, 1};
/// cuDNN's fused attention runs on sm_80 (Ampere) and later.
constexpr int kMinComputeCapability = 80;

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
/// B x H x Sq at (b, h, i); one dimension fewer for B*H x Sq x Skv scores):
/// its reduction generic over `rowsOf`'s last dimension, with the max
/// (maximumf or maxnumf, `maximum`) or the sum in its body. Adds the ops
/// to `chain`.
linalg::GenericOp matchRowReduction(Value statistic, Value rowsOf, Chain &chain,
                                    bool maximum) {
  statistic = skipCastGenerics(statistic, chain);
  if (auto expand = statistic.getDefiningOp<tensor::ExpandShapeOp>()) {
    chain.ops.insert(expand);
    statistic = skipCastGenerics(expand.getSrc(), chain);
  }
  auto reduction = statistic.getDefiningOp<linalg::GenericOp>();
  unsigned rank = cast<ShapedType>(rowsOf.getType()).getRank();
  if (!reduction || reduction.getNumDpsInputs() != 1 ||
      reduction.getNumLoops() != rank ||
      reduction.getNumReductionLoops() != 1 ||
      reduction.getIteratorTypesArray()[rank - 1] !=
          utils::IteratorType::reduction ||
      skipCastGenerics(reduction.getDpsInputOperand(0)->get(), chain) != rowsOf)
    return {};
  auto combiner = getYielded(reduction).getDefiningOp();
  bool combines =
      maximum ? isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(combiner)
              : isa_and_nonnull<arith::AddFOp>(combiner);
  if (!combines)
    return {};
  // The max's argmax result (torch-mlir's max.dim) must be unused.
  for (OpResult result : reduction->getResults().drop_front())
    if (!result.use_empty())
      return {};
  // The initial value: 0 for the sum, at most every value for the max (or
  // NaN for maxnumf, which ignores it: linalg.softmax's decomposition).
  auto fill =
      reduction.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  std::optional<double> init =
      fill ? getConstant(fill.getInputs()[0]) : std::nullopt;
  bool neutral =
      init && (maximum ? *init < -6.0e4 || (std::isnan(*init) &&
                                            isa<arith::MaxNumFOp>(combiner))
                       : *init == 0.0);
  if (!neutral)
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
    // B*H x Sq x Skv scores: the product itself.
    if (auto product = x.getDefiningOp<linalg::BatchMatmulOp>()) {
      chain.ops.insert(product);
      return product;
    }
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
/// Whether `product` reads its RHS transposed (indexing maps (b, m, k),
/// (b, n, k), (b, m, n): Q K^T written with K), std::nullopt for maps other
/// than that and the default ones.
std::optional<bool> readsRhsTransposed(linalg::BatchMatmulOp product) {
  MLIRContext *context = product.getContext();
  SmallVector<AffineMap> maps = product.getIndexingMapsArray();
  if (maps == linalg::BatchMatmulOp::getDefaultIndexingMaps(context))
    return false;
  AffineExpr b, m, n, k;
  bindDims(context, b, m, n, k);
  SmallVector<AffineMap> transposed = {
      AffineMap::get(4, 0, {b, m, k}, context),
      AffineMap::get(4, 0, {b, n, k}, context),
      AffineMap::get(4, 0, {b, m, n}, context)};
  if (maps == transposed)
    return true;
  return std::nullopt;
}

std::optional<AttentionOperands> matchOperands(linalg::BatchMatmulOp scores,
                                               linalg::BatchMatmulOp output,
                                               Chain &chain,
                                               Value &keyTranspose) {
  std::optional<bool> keyRead = readsRhsTransposed(scores);
  if (!keyRead || readsRhsTransposed(output) != false) {
    chain.fail("the products read their operands through other maps than "
               "Q K^T's and P V's");
    return std::nullopt;
  }
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
  // A product that reads K itself (transposed by its maps): K as the
  // others.
  Value q = splitOf(query, kHeadSplit),
        k = *keyRead ? splitOf(keyT, kHeadSplit) : splitOf(keyT, kKeySplit),
        v = splitOf(value, kHeadSplit);
  if (q && k && v)
    return AttentionOperands{q, k, v, true};
  if (*keyRead)
    return AttentionOperands{query, keyT, value, false};
  AttentionOperands operands{query, splitOf(keyT, kKeyTranspose), value, false};
  if (!operands.key)
    keyTranspose = keyT;
  return operands;
}

/// True if every op of `chain` but those of `lasts` is read only by ops of
/// it; `outside` is the first reader found outside.
bool isClosed(const Chain &chain, ArrayRef<Operation *> lasts,
              Operation *&outside) {
  for (Operation *op : chain.ops) {
    if (llvm::is_contained(lasts, op))
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

/// The result of a product of the chain: its own, or that of its one
/// conversion (added to `chain`), with the op that makes it.
std::pair<Operation *, Value> getProductResult(linalg::BatchMatmulOp product,
                                               Chain &chain) {
  Value result = product.getResult(0);
  if (result.hasOneUse()) {
    auto cast = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
    Chain casts;
    if (cast && skipCastGenerics(cast.getResult(0), casts) == result) {
      chain.ops.insert(cast);
      return {cast, cast.getResult(0)};
    }
  }
  return {product, result};
}

/// Makes `value` (4-D, in the op's layout: B x H x S x D, or B x S x H x D
/// when `bshd`) what the product `result` (B*H x S x D; B*H x D x S when
/// `keyT`, the gradient of K^T) was, in its element type. Where the
/// product is split back and merged into B x S x H x D (a transpose by
/// `kHeadSplit`, or `kKeyMerge` for K^T) and the op is bshd, `value`
/// replaces that transpose instead.
void replaceProduct(RewriterBase &rewriter, Location loc, Value result,
                    Value value, bool bshd, bool keyT) {
  auto element = cast<FloatType>(getElementTypeOrSelf(result.getType()));
  Value out = convert(rewriter, loc, value, element);
  if (bshd && result.hasOneUse()) {
    auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
    Chain reshapes;
    if (expand && expand->hasOneUse() &&
        getBatchReshapeSource<tensor::ExpandShapeOp>(expand.getResult(),
                                                     reshapes, false)) {
      auto back = dyn_cast<linalg::TransposeOp>(*expand->getUsers().begin());
      ArrayRef<int64_t> merge =
          keyT ? ArrayRef<int64_t>(kKeyMerge) : ArrayRef<int64_t>(kHeadSplit);
      if (back && back.getPermutation() == merge) {
        rewriter.replaceOp(back, out);
        rewriter.eraseOp(expand);
        return;
      }
    }
  }
  if (bshd)
    out = transpose(rewriter, loc, out, kHeadSplit);
  if (keyT)
    out = transpose(rewriter, loc, out, kKeyTranspose);
  out = tensor::CollapseShapeOp::create(
      rewriter, loc, out, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
  rewriter.replaceAllUsesWith(result, out);
}

/// A forward attention matched: its chain and what the fused op is made of.
struct ForwardMatch {
  Chain chain;
  linalg::BatchMatmulOp scores, output;
  /// The probabilities (4-D) and their B*H collapse the output product
  /// reads; Q, K^T and V as the products read them.
  Value probabilities, probabilitiesCollapsed, queryRead, keyTRead, valueRead;
  AttentionOperands operands;
  Value keyTranspose, bias;
  double scale = 1.0;
  FloatType element;
  /// The chain's result (the output product or its one conversion) and
  /// the op producing it.
  Operation *last = nullptr;
  Value result;
};

/// Matches the forward chain ending at `output`; the reason it is not one
/// fused call in `why` (empty, with std::nullopt, when it is no attention
/// at all). Does not check who reads the chain's values.
std::optional<ForwardMatch> matchForward(linalg::BatchMatmulOp output,
                                         std::string &why) {
  ForwardMatch m;
  m.output = output;
  Chain &chain = m.chain;
  m.probabilitiesCollapsed =
      skipCastGenerics(output.getDpsInputOperand(0)->get(), chain);
  m.probabilities = getBatchReshapeSource<tensor::CollapseShapeOp>(
      m.probabilitiesCollapsed, chain, true);
  // Or a softmax of B*H x Sq x Skv scores, read as it is.
  if (!m.probabilities)
    m.probabilities = m.probabilitiesCollapsed;
  m.probabilities = skipCastGenerics(m.probabilities, chain);
  Value x = matchSoftmax(m.probabilities, chain);
  if (!x)
    return std::nullopt;
  // From here on, a softmax read by a matmul: an attention, fused or not.
  m.scores = matchScores(x, chain, m.scale, m.bias);
  auto fail = [&](StringRef reason) -> std::optional<ForwardMatch> {
    why = reason.empty() ? chain.why : reason.str();
    return std::nullopt;
  };
  if (!m.scores)
    return fail("");
  chain.ops.insert(output);
  std::optional<AttentionOperands> operands =
      matchOperands(m.scores, output, chain, m.keyTranspose);
  if (!operands)
    return fail("");
  m.operands = *operands;
  m.queryRead = skipCastGenerics(m.scores.getDpsInputOperand(0)->get(), chain);
  m.keyTRead = skipCastGenerics(m.scores.getDpsInputOperand(1)->get(), chain);
  m.valueRead = skipCastGenerics(output.getDpsInputOperand(1)->get(), chain);
  // The products' operand type, which the op computes in.
  m.element = cast<FloatType>(
      getElementTypeOrSelf(m.scores.getDpsInputOperand(0)->get().getType()));
  if (!m.element.isF16() && !m.element.isBF16()) {
    std::string reason = "the fused attention call (cuDNN) takes f16 or "
                         "bf16, and Q is ";
    llvm::raw_string_ostream os(reason);
    os << m.element;
    return fail(reason);
  }
  int64_t headDim =
      cast<RankedTensorType>(m.operands.query.getType()).getDimSize(3);
  if (ShapedType::isDynamic(headDim) || headDim % 8 != 0 || headDim > 128)
    return fail("the fused attention call (cuDNN) takes a head dimension "
                "that is a multiple of 8 up to 128");
  if (getElementTypeOrSelf(output.getDpsInputOperand(1)->get().getType()) !=
          m.element ||
      getElementTypeOrSelf(m.scores.getDpsInputOperand(1)->get().getType()) !=
          m.element)
    return fail("the products read Q, K and V in different element types");
  // The chain's result: the product of P and V, or its one conversion.
  std::tie(m.last, m.result) = getProductResult(output, chain);
  for (Operation *op : chain.ops)
    if (op->getBlock() != output->getBlock())
      return fail("the chain spans several blocks");
  return m;
}

/// Builds the forward amp.attention of `m` (with a stats destination when
/// `withStats`) after the chain's last op and makes it the chain's result.
AttentionOp buildForward(RewriterBase &rewriter, ForwardMatch &m,
                         bool withStats) {
  Location loc = m.output.getLoc();
  rewriter.setInsertionPoint(m.last->getNextNode());
  AttentionOperands &operands = m.operands;
  Value key = operands.key;
  if (!key)
    key = transpose(rewriter, loc, m.keyTranspose, kKeyTranspose);
  // In the products' type (at O1 the chain converted them, as here).
  operands.query = convert(rewriter, loc, operands.query, m.element);
  operands.key = convert(rewriter, loc, key, m.element);
  operands.value = convert(rewriter, loc, operands.value, m.element);
  Value bias = m.bias ? convert(rewriter, loc, m.bias, m.element) : Value();
  m.bias = bias;
  SmallVector<Value> inits = {tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, operands.query),
      m.element)};
  if (withStats) {
    // B x H x Sq, whatever the layout.
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, operands.query);
    std::array<unsigned, 4> order = operands.bshd
                                        ? std::array<unsigned, 4>{0, 2, 1, 3}
                                        : std::array<unsigned, 4>{0, 1, 2, 3};
    inits.push_back(tensor::EmptyOp::create(
        rewriter, loc,
        SmallVector<OpFoldResult>{sizes[order[0]], sizes[order[1]],
                                  sizes[order[2]]},
        rewriter.getF32Type()));
  }
  auto attention = AttentionOp::create(
      rewriter, loc, ValueRange(inits).getTypes(), operands.query, operands.key,
      operands.value, bias, inits,
      rewriter.getF32FloatAttr(static_cast<float>(m.scale)),
      /*causal=*/nullptr, operands.bshd ? rewriter.getUnitAttr() : nullptr);
  replaceProduct(rewriter, loc, m.result, attention.getResult(0), operands.bshd,
                 /*keyT=*/false);
  return attention;
}

/// A training step's backward of a matched forward: the gradients of the
/// two products and of the softmax, as torch's autograd writes them.
struct BackwardMatch {
  Chain chain;
  /// dV = P^T dO, dP = dO V^T, dQ = dS K (K as (K^T)^T), dK^T = Q^T dS.
  linalg::BatchMatmulOp gradValue, gradScores, gradQuery, gradKeyT;
  /// dO, the 4-D tensor the products read collapsed.
  Value gradOut;
  /// dQ, dK^T and dV: each product's result (or its conversion's) and the
  /// op making it.
  std::array<std::pair<Operation *, Value>, 3> results;
};

/// Whether `read` (conversions skipped) is the B*H x M x N transpose of
/// `of` (conversions skipped); its ops are added to `chain` if so.
bool isOperandTranspose(Value read, Value of, Chain &chain) {
  Chain ops;
  auto transpose =
      skipCastGenerics(read, ops).getDefiningOp<linalg::TransposeOp>();
  if (!transpose ||
      transpose.getPermutation() != ArrayRef<int64_t>(kOperandTranspose) ||
      skipCastGenerics(transpose.getInput(), ops) != of)
    return false;
  ops.ops.insert(transpose);
  chain.ops.insert_range(ops.ops);
  return true;
}

/// dS = dP*P - P*rowsum(dP*P) (torch's softmax backward), dP the 4-D view
/// of `gradScores`; from `x` (its scaling stripped). Adds the ops.
bool matchSoftmaxGradient(Value x, Value probabilities,
                          linalg::BatchMatmulOp gradScores, Chain &chain) {
  auto sub = skipCastGenerics(x, chain).getDefiningOp<linalg::GenericOp>();
  auto difference = sub && isElementwise(sub)
                        ? getYielded(sub).getDefiningOp<arith::SubFOp>()
                        : arith::SubFOp();
  if (!difference)
    return false;
  OpOperand *lhs = getInputOf(sub, difference.getLhs());
  OpOperand *rhs = getInputOf(sub, difference.getRhs());
  if (!lhs || !rhs || !sub.getMatchingIndexingMap(lhs).isIdentity() ||
      !sub.getMatchingIndexingMap(rhs).isIdentity())
    return false;
  chain.ops.insert(sub);
  // A product of two inputs read through the identity or (`row`) along
  // rows: the one that is P, and the other.
  auto productWithP = [&](Value value) -> OpOperand * {
    auto mul =
        skipCastGenerics(value, chain).getDefiningOp<linalg::GenericOp>();
    auto times = mul && isElementwise(mul) && mul.getNumDpsInputs() == 2
                     ? getYielded(mul).getDefiningOp<arith::MulFOp>()
                     : arith::MulFOp();
    if (!times)
      return nullptr;
    OpOperand *a = getInputOf(mul, times.getLhs());
    OpOperand *b = getInputOf(mul, times.getRhs());
    if (!a || !b)
      return nullptr;
    Chain casts;
    if (skipCastGenerics(a->get(), casts) != probabilities)
      std::swap(a, b);
    if (skipCastGenerics(a->get(), casts) != probabilities ||
        !mul.getMatchingIndexingMap(a).isIdentity())
      return nullptr;
    chain.ops.insert_range(casts.ops);
    chain.ops.insert(mul);
    return b;
  };
  // lhs: dP * P, dP the product's 4-D view.
  OpOperand *gradP = productWithP(lhs->get());
  if (!gradP || !cast<linalg::GenericOp>(gradP->getOwner())
                     .getMatchingIndexingMap(gradP)
                     .isIdentity())
    return false;
  Value view = getBatchReshapeSource<tensor::ExpandShapeOp>(
      skipCastGenerics(gradP->get(), chain), chain, true);
  if (!view || skipCastGenerics(view, chain) != gradScores.getResult(0))
    return false;
  // rhs: P * rowsum(dP * P).
  OpOperand *rowSum = productWithP(rhs->get());
  return rowSum &&
         matchRowReduction(rowSum->get(), skipCastGenerics(lhs->get(), chain),
                           chain, /*maximum=*/false);
}

/// The backward of `f` among `products`, or std::nullopt with `why`.
std::optional<BackwardMatch>
matchBackward(const ForwardMatch &f, ArrayRef<linalg::BatchMatmulOp> products,
              std::string &why) {
  BackwardMatch m;
  Chain &chain = m.chain;
  auto fail = [&](StringRef reason) -> std::optional<BackwardMatch> {
    why = reason.str();
    return std::nullopt;
  };
  if (readsRhsTransposed(f.scores) != false)
    return fail("the forward's product reads K through its maps, whose "
                "backward is not matched");
  Chain none;
  auto read = [&](linalg::BatchMatmulOp product, unsigned i) {
    return skipCastGenerics(product.getDpsInputOperand(i)->get(), none);
  };
  for (linalg::BatchMatmulOp product : products)
    if (product->getBlock() == f.output->getBlock() && !m.gradValue &&
        isOperandTranspose(product.getDpsInputOperand(0)->get(),
                           f.probabilitiesCollapsed, chain))
      m.gradValue = product;
  if (!m.gradValue)
    return fail("no product of P^T by dO");
  Value gradOutRead = read(m.gradValue, 1);
  m.gradOut =
      getBatchReshapeSource<tensor::CollapseShapeOp>(gradOutRead, none, false);
  if (!m.gradOut)
    return fail("dO is not a collapse of a 4-D tensor");
  for (linalg::BatchMatmulOp product : products) {
    if (product->getBlock() != f.output->getBlock())
      continue;
    if (!m.gradScores && read(product, 0) == gradOutRead &&
        isOperandTranspose(product.getDpsInputOperand(1)->get(), f.valueRead,
                           chain))
      m.gradScores = product;
    else if (!m.gradQuery &&
             isOperandTranspose(product.getDpsInputOperand(1)->get(),
                                f.keyTRead, chain))
      m.gradQuery = product;
    else if (!m.gradKeyT &&
             isOperandTranspose(product.getDpsInputOperand(0)->get(),
                                f.queryRead, chain))
      m.gradKeyT = product;
  }
  if (!m.gradScores || !m.gradQuery || !m.gradKeyT)
    return fail("no products of dO by V^T, dS by K and Q^T by dS");
  Value gradS = read(m.gradQuery, 0);
  if (read(m.gradKeyT, 1) != gradS)
    return fail("dQ and dK are not products of one dS");
  for (linalg::BatchMatmulOp product :
       {m.gradValue, m.gradScores, m.gradQuery, m.gradKeyT}) {
    chain.ops.insert(product);
    skipCastGenerics(product.getDpsInputOperand(0)->get(), chain);
    skipCastGenerics(product.getDpsInputOperand(1)->get(), chain);
  }
  // dS: its constant factors (the forward's scale), then the softmax's
  // gradient.
  Value x = getBatchReshapeSource<tensor::CollapseShapeOp>(gradS, chain, true);
  double factor = 1.0;
  while (x) {
    auto generic =
        skipCastGenerics(x, chain).getDefiningOp<linalg::GenericOp>();
    Operation *op =
        generic && isElementwise(generic) && generic.getNumDpsInputs() == 1
            ? getYielded(generic).getDefiningOp()
            : nullptr;
    if (!isa_and_nonnull<arith::MulFOp, arith::DivFOp>(op))
      break;
    std::optional<double> constant = getConstant(op->getOperand(1));
    if (!constant && isa<arith::MulFOp>(op))
      constant = getConstant(op->getOperand(0));
    if (!constant || *constant == 0.0)
      break;
    factor = isa<arith::MulFOp>(op) ? factor * *constant : factor / *constant;
    chain.ops.insert(generic);
    x = generic.getDpsInputOperand(0)->get();
  }
  if (!x || !matchSoftmaxGradient(x, f.probabilities, m.gradScores, chain))
    return fail("dS is not torch's softmax gradient of P");
  if (std::abs(factor - f.scale) > 1e-6 * std::abs(f.scale))
    return fail("dS is scaled by another factor than the scores");
  m.results = {getProductResult(m.gradQuery, chain),
               getProductResult(m.gradKeyT, chain),
               getProductResult(m.gradValue, chain)};
  for (Operation *op : chain.ops)
    if (op->getBlock() != f.output->getBlock() || op->isBeforeInBlock(f.last))
      return fail("the backward is not after the forward in its block");
  Chain all;
  all.ops = f.chain.ops;
  all.ops.insert_range(chain.ops);
  Operation *outside = nullptr;
  if (!isClosed(
          all,
          {f.last, m.results[0].first, m.results[1].first, m.results[2].first},
          outside))
    return fail("a value of the chain is also read by " +
                outside->getName().getStringRef().str());
  return m;
}

/// Builds the amp.attention_backward of `m` (before its first product)
/// from the forward `attention` and makes it the gradients' products.
void buildBackward(RewriterBase &rewriter, const ForwardMatch &f,
                   BackwardMatch &m, AttentionOp attention) {
  Operation *first = m.gradValue->isBeforeInBlock(m.gradScores)
                         ? m.gradValue.getOperation()
                         : m.gradScores.getOperation();
  Location loc = m.gradQuery.getLoc();
  rewriter.setInsertionPoint(first);
  bool bshd = f.operands.bshd;
  // dO in the op's layout and type.
  Value gradOut = m.gradOut;
  if (bshd) {
    auto split = gradOut.getDefiningOp<linalg::TransposeOp>();
    gradOut = split && split.getPermutation() == ArrayRef<int64_t>(kHeadSplit)
                  ? split.getInput()
                  : transpose(rewriter, loc, gradOut, kHeadSplit);
  }
  gradOut = convert(rewriter, loc, gradOut, f.element);
  SmallVector<Value> inits;
  for (Value like : {f.operands.query, f.operands.key, f.operands.value})
    inits.push_back(tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, like), f.element));
  auto backward = AttentionBackwardOp::create(
      rewriter, loc, ValueRange(inits).getTypes(), f.operands.query,
      f.operands.key, f.operands.value, attention.getResult(0), gradOut,
      attention.getResult(1), f.bias, inits, attention.getScaleAttr(),
      /*causal=*/nullptr, bshd ? rewriter.getUnitAttr() : nullptr);
  for (unsigned i = 0; i < 3; ++i)
    replaceProduct(rewriter, loc, m.results[i].second, backward.getResult(i),
                   bshd, /*keyT=*/i == 1);
}

/// The chain ending at `output` (the batch matmul of the probabilities by
/// V) as one amp.attention, and its gradients (where a training step's
/// backward reads the probabilities) as one amp.attention_backward; the
/// reason it stays otherwise (empty when it is no attention at all).
/// `erased` receives the ops erased.
std::string fuseAttention(RewriterBase &rewriter, linalg::BatchMatmulOp output,
                          ArrayRef<linalg::BatchMatmulOp> products,
                          DenseSet<Operation *> &erased,
                          int computeCapability) {
  std::string why;
  std::optional<ForwardMatch> forward = matchForward(output, why);
  if (!forward)
    return why;
  if (computeCapability < kMinComputeCapability)
    return "cuDNN's fused attention needs sm_80 or later, and the chip is "
           "sm_" +
           std::to_string(computeCapability);
  Operation *outside = nullptr;
  std::optional<BackwardMatch> backward;
  if (!isClosed(forward->chain, {forward->last}, outside)) {
    // The products not erased by an earlier chain's fusion (which took
    // its backward's with it).
    SmallVector<linalg::BatchMatmulOp> live;
    for (linalg::BatchMatmulOp product : products)
      if (!erased.contains(product))
        live.push_back(product);
    backward = matchBackward(*forward, live, why);
    if (!backward)
      return "a value of the chain is also read by " +
             outside->getName().getStringRef().str() +
             ", and not as a training step's backward that one fused call "
             "takes (" +
             why + ")";
  }
  AttentionOp attention =
      buildForward(rewriter, *forward, backward.has_value());
  if (backward)
    buildBackward(rewriter, *forward, *backward, attention);
  // The chains, last op first (each is read only by later ones).
  SetVector<Operation *> all = forward->chain.ops;
  if (backward)
    all.insert_range(backward->chain.ops);
  SmallVector<Operation *> ops(all.begin(), all.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  for (Operation *op : ops) {
    erased.insert(op);
    rewriter.eraseOp(op);
  }
  return {};
}

struct AmpFuseAttentionPass
    : public amp::impl::AmpFuseAttentionPassBase<AmpFuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::BatchMatmulOp> products;
    getOperation().walk([&](linalg::BatchMatmulOp op) {
      if (op.hasPureTensorSemantics())
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // In program order: a fused chain erases its first product, which
    // comes before its second (it was visited already), and its backward's
    // products, which are skipped.
    DenseSet<Operation *> erased;
    for (linalg::BatchMatmulOp product : products) {
      if (erased.contains(product))
        continue;
      std::string why =
          fuseAttention(rewriter, product, products, erased, computeCapability);
      if (!why.empty())
        product.emitRemark() << "amp: attention kept as separate ops, not "
                                "one fused call: "
                             << why;
    }
  }
};
} // namespace
