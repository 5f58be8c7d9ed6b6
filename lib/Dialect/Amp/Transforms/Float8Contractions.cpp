//===- Float8Contractions.cpp - the amp-float8-contractions pass ----------===//
//
// Part of amp-mlir. Per-tensor FP8 scaling of contraction operands
// (TransformerEngine's and torchao's rule): quantize each operand by a
// scale, contract the FP8 tensors with f32 accumulation, and multiply the
// result by 1 / (scale_a * scale_b). Scales come from the tensor's amax now
// (current scaling) or, in training steps, from an amax history carried as
// state (delayed scaling). The recipe is in Passes.td and docs/policies.md.
//
//===----------------------------------------------------------------------===//

#include "ConstantUtils.h"
#include "ReportUtils.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Float8Kernels.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

#include <cmath>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPFLOAT8CONTRACTIONSPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {

/// One f32 from 0-d f32 tensors, computed by `build` (buildScalarGeneric:
/// a one-thread kernel on the GPU, so the scales stay on the device).
Value scalarGeneric(
    OpBuilder &b, Location loc, ValueRange inputs,
    function_ref<Value(OpBuilder &, Location, ValueRange)> build) {
  return buildScalarGeneric(
      b, loc, inputs, TypeRange{b.getF32Type()},
      [&](OpBuilder &n, Location l, ValueRange args) -> SmallVector<Value> {
        return {build(n, l, args)};
      })[0];
}

/// In a scalar body: fp8_max / amax / 2^margin when amax is positive and
/// finite and the quotient is finite (amax may be so small that it
/// overflows), else `fallback` (TransformerEngine keeps the old scale).
Value scaleFromAmax(OpBuilder &n, Location l, Value amax, Value fallback,
                    float fp8Max, int margin) {
  auto constant = [&](float v) -> Value {
    return arith::ConstantOp::create(n, l, n.getF32FloatAttr(v));
  };
  Value scale = arith::DivFOp::create(
      n, l, constant(fp8Max * std::ldexp(1.0f, -margin)), amax);
  Value positive =
      arith::CmpFOp::create(n, l, arith::CmpFPredicate::OGT, amax, constant(0));
  Value finite = arith::CmpFOp::create(n, l, arith::CmpFPredicate::OLT, amax,
                                       constant(INFINITY));
  Value usable = arith::AndIOp::create(n, l, positive, finite);
  Value scaleFinite = arith::CmpFOp::create(n, l, arith::CmpFPredicate::OLT,
                                            scale, constant(INFINITY));
  usable = arith::AndIOp::create(n, l, usable, scaleFinite);
  return arith::SelectOp::create(n, l, usable, scale, fallback);
}

/// Current scaling: the scale of `operand` from its amax now, 1 when that
/// is 0 or not finite. Of a constant (a weight), a constant: computed here
/// as the ops below compute it (f32 division, amp.amax's folder), so that
/// amp.quantize folds too and the weight is stored in FP8.
Value buildCurrentScale(OpBuilder &b, Location loc, Value operand, float fp8Max,
                        int margin) {
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  // The amax of a constant, by amp.amax's folder (on an op built without
  // `b`'s listener: it is not kept).
  OpBuilder plain(b.getContext());
  plain.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
  auto probe = AmaxOp::create(plain, loc, f32, operand);
  SmallVector<OpFoldResult> folded;
  DenseElementsAttr constantAmax;
  if (succeeded(probe->fold(folded)) && folded.size() == 1)
    constantAmax = dyn_cast_or_null<DenseElementsAttr>(
        dyn_cast_if_present<Attribute>(folded.front()));
  probe->erase();
  if (constantAmax) {
    float value = constantAmax.getSplatValue<APFloat>().convertToFloat();
    float scale = (fp8Max * std::ldexp(1.0f, -margin)) / value;
    if (!(value > 0 && value < INFINITY && scale < INFINITY))
      scale = 1.0f;
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(f32, b.getF32FloatAttr(scale)));
  }
  Value amax = AmaxOp::create(b, loc, f32, operand);
  return scalarGeneric(
      b, loc, amax, [&](OpBuilder &n, Location l, ValueRange args) -> Value {
        Value one = arith::ConstantOp::create(n, l, n.getF32FloatAttr(1));
        return scaleFromAmax(n, l, args[0], one, fp8Max, margin);
      });
}

bool isWideFloat(Type type) {
  return isa<Float32Type, Float16Type, BFloat16Type>(
      getElementTypeOrSelf(type));
}

/// The operand to quantize for `x`: the f32 value that a narrowing (the
/// level's, materialized or not) produced `x` from, so that FP8 rounds the
/// f32 value once instead of its 16-bit rounding.
Value getWidestSource(Value x) {
  Operation *def = x.getDefiningOp();
  if (isa_and_nonnull<arith::TruncFOp, CastOp>(def) &&
      getElementTypeOrSelf(def->getOperand(0).getType()).isF32() &&
      isWideFloat(x.getType()))
    return def->getOperand(0);
  return x;
}

/// The data movement that `x` is read through: the transposes and
/// reshapes (on tensors) between `x` and the value they move, nearest to
/// `x` first. Quantizing commutes with them (a per-tensor scale, the amax
/// of the same elements).
struct Movement {
  Value source;
  SmallVector<Operation *> ops;
};
/// A tensor.pad with zeros (a convolution's padding): quantizing commutes
/// with it too (0 is 0 in FP8 and leaves the amax as it is).
bool isZeroPad(Operation *op) {
  auto pad = dyn_cast<tensor::PadOp>(op);
  if (!pad)
    return false;
  Value value = pad.getConstantPaddingValue();
  FloatAttr zero;
  return value && matchPattern(value, m_Constant(&zero)) &&
         zero.getValue().isZero();
}

/// A linalg.generic that only copies its one input, each element to one or
/// more places (a frontend's broadcast of a weight over the batch, or a
/// transpose): its output map is the identity, its input map a projected
/// permutation, its body `linalg.yield %in`.
bool isCopyGeneric(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return false;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[0].isProjectedPermutation() || !maps[1].isIdentity() ||
      !isa<RankedTensorType>(generic.getDpsInputs()[0].getType()))
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == generic.getBody()->getArgument(0) &&
         generic.getBody()->getOperations().size() == 1;
}

Movement traceMovement(Value x) {
  Movement movement{x, {}};
  while (Operation *def = movement.source.getDefiningOp()) {
    auto transpose = dyn_cast<linalg::TransposeOp>(def);
    if (!(transpose && transpose.hasPureTensorSemantics()) &&
        !isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def) &&
        !isZeroPad(def) && !isCopyGeneric(def))
      break;
    movement.ops.push_back(def);
    movement.source = def->getOperand(0);
  }
  return movement;
}

/// What to quantize for the contraction operand `x`, and the data movement
/// to apply to the FP8 tensor afterwards: where `x` moves a narrowing of an
/// f32 value, that value (rounded once, then moved in 1-byte elements); a
/// padded operand is quantized before its padding (fewer elements, and the
/// padding stays foldable into the convolution call); else `x` itself.
Movement getQuantizeSource(Value x) {
  Movement movement = traceMovement(x);
  Value wide = getWidestSource(movement.source);
  if (wide == movement.source) {
    // Up to the padding nearest to the source (ops are nearest to x first).
    int64_t last = -1;
    for (auto [i, op] : llvm::enumerate(movement.ops))
      if (isZeroPad(op))
        last = i;
    if (last < 0)
      return {x, {}};
    movement.source = movement.ops[last]->getOperand(0);
    movement.ops.resize(last + 1);
    return movement;
  }
  movement.source = wide;
  return movement;
}

