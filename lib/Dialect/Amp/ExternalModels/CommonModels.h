//===- CommonModels.h - shared pieces of the precision models ---*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Dialect/Amp/ExternalModels.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_EXTERNALMODELS_COMMONMODELS_H
#define AMP_LIB_DIALECT_AMP_EXTERNALMODELS_COMMONMODELS_H

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"

#include "mlir/IR/MLIRContext.h"

namespace mlir {
namespace amp {

/// A model whose category does not depend on the operation instance; the
/// other methods keep their defaults (in-place element type conversion).
template <Category kCategory, typename OpTy>
struct FixedCategoryModel : public AmpPrecisionOpInterface::ExternalModel<
                                FixedCategoryModel<kCategory, OpTy>, OpTy> {
  Category getAmpCategory(Operation *) const { return kCategory; }
};

/// Attaches FixedCategoryModel<kCategory, Op> to every op in `OpTys`.
template <Category kCategory, typename... OpTys>
void attachFixedCategory(MLIRContext *context) {
  (OpTys::template attachInterface<FixedCategoryModel<kCategory, OpTys>>(
       *context),
   ...);
}

/// A gray op that only moves elements (conversions commute with it).
template <typename OpTy>
struct DataMovementModel
    : public AmpPrecisionOpInterface::ExternalModel<DataMovementModel<OpTy>,
                                                    OpTy> {
  Category getAmpCategory(Operation *) const { return Category::Gray; }
  bool isDataMovement(Operation *) const { return true; }
};

/// Attaches DataMovementModel<Op> to every op in `OpTys`.
template <typename... OpTys> void attachDataMovement(MLIRContext *context) {
  (OpTys::template attachInterface<DataMovementModel<OpTys>>(*context), ...);
}

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_DIALECT_AMP_EXTERNALMODELS_COMMONMODELS_H
