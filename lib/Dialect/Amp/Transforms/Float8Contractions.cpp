//===- Float8Contractions.cpp - the amp-float8-contractions pass ----------===//
//
// Part of amp-mlir. Per-tensor current FP8 scaling of contraction operands
// (TransformerEngine's and torchao's rule): amax, scale, quantize each
// operand, contract the FP8 tensors with f32 accumulation, and multiply the
// result by 1 / (scale_a * scale_b).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

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

/// scale = fp8_max / amax / 2^margin, or 1 when amax is 0 or not finite.
Value buildScale(OpBuilder &b, Location loc, Value operand, float fp8Max,
                 int margin) {
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  Value amax = AmaxOp::create(b, loc, f32, operand);
  return scalarGeneric(
      b, loc, amax, [&](OpBuilder &n, Location l, ValueRange args) -> Value {
        auto constant = [&](float v) -> Value {
          return arith::ConstantOp::create(n, l, n.getF32FloatAttr(v));
        };
        Value a = args[0];
        Value scale = arith::DivFOp::create(
            n, l, constant(fp8Max * std::ldexp(1.0f, -margin)), a);
        Value positive = arith::CmpFOp::create(n, l, arith::CmpFPredicate::OGT,
                                               a, constant(0));
        Value finite = arith::CmpFOp::create(n, l, arith::CmpFPredicate::OLT, a,
                                             constant(INFINITY));
        Value usable = arith::AndIOp::create(n, l, positive, finite);
        // A finite scale: amax may be so small that fp8_max / amax overflows.
        Value scaleFinite = arith::CmpFOp::create(
            n, l, arith::CmpFPredicate::OLT, scale, constant(INFINITY));
        usable = arith::AndIOp::create(n, l, usable, scaleFinite);
        return arith::SelectOp::create(n, l, usable, scale, constant(1));
      });
}

bool isWideFloat(Type type) {
  return isa<Float32Type, Float16Type, BFloat16Type>(
      getElementTypeOrSelf(type));
}

/// The operand to quantize for `x`: the f32 value that a narrowing
/// produced `x` from, so that FP8 rounds the f32 value once instead of its
/// 16-bit rounding.
Value getWidestSource(Value x) {
  if (auto narrow = x.getDefiningOp<arith::TruncFOp>())
    if (getElementTypeOrSelf(narrow.getIn().getType()).isF32())
      return narrow.getIn();
  return x;
}

} // namespace