/// `movement`'s ops (nearest to their use first) applied again to `x`, in
/// `x`'s element type.
Value replayMovement(OpBuilder &b, Location loc, Value x,
                     ArrayRef<Operation *> ops) {
  for (Operation *op : llvm::reverse(ops)) {
    Type element = getElementTypeOrSelf(x.getType());
    if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
      Value init = tensor::EmptyOp::create(
          b, loc, tensor::getMixedSizes(b, loc, transpose.getInit()), element);
      x = linalg::TransposeOp::create(b, loc, x, init,
                                      transpose.getPermutation())
              .getResult()[0];
      continue;
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      Value init = tensor::EmptyOp::create(
          b, loc, tensor::getMixedSizes(b, loc, generic.getResult(0)), element);
      x = linalg::GenericOp::create(
              b, loc, TypeRange{init.getType()}, ValueRange{x},
              ValueRange{init}, generic.getIndexingMapsArray(),
              generic.getIteratorTypesArray(),
              [](OpBuilder &n, Location l, ValueRange args) {
                linalg::YieldOp::create(n, l, ValueRange{args[0]});
              })
              .getResult(0);
      continue;
    }
    if (auto pad = dyn_cast<tensor::PadOp>(op)) {
      Value zero =
          arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
      x = tensor::PadOp::create(
              b, loc, cast<RankedTensorType>(pad.getType()).clone(element), x,
              pad.getMixedLowPad(), pad.getMixedHighPad(), zero,
              pad.getNofold())
              .getResult();
      continue;
    }
    IRMapping mapping;
    mapping.map(op->getOperand(0), x);
    Operation *clone = b.clone(*op, mapping);
    clone->getResult(0).setType(
        cast<RankedTensorType>(op->getResult(0).getType()).clone(element));
    x = clone->getResult(0);
  }
  return x;
}

/// Where `x` is stored in a 16-bit type by an elementwise linalg.generic
/// that computes it in f32 (its body narrows the value it yields) and only
/// `contraction` reads it (directly or through reshapes that only it
/// reads), that generic yields the f32 value instead: FP8
/// then rounds it once, not after a 16-bit rounding. Returns `x` (f32 after
/// the change). Only for a contraction that is made FP8: the change leaves
/// it reading an f32 tensor until it is replaced.
bool widenProducer(Value x, Operation *contraction) {
  if (!isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(x.getType())) ||
      llvm::any_of(x.getUsers(),
                   [&](Operation *user) { return user != contraction; }))
    return false;
  // Through a reshape that only the contraction reads (a frontend's
  // flattening of the batch): the reshape carries f32 too.
  Operation *def = x.getDefiningOp();
  if (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def)) {
    if (!widenProducer(def->getOperand(0), def))
      return false;
    x.setType(cast<RankedTensorType>(x.getType())
                  .clone(Float32Type::get(x.getContext())));
    return true;
  }
  auto result = dyn_cast<OpResult>(x);
  auto generic = x.getDefiningOp<linalg::GenericOp>();
  if (!result || !generic || !generic.hasPureTensorSemantics() ||
      generic.getNumReductionLoops() != 0)
    return false;
  unsigned index = result.getResultNumber();
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  auto narrow = yield.getOperand(index).getDefiningOp<arith::TruncFOp>();
  BlockArgument out = generic.getRegionOutputArgs()[index];
  if (!narrow || !narrow.getIn().getType().isF32() || !out.use_empty())
    return false;
  OpBuilder b(generic);
  Type f32 = b.getF32Type();
  Value init = tensor::EmptyOp::create(
      b, generic.getLoc(), tensor::getMixedSizes(b, generic.getLoc(), x), f32);
  generic.getDpsInitsMutable()[index].assign(init);
  out.setType(f32);
  yield->setOperand(index, narrow.getIn());
  if (narrow->use_empty())
    narrow->erase();
  x.setType(cast<RankedTensorType>(x.getType()).clone(f32));
  return true;
}

/// `x` with its two innermost dimensions swapped (a linalg.transpose).
Value transposeInner(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> permutation =
      llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(permutation[rank - 2], permutation[rank - 1]);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  std::swap(sizes[rank - 2], sizes[rank - 1]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, x, init, permutation)
      .getResult()[0];
}

/// A 0-d tensor as a tensor<1xT> view.
Value expandToOne(OpBuilder &b, Location loc, Value scalar) {
  auto type = cast<RankedTensorType>(scalar.getType());
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({1}, type.getElementType()), scalar,
      ArrayRef<ReassociationIndices>{});
}

/// Element `index` of a rank-1 tensor as a 0-d tensor.
Value extractElement(OpBuilder &b, Location loc, Value vector, int64_t index) {
  auto type = cast<RankedTensorType>(vector.getType());
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({1}, type.getElementType()), vector,
      ValueRange{}, ValueRange{}, ValueRange{}, ArrayRef<int64_t>{index},
      ArrayRef<int64_t>{1}, ArrayRef<int64_t>{1});
  return tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({}, type.getElementType()), slice,
      ArrayRef<ReassociationIndices>{});
}

/// The rank-1 tensor of the 0-d tensors `scalars`, in order.
Value packScalars(OpBuilder &b, Location loc, ValueRange scalars) {
  auto element =
      cast<RankedTensorType>(scalars.front().getType()).getElementType();
  Value packed = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{static_cast<int64_t>(scalars.size())}, element);
  for (auto [i, scalar] : llvm::enumerate(scalars))
    packed = tensor::InsertSliceOp::create(
        b, loc, expandToOne(b, loc, scalar), packed, ValueRange{}, ValueRange{},
        ValueRange{}, ArrayRef<int64_t>{static_cast<int64_t>(i)},
        ArrayRef<int64_t>{1}, ArrayRef<int64_t>{1});
  return packed;
}

/// The largest element of the rank-1 f32 tensor `vector` (NaN if any is),
/// as a 0-d tensor.
Value reduceMax(OpBuilder &b, Location loc, Value vector) {
  Type f32 = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  Value init =
      linalg::FillOp::create(
          b, loc, zero,
          ValueRange{tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, f32)})
          .getResult(0);
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(1, context),
                              AffineMap::get(1, 0, context)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{vector},
             ValueRange{init}, maps,
             ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
             [](OpBuilder &n, Location l, ValueRange args) {
               linalg::YieldOp::create(n, l,
                                       ValueRange{arith::MaximumFOp::create(
                                           n, l, args[0], args[1])});
             })
      .getResult(0);
}

/// Records the ops a builder creates while on: the FP8 recipe's own (its
/// scales, the rescaling epilogue, the state updates), which the report
/// keeps apart from the model's ops.
struct Float8Recorder : public OpBuilder::Listener {
  explicit Float8Recorder(llvm::DenseSet<Operation *> *ops) : ops(ops) {}
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (ops && on)
      ops->insert(op);
  }
  llvm::DenseSet<Operation *> *ops;
  bool on = true;
};

