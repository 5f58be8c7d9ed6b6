//===- AmpToLLVMIRTranslation.cpp - amp attributes in LLVM IR -------------===//
//
// Part of amp-mlir. The amp dialect has no ops that reach LLVM IR; its
// attributes on functions and arguments mean nothing there.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/LLVMIR/AmpToLLVMIRTranslation.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

using namespace mlir;

namespace {
/// Accepts the amp dialect's attributes on llvm.func arguments and results
/// (and on ops) and emits nothing for them.
class AmpLLVMTranslationInterface : public LLVMTranslationDialectInterface {
public:
  using LLVMTranslationDialectInterface::LLVMTranslationDialectInterface;

  LogicalResult amendOperation(Operation *, ArrayRef<llvm::Instruction *>,
                               NamedAttribute,
                               LLVM::ModuleTranslation &) const override {
    return success();
  }

  LogicalResult convertParameterAttr(LLVM::LLVMFuncOp, int, NamedAttribute,
                                     LLVM::ModuleTranslation &) const override {
    return success();
  }
};
} // namespace

void mlir::amp::registerAmpDialectTranslation(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, amp::AmpDialect *dialect) {
    dialect->addInterfaces<AmpLLVMTranslationInterface>();
  });
}
