//===- TensorPrecisionModels.cpp - AMP models of tensor ops ---------------===//
//
// Part of amp-mlir. Data movement follows its producers (gray): slices,
// reshapes, concatenation, padding. tensor.empty has no model: the driver
// re-creates it in the type its users need.
//
//===----------------------------------------------------------------------===//

#include "CommonModels.h"
#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// tensor.pad: the padding value is yielded by its region.
struct PadModel
    : public AmpPrecisionOpInterface::ExternalModel<PadModel, tensor::PadOp> {
  Category getAmpCategory(Operation *) const { return Category::Gray; }
  bool isDataMovement(Operation *) const { return true; }

  LogicalResult convertToPrecision(Operation *op, RewriterBase &rewriter,
                                   FloatType computeType,
                                   ValueCaster &caster) const {
    auto pad = cast<tensor::PadOp>(op);
    if (!isFloatLike(pad.getType()))
      return failure();
    auto yield = cast<tensor::YieldOp>(pad.getRegion().front().getTerminator());
    Value padValue = yield.getValue();
    // Only padding values defined outside the region can be converted by the
    // caster (constants are folded there).
    if (padValue.getParentRegion() == &pad.getRegion())
      return failure();
    Value newSource = caster.cast(pad.getSource(), computeType);
    Value newPadValue = caster.cast(padValue, computeType);
    rewriter.modifyOpInPlace(pad, [&] {
      pad.getSourceMutable().assign(newSource);
      pad.getResult().setType(cast<RankedTensorType>(
          withFloatElementType(pad.getType(), computeType)));
    });
    rewriter.modifyOpInPlace(
        yield, [&] { yield.getValueMutable().assign(newPadValue); });
    return success();
  }
};
} // namespace

void mlir::amp::registerTensorPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attachDataMovement<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
                       tensor::ExpandShapeOp, tensor::ReshapeOp,
                       tensor::ConcatOp, tensor::CastOp>(ctx);
    attachFixedCategory<Category::Gray, tensor::InsertSliceOp,
                        tensor::ExtractOp, tensor::InsertOp, tensor::SplatOp,
                        tensor::FromElementsOp>(ctx);
    tensor::PadOp::attachInterface<PadModel>(*ctx);
  });
}