/// One quantized operand of a training step under delayed scaling: its
/// state arguments and its amax in this step.
struct DelayedSite {
  BlockArgument history, scale;
  Value amax;
  float fp8Max;
};

/// A training step of amp-training's convention, whose FP8 scales are
/// delayed: the state it carries and where it goes.
struct DelayedStep {
  func::FuncOp step, init;
  /// Where the next state argument goes: after the loss scaler's.
  unsigned nextArgument = 0;
  unsigned foundResult = 0;
  SmallVector<DelayedSite> sites;
};

/// The training step `function` is, when it is one of amp-training's (an
/// amp.scaler argument, an amp.found_inf result and an @<name>_init).
std::optional<DelayedStep> getDelayedStep(func::FuncOp function) {
  if (function.isExternal())
    return std::nullopt;
  std::optional<unsigned> lastScaler, found;
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (function.getArgAttr(i, AmpDialect::kScalerAttrName))
      lastScaler = i;
  for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
    if (function.getResultAttr(i, AmpDialect::kFoundInfAttrName))
      found = i;
  if (!lastScaler || !found)
    return std::nullopt;
  auto init = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      function,
      StringAttr::get(function.getContext(), function.getSymName() + "_init"));
  if (!init || init.isExternal())
    return std::nullopt;
  DelayedStep step;
  step.step = function;
  step.init = init;
  step.nextArgument = *lastScaler + 1;
  step.foundResult = *found;
  return step;
}

/// Adds the state of one quantized operand to `step`: its amax history and
/// scale arguments.
DelayedSite &addDelayedSite(DelayedStep &step, StringRef name,
                            int64_t historyLen, float fp8Max) {
  MLIRContext *context = step.step.getContext();
  Builder b(context);
  Type f32 = b.getF32Type();
  auto label = [&](StringRef kind) {
    return b.getDictionaryAttr(
        b.getNamedAttr(AmpDialect::kFloat8StateAttrName,
                       b.getStringAttr((kind + ":" + name).str())));
  };
  Location loc = step.step.getLoc();
  unsigned index = step.nextArgument;
  (void)step.step.insertArgument(index,
                                 RankedTensorType::get({historyLen}, f32),
                                 label("amax_history"), loc);
  (void)step.step.insertArgument(index + 1, RankedTensorType::get({}, f32),
                                 label("scale"), loc);
  step.nextArgument += 2;
  step.sites.push_back({step.step.getArgument(index),
                        step.step.getArgument(index + 1), Value(), fp8Max});
  return step.sites.back();
}

/// Data-parallel: the amaxes join found_inf's collective `reduce`, so that
/// every rank keeps the same history; `amaxes` become the reduced ones.
/// Where some amax is computed after found_inf (`early` false: not in a step
/// amp-training builds), they get their own collective, before `ret`.
/// Returns the new found_inf when it replaces `reduce`'s, else null.
static Value joinAmaxCollective(AllReduceOp reduce, bool early,
                                func::ReturnOp ret,
                                SmallVectorImpl<Value> &amaxes,
                                Float8Recorder &recorder) {
  OpBuilder cb(reduce.getContext(), &recorder);
  Location loc = ret.getLoc();
  if (early)
    cb.setInsertionPoint(reduce);
  else
    cb.setInsertionPoint(ret);
  SmallVector<Value> packed;
  if (early)
    packed.push_back(buildScalarGeneric(
        cb, reduce.getLoc(), reduce.getInput(), TypeRange{cb.getF32Type()},
        [](OpBuilder &n, Location l, ValueRange args) -> SmallVector<Value> {
          return {arith::UIToFPOp::create(n, l, n.getF32Type(), args[0])};
        })[0]);
  packed.append(amaxes.begin(), amaxes.end());
  Value all = AllReduceOp::create(cb, loc, ReduceKind::max,
                                  packScalars(cb, loc, packed));
  unsigned first = 0;
  Value anyFound;
  if (early) {
    anyFound = buildScalarGeneric(
        cb, reduce.getLoc(), extractElement(cb, loc, all, 0),
        TypeRange{cb.getI1Type()},
        [](OpBuilder &n, Location l, ValueRange args) -> SmallVector<Value> {
          Value zero = arith::ConstantOp::create(n, l, n.getF32FloatAttr(0));
          return {arith::CmpFOp::create(n, l, arith::CmpFPredicate::OGT,
                                        args[0], zero)};
        })[0];
    reduce.getResult().replaceAllUsesWith(anyFound);
    first = 1;
  }
  for (auto [i, amax] : llvm::enumerate(amaxes))
    amax = extractElement(cb, loc, all, first + i);
  if (early)
    reduce.erase();
  return anyFound;
}

/// The next history of `site` (this step's `amax` first, the oldest
/// dropped; a skipped step, `found`, keeps it) and the scale derived from
/// it.
static std::pair<Value, Value>
buildNextHistoryAndScale(OpBuilder &b, Location loc, const DelayedSite &site,
                         Value amax, Value found,
                         const Float8Options &options) {
  MLIRContext *context = b.getContext();
  Type f32 = b.getF32Type();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  AffineMap scalar = AffineMap::get(1, 0, context);
  int64_t length = options.amaxHistoryLen;
  Value rolled =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{length}, f32);
  rolled = tensor::InsertSliceOp::create(
      b, loc, expandToOne(b, loc, amax), rolled, ValueRange{}, ValueRange{},
      ValueRange{}, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{1},
      ArrayRef<int64_t>{1});
  if (length > 1) {
    Value older = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({length - 1}, f32), site.history,
        ValueRange{}, ValueRange{}, ValueRange{}, ArrayRef<int64_t>{0},
        ArrayRef<int64_t>{length - 1}, ArrayRef<int64_t>{1});
    rolled = tensor::InsertSliceOp::create(
        b, loc, older, rolled, ValueRange{}, ValueRange{}, ValueRange{},
        ArrayRef<int64_t>{1}, ArrayRef<int64_t>{length - 1},
        ArrayRef<int64_t>{1});
  }
  Value history =
      linalg::GenericOp::create(
          b, loc, TypeRange{site.history.getType()},
          ValueRange{found, site.history, rolled},
          ValueRange{
              tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{length}, f32)},
          SmallVector<AffineMap>{scalar, identity, identity, identity},
          ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
          [](OpBuilder &n, Location l, ValueRange args) {
            linalg::YieldOp::create(n, l,
                                    ValueRange{arith::SelectOp::create(
                                        n, l, args[0], args[1], args[2])});
          })
          .getResult(0);
  Value source = history;
  if (options.amaxCompute == Float8AmaxCompute::MostRecent)
    source = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({1}, f32), history, ValueRange{},
        ValueRange{}, ValueRange{}, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{1},
        ArrayRef<int64_t>{1});
  Value reduced = reduceMax(b, loc, source);
  float fp8Max = site.fp8Max;
  int margin = options.margin;
  Value scale = scalarGeneric(
      b, loc, ValueRange{reduced, site.scale},
      [&](OpBuilder &n, Location l, ValueRange args) -> Value {
        return scaleFromAmax(n, l, args[0], args[1], fp8Max, margin);
      });
  return {history, scale};
}

