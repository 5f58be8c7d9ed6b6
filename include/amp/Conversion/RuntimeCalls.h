//===- RuntimeCalls.h - calls of libamp_runtime functions -------*- C++ -*-===//
//
// Part of amp-mlir. The compiler's side of the runtime ABI, read from the
// runtime's tables (runtime/include/amp/runtime/LibraryCalls.def and
// DTypes.def; plain preprocessor data, no runtime implementation header):
// the library calls that compiled code makes and the element-type codes
// they take. Every pass that emits a runtime library call goes through
// createRuntimeCall, which declares the callee with the table's signature.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_RUNTIMECALLS_H
#define AMP_CONVERSION_RUNTIMECALLS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir {
namespace amp {

/// The runtime's element-type codes (AmpDType; values are ABI).
enum class RuntimeDType : int32_t {
#define AMP_DTYPE(NAME, CODE, SPELLING, BYTES) NAME = CODE,
#include "amp/runtime/DTypes.def"
};

/// The code of `type` (f32, f16, bf16, i32, i1), or std::nullopt when the
/// runtime has none.
std::optional<RuntimeDType> getRuntimeDType(Type type);

/// The code of a floating-point `type` that the library calls (GEMM,
/// convolution, unscaling) take, or std::nullopt.
std::optional<RuntimeDType> getRuntimeFloatDType(Type type);

/// A library call of the runtime: each GPU entry point and its CPU twin,
/// then the calls only the CPU pipeline makes (ampCpuLibraryGemm).
enum class RuntimeFunction {
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  GPU_NAME, CPU_NAME,
#define AMP_CPU_LIBRARY_CALL(STEM, CPU_NAME, ARGS, RESULT, PARAMS) CPU_NAME,
#include "amp/runtime/LibraryCalls.def"
};

/// A row of the library calls' table (its STEM): one call, with its GPU
/// entry point, its CPU twin, and the CPU pipeline's own call that takes
/// the same arguments, where there is one.
enum class LibraryCall {
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS) STEM,
#include "amp/runtime/LibraryCalls.def"
};

/// The device entry point of `call` (ampGpuGemm for Gemm).
RuntimeFunction getGpuFunction(LibraryCall call);

/// The call that the CPU pipeline makes for `call` (the table's
/// AMP_CPU_LIBRARY_CALL row whose ARGS is `call`: ampCpuLibraryGemm for
/// Gemm), or std::nullopt when it makes none (the CPU twins are the
/// runtime's references, not the pipeline's calls).
std::optional<RuntimeFunction> getCpuLibraryFunction(LibraryCall call);

/// The C name of `function` (e.g. "ampGpuGemm").
StringRef getRuntimeFunctionName(RuntimeFunction function);

/// Calls `function` with `args` at the builder's insertion point for `user`
/// (the op being lowered: its location, and its diagnostics), declaring
/// it in the enclosing module first if needed, with the signature of the
/// table. GPU entry points are declared as private func.func marked
/// `amp.stream_ordered` (they enqueue on the runtime's one stream; see
/// amp-elide-host-waits) and called with func.call. CPU twins are
/// declared as llvm.func and called with llvm.call: the CPU pipelines'
/// C-wrapper request marks every func.func, and the runtime has no
/// _mlir_ciface_ entry points. Fails with an error on `user` when an
/// argument's type is not the table's, or when the module holds another
/// symbol of that name. Returns the call (its one result, if any, is the
/// function's).
FailureOr<Operation *> createRuntimeCall(OpBuilder &builder, Operation *user,
                                         RuntimeFunction function,
                                         ValueRange args);

/// The address of the first element of the memref `buffer` as an
/// !llvm.ptr, as the runtime's calls take their buffers: the aligned base
/// plus the layout's offset, a constant when it is static, read from the
/// descriptor otherwise (a slice at a loop index).
Value createBufferPointer(OpBuilder &builder, Location loc, Value buffer);

/// The element count of the memref `buffer` as an i64: the static sizes'
/// product, times the dynamic sizes read from the descriptor.
Value createBufferElementCount(OpBuilder &builder, Location loc, Value buffer);

} // namespace amp
} // namespace mlir

#endif // AMP_CONVERSION_RUNTIMECALLS_H
