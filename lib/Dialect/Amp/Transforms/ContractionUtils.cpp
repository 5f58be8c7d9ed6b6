//===- ContractionUtils.cpp - helpers for contraction operands ------------===//
//
// Part of amp-mlir. See getInnerTransposeInput and isZeroFill in Passes.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

Value mlir::amp::getInnerTransposeInput(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !transpose.hasPureTensorSemantics())
    return {};
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2)
    return {};
  for (int64_t i = 0; i < rank - 2; ++i)
    if (perm[i] != i)
      return {};
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return {};
  return transpose.getInput();
}

bool mlir::amp::isZeroFill(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  return matchPattern(init, m_AnyZeroFloat());
}