/// @<name>_init's results for the step's sites: empty histories, scales of
/// 1, with the attributes of the step's.
static void addInitialStates(DelayedStep &step, Location loc,
                             ArrayRef<DictionaryAttr> resultAttrs) {
  func::FuncOp init = step.init;
  auto initReturn = cast<func::ReturnOp>(init.getBody().back().getTerminator());
  OpBuilder ib(initReturn);
  auto scalarF32 = RankedTensorType::get({}, ib.getF32Type());
  SmallVector<Value> initValues;
  for (DelayedSite &site : step.sites) {
    initValues.push_back(arith::ConstantOp::create(
        ib, loc,
        DenseElementsAttr::get(cast<ShapedType>(site.history.getType()),
                               APFloat(0.0f))));
    initValues.push_back(arith::ConstantOp::create(
        ib, loc, DenseElementsAttr::get(scalarF32, APFloat(1.0f))));
  }
  unsigned end = init.getNumResults();
  SmallVector<unsigned> initIndices(initValues.size(), end);
  (void)init.insertResults(initIndices, ValueRange(initValues).getTypes(),
                           resultAttrs);
  initReturn->insertOperands(initReturn->getNumOperands(), initValues);
}

/// After the step's backward pass: the new histories and scales, as
/// results, and their initial values in @<name>_init.
void finishDelayedStep(DelayedStep &step, const Float8Options &options,
                       Float8Recorder &recorder) {
  if (step.sites.empty())
    return;
  func::FuncOp function = step.step;
  MLIRContext *context = function.getContext();
  auto ret = cast<func::ReturnOp>(function.getBody().back().getTerminator());
  Location loc = ret.getLoc();
  OpBuilder b(ret, &recorder);
  Value found = ret.getOperand(step.foundResult);
  SmallVector<Value> amaxes =
      llvm::map_to_vector(step.sites, [](DelayedSite &s) { return s.amax; });

  // found_inf as this rank computed it (before a data-parallel step's
  // collective), and whether every amax is known there.
  auto reduce = found.getDefiningOp<AllReduceOp>();
  if (reduce && reduce.getKind() != ReduceKind::max)
    reduce = nullptr;
  Value local = reduce ? reduce.getInput() : found;
  Operation *localDef = local.getDefiningOp();
  DominanceInfo dominance(function);
  bool early = localDef && llvm::all_of(amaxes, [&](Value amax) {
                 return dominance.properlyDominates(amax, localDef);
               });
  if (early) {
    // Quantization saturates: an Inf or NaN operand would train on as
    // +-fp8_max. An amax that is not finite is an overflow the step skips,
    // as a gradient that is not finite is.
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        local.getUses(), [](OpOperand &use) { return &use; });
    OpBuilder gb(context);
    gb.setInsertionPointAfter(localDef);
    SmallVector<Value> inputs{local};
    inputs.append(amaxes);
    Value guarded = buildScalarGeneric(
        gb, loc, inputs, TypeRange{gb.getI1Type()},
        [](OpBuilder &n, Location l, ValueRange args) -> SmallVector<Value> {
          Value any = args[0];
          Value inf =
              arith::ConstantOp::create(n, l, n.getF32FloatAttr(INFINITY));
          // amax >= inf or unordered: Inf or NaN.
          for (Value amax : args.drop_front())
            any = arith::OrIOp::create(
                n, l, any,
                arith::CmpFOp::create(n, l, arith::CmpFPredicate::UGE, amax,
                                      inf));
          return {any};
        })[0];
    for (OpOperand *use : uses)
      use->set(guarded);
    if (!reduce)
      found = guarded;
  }

  if (reduce)
    if (Value joined = joinAmaxCollective(reduce, early, ret, amaxes, recorder))
      found = joined;
  if (!early)
    function.emitRemark()
        << "amp: an FP8 operand's amax is computed after found_inf: an "
           "operand that is not finite does not skip the step";

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [site, amax] : llvm::zip(step.sites, amaxes)) {
    auto [history, scale] =
        buildNextHistoryAndScale(b, loc, site, amax, found, options);
    results.append({history, scale});
    resultAttrs.append({function.getArgAttrDict(site.history.getArgNumber()),
                        function.getArgAttrDict(site.scale.getArgNumber())});
  }
  // The results, before found_inf.
  unsigned at = step.foundResult;
  SmallVector<unsigned> indices(results.size(), at);
  (void)function.insertResults(indices, ValueRange(results).getTypes(),
                               resultAttrs);
  ret->insertOperands(at, results);
  addInitialStates(step, loc, resultAttrs);
}

/// The multiply-adds of the contraction `op` (per batch for a batch matmul,
/// whose first loop is the batch; a convolution's, batch included), when its
/// loop ranges are static.
std::optional<int64_t> getMultiplyAdds(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t size = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    size *= r;
  }
  if (isa<linalg::BatchMatmulOp>(op.getOperation()))
    size /= std::max<int64_t>(ranges.front(), 1);
  return size;
}

/// fp8-cost-model=h100: an H100 SXM's dense bf16 and FP8 peaks and its
/// memory bandwidth (NVIDIA's data sheet), in flop/s and bytes/s.
constexpr double kH100Bf16Flops = 989.4e12;
constexpr double kH100Float8Flops = 1978.9e12;
constexpr double kH100Bandwidth = 3.35e12;

/// A contraction's time in bf16 and in FP8 on an H100 (seconds), and the
/// bytes its quantizations move.
struct Float8Estimate {
  double bf16, float8, quantizationBytes;
};

/// Elements of a static shape; none when one is dynamic.
std::optional<double> getElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  return static_cast<double>(shaped.getNumElements());
}

/// The roofline of `op` on an H100: each of the bf16 and FP8 contractions
/// takes the larger of its compute time (2 flops per multiply-add at the
/// type's peak) and its memory time (operands of 2 or 1 bytes per element,
/// a bf16 result); FP8 adds its quantizations, memory-bound: per operand
/// whose `sources` value is not a constant (`constantsFree`: current
/// scaling, which folds a constant's quantization), the amax and the
/// quantize each read it (its element type's bytes) and the quantize
/// writes one byte per element. None for dynamic sizes.
std::optional<Float8Estimate> estimateOnH100(linalg::LinalgOp op,
                                             ArrayRef<Value> sources,
                                             bool constantsFree) {
  double multiplyAdds = 1;
  for (int64_t range : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    multiplyAdds *= static_cast<double>(range);
  }
  double operands = 0, quantization = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    std::optional<double> elements = getElements(input->get().getType());
    if (!elements)
      return std::nullopt;
    operands += *elements;
  }
  for (Value source : sources) {
    std::optional<double> elements = getElements(source.getType());
    if (!elements)
      return std::nullopt;
    if (constantsFree && getFloatConstant(source))
      continue;
    double bytes =
        getElementTypeOrSelf(source.getType()).getIntOrFloatBitWidth() / 8.0;
    quantization += (2 * bytes + 1) * *elements;
  }
  std::optional<double> results =
      getElements(op.getDpsInitOperand(0)->get().getType());
  if (!results)
    return std::nullopt;
  double flops = 2 * multiplyAdds;
  double bf16 = std::max(flops / kH100Bf16Flops,
                         (2 * operands + 2 * *results) / kH100Bandwidth);
  double float8 = std::max(flops / kH100Float8Flops,
                           (operands + 2 * *results) / kH100Bandwidth) +
                  quantization / kH100Bandwidth;
  return Float8Estimate{bf16, float8, quantization};
}

