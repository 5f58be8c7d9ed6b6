//===- CastPlacement.h - optimal precision assignment -----------*- C++ -*-===//
//
// Part of amp-mlir. Cast placement as a graph problem, independent of MLIR:
// ops are labelled high (f32) or low (f16/bf16); some labels are fixed by
// the policy (white/black lists, pins, guards, signatures), the others
// (gray ops) are free. Each value is produced by one endpoint and used by
// others; an endpoint's type either follows an op's label or is fixed (an
// f32 accumulator, an fp32-only operand). A value whose endpoints do not all
// agree needs one conversion, shared by all users, costing `weight` (bytes
// read and written); an op may also cost more when high (the wider tensors
// it reads and writes). The solver finds the assignment of minimum total cost
// exactly, as an s-t minimum cut, breaking ties towards more low-precision
// ops.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_ANALYSIS_CASTPLACEMENT_H
#define AMP_ANALYSIS_CASTPLACEMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace amp {

class CastPlacementProblem {
public:
  /// Where a value's type comes from, or what a use requires.
  struct Endpoint {
    /// FixedOther: a third type that no free op takes (a bf16 pin in an f16
    /// module); `op` then numbers the type.
    enum class Kind { FollowsOp, FixedHigh, FixedLow, FixedOther };
    Kind kind = Kind::FixedHigh;
    unsigned op = 0;
    static Endpoint follows(unsigned op) { return {Kind::FollowsOp, op}; }
    static Endpoint high() { return {Kind::FixedHigh, 0}; }
    static Endpoint low() { return {Kind::FixedLow, 0}; }
    static Endpoint other(unsigned type) { return {Kind::FixedOther, type}; }
  };

  /// Adds an op whose label is free (nullopt) or fixed (true: low).
  unsigned addOp(std::optional<bool> fixedLow = std::nullopt);
  /// Adds a value that costs `weight` to convert, with its producer.
  unsigned addValue(int64_t weight, Endpoint producer);
  /// Adds a value whose producer can write either type at no cost (a
  /// contraction's f32 accumulator, narrowed by its epilogue): only its
  /// uses must agree.
  unsigned addValue(int64_t weight);
  /// Adds a use of `value`.
  void addUse(unsigned value, Endpoint use);
  /// Adds `cost` to every assignment that labels `op` high: the bytes the
  /// op moves beyond what it moves in low precision.
  void addHighCost(unsigned op, int64_t cost);

  unsigned getNumOps() const { return ops.size(); }
  std::optional<bool> getFixedLabel(unsigned op) const { return ops[op]; }

  /// Total conversion cost of `lowLabels` (one label per op): one conversion
  /// per value and distinct type its uses need other than its own (or, for
  /// a value whose producer can write either type, per distinct type beyond
  /// the first).
  int64_t getCost(llvm::ArrayRef<bool> lowLabels) const;

  /// A minimum-cost assignment (fixed ops keep their labels); among those,
  /// one with the most low-precision ops.
  llvm::SmallVector<bool> solve() const;

  /// The same by trying every assignment of the free ops (for tests; at
  /// most ~20 free ops).
  llvm::SmallVector<bool> solveExhaustively() const;

private:
  struct Value {
    int64_t weight;
    bool hasProducer;
    llvm::SmallVector<Endpoint, 4> endpoints; // producer first, if any
  };
  std::vector<std::optional<bool>> ops;
  std::vector<Value> values;
};

} // namespace amp
} // namespace mlir

#endif // AMP_ANALYSIS_CASTPLACEMENT_H