LogicalResult mlir::amp::runAmpFloat8Contractions(Operation *root,
                                                  const Float8Options &options,
                                                  bool markApplied,
                                                  bool explain) {
  std::string error = checkFloat8Options(options, "");
  if (!error.empty())
    return root->emitError() << "amp-float8-contractions: " << error;
  MLIRContext *context = root->getContext();
  // As a level (dtype=fp8): training steps would quantize their gradients'
  // contractions as E4M3 with current scaling, which is not the recipe;
  // the module is marked.
  if (markApplied) {
    Operation *step = nullptr;
    root->walk([&](func::FuncOp function) {
      if (function->hasAttr(AmpDialect::kLossScalingAttrName) ||
          function->hasAttr(AmpDialect::kOptimizerAttrName))
        step = function;
      return step ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (step)
      return step->emitError()
             << "amp: dtype=fp8 does not train yet: FP8 gradients (E5M2) "
                "and delayed scaling are not implemented (issue 29); use "
                "dtype=bf16 for training steps";
    if (auto applied =
            root->getAttrOfType<StringAttr>(AmpDialect::kAppliedAttrName))
      root->setAttr(AmpDialect::kAppliedAttrName,
                    StringAttr::get(
                        context, applied.getValue().split(':').first + ":fp8"));
  }
  // The forward contractions: E4M3 unless every operand is E5M2.
  FloatType f8 = options.format == Float8Format::E5M2
                     ? FloatType(Float8E5M2Type::get(context))
                     : FloatType(Float8E4M3FNType::get(context));
  float fp8Max = QuantizeOp::getLargestFinite(f8);
  int margin = options.margin;
  int64_t minSize = options.minSize;

  SmallVector<linalg::LinalgOp> contractions;
  root->walk([&](linalg::LinalgOp op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
      contractions.push_back(op);
  });
  for (linalg::LinalgOp op : contractions) {
    Value narrowA = op.getDpsInputOperand(0)->get();
    Value narrowB = op.getDpsInputOperand(1)->get();
    Value a = getWidestSource(narrowA);
    Value b = getWidestSource(narrowB);
    Value init = op.getDpsInitOperand(0)->get();
    auto resultType = dyn_cast<RankedTensorType>(init.getType());
    if (!op.hasPureTensorSemantics() || !resultType ||
        !resultType.getElementType().isF32() || !isWideFloat(a.getType()) ||
        !isWideFloat(b.getType())) {
      op->emitRemark() << "amp: contraction left as it is: FP8 operands "
                          "need f32, f16 or bf16 tensors and an f32 "
                          "accumulator";
      continue;
    }
    if (minSize > 0) {
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      int64_t size = 1;
      bool known = true;
      for (int64_t r : ranges) {
        if (ShapedType::isDynamic(r)) {
          known = false;
          break;
        }
        size *= r;
      }
      // Per batch: a batch matmul's first loop is the batch.
      if (known && isa<linalg::BatchMatmulOp>(op.getOperation()))
        size /= std::max<int64_t>(ranges.front(), 1);
      if (known && size < minSize) {
        op->emitRemark() << "amp: contraction kept out of FP8: " << size
                         << " multiply-adds, below min-size "
                         << static_cast<int64_t>(minSize);
        continue;
      }
    }
    OpBuilder builder(op);
    Location loc = op.getLoc();
    auto quantize = [&](Value x, Value &scale) -> Value {
      scale = buildScale(builder, loc, x, fp8Max, margin);
      auto type = cast<RankedTensorType>(x.getType());
      return QuantizeOp::create(builder, loc, type.clone(f8), x, scale);
    };
    Value scaleA, scaleB;
    Value qa = quantize(a, scaleA);
    Value qb = quantize(b, scaleB);
    // A named op's body is built from its operand types: the new one
    // widens the FP8 elements to f32 (arith.extf) before multiplying.
    Operation *contraction;
    if (isa<linalg::MatmulOp>(op.getOperation()))
      contraction =
          linalg::MatmulOp::create(builder, loc, TypeRange{resultType},
                                   ValueRange{qa, qb}, ValueRange{init});
    else
      contraction =
          linalg::BatchMatmulOp::create(builder, loc, TypeRange{resultType},
                                        ValueRange{qa, qb}, ValueRange{init});
    if (ArrayAttr maps = op->getAttrOfType<ArrayAttr>("indexing_maps"))
      contraction->setAttr("indexing_maps", maps);
    op->replaceAllUsesWith(contraction);
    op->erase();
    // The narrowings that only the contraction read.
    SmallVector<Value, 2> narrowings = {narrowA};
    if (narrowB != narrowA)
      narrowings.push_back(narrowB);
    for (Value narrow : narrowings)
      if (auto trunc = narrow.getDefiningOp<arith::TruncFOp>())
        if (narrow != a && narrow != b && trunc->use_empty())
          trunc->erase();
    // The readers of the result, before the epilogue adds its own (the
    // sizes of a dynamic result, the epilogue itself).
    SmallVector<OpOperand *> readers =
        llvm::map_to_vector(contraction->getResult(0).getUses(),
                            [](OpOperand &use) { return &use; });
    builder.setInsertionPointAfter(contraction);
    if (explain)
      contraction->emitRemark()
          << "amp: contraction in FP8: operands " << f8
          << " with per-tensor current scaling (fp8_max / amax / 2^" << margin
          << "), f32 accumulation";
    Value inverse = scalarGeneric(
        builder, loc, ValueRange{scaleA, scaleB},
        [&](OpBuilder &n, Location l, ValueRange args) -> Value {
          Value product = arith::MulFOp::create(n, l, args[0], args[1]);
          Value one = arith::ConstantOp::create(n, l, n.getF32FloatAttr(1));
          return arith::DivFOp::create(n, l, one, product);
        });
    // The epilogue: result * 1 / (scale_a * scale_b).
    Value result = contraction->getResult(0);
    int64_t rank = resultType.getRank();
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps{identity, AffineMap::get(rank, 0, context),
                                identity};
    Value empty = tensor::EmptyOp::create(
        builder, loc, tensor::getMixedSizes(builder, loc, result),
        builder.getF32Type());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto epilogue = linalg::GenericOp::create(
        builder, loc, TypeRange{resultType}, ValueRange{result, inverse},
        ValueRange{empty}, maps, iterators,
        [&](OpBuilder &n, Location l, ValueRange args) {
          linalg::YieldOp::create(
              n, l, ValueRange{arith::MulFOp::create(n, l, args[0], args[1])});
        });
    for (OpOperand *reader : readers)
      reader->set(epilogue.getResult(0));
  }
  return success();
}

namespace {
struct AmpFloat8ContractionsPass
    : public amp::impl::AmpFloat8ContractionsPassBase<
          AmpFloat8ContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    Float8Options options;
    std::optional<Float8Format> parsed = parseOptionValue<Float8Format>(format);
    if (!parsed) {
      getOperation()->emitError()
          << "amp-float8-contractions: format must be "
          << describeOptionValues<Float8Format>() << ", got '" << format << "'";
      return signalPassFailure();
    }
    options.format = *parsed;
    options.margin = margin;
    options.minSize = minSize;
    if (failed(runAmpFloat8Contractions(getOperation(), options, markApplied,
                                        explain)))
      signalPassFailure();
  }
};
} // namespace
