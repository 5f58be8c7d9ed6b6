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

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

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

/// The large constants detachLargeConstants took out of a module: their
/// bytes, in one buffer that lives as long as the code using them.
struct DetachedConstants {
  static constexpr uint64_t kAlignment = 64;
  DetachedConstants() = default;
  DetachedConstants(const DetachedConstants &) = delete;
  DetachedConstants &operator=(const DetachedConstants &) = delete;
  ~DetachedConstants();

  /// The name of each global and where its bytes are.
  struct Symbol {
    std::string name;
    const void *address;
  };
  std::vector<Symbol> symbols;
  char *buffer = nullptr;
  uint64_t size = 0;
};

/// Turns each top-level constant `llvm.mlir.global` of `module` whose
/// initializer (dense or dense_resource elements of integers or floats) has
/// at least `minBytes` bytes into an external declaration, and returns the
/// bytes, for the JIT to bind the declarations to.
std::unique_ptr<DetachedConstants> detachLargeConstants(ModuleOp module,
                                                        uint64_t minBytes);

/// The LLVM optimization level for `module`: `requested`, or 1 when a
/// function has more than `largeFunction` instructions (0: no limit) and
/// `requested` is above 1 (then without loop unrolling and interleaving).
unsigned chooseOptLevel(const llvm::Module &module, unsigned requested,
                        unsigned largeFunction);

/// LLVM's default pipeline at `optLevel` (0 to 3) for `machine`, as MLIR's
/// makeOptimizingTransformer runs it (vectorizers on; loop unrolling and
/// interleaving as `unroll` says); with `passTimes`, LLVM's time of each
/// pass (-time-passes) is written there.
llvm::Error optimizeModule(llvm::Module &module, unsigned optLevel,
                           llvm::TargetMachine *machine, bool unroll,
                           llvm::raw_ostream *passTimes);

} // namespace detail
} // namespace runner
} // namespace amp
} // namespace mlir

#endif // AMP_LIB_RUNNER_RUNNERIMPL_H
