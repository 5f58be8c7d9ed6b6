//===- RuntimeCalls.h - declarations of libamp_runtime functions -*- C++ -*-===//
//
// Part of amp-mlir. Shared by the GPU lowering passes that call into the
// runtime (library calls, constant uploads).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_RUNTIMECALLS_H
#define AMP_CONVERSION_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace amp {

/// The private declaration of the runtime function `name` in `module`,
/// created with `type` if missing and marked `amp.stream_ordered` (it
/// enqueues on the runtime's one stream; see amp-elide-library-call-waits).
func::FuncOp getOrDeclareRuntimeFunction(ModuleOp module, StringRef name,
                                         FunctionType type);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_RUNTIMECALLS_H
