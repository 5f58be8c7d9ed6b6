//===- TosaPrecisionModels.cpp - AMP models of tosa ops -------------------===//
//
// Part of amp-mlir. TOSA ops carry their element types in operands, results
// and a few attributes; the rewritten graph must still pass --tosa-validate:
//
//  * zero-point operands and pad_const are float constants: the driver's
//    caster converts them at compile time with the other operands;
//  * tosa.matmul takes f16/bf16 operands and produces f32 (its accumulator);
//  * convolutions and avg_pool2d produce the low type and accumulate in f32
//    (`acc_type = f32`);
//  * tosa.clamp's min_val/max_val are converted, saturating to the finite
//    range of the low type (FLT_MAX bounds become 65504 in f16);
//  * tosa.reduce_sum/reduce_product have no accumulator type, so they read
//    and produce f32 (accumulating in f32) at every level.
//
// Categories follow Paddle: matmul/conv white; exp, log, pow, reciprocal,
// rsqrt and sum/product reductions black; the rest gray. tosa.cast is the
// user's and tosa.const is converted where used: neither has a model.
//
//===----------------------------------------------------------------------===//

#include "CommonModels.h"
#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// tosa.matmul: low operands, f32 result.
struct MatMulModel
    : public AmpPrecisionOpInterface::ExternalModel<MatMulModel,
                                                    tosa::MatMulOp> {
  Category getAmpCategory(Operation *) const { return Category::White; }
  FloatType getAccumulatorType(Operation *op, FloatType computeType) const {
    if (computeType.getWidth() >= 32)
      return {};
    return Float32Type::get(op->getContext());
  }
};

/// Ops with an `acc_type` attribute: low result, f32 accumulation.
template <typename OpTy, Category kCategory>
struct AccTypeModel : public AmpPrecisionOpInterface::ExternalModel<
                          AccTypeModel<OpTy, kCategory>, OpTy> {
  Category getAmpCategory(Operation *) const { return kCategory; }
  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType computeType,
                                   ValueCaster &caster) const {
    if (failed(amp::detail::convertElementTypesInPlace(op, rewriter,
                                                       computeType, caster)))
      return failure();
    Type accumulator = computeType.getWidth() >= 32
                           ? Type(computeType)
                           : Type(Float32Type::get(op->getContext()));
    rewriter.modifyOpInPlace(
        op, [&] { op->setAttr("acc_type", TypeAttr::get(accumulator)); });
    return success();
  }
};

/// tosa.reduce_sum / reduce_product have no accumulator type: to accumulate
/// in f32 they read f32 (their low-precision producer is widened into them)
/// and produce f32.
template <typename OpTy>
struct F32ReductionModel
    : public AmpPrecisionOpInterface::ExternalModel<F32ReductionModel<OpTy>,
                                                    OpTy> {
  Category getAmpCategory(Operation *) const { return Category::Black; }
  bool operandMustStayF32(Operation *, unsigned) const { return true; }
  FloatType getAccumulatorType(Operation *op, FloatType) const {
    return Float32Type::get(op->getContext());
  }
};

/// Converts a clamp bound, saturating to the largest finite value.
static FloatAttr convertBound(FloatAttr bound, FloatType type) {
  APFloat value = bound.getValue();
  bool losesInfo;
  bool wasFinite = value.isFinite();
  value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  if (wasFinite && value.isInfinity())
    value = APFloat::getLargest(type.getFloatSemantics(), value.isNegative());
  return FloatAttr::get(type, value);
}

struct ClampModel
    : public AmpPrecisionOpInterface::ExternalModel<ClampModel, tosa::ClampOp> {
  Category getAmpCategory(Operation *) const { return Category::Gray; }
  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType computeType,
                                   ValueCaster &caster) const {
    auto clamp = cast<tosa::ClampOp>(op);
    auto minVal = dyn_cast<FloatAttr>(clamp.getMinValAttr());
    auto maxVal = dyn_cast<FloatAttr>(clamp.getMaxValAttr());
    if (!minVal || !maxVal)
      return failure();
    if (failed(amp::detail::convertElementTypesInPlace(op, rewriter,
                                                       computeType, caster)))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      clamp.setMinValAttr(convertBound(minVal, computeType));
      clamp.setMaxValAttr(convertBound(maxVal, computeType));
    });
    return success();
  }
};
} // namespace

void mlir::amp::registerTosaPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    tosa::MatMulOp::attachInterface<MatMulModel>(*ctx);
    tosa::Conv2DOp::attachInterface<
        AccTypeModel<tosa::Conv2DOp, Category::White>>(*ctx);
    tosa::Conv3DOp::attachInterface<
        AccTypeModel<tosa::Conv3DOp, Category::White>>(*ctx);
    tosa::DepthwiseConv2DOp::attachInterface<
        AccTypeModel<tosa::DepthwiseConv2DOp, Category::White>>(*ctx);
    tosa::TransposeConv2DOp::attachInterface<
        AccTypeModel<tosa::TransposeConv2DOp, Category::White>>(*ctx);
    tosa::AvgPool2dOp::attachInterface<
        AccTypeModel<tosa::AvgPool2dOp, Category::Gray>>(*ctx);
    tosa::ClampOp::attachInterface<ClampModel>(*ctx);
    tosa::ReduceSumOp::attachInterface<F32ReductionModel<tosa::ReduceSumOp>>(
        *ctx);
    tosa::ReduceProductOp::attachInterface<
        F32ReductionModel<tosa::ReduceProductOp>>(*ctx);
    attachFixedCategory<Category::Black, tosa::ExpOp, tosa::LogOp, tosa::PowOp,
                        tosa::ReciprocalOp, tosa::RsqrtOp>(ctx);
    attachFixedCategory<
        Category::Gray, tosa::AddOp, tosa::SubOp, tosa::MulOp, tosa::MaximumOp,
        tosa::MinimumOp, tosa::AbsOp, tosa::CeilOp, tosa::FloorOp, tosa::CosOp,
        tosa::SinOp, tosa::NegateOp, tosa::ErfOp, tosa::SigmoidOp, tosa::TanhOp,
        tosa::SelectOp, tosa::EqualOp, tosa::GreaterOp, tosa::GreaterEqualOp,
        tosa::ReduceMaxOp, tosa::ReduceMinOp, tosa::ArgMaxOp, tosa::MaxPool2dOp,
        tosa::GatherOp>(ctx);
    attachDataMovement<tosa::ConcatOp, tosa::PadOp, tosa::ReshapeOp,
                       tosa::ReverseOp, tosa::SliceOp, tosa::TileOp,
                       tosa::TransposeOp, tosa::IdentityOp>(ctx);
  });
}