/// "an H100 roofline estimates X us in FP8 (Y MB quantized) against Z us
/// in bf16".
std::string describe(const Float8Estimate &estimate) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Three significant digits, without an exponent from 100 up.
  auto number = [&](double value) {
    if (value >= 100)
      os << llvm::format("%.0f", value);
    else
      os << llvm::format("%.3g", value);
  };
  os << "an H100 roofline estimates ";
  number(estimate.float8 * 1e6);
  os << " us in FP8 (";
  number(estimate.quantizationBytes / 1e6);
  os << " MB quantized) against ";
  number(estimate.bf16 * 1e6);
  os << " us in bf16";
  return text;
}

/// The cost model's estimate of `op` (estimateOnH100), when the options
/// turn it on; none otherwise or for dynamic sizes.
std::optional<Float8Estimate> estimate(linalg::LinalgOp op,
                                       ArrayRef<Value> sources,
                                       const Float8Options &options,
                                       bool constantsFree) {
  if (options.costModel != Float8CostModel::H100)
    return std::nullopt;
  return estimateOnH100(op, sources, constantsFree);
}

/// True when the estimate keeps the contraction out of FP8: FP8 no faster.
bool keepsOut(const std::optional<Float8Estimate> &estimate) {
  return estimate && estimate->float8 >= estimate->bf16;
}

/// The contractions this pass considers, in program order: matmuls, batch
/// matmuls, and the 2-D convolutions of the runtime's library calls.
SmallVector<linalg::LinalgOp> getContractions(Operation *root) {
  SmallVector<linalg::LinalgOp> contractions;
  root->walk([&](linalg::LinalgOp op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNchwFchwOp,
            linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcFhwcOp>(
            op.getOperation()))
      contractions.push_back(op);
  });
  return contractions;
}

/// The convolution `op` (one of getContractions') again, on `input` and
/// `filter`, with its strides and dilations.
Operation *createConvolution(OpBuilder &b, Location loc, linalg::LinalgOp op,
                             Value input, Value filter, Value init) {
  auto create = [&](auto conv) -> Operation * {
    using ConvOp = decltype(conv);
    return ConvOp::create(b, loc, TypeRange{init.getType()},
                          ValueRange{input, filter}, ValueRange{init},
                          conv.getStridesAttr(), conv.getDilationsAttr());
  };
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation()))
    return create(conv);
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op.getOperation()))
    return create(conv);
  return create(cast<linalg::Conv2DNhwcFhwcOp>(op.getOperation()));
}

/// Folds the casts of the constants that markAmpFloat8Sources kept in f32
/// and that no FP8 quantization read, and removes the marks.
void foldFloat8Sources(Operation *root, AmpDecisionLog *log) {
  SmallVector<Operation *> marked;
  root->walk([&](Operation *op) {
    if (op->hasAttr(AmpDialect::kFloat8SourceAttrName))
      marked.push_back(op);
  });
  for (Operation *constant : marked) {
    constant->removeAttr(AmpDialect::kFloat8SourceAttrName);
    Value value = constant->getResult(0);
    for (Operation *user : llvm::make_early_inc_range(value.getUsers())) {
      if (!isa<arith::TruncFOp, CastOp>(user))
        continue;
      OpBuilder builder(user);
      if (Value folded =
              recreateInType(builder, value, user->getResult(0).getType())) {
        user->replaceAllUsesWith(ValueRange{folded});
        if (log)
          log->unguarded.erase(user);
        user->erase();
      }
    }
    if (constant->use_empty()) {
      if (log)
        log->unguarded.erase(constant);
      constant->erase();
    }
  }
}

} // namespace

void mlir::amp::markAmpFloat8Sources(Operation *root,
                                     const Float8Options &options) {
  MLIRContext *context = root->getContext();
  for (linalg::LinalgOp op : getContractions(root)) {
    std::optional<int64_t> size = getMultiplyAdds(op);
    if (options.minSize > 0 && size && *size < options.minSize)
      continue;
    SmallVector<Value, 2> sources;
    for (OpOperand *input : op.getDpsInputOperands())
      sources.push_back(traceMovement(input->get()).source);
    // Constants are free where scaling is current (inference); training
    // steps, which carry delayed scales, take weights as arguments anyway.
    if (keepsOut(estimate(op, sources, options, /*constantsFree=*/true)))
      continue;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value source = traceMovement(input->get()).source;
      if (getFloatConstant(source) &&
          getElementTypeOrSelf(source.getType()).isF32())
        source.getDefiningOp()->setAttr(AmpDialect::kFloat8SourceAttrName,
                                        UnitAttr::get(context));
    }
  }
}

namespace {
/// The operands of one contraction, traced to what is quantized.
struct ContractionOperands {
  /// The operands as written (16-bit narrowings of f32 values, or not).
  Value narrowA, narrowB;
  /// B's input before a transpose of its two innermost dimensions, which
  /// cuBLASLt's TN layout (B stored n x k) makes unnecessary; null if none.
  Value bTransposed;
  /// Where each operand moves a narrowing of an f32 value: that value is
  /// quantized (rounded once) and the FP8 tensor moved.
  Movement sourceA, sourceB;
  /// A matmul, a batch matmul or (neither) a convolution.
  bool isMatmul = false, isConv = false;
  /// A (batch) matmul with the default maps (A m x k, B k x n).
  bool defaultMaps = false;
};

/// The rewrite of a module's contractions into FP8 (runAmpFloat8Contractions):
/// the decision per contraction, the quantization of its operands, the new
/// contraction and its scaled epilogue, and what each decision says.
class Float8Contractions {
public:
  Float8Contractions(Operation *root, const Float8Options &options,
                     bool explain, AmpDecisionLog *log)
      : context(root->getContext()), options(options), explain(explain),
        log(log), recorder(log ? &log->float8Ops : nullptr),
        e4m3(Float8E4M3FNType::get(context)),
        e5m2(Float8E5M2Type::get(context)),
        forwardType(options.format == Float8Format::E5M2 ? e5m2 : e4m3),
        followsLevel(root->hasAttr(AmpDialect::kAppliedAttrName)) {}

