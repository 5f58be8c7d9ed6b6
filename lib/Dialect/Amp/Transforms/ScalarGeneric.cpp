//===- ScalarGeneric.cpp - computations on 0-d tensors as one-element loops
//===//
//
// Part of amp-mlir. See buildScalarGeneric in Passes.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

SmallVector<Value> mlir::amp::buildScalarGeneric(
    OpBuilder &b, Location loc, ValueRange inputs, TypeRange resultElements,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> build) {
  SmallVector<ReassociationIndices> none;
  SmallVector<int64_t> one{1};
  SmallVector<Value> views;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    views.push_back(tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(one, type.getElementType()), input,
        none));
  }
  SmallVector<Value> inits;
  for (Type element : resultElements)
    inits.push_back(tensor::EmptyOp::create(b, loc, one, element));
  AffineMap identity = b.getMultiDimIdentityMap(1);
  SmallVector<AffineMap> maps(views.size() + inits.size(), identity);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(ValueRange(inits)), views, inits, maps,
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> results =
            build(nested, nestedLoc, args.take_front(views.size()));
        linalg::YieldOp::create(nested, nestedLoc, results);
      });
  SmallVector<Value> results;
  for (auto [result, element] : llvm::zip(generic.getResults(), resultElements))
    results.push_back(tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({}, element), result, none));
  return results;
}
