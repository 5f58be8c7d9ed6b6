//===- RecordRanges.cpp - the amp-record-ranges pass ----------------------===//
//
// Part of amp-mlir. Instruments a function for range calibration: one more
// result, the largest finite magnitude of each of its ranged values
// (Ranges.h), computed in f32 by a reduction per value.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "Ranges.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

#include <limits>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPRECORDRANGESPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpRecordRangesPass
    : public amp::impl::AmpRecordRangesPassBase<AmpRecordRangesPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// |x| as f32 when x is finite, else 0. Computed in x's type when it is
/// wider than f32 (and clamped to f32's largest value), else in f32.
static Value finiteMagnitude(OpBuilder &b, Location loc, Value x) {
  auto type = cast<FloatType>(x.getType());
  Type f32 = b.getF32Type();
  FloatType compute = type.getWidth() > 32 ? type : cast<FloatType>(f32);
  if (type != compute)
    x = arith::ExtFOp::create(b, loc, compute, x);
  Value magnitude = math::AbsFOp::create(b, loc, x);
  Value inf = arith::ConstantOp::create(
      b, loc, compute,
      b.getFloatAttr(compute, std::numeric_limits<double>::infinity()));
  Value zero =
      arith::ConstantOp::create(b, loc, compute, b.getFloatAttr(compute, 0.0));
  // False for NaN, as for the infinities.
  Value finite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, magnitude, inf);
  Value value = arith::SelectOp::create(b, loc, finite, magnitude, zero);
  if (compute != f32) {
    Value largest = arith::ConstantOp::create(
        b, loc, compute,
        b.getFloatAttr(compute, std::numeric_limits<float>::max()));
    value = arith::MinimumFOp::create(b, loc, value, largest);
    value = arith::TruncFOp::create(b, loc, f32, value);
  }
  return value;
}

/// The largest finite magnitude of the float tensor `value`, an f32.
static Value computeAbsMax(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 0) {
    Value element = tensor::ExtractOp::create(b, loc, value, ValueRange());
    return finiteMagnitude(b, loc, element);
  }
  MLIRContext *context = b.getContext();
  Type f32 = b.getF32Type();
  auto scalar = RankedTensorType::get({}, f32);
  Value empty = tensor::EmptyOp::create(b, loc, scalar.getShape(), f32);
  Value zero = arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0));
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context),
      AffineMap::get(rank, 0, {}, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto reduce = linalg::GenericOp::create(
      b, loc, TypeRange{scalar}, ValueRange{value}, ValueRange{init}, maps,
      iterators, [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value magnitude = finiteMagnitude(nested, nestedLoc, args[0]);
        Value max =
            arith::MaximumFOp::create(nested, nestedLoc, magnitude, args[1]);
        linalg::YieldOp::create(nested, nestedLoc, max);
      });
  return tensor::ExtractOp::create(b, loc, reduce.getResult(0), ValueRange());
}

void AmpRecordRangesPass::runOnOperation() {
  StringRef pass = "amp-record-ranges";
  FailureOr<func::FuncOp> function =
      getCalibratedFunction(getOperation(), this->function, pass);
  if (failed(function))
    return signalPassFailure();
  FailureOr<SmallVector<Value>> values = getRangedValues(*function, pass);
  if (failed(values))
    return signalPassFailure();
  auto ret = dyn_cast<func::ReturnOp>(function->getBody().front().back());
  if (!ret) {
    mlir::emitError(function->getLoc())
        << pass << ": '@" << function->getSymName()
        << "' does not end with func.return";
    return signalPassFailure();
  }
  OpBuilder b(ret);
  Location loc = function->getLoc();
  SmallVector<Value> maxima;
  maxima.reserve(values->size());
  for (Value value : *values)
    maxima.push_back(computeAbsMax(b, value.getLoc(), value));
  auto packedType = RankedTensorType::get({static_cast<int64_t>(maxima.size())},
                                          b.getF32Type());
  Value packed = tensor::FromElementsOp::create(b, loc, packedType, maxima);
  unsigned index = function->getNumResults();
  if (failed(function->insertResult(index, packedType, DictionaryAttr()))) {
    mlir::emitError(function->getLoc()) << pass << ": cannot add a result to '@"
                                        << function->getSymName() << "'";
    return signalPassFailure();
  }
  ret.getOperandsMutable().append(packed);
}