  /// The contractions of one function (or of no function), in program
  /// order.
  void rewriteFunction(Operation *parent,
                       ArrayRef<linalg::LinalgOp> contractions);

private:
  /// A remark (always, or with `explain`) and an entry of the report's
  /// decisions for `op`. `precision` empty: the precision it keeps.
  void decided(Operation *op, StringRef precision, StringRef reason,
               bool always);
  ContractionOperands traceOperands(linalg::LinalgOp op);
  /// Whether `op` stays as it is (saying why), given its operands; for a
  /// contraction FP8 can take, `estimated` is its cost estimate.
  bool keptOut(linalg::LinalgOp op, const ContractionOperands &operands,
               std::optional<Float8Estimate> &estimated);
  void rewriteContraction(linalg::LinalgOp op, unsigned index,
                          const ContractionOperands &operands,
                          const std::optional<Float8Estimate> &estimated);
  /// `x` (narrowed as `narrow`) quantized to its FP8 type, with its scale in
  /// `scale` (a delayed site's, or the current one).
  Value quantize(OpBuilder &builder, Location loc, Value x, Value narrow,
                 StringRef side, unsigned index, Value &scale,
                 SmallVectorImpl<FloatType> &types);
  /// The contraction of `op` on the FP8 operands `qa` and `qb` into `init`.
  Operation *createContraction(OpBuilder &builder, linalg::LinalgOp op,
                               const ContractionOperands &operands, Value qa,
                               Value qb, Value init);
  /// Erases the narrowings (and transposes of them) that only the
  /// contraction read.
  void eraseDeadNarrowings(const ContractionOperands &operands);
  /// The reason the report gives for a contraction in FP8.
  std::string describeInFloat8(ArrayRef<FloatType> types,
                               const std::optional<Float8Estimate> &estimated);
  /// The contraction as amp.scaled_matmul, scaled by `factor` (a TN GEMM
  /// the target computes in FP8), or null where it stays a linalg op.
  Operation *createScaledMatmul(OpBuilder &builder, Operation *contraction,
                                Value factor);
  /// result (* `factor`) (+ `accumulated`), for the readers of the
  /// contraction's result; nothing when both are null.
  void buildEpilogue(OpBuilder &builder, Location loc, Operation *contraction,
                     Value factor, Value accumulated);

  MLIRContext *context;
  const Float8Options &options;
  bool explain;
  AmpDecisionLog *log;
  Float8Recorder recorder;
  FloatType e4m3, e5m2;
  /// The forward contractions' type; the hybrid format's gradients are E5M2.
  FloatType forwardType;
  /// The module was rewritten by an AMP level.
  bool followsLevel;
  /// Of the function being rewritten: its delayed scaling state, and the
  /// gradients (what the backward seed, amp.scale_loss, reaches).
  std::optional<DelayedStep> delayed;
  llvm::SetVector<Operation *> gradientOps;
};
} // namespace

void Float8Contractions::decided(Operation *op, StringRef precision,
                                 StringRef reason, bool always) {
  if (always || explain)
    op->emitRemark() << "amp: contraction " << reason;
  if (log)
    log->entries.push_back(
        {op->getName().getStringRef().str(), formatLocation(op->getLoc()),
         precision.empty() ? getOpPrecision(op) : precision.str(),
         ("FP8 stage: " + reason).str()});
}

ContractionOperands Float8Contractions::traceOperands(linalg::LinalgOp op) {
  ContractionOperands operands;
  operands.narrowA = op.getDpsInputOperand(0)->get();
  operands.narrowB = op.getDpsInputOperand(1)->get();
  operands.isMatmul = isa<linalg::MatmulOp>(op.getOperation());
  operands.isConv =
      !operands.isMatmul && !isa<linalg::BatchMatmulOp>(op.getOperation());
  operands.defaultMaps =
      !operands.isConv &&
      op.getIndexingMapsArray() ==
          (operands.isMatmul
               ? linalg::MatmulOp::getDefaultIndexingMaps(context)
               : linalg::BatchMatmulOp::getDefaultIndexingMaps(context));
  operands.bTransposed =
      operands.defaultMaps ? getInnerTransposeInput(operands.narrowB) : Value();
  operands.sourceA = getQuantizeSource(operands.narrowA);
  operands.sourceB = getQuantizeSource(
      operands.bTransposed ? operands.bTransposed : operands.narrowB);
  return operands;
}

bool Float8Contractions::keptOut(linalg::LinalgOp op,
                                 const ContractionOperands &operands,
                                 std::optional<Float8Estimate> &estimated) {
  Value init = op.getDpsInitOperand(0)->get();
  auto resultType = dyn_cast<RankedTensorType>(init.getType());
  if (!op.hasPureTensorSemantics() || !resultType ||
      !resultType.getElementType().isF32() ||
      !isWideFloat(operands.sourceA.source.getType()) ||
      !isWideFloat(operands.sourceB.source.getType())) {
    decided(op, "",
            "left as it is: FP8 operands need f32, f16 or bf16 "
            "tensors and an f32 accumulator",
            /*always=*/true);
    return true;
  }
  // On a module an AMP level rewrote, a contraction that the level kept in
  // f32 (a pin, the black list) stays f32.
  if (followsLevel &&
      llvm::all_of(
          TypeRange{operands.narrowA.getType(), operands.narrowB.getType()},
          [](Type t) { return getElementTypeOrSelf(t).isF32(); })) {
    decided(op, "",
            "kept out of FP8: the level keeps it in f32 (a pin or the "
            "black list)",
            /*always=*/explain);
    return true;
  }
  if (options.minSize > 0) {
    std::optional<int64_t> size = getMultiplyAdds(op);
    if (size && *size < options.minSize) {
      decided(op, "",
              ("kept out of FP8: " + Twine(*size) +
               " multiply-adds, below min-size " + Twine(options.minSize))
                  .str(),
              /*always=*/true);
      return true;
    }
  }
  estimated =
      estimate(op, {operands.sourceA.source, operands.sourceB.source}, options,
               /*constantsFree=*/!delayed);
  if (keepsOut(estimated)) {
    decided(op, "", "kept out of FP8: " + describe(*estimated),
            /*always=*/true);
    return true;
  }
  return false;
}

Value Float8Contractions::quantize(OpBuilder &builder, Location loc, Value x,
                                   Value narrow, StringRef side, unsigned index,
                                   Value &scale,
                                   SmallVectorImpl<FloatType> &types) {
  Operation *def = narrow.getDefiningOp();
  bool gradient = def && gradientOps.contains(def);
  FloatType type = gradient ? e5m2 : forwardType;
  types.push_back(type);
  float fp8Max = QuantizeOp::getLargestFinite(type);
  if (delayed) {
    DelayedSite &site =
        addDelayedSite(*delayed, ("c" + Twine(index) + "." + side).str(),
                       options.amaxHistoryLen, fp8Max);
    auto scalarF32 = RankedTensorType::get({}, builder.getF32Type());
    site.amax = AmaxOp::create(builder, loc, scalarF32, x);
    scale = site.scale;
  } else {
    scale = buildCurrentScale(builder, loc, x, fp8Max, options.margin);
  }
  auto tensorType = cast<RankedTensorType>(x.getType());
  return QuantizeOp::create(builder, loc, tensorType.clone(type), x, scale);
}

Operation *
Float8Contractions::createContraction(OpBuilder &builder, linalg::LinalgOp op,
                                      const ContractionOperands &operands,
                                      Value qa, Value qb, Value init) {
  Location loc = op.getLoc();
  Type resultType = init.getType();
  // A named op's body is built from its operand types: the new one widens
  // the FP8 elements to f32 (arith.extf) before multiplying.
  Operation *contraction;
  if (operands.isMatmul)
    contraction =
        linalg::MatmulOp::create(builder, loc, TypeRange{resultType},
                                 ValueRange{qa, qb}, ValueRange{init});
  else if (!operands.isConv)
    contraction =
        linalg::BatchMatmulOp::create(builder, loc, TypeRange{resultType},
                                      ValueRange{qa, qb}, ValueRange{init});
  else
    contraction = createConvolution(builder, loc, op, qa, qb, init);
  if (operands.defaultMaps) {
    // B is n x k: the maps of a transposed B.
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    unsigned dims = maps[1].getNumDims();
    SmallVector<AffineExpr> results(maps[1].getResults());
    std::swap(results[results.size() - 2], results.back());
    maps[1] = AffineMap::get(dims, 0, results, context);
    contraction->setAttr("indexing_maps", builder.getAffineMapArrayAttr(maps));
  } else if (ArrayAttr maps = op->getAttrOfType<ArrayAttr>("indexing_maps")) {
    contraction->setAttr("indexing_maps", maps);
  }
  return contraction;
}

