//===- RunnerImpl.h - shared by the files of lib/Runner ---------*- C++ -*-===//
//
// Part of amp-mlir. Private to lib/Runner: what the files of the runner
// (Modules, Inputs, JitSymbols, Compile, Execute, Compare) share.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNNER_RUNNERIMPL_H
#define AMP_LIB_RUNNER_RUNNERIMPL_H

#include "amp/Runner/Runner.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir {
class ExecutionEngine;
namespace amp {
namespace runner {
namespace detail {

inline llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Collects the error diagnostics emitted while it lives (with their notes),
/// and lets warnings and remarks through to the enclosing handler.
class ErrorCollector {
public:
  ErrorCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          append(diagnostic, "error");
          for (Diagnostic &note : diagnostic.getNotes())
            append(note, "note");
          return success();
        }) {}

  /// The collected diagnostics, one per line, each line indented.
  std::string str() const { return text; }

private:
  void append(Diagnostic &diagnostic, StringRef severity) {
    llvm::raw_string_ostream os(text);
    os << "\n  ";
    Location location = diagnostic.getLocation();
    if (auto file = location->findInstanceOf<FileLineColLoc>())
      os << file.getFilename().getValue() << ':' << file.getLine() << ':'
         << file.getColumn() << ": ";
    else if (!isa<UnknownLoc>(location))
      os << location << ": ";
    os << severity << ": " << diagnostic.str();
  }

  std::string text;
  ScopedDiagnosticHandler handler;
};

/// Defines the f16/bf16 conversion routines (__truncsfhf2, ...) for JIT code
/// that calls them (see JitSymbols.cpp).
void registerConversionSymbols(ExecutionEngine &engine);

} // namespace detail
} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_RUNNER_RUNNERIMPL_H
