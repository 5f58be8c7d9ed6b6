//===- ApplyRanges.cpp - the amp-apply-ranges pass ------------------------===//
//
// Part of amp-mlir. Reads a calibration file (what amp-record-ranges'
// result held, per ranged value of a function) back onto the module as
// amp.absmax attributes, which the precision policies read.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "Ranges.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPAPPLYRANGESPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

namespace {
struct AmpApplyRangesPass
    : public amp::impl::AmpApplyRangesPassBase<AmpApplyRangesPass> {
  using Base::Base;
  void runOnOperation() override;
};

struct Calibration {
  std::string function;
  std::vector<double> absmax;
};
} // namespace

/// Parses the calibration file at `path`; on failure, `error` says why.
static std::optional<Calibration> readCalibration(StringRef path,
                                                  std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    error = "'" + path.str() + "' is not JSON: " + toString(json.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *object = json->getAsObject();
  std::optional<StringRef> function =
      object ? object->getString("function") : std::nullopt;
  const llvm::json::Array *absmax =
      object ? object->getArray("absmax") : nullptr;
  if (!function || !absmax) {
    error = "'" + path.str() +
            "' must hold an object with \"function\" (a string) and "
            "\"absmax\" (an array of numbers)";
    return std::nullopt;
  }
  Calibration calibration;
  calibration.function = function->str();
  for (auto [i, entry] : llvm::enumerate(*absmax)) {
    std::optional<double> number = entry.getAsNumber();
    if (!number || !std::isfinite(*number) || *number < 0) {
      error = "'" + path.str() + "': absmax[" + std::to_string(i) +
              "] must be a finite number at least 0";
      return std::nullopt;
    }
    calibration.absmax.push_back(*number);
  }
  return calibration;
}

void AmpApplyRangesPass::runOnOperation() {
  StringRef pass = "amp-apply-ranges";
  ModuleOp module = getOperation();
  if (calibration.empty()) {
    mlir::emitError(module.getLoc())
        << pass << ": no calibration file (calibration=)";
    return signalPassFailure();
  }
  std::string error;
  std::optional<Calibration> file = readCalibration(calibration, error);
  if (!file) {
    mlir::emitError(module.getLoc()) << pass << ": " << error;
    return signalPassFailure();
  }
  FailureOr<func::FuncOp> function =
      getCalibratedFunction(module, file->function, pass);
  if (failed(function))
    return signalPassFailure();
  FailureOr<SmallVector<Value>> values = getRangedValues(*function, pass);
  if (failed(values))
    return signalPassFailure();
  if (values->size() != file->absmax.size()) {
    mlir::emitError(function->getLoc())
        << pass << ": '" << calibration << "' holds " << file->absmax.size()
        << " ranges, but '@" << function->getSymName() << "' has "
        << values->size()
        << " float tensors to range: it was recorded on another module";
    return signalPassFailure();
  }
  Builder b(module.getContext());
  llvm::DenseMap<Operation *, SmallVector<float>> perOp;
  for (auto [value, max] : llvm::zip_equal(*values, file->absmax)) {
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      function->setArgAttr(argument.getArgNumber(), AmpDialect::kAbsMaxAttrName,
                           b.getF32FloatAttr(static_cast<float>(max)));
      continue;
    }
    auto result = cast<OpResult>(value);
    SmallVector<float> &maxima = perOp[result.getOwner()];
    maxima.resize(result.getOwner()->getNumResults(), -1.0f);
    maxima[result.getResultNumber()] = static_cast<float>(max);
  }
  for (auto &[op, maxima] : perOp)
    op->setAttr(AmpDialect::kAbsMaxAttrName, b.getDenseF32ArrayAttr(maxima));
}
