//===- DemoteF64.cpp - f64 computations between f32 values ----------------===//
//
// Part of amp-mlir. torch-mlir computes the variance of a layer norm (and of
// the other norms) in f64 over f32 data: an arith.extf to f64, f64
// generics, an arith.truncf back to f32. AMP decides f32 ops only, so those
// f64 tensors would stay as they are, four times the bytes of the low type,
// and the f16 input of the norm would be widened to f64. Such a computation
// is demoted to f32 here, before the decisions: its ops then compute in f32
// and are decided like every other op (a sum reads the low input and
// accumulates in f32).
//
//===----------------------------------------------------------------------===//

#include "DemoteF64.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::amp;

static bool isF64(Type type) { return getElementTypeOrSelf(type).isF64(); }

/// `type` with f32 in place of f64.
static Type toF32(Type type) {
  Type f32 = Float32Type::get(type.getContext());
  if (isa<FloatType>(type))
    return f32;
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(f32);
  return type;
}

/// True if `op` reads, writes or binds (as a block argument of one of its
/// regions) an f64 value.
static bool touchesF64(Operation *op) {
  if (llvm::any_of(op->getOperandTypes(), isF64) ||
      llvm::any_of(op->getResultTypes(), isF64))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), isF64))
        return true;
  return false;
}

/// `value` rounded to f32, or nullopt if a finite value would become
/// infinite or a non-zero one zero.
static std::optional<APFloat> demoteValue(const APFloat &value) {
  APFloat result = value;
  bool losesInfo;
  result.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
  if (value.isFinite() && result.isInfinity())
    return std::nullopt;
  if (value.isFiniteNonZero() && result.isZero())
    return std::nullopt;
  return result;
}

/// The f32 version of an f64 constant's value, or null if it has none (a
/// value out of f32's range, a resource).
static TypedAttr demoteConstant(Attribute attr) {
  Type f32 = Float32Type::get(attr.getContext());
  if (auto scalar = dyn_cast<FloatAttr>(attr)) {
    std::optional<APFloat> value = demoteValue(scalar.getValue());
    return value ? FloatAttr::get(f32, *value) : TypedAttr();
  }
  auto dense = dyn_cast<DenseFPElementsAttr>(attr);
  if (!dense || !dense.getElementType().isF64())
    return {};
  auto type = cast<ShapedType>(dense.getType()).clone(f32);
  if (dense.isSplat()) {
    std::optional<APFloat> value = demoteValue(dense.getSplatValue<APFloat>());
    return value ? DenseElementsAttr::get(type, *value) : TypedAttr();
  }
  SmallVector<APFloat> values;
  for (const APFloat &value : dense.getValues<APFloat>()) {
    std::optional<APFloat> demoted = demoteValue(value);
    if (!demoted)
      return {};
    values.push_back(*demoted);
  }
  return DenseElementsAttr::get(type, values);
}

namespace {
/// What an op of an f64 computation is to the demotion.
enum class Role {
  /// Cannot be demoted: the computation stays f64.
  Blocks,
  /// Widens a value of at most 32 bits to f64 (its input is f32 data).
  Entry,
  /// An f64 value leaves the computation in 32 bits or fewer, or as a
  /// comparison.
  Exit,
  /// Computes on f64 values; retyped to f32.
  Inner,
};

/// The f64 computations of a module: sets of ops connected by f64 values
/// (union-find over the ops that touch one).
class Computations {
public:
  explicit Computations(ModuleOp module) {
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != module && touchesF64(op))
        add(op);
    });
    // By index: unite() may append (a function returning an f64 value).
    for (unsigned index = 0; index < ops.size(); ++index) {
      Operation *op = ops[index];
      for (Value operand : op->getOperands()) {
        if (!isF64(operand.getType()))
          continue;
        Operation *producer = operand.getDefiningOp();
        if (!producer)
          producer = cast<BlockArgument>(operand).getOwner()->getParentOp();
        unite(op, producer);
      }
      // A terminator's f64 operands are its parent's results or region
      // values. (libAmpRunnerCAPI must share libMLIR's TypeIDs for this
      // check: lib/CAPI/CMakeLists.txt.)
      if (op->hasTrait<OpTrait::IsTerminator>() && op->getParentOp() &&
          llvm::any_of(op->getOperandTypes(), isF64))
        unite(op, op->getParentOp());
    }
  }

  /// The computations in program order (of their first op), each in program
  /// order.
  SmallVector<SmallVector<Operation *>> get() {
    llvm::MapVector<unsigned, SmallVector<Operation *>> groups;
    for (auto [index, op] : llvm::enumerate(ops))
      groups[find(index)].push_back(op);
    SmallVector<SmallVector<Operation *>> result;
    for (auto &entry : groups)
      result.push_back(std::move(entry.second));
    return result;
  }

private:
  void add(Operation *op) {
    if (ids.try_emplace(op, ops.size()).second) {
      parent.push_back(ops.size());
      ops.push_back(op);
    }
  }
  unsigned find(unsigned index) {
    while (parent[index] != index)
      index = parent[index] = parent[parent[index]];
    return index;
  }
  void unite(Operation *a, Operation *b) {
    // An op outside the module (none in practice) joins as a blocker.
    add(a);
    add(b);
    unsigned x = find(ids[a]), y = find(ids[b]);
    if (x != y)
      parent[std::max(x, y)] = std::min(x, y);
  }

  SmallVector<Operation *> ops;
  SmallVector<unsigned> parent;
  llvm::DenseMap<Operation *, unsigned> ids;
};
} // namespace

