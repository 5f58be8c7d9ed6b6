//===- OptimizerRules.cpp - the optimizer's update as loops ---------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/OptimizerRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The update of one element of a parameter `p` and its state `st` (f32)
/// with the gradient `g` (f32): the new (p, st...). `step` (i32) is the
/// number of updates applied before this one. PyTorch's rules, each
/// operation rounded to f32.
SmallVector<Value> buildRule(OpBuilder &b, Location l, OptimizerUpdateOp op,
                             Value p, Value g, ValueRange st, Value step) {
  auto c = [&](double v) {
    return arith::ConstantOp::create(b, l,
                                     b.getF32FloatAttr(static_cast<float>(v)))
        .getResult();
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulFOp::create(b, l, x, y).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddFOp::create(b, l, x, y).getResult();
  };
  auto sub = [&](Value x, Value y) {
    return arith::SubFOp::create(b, l, x, y).getResult();
  };
  auto div = [&](Value x, Value y) {
    return arith::DivFOp::create(b, l, x, y).getResult();
  };
  double lr = op.getLr().convertToDouble();
  double weightDecay = op.getWeightDecay().convertToDouble();
  double momentum = op.getMomentum().convertToDouble();
  OptimizerKind kind = op.getKind();
  // Momentum 0 is plain SGD, as in PyTorch: the buffer keeps its value.
  if (kind == OptimizerKind::sgd ||
      (kind == OptimizerKind::momentum && momentum == 0.0)) {
    Value d = weightDecay != 0.0 ? add(g, mul(c(weightDecay), p)) : g;
    SmallVector<Value> updated = {sub(p, mul(c(lr), d))};
    llvm::append_range(updated, st);
    return updated;
  }
  if (kind == OptimizerKind::momentum) {
    Value d = weightDecay != 0.0 ? add(g, mul(c(weightDecay), p)) : g;
    // PyTorch: the first update sets the buffer to d.
    Value first = arith::CmpIOp::create(
        b, l, arith::CmpIPredicate::eq, step,
        arith::ConstantOp::create(b, l, b.getI32IntegerAttr(0)));
    Value later = add(mul(c(momentum), st[0]),
                      mul(c(1.0 - op.getDampening().convertToDouble()), d));
    Value buf = arith::SelectOp::create(b, l, first, d, later);
    Value dir = op.getNesterov() ? add(d, mul(c(momentum), buf)) : buf;
    return {sub(p, mul(c(lr), dir)), buf};
  }
  // Adam, AdamW.
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  bool decoupled = kind == OptimizerKind::adamw;
  Value pd = p;
  if (decoupled && weightDecay != 0.0)
    pd = mul(p, c(1.0 - lr * weightDecay));
  if (!decoupled && weightDecay != 0.0)
    g = add(g, mul(c(weightDecay), p));
  Value m = add(mul(c(beta1), st[0]), mul(c(1.0 - beta1), g));
  Value v = add(mul(c(beta2), st[1]), mul(c(1.0 - beta2), mul(g, g)));
  Value t = arith::SIToFPOp::create(
      b, l, b.getF32Type(),
      arith::AddIOp::create(
          b, l, step, arith::ConstantOp::create(b, l, b.getI32IntegerAttr(1))));
  Value bc1 = sub(c(1.0), math::PowFOp::create(b, l, c(beta1), t));
  Value bc2 = sub(c(1.0), math::PowFOp::create(b, l, c(beta2), t));
  Value denom =
      add(div(math::SqrtOp::create(b, l, v), math::SqrtOp::create(b, l, bc2)),
          c(op.getEps().convertToDouble()));
  Value stepSize = div(c(lr), bc1);
  return {sub(pd, mul(stepSize, div(m, denom))), m, v};
}

} // namespace

linalg::GenericOp mlir::amp::buildOptimizerUpdateGeneric(OpBuilder &builder,
                                                         OptimizerUpdateOp op,
                                                         unsigned index) {
  Location loc = op.getLoc();
  MLIRContext *ctx = builder.getContext();
  unsigned numStates = OptimizerUpdateOp::getNumStates(op.getKind());
  Value gradient = op.getGradients()[index];
  size_t numParams = op.getGradients().size();
  SmallVector<Value> inputs = {gradient, op.getStep(), op.getSkip()};
  SmallVector<Value> outputs;
  for (unsigned s = 0; s <= numStates; ++s) {
    inputs.push_back(op.getCurrent()[s * numParams + index]);
    outputs.push_back(op.getInits()[s * numParams + index]);
  }
  int64_t rank = cast<ShapedType>(gradient.getType()).getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap scalar = AffineMap::get(rank, 0, {}, ctx);
  SmallVector<AffineMap> maps = {identity, scalar, scalar};
  maps.append(2 * outputs.size(), identity);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  TypeRange resultTypes = op.hasPureBufferSemantics()
                              ? TypeRange()
                              : TypeRange(ValueRange(outputs));
  return linalg::GenericOp::create(
      builder, loc, resultTypes, inputs, outputs, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value g = args[0];
        if (!g.getType().isF32())
          g = arith::ExtFOp::create(b, l, b.getF32Type(), g);
        Value step = args[1], skip = args[2], p = args[3];
        ValueRange st = args.slice(4, numStates);
        SmallVector<Value> updated = buildRule(b, l, op, p, g, st, step);
        // On an overflow nothing changes.
        SmallVector<Value> yielded;
        for (auto [old, value] :
             llvm::zip_equal(args.slice(3, 1 + numStates), updated))
          yielded.push_back(arith::SelectOp::create(b, l, skip, old, value));
        linalg::YieldOp::create(b, l, yielded);
      });
}
