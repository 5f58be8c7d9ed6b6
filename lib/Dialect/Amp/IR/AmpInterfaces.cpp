//===- AmpInterfaces.cpp - amp op interfaces ------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/Amp/IR/AmpInterfaces.cpp.inc"
