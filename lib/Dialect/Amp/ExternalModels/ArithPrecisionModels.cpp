//===- ArithPrecisionModels.cpp - AMP models of arith ops -----------------===//
//
// Part of amp-mlir. Paddle: elementwise_{add,sub,mul,div,max,min} are gray.
// Constants are not decided: the driver converts them at compile time where
// their users need it. arith.extf/truncf are the user's casts and have no
// model: they keep their rounding.
//
//===----------------------------------------------------------------------===//

#include "CommonModels.h"
#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::registerArithPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachFixedCategory<Category::Gray, arith::AddFOp, arith::SubFOp,
                        arith::MulFOp, arith::DivFOp, arith::RemFOp,
                        arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
                        arith::MinNumFOp, arith::NegFOp, arith::CmpFOp,
                        arith::SelectOp>(ctx);
  });
}
