//===- MathPrecisionModels.cpp - AMP models of math ops -------------------===//
//
// Part of amp-mlir. Black at O1 (Paddle's FP16_BLACK): functions whose
// results overflow or lose accuracy in fp16 (exp, log, pow, rsqrt, tan,
// acos, asin, sinh, cosh, atanh, ...). Gray: the rest.
//
//===----------------------------------------------------------------------===//

#include "CommonModels.h"
#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::registerMathPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachFixedCategory<
        Category::Black, math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
        math::Log10Op, math::Log1pOp, math::Log2Op, math::PowFOp, math::FPowIOp,
        math::RsqrtOp, math::TanOp, math::AcosOp, math::AcoshOp, math::AsinOp,
        math::AsinhOp, math::AtanhOp, math::SinhOp, math::CoshOp>(ctx);
    attachFixedCategory<
        Category::Gray, math::TanhOp, math::AbsFOp, math::CeilOp, math::FloorOp,
        math::RoundOp, math::RoundEvenOp, math::TruncOp, math::SqrtOp,
        math::SinOp, math::CosOp, math::AtanOp, math::Atan2Op, math::ErfOp,
        math::ErfcOp, math::CbrtOp, math::CopySignOp, math::FmaOp,
        math::IsNaNOp, math::IsInfOp, math::IsFiniteOp>(ctx);
  });
}
