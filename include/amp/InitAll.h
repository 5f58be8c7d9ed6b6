//===- InitAll.h - register amp-mlir and what it builds on ------*- C++ -*-===//
//
// Part of amp-mlir. One place that tools (amp-opt, the C API, downstream
// compilers) call to get the amp dialect, its passes, and the upstream
// dialects, extensions and passes the AMP pipelines use.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INITALL_H
#define AMP_INITALL_H

namespace mlir {
class DialectRegistry;

namespace amp {

/// Registers the amp dialect only: not the upstream dialects, and not the
/// precision models of their ops (amp::registerAllPrecisionModels), without
/// which the AMP pipelines convert nothing.
void registerAmpDialect(DialectRegistry &registry);

/// Registers the amp dialect and the upstream dialects the AMP pipelines
/// parse or produce (func, arith, math, tensor, linalg, tosa, scf, memref,
/// bufferization, vector, affine, cf, gpu, nvvm, llvm, ...), with their
/// external interface models and LLVM IR translations.
void registerAllDialects(DialectRegistry &registry);

/// Registers the amp passes and pipelines, and the upstream passes of the
/// dialects above (canonicalize, cse, bufferization, conversions, ...).
void registerAllPasses();

} // namespace amp
} // namespace mlir

#endif // AMP_INITALL_H