void Float8Contractions::eraseDeadNarrowings(
    const ContractionOperands &operands) {
  // Each op is visited once: one value may be both operands.
  SmallVector<Operation *, 4> worklist;
  llvm::SmallPtrSet<Operation *, 4> visited;
  auto push = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def &&
        (isa<arith::TruncFOp, CastOp, linalg::TransposeOp,
             tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::PadOp,
             tensor::EmptyOp>(def) ||
         isCopyGeneric(def)) &&
        visited.insert(def).second)
      worklist.push_back(def);
  };
  push(operands.narrowA);
  push(operands.narrowB);
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val();
    if (!def->use_empty()) {
      visited.erase(def); // It may lose its last user later.
      continue;
    }
    SmallVector<Value, 2> defOperands(def->getOperands());
    if (log)
      log->unguarded.erase(def);
    def->erase();
    for (Value operand : defOperands)
      push(operand);
  }
}

std::string Float8Contractions::describeInFloat8(
    ArrayRef<FloatType> types, const std::optional<Float8Estimate> &estimated) {
  std::string reason;
  llvm::raw_string_ostream os(reason);
  os << "in FP8: operands '" << types[0] << "' x '" << types[1]
     << "' with per-tensor ";
  if (delayed)
    os << "delayed scaling (an amax history of " << options.amaxHistoryLen
       << " steps, " << stringifyOptionValue(options.amaxCompute) << ", margin "
       << options.margin << ")";
  else
    os << "current scaling (fp8_max / amax / 2^" << options.margin
       << (options.scaling == Float8Scaling::Delayed
               ? "; delayed scaling needs a training step's state"
               : "")
       << ")";
  os << ", f32 accumulation";
  if (estimated)
    os << "; " << describe(*estimated);
  return reason;
}

Operation *Float8Contractions::createScaledMatmul(OpBuilder &builder,
                                                  Operation *contraction,
                                                  Value factor) {
  auto linalgOp = cast<linalg::LinalgOp>(contraction);
  if (!isTransposedBGemm(linalgOp) ||
      !isa<Float8E4M3FNType, Float8E5M2Type>(
          getElementTypeOrSelf(linalgOp.getDpsInputs()[0].getType())))
    return nullptr;
  // The destination is only written: a zero fill before it is not needed.
  builder.setInsertionPoint(contraction);
  Location loc = contraction->getLoc();
  Value result = contraction->getResult(0);
  // Its sizes are the operands': [b x] m x k and [b x] n x k.
  Value lhs = linalgOp.getDpsInputs()[0], rhs = linalgOp.getDpsInputs()[1];
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, lhs);
  sizes.back() = tensor::getMixedSize(builder, loc, rhs, sizes.size() - 2);
  Value init = tensor::EmptyOp::create(builder, loc, sizes,
                                       getElementTypeOrSelf(result.getType()));
  auto scaled = ScaledMatmulOp::create(
      builder, loc, TypeRange{result.getType()}, lhs, rhs, factor, init);
  contraction->replaceAllUsesWith(scaled);
  if (log && log->unguarded.erase(contraction))
    log->unguarded.insert(scaled);
  // The zero fill (and its empty tensor) that only the contraction read.
  Value zeroed = linalgOp.getDpsInits()[0];
  contraction->erase();
  while (Operation *def = zeroed.getDefiningOp()) {
    if (!def->use_empty() || !isa<linalg::FillOp, tensor::EmptyOp>(def))
      break;
    zeroed = isa<linalg::FillOp>(def) ? def->getOperand(1) : Value();
    if (log) {
      log->float8Ops.erase(def);
      log->unguarded.erase(def);
    }
    def->erase();
    if (!zeroed)
      break;
  }
  return scaled;
}

void Float8Contractions::buildEpilogue(OpBuilder &builder, Location loc,
                                       Operation *contraction, Value factor,
                                       Value accumulated) {
  if (!factor && !accumulated)
    return;
  // The readers of the result, before the epilogue adds its own (the sizes
  // of a dynamic result, the epilogue itself).
  Value result = contraction->getResult(0);
  SmallVector<OpOperand *> readers = llvm::map_to_vector(
      result.getUses(), [](OpOperand &use) { return &use; });
  builder.setInsertionPointAfter(contraction);
  auto resultType = cast<RankedTensorType>(result.getType());
  int64_t rank = resultType.getRank();
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps{identity};
  SmallVector<Value> inputs{result};
  if (factor) {
    inputs.push_back(factor);
    maps.push_back(AffineMap::get(rank, 0, context));
  }
  if (accumulated) {
    inputs.push_back(accumulated);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  Value empty = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, result),
      builder.getF32Type());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto epilogue = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, inputs, ValueRange{empty}, maps,
      iterators, [&](OpBuilder &n, Location l, ValueRange args) {
        Value value = args[0];
        if (factor)
          value = arith::MulFOp::create(n, l, value, args[1]);
        if (accumulated)
          value = arith::AddFOp::create(n, l, value, args[factor ? 2 : 1]);
        linalg::YieldOp::create(n, l, ValueRange{value});
      });
  for (OpOperand *reader : readers)
    reader->set(epilogue.getResult(0));
}

