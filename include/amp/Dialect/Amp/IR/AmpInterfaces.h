//===- AmpInterfaces.h - amp op interfaces ----------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_H
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include "amp/Dialect/Amp/IR/AmpInterfaces.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_H