static bool isAtMost32BitFloat(Type type) {
  auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  return element && element.getWidth() <= 32;
}

/// The role of `op` in the f64 computation it belongs to.
static Role getRole(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return demoteConstant(constant.getValue()) ? Role::Inner : Role::Blocks;
  if (auto ext = dyn_cast<arith::ExtFOp>(op))
    return isF64(ext.getType()) && isAtMost32BitFloat(ext.getIn().getType())
               ? Role::Entry
               : Role::Blocks;
  if (auto trunc = dyn_cast<arith::TruncFOp>(op))
    return isF64(trunc.getIn().getType()) && isAtMost32BitFloat(trunc.getType())
               ? Role::Exit
               : Role::Blocks;
  if (isa<arith::CmpFOp>(op))
    return Role::Exit;
  if (isa<arith::SIToFPOp, arith::UIToFPOp, arith::AddFOp, arith::SubFOp,
          arith::MulFOp, arith::DivFOp, arith::RemFOp, arith::NegFOp,
          arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp, arith::SelectOp>(op))
    return Role::Inner;
  if (isa<math::MathDialect>(op->getDialect())) {
    // Classification ops (isnan, ...) answer in i1.
    bool answers = llvm::any_of(op->getResultTypes(), [](Type type) {
      return getElementTypeOrSelf(type).isInteger(1);
    });
    return answers ? Role::Exit : Role::Inner;
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return linalgOp.hasPureTensorSemantics() ? Role::Inner : Role::Blocks;
  if (isa<linalg::YieldOp, tensor::EmptyOp, tensor::ExtractOp, tensor::InsertOp,
          tensor::ExtractSliceOp, tensor::InsertSliceOp, tensor::ExpandShapeOp,
          tensor::CollapseShapeOp, tensor::CastOp, tensor::PadOp,
          tensor::YieldOp, tensor::ConcatOp, tensor::FromElementsOp,
          tensor::SplatOp, tensor::DimOp, tensor::GenerateOp>(op))
    return Role::Inner;
  return Role::Blocks;
}

/// A linalg.generic that copies its only input to its only init unchanged
/// (what a widening generic becomes once demoted).
static bool isIdentityCopy(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = generic.getRegion().front();
  return body.getOperations().size() == 1 &&
         body.getTerminator()->getOperand(0) == body.getArgument(0) &&
         generic.getDpsInputs()[0].getType() == generic.getResult(0).getType();
}

/// Retypes one computation to f32 and removes the conversions that became
/// identities.
static void demote(ArrayRef<Operation *> ops) {
  for (Operation *op : ops) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      TypedAttr value = demoteConstant(constant.getValue());
      constant.setValueAttr(value);
      constant.getResult().setType(value.getType());
      continue;
    }
    for (Value result : op->getResults())
      if (isF64(result.getType()))
        result.setType(toF32(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isF64(arg.getType()))
            arg.setType(toF32(arg.getType()));
  }
  // Erased ops are remembered, not looked at: `ops` still lists them.
  llvm::SmallPtrSet<Operation *, 8> erased;
  auto erase = [&](Operation *op) {
    // With its body: a generic's yield is freed with it.
    op->walk([&](Operation *nested) { erased.insert(nested); });
    op->erase();
  };
  for (Operation *op : ops) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
        op->getOperand(0).getType() != op->getResult(0).getType())
      continue;
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    erase(op);
  }
  for (Operation *op : ops) {
    if (erased.contains(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic || !isIdentityCopy(generic))
      continue;
    Value init = generic.getDpsInits()[0];
    generic.getResult(0).replaceAllUsesWith(generic.getDpsInputs()[0]);
    erase(generic);
    Operation *def = init.getDefiningOp();
    if (def && isa<tensor::EmptyOp>(def) && def->use_empty() &&
        !erased.contains(def))
      erase(def);
  }
}

unsigned mlir::amp::demoteF64Computations(ModuleOp module, bool explain) {
  unsigned demoted = 0;
  for (SmallVector<Operation *> &ops : Computations(module).get()) {
    Operation *blocker = nullptr, *entry = nullptr;
    bool exits = false;
    for (Operation *op : ops) {
      Role role = getRole(op);
      if (role == Role::Blocks && !blocker)
        blocker = op;
      else if (role == Role::Entry && !entry)
        entry = op;
      exits |= role == Role::Exit;
    }
    // Nothing leaves in 32 bits: the f64 values are returned, stored or
    // unused; nothing to gain.
    if (!exits && !blocker)
      continue;
    if (blocker) {
      // Only a computation on f32 data is AMP's business.
      if (entry) {
        InFlightDiagnostic remark = mlir::emitRemark(blocker->getLoc());
        remark << "amp: f64 computation on f32 data kept in f64: ";
        if (isa<arith::ConstantOp>(blocker))
          remark << "a constant does not fit in f32";
        else
          remark << "'" << blocker->getName()
                 << "' cannot compute in f32 or takes or gives its f64 "
                    "values";
      }
      continue;
    }
    if (explain)
      mlir::emitRemark((entry ? entry : ops.front())->getLoc())
          << "amp: f64 computation demoted to f32 (" << ops.size()
          << " ops between values of at most 32 bits; f64=keep keeps it)";
    demote(ops);
    ++demoted;
  }
  return demoted;
}
