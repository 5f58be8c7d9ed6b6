//===- LinalgToLibraryCalls.h - linalg to runtime calls ---------*- C++ -*-===//
//
// Part of amp-mlir. amp-linalg-to-library-calls: matmuls, convolutions and
// gradient unscaling on buffers as calls of libamp_runtime.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_LINALGTOLIBRARYCALLS_LINALGTOLIBRARYCALLS_H
#define AMP_CONVERSION_LINALGTOLIBRARYCALLS_LINALGTOLIBRARYCALLS_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace amp {

#define GEN_PASS_DECL_AMPLINALGTOLIBRARYCALLSPASS
#include "amp/Conversion/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_LINALGTOLIBRARYCALLS_LINALGTOLIBRARYCALLS_H
