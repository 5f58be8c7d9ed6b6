//===- AmpAttributes.h - amp attributes -------------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPATTRIBUTES_H
#define AMP_DIALECT_AMP_IR_AMPATTRIBUTES_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/Amp/IR/AmpAttributes.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPATTRIBUTES_H