void Float8Contractions::rewriteContraction(
    linalg::LinalgOp op, unsigned index, const ContractionOperands &operands,
    const std::optional<Float8Estimate> &estimated) {
  const Movement &sourceA = operands.sourceA, &sourceB = operands.sourceB;
  // A producer that stores the operand in 16 bits only for the contraction
  // yields its f32 value.
  if (sourceA.ops.empty() && sourceA.source == operands.narrowA)
    widenProducer(operands.narrowA, op);
  if (!operands.bTransposed && sourceB.ops.empty() &&
      sourceB.source == operands.narrowB)
    widenProducer(operands.narrowB, op);
  // The recorder is on for the recipe's ops, off for what moves data.
  OpBuilder builder(op, &recorder);
  Location loc = op.getLoc();
  SmallVector<FloatType, 2> types;
  Value scaleA, scaleB;
  Value quantizedA = quantize(builder, loc, sourceA.source, operands.narrowA,
                              "lhs", index, scaleA, types);
  Value quantizedB = quantize(builder, loc, sourceB.source, operands.narrowB,
                              "rhs", index, scaleB, types);
  recorder.on = false;
  Value qa = replayMovement(builder, loc, quantizedA, sourceA.ops);
  Value qb = replayMovement(builder, loc, quantizedB, sourceB.ops);
  if (operands.defaultMaps && !operands.bTransposed)
    qb = transposeInner(builder, loc, qb);
  // A contraction that accumulates into values (not a zero fill)
  // accumulates into zeros instead: the scales apply to the product only,
  // and the epilogue adds the values.
  Value init = op.getDpsInitOperand(0)->get();
  Value accumulated;
  if (!isZeroFill(init)) {
    recorder.on = true;
    accumulated = init;
    Value empty = tensor::EmptyOp::create(
        builder, loc, tensor::getMixedSizes(builder, loc, init),
        builder.getF32Type());
    Value zero =
        arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(0));
    init = linalg::FillOp::create(builder, loc, zero, empty).getResult(0);
    recorder.on = false;
  }
  // The dequantization factor 1 / (scale_a * scale_b), before the
  // contraction: amp.scaled_matmul's scale (a library call's).
  recorder.on = true;
  Value factor = scalarGeneric(
      builder, loc, ValueRange{scaleA, scaleB},
      [&](OpBuilder &n, Location l, ValueRange args) -> Value {
        Value product = arith::MulFOp::create(n, l, args[0], args[1]);
        Value one = arith::ConstantOp::create(n, l, n.getF32FloatAttr(1));
        return arith::DivFOp::create(n, l, one, product);
      });
  recorder.on = false;
  Operation *contraction =
      createContraction(builder, op, operands, qa, qb, init);
  op->replaceAllUsesWith(contraction);
  // The report's set of unguarded ops names ops, which are erased here.
  if (log && log->unguarded.erase(op))
    log->unguarded.insert(contraction);
  op->erase();
  eraseDeadNarrowings(operands);
  // Where the target has no FP8 kernel for it, a bf16 one computes the same
  // products from the operands widened exactly.
  std::string refusal = getFloat8KernelRefusal(
      cast<linalg::LinalgOp>(contraction), options.kernels);
  Value epilogueFactor = factor;
  if (!refusal.empty()) {
    widenFloat8Operands(cast<linalg::LinalgOp>(contraction), refusal);
  } else if (Operation *scaled =
                 createScaledMatmul(builder, contraction, factor)) {
    // A TN GEMM the target computes in FP8: one op that scales.
    contraction = scaled;
    epilogueFactor = nullptr;
  }
  recorder.on = true;
  std::string precision;
  llvm::raw_string_ostream ps(precision);
  ps << types[0];
  if (types[1] != types[0])
    ps << " x " << types[1];
  decided(contraction, precision, describeInFloat8(types, estimated),
          /*always=*/false);
  buildEpilogue(builder, loc, contraction, epilogueFactor, accumulated);
}

void Float8Contractions::rewriteFunction(
    Operation *parent, ArrayRef<linalg::LinalgOp> contractions) {
  auto function = dyn_cast_or_null<func::FuncOp>(parent);
  delayed.reset();
  if (function && options.scaling == Float8Scaling::Delayed)
    delayed = getDelayedStep(function);
  gradientOps.clear();
  if (function && options.format == Float8Format::Hybrid)
    function.walk([&](ScaleLossOp seed) {
      getForwardSlice(seed.getOperation(), &gradientOps);
    });
  for (auto [index, contraction] : llvm::enumerate(contractions)) {
    linalg::LinalgOp op = contraction;
    ContractionOperands operands = traceOperands(op);
    std::optional<Float8Estimate> estimated;
    if (keptOut(op, operands, estimated))
      continue;
    rewriteContraction(op, index, operands, estimated);
  }
  if (delayed)
    finishDelayedStep(*delayed, options, recorder);
  else if (explain && function && options.scaling == Float8Scaling::Delayed &&
           function->hasAttr(AmpDialect::kLossScalingAttrName))
    function.emitRemark()
        << "amp: FP8 scales of this step are current, not delayed: "
           "delayed scaling needs the state convention of amp-training "
           "(amp.scaler arguments, an amp.found_inf result and @"
        << function.getSymName() << "_init)";
}

LogicalResult mlir::amp::runAmpFloat8Contractions(Operation *root,
                                                  const Float8Options &options,
                                                  bool markApplied,
                                                  bool explain,
                                                  AmpDecisionLog *log) {
  std::string error = checkFloat8Options(options, "");
  if (!error.empty())
    return root->emitError() << "amp-float8-contractions: " << error;
  if (markApplied)
    if (auto applied =
            root->getAttrOfType<StringAttr>(AmpDialect::kAppliedAttrName))
      root->setAttr(
          AmpDialect::kAppliedAttrName,
          StringAttr::get(root->getContext(),
                          applied.getValue().split(':').first + ":fp8"));
  Float8Contractions rewriter(root, options, explain, log);
  // The contractions, by function (in program order).
  llvm::MapVector<Operation *, SmallVector<linalg::LinalgOp>> byFunction;
  for (linalg::LinalgOp op : getContractions(root))
    byFunction[op->getParentOfType<func::FuncOp>()].push_back(op);
  for (auto &[parent, contractions] : byFunction)
    rewriter.rewriteFunction(parent, contractions);
  foldFloat8Sources(root, log);
  return success();
}

namespace {
struct AmpFloat8ContractionsPass
    : public amp::impl::AmpFloat8ContractionsPassBase<
          AmpFloat8ContractionsPass> {
  using Base::Base;
  AmpFloat8ContractionsPass(const Float8Options &options, bool markApplied,
                            bool explain)
      : typedOptions(options) {
    this->markApplied = markApplied;
    this->explain = explain;
    // The text options only print the pass (a reproducer, a dumped
    // pipeline) as it runs; the typed recipe is what it reads.
    format = stringifyOptionValue(options.format).str();
    scaling = stringifyOptionValue(options.scaling).str();
    amaxHistoryLen = options.amaxHistoryLen;
    amaxCompute = stringifyOptionValue(options.amaxCompute).str();
    margin = options.margin;
    minSize = options.minSize;
    costModel = stringifyOptionValue(options.costModel).str();
    kernels = stringifyOptionValue(options.kernels).str();
  }

  /// Set by the typed constructor: the recipe, instead of the text options.
  std::optional<Float8Options> typedOptions;

  void runOnOperation() override {
    if (typedOptions) {
      if (failed(runAmpFloat8Contractions(getOperation(), *typedOptions,
                                          markApplied, explain)))
        signalPassFailure();
      return;
    }
    Float8Options options;
    // An enumerated option's value, or an error at the operation.
    auto parse = [&](auto &value, StringRef name, StringRef text) -> bool {
      using E = std::decay_t<decltype(value)>;
      if (std::optional<E> parsed = parseOptionValue<E>(text)) {
        value = *parsed;
        return true;
      }
      getOperation()->emitError()
          << "amp-float8-contractions: " << name << " must be "
          << describeOptionValues<E>() << ", got '" << text << "'";
      return false;
    };
    if (!parse(options.format, "format", format) ||
        !parse(options.scaling, "scaling", scaling) ||
        !parse(options.amaxCompute, "amax-compute", amaxCompute) ||
        !parse(options.costModel, "cost-model", costModel) ||
        !parse(options.kernels, "kernels", kernels))
      return signalPassFailure();
    options.amaxHistoryLen = amaxHistoryLen;
    options.margin = margin;
    options.minSize = minSize;
    if (failed(runAmpFloat8Contractions(getOperation(), options, markApplied,
                                        explain)))
      signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass>
mlir::amp::createAmpFloat8ContractionsPass(const Float8Options &options,
                                           bool markApplied, bool explain) {
  return std::make_unique<AmpFloat8ContractionsPass>(options, markApplied,
                                                     explain);
}
