//===- PrecisionModels.cpp - register every precision model ---------------===//
//
// Part of amp-mlir. The one registration of the external models of
// AmpPrecisionOpInterface: each dialect's models are in its own file
// (<Dialect>PrecisionModels.cpp).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"

using namespace mlir;

void mlir::amp::registerAllPrecisionModels(DialectRegistry &registry) {
  registerArithPrecisionModels(registry);
  registerMathPrecisionModels(registry);
  registerLinalgPrecisionModels(registry);
  registerTensorPrecisionModels(registry);
  registerTosaPrecisionModels(registry);
}
