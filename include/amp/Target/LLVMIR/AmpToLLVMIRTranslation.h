//===- AmpToLLVMIRTranslation.h - amp attributes in LLVM IR -----*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_LLVMIR_AMPTOLLVMIRTRANSLATION_H
#define AMP_TARGET_LLVMIR_AMPTOLLVMIRTRANSLATION_H

namespace mlir {
class DialectRegistry;
namespace amp {

/// Registers the amp dialect's LLVM IR translation: its discardable
/// attributes (`amp.master` on the arguments of a training step, ...) are
/// compile-time annotations for the precision passes, and translation drops
/// them without the "Unhandled parameter attribute" warning.
void registerAmpDialectTranslation(DialectRegistry &registry);

} // namespace amp
} // namespace mlir

#endif // AMP_TARGET_LLVMIR_AMPTOLLVMIRTRANSLATION_H
