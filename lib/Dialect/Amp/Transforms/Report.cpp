//===- Report.cpp - the amp-report pass -----------------------------------===//
//
// Part of amp-mlir. How a user checks that AMP is on: how many float ops run
// in low precision, how many conversions remain and what they cost.
//
//===----------------------------------------------------------------------===//

#include "ReportUtils.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/Policy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPREPORTPASS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace amp
} // namespace mlir

using namespace mlir;
using namespace mlir::amp;

std::string mlir::amp::getOpPrecision(Operation *op) {
  FloatType narrowest;
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (element && (!narrowest || element.getWidth() < narrowest.getWidth()))
      narrowest = element;
  }
  if (!narrowest)
    return "";
  std::string name;
  llvm::raw_string_ostream os(name);
  narrowest.print(os);
  return name;
}

std::string mlir::amp::getFloatOpPrecision(Operation *op) {
  auto iface = dyn_cast<AmpPrecisionOpInterface>(op);
  if (!iface || iface.getAmpCategory() == Category::Unsupported)
    return "";
  return getOpPrecision(op);
}

bool mlir::amp::isConversion(Operation *op, Value &input, Type &output) {
  if (!isa<CastOp, arith::ExtFOp, arith::TruncFOp, tosa::CastOp, QuantizeOp,
           DequantizeOp>(op))
    return false;
  input = op->getOperand(0);
  output = op->getResult(0).getType();
  return isFloatLike(input.getType()) && isFloatLike(output);
}

std::optional<uint64_t> mlir::amp::getBytesConverted(Value input, Type output) {
  int64_t numElements = 1;
  if (auto inShaped = dyn_cast<ShapedType>(input.getType())) {
    if (!inShaped.hasStaticShape())
      return std::nullopt;
    numElements = inShaped.getNumElements();
  }
  unsigned bits =
      getElementTypeOrSelf(input.getType()).getIntOrFloatBitWidth() +
      getElementTypeOrSelf(output).getIntOrFloatBitWidth();
  return uint64_t(numElements) * bits / 8;
}

bool mlir::amp::isEpilogueNarrowing(Operation *op) {
  Value input;
  Type output;
  if (!isConversion(op, input, output))
    return false;
  auto result = dyn_cast<OpResult>(input);
  auto iface = result ? dyn_cast<AmpPrecisionOpInterface>(result.getOwner())
                      : AmpPrecisionOpInterface();
  auto low = dyn_cast<FloatType>(getElementTypeOrSelf(output));
  if (!iface || !low || low.getWidth() >= 32)
    return false;
  // A contraction's narrowing, or a reduction's: both lowerings write the
  // low type from the loop nest or kernel that computes the f32 result.
  Operation *producer = result.getOwner();
  bool contraction = iface.getAmpCategory() == Category::White &&
                     iface.getAccumulatorType(low);
  if (!contraction && !isReduction(producer))
    return false;
  // Every user narrows it to the same type (one epilogue writes that).
  return isOnlyConvertedTo(input, low);
}

bool mlir::amp::isReduction(Operation *op) {
  // The reductions the CPU lowering gives an epilogue
  // (isReductionWithEpilogue in amp/Transforms/ContractionEpilogues.h: a
  // linalg.generic or linalg.reduce with one init; pooling is not one), and
  // the tosa reductions that tosa-to-linalg turns into such generics.
  if (isa<tosa::ReduceSumOp, tosa::ReduceMaxOp, tosa::ReduceMinOp,
          tosa::ReduceProductOp>(op))
    return true;
  if (!isa<linalg::GenericOp, linalg::ReduceOp>(op))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return linalgOp.getNumDpsInits() == 1 &&
         linalgOp.getNumReductionLoops() != 0;
}

bool mlir::amp::isOnlyConvertedTo(Value value, Type elementType) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    Value input;
    Type output;
    return isConversion(user, input, output) &&
           getElementTypeOrSelf(output) == elementType;
  });
}

bool mlir::amp::isInsidePrecisionOp(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<AmpPrecisionOpInterface>(parent))
      return true;
  return false;
}

bool mlir::amp::isOnlyReturned(Value value) {
  if (value.use_empty())
    return false;
  for (Operation *user : value.getUsers()) {
    Value input;
    Type output;
    if (isConversion(user, input, output)) {
      if (!isOnlyReturned(user->getResult(0)))
        return false;
      continue;
    }
    if (!user->hasTrait<OpTrait::ReturnLike>() ||
        !isa<FunctionOpInterface>(user->getParentOp()))
      return false;
  }
  return true;
}

uint64_t ReportSummary::count(Operation *op) {
  Value input;
  Type output;
  bool recipe = float8Ops && float8Ops->contains(op);
  if (isConversion(op, input, output)) {
    // The narrowing of an FP8 contraction's rescaled result is its
    // epilogue's.
    Operation *def = input.getDefiningOp();
    if (isEpilogueNarrowing(op) ||
        (def && float8Ops && float8Ops->contains(def) &&
         isOnlyConvertedTo(input, getElementTypeOrSelf(output)))) {
      ++numEpilogues;
      return 0;
    }
    ++numCasts;
    bool quantize = isa<QuantizeOp>(op);
    if (quantize)
      ++numQuantizations;
    std::optional<uint64_t> bytes = getBytesConverted(input, output);
    if (!bytes) {
      ++numDynamicCasts;
      return 0;
    }
    bytesConverted += *bytes;
    if (quantize)
      float8Bytes += cast<ShapedType>(output).getNumElements();
    return *bytes;
  }
  std::string precision = getFloatOpPrecision(op);
  if (precision.empty() || recipe)
    return 0;
  ++numFloatOps;
  if (precision != "f32" && precision != "f64") {
    ++numLowOps;
    if (lowName.empty())
      lowName = precision;
    else if (lowName != precision)
      lowName = "low precision";
  }
  return 0;
}

std::string ReportSummary::format(StringRef title) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << title << ": " << numLowOps << "/" << numFloatOps << " float ops in "
     << (lowName.empty() ? "f16/bf16" : lowName) << ", " << numCasts
     << (numCasts == 1 ? " cast, " : " casts, ") << formatBytes(bytesConverted)
     << " converted per call";
  if (numDynamicCasts)
    os << " (+" << numDynamicCasts << " casts of dynamic size)";
  if (numEpilogues)
    os << "; " << numEpilogues
       << (numEpilogues == 1 ? " narrowing" : " narrowings")
       << " in epilogues";
  if (numQuantizations)
    os << "; " << numQuantizations
       << (numQuantizations == 1 ? " FP8 quantization" : " FP8 quantizations")
       << " writing " << formatBytes(float8Bytes);
  return text;
}

std::string mlir::amp::formatLocation(Location loc) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  loc.print(os);
  StringRef text(printed);
  if (text.consume_front("loc(") && text.consume_back(")")) {
    std::string cleaned;
    for (char c : text)
      if (c != '"')
        cleaned.push_back(c);
    return cleaned;
  }
  return printed;
}

std::string mlir::amp::formatBytes(uint64_t bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (bytes >= (1u << 20))
    os << llvm::format("%.1f MiB", bytes / 1048576.0);
  else if (bytes >= 1024)
    os << llvm::format("%.1f KiB", bytes / 1024.0);
  else
    os << bytes << " B";
  return text;
}

namespace {
struct AmpReportPass : public amp::impl::AmpReportPassBase<AmpReportPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void AmpReportPass::runOnOperation() {
  AmpReportPassOptions options;
  options.format = format;
  options.output = output;
  options.title = title;
  if (failed(emitAmpReport(getOperation(), options)))
    return signalPassFailure();
  markAllAnalysesPreserved();
}

namespace {
/// Op name -> precision -> count.
using OpPrecisionCounts =
    std::map<std::string, std::map<std::string, unsigned>>;

/// What a report says of a module (emitAmpReport).
struct ReportFigures {
  const OpPrecisionCounts &perOp;
  const ReportSummary &summary;
  /// What inserting one conversion per use (no sharing) would cost.
  uint64_t numPerUseCasts, perUseBytesConverted;
  std::string lowName;
  LowPrecisionBytes lowBytes;
  /// Share of the ideal's low-precision bytes that the module stores low.
  double reached;
};
} // namespace

static void writeJsonReport(llvm::raw_ostream &os, const ReportFigures &f,
                            StringRef title, const AmpDecisionLog *log) {
  const ReportSummary &summary = f.summary;
  llvm::json::Object ops;
  for (const auto &[name, counts] : f.perOp) {
    llvm::json::Object entry;
    for (const auto &[precision, count] : counts)
      entry[precision] = count;
    ops[name] = std::move(entry);
  }
  llvm::json::Object root{
      {"title", title},
      {"float_ops", summary.numFloatOps},
      {"low_precision_ops", summary.numLowOps},
      {"low_precision_type", f.lowName},
      {"casts", summary.numCasts},
      {"dynamic_size_casts", summary.numDynamicCasts},
      {"epilogue_casts", summary.numEpilogues},
      {"fp8_quantizations", summary.numQuantizations},
      {"fp8_bytes", summary.float8Bytes},
      {"bytes_converted", summary.bytesConverted},
      {"per_use_casts", f.numPerUseCasts},
      {"per_use_bytes_converted", f.perUseBytesConverted},
      {"low_precision_bytes", f.lowBytes.low},
      {"bytes_moved", f.lowBytes.moved + summary.bytesConverted},
      {"ideal_low_precision_bytes", f.lowBytes.ideal},
      {"ideal_reached_bytes", f.lowBytes.reached},
      {"ideal_fraction", f.reached},
      {"dynamic_size_tensors", f.lowBytes.dynamicTensors},
      {"ops", std::move(ops)}};
  // What explain=true says, per decided op (when the pipeline ran the
  // decisions; the amp-report pass alone does not know them).
  if (log) {
    llvm::json::Array decisions;
    for (const AmpDecisionLog::Entry &entry : log->entries)
      decisions.push_back(llvm::json::Object{
          {"op", entry.op},
          {"location", entry.location},
          {"precision", entry.precision.empty()
                            ? llvm::json::Value(nullptr)
                            : llvm::json::Value(entry.precision)},
          {"reason", entry.reason}});
    root["decisions"] = std::move(decisions);
  }
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

static void writeTextReport(llvm::raw_ostream &os, const ReportFigures &f,
                            StringRef title) {
  const LowPrecisionBytes &lowBytes = f.lowBytes;
  os << f.summary.format(title) << "\n";
  os << "  low-precision bytes: " << formatBytes(lowBytes.reached)
     << " of an ideal " << formatBytes(lowBytes.ideal)
     << llvm::format(" (%.1f%%", 100.0 * f.reached);
  if (lowBytes.low != lowBytes.reached)
    os << "; " << formatBytes(lowBytes.low - lowBytes.reached)
       << " more than the ideal";
  os << ")";
  if (lowBytes.dynamicTensors)
    os << ", per unit of each dynamic dimension (" << lowBytes.dynamicTensors
       << " tensors of dynamic size)";
  os << "\n";
  // Columns: the precisions that occur, f32 first.
  std::vector<std::string> columns;
  for (const auto &[name, counts] : f.perOp)
    for (const auto &[precision, count] : counts)
      if (!llvm::is_contained(columns, precision))
        columns.push_back(precision);
  llvm::sort(columns, [](const std::string &a, const std::string &b) {
    return (a == "f32") > (b == "f32") ||
           ((a == "f32") == (b == "f32") && a < b);
  });
  size_t width = 2;
  for (const auto &entry : f.perOp)
    width = std::max(width, entry.first.size());
  os << "  " << llvm::left_justify("op", width);
  for (const std::string &column : columns)
    os << llvm::right_justify(column, std::max<size_t>(7, column.size() + 1));
  os << "\n";
  for (const auto &[name, counts] : f.perOp) {
    os << "  " << llvm::left_justify(name, width);
    for (const std::string &column : columns) {
      auto it = counts.find(column);
      os << llvm::right_justify(
          std::to_string(it == counts.end() ? 0 : it->second),
          std::max<size_t>(7, column.size() + 1));
    }
    os << "\n";
  }
}

LogicalResult mlir::amp::emitAmpReport(ModuleOp module,
                                       const AmpReportPassOptions &options,
                                       const AmpDecisionLog *log) {
  const std::string &format = options.format, &output = options.output,
                    &title = options.title;
  if (format != "text" && format != "json") {
    module.emitError("amp-report: unknown format '")
        << format << "' (expected text or json)";
    return failure();
  }
  OpPrecisionCounts perOp;
  ReportSummary summary;
  summary.float8Ops = log ? &log->float8Ops : nullptr;
  // What inserting one conversion per use (no sharing) would cost.
  uint64_t numPerUseCasts = 0, perUseBytesConverted = 0;
  module.walk([&](Operation *op) {
    // Ops nested in a counted op (linalg bodies) are part of it: their
    // conversions are fused (extend on read) and move no extra memory.
    if (isInsidePrecisionOp(op))
      return;
    if (uint64_t bytes = summary.count(op)) {
      uint64_t numUses =
          std::max<uint64_t>(1, std::distance(op->use_begin(), op->use_end()));
      numPerUseCasts += numUses;
      perUseBytesConverted += numUses * bytes;
      return;
    }
    std::string precision = getFloatOpPrecision(op);
    if (!precision.empty() &&
        !(summary.float8Ops && summary.float8Ops->contains(op)))
      ++perOp[op->getName().getStringRef().str()][precision];
  });
  std::string lowName = summary.lowName;
  if (lowName.empty())
    lowName = "f16/bf16";

  // The ideal of the level and type the module was rewritten with (its
  // amp.applied marker, "O2:f16"); O2 and the low type found otherwise.
  bool isO1 = false;
  FloatType lowType = Float16Type::get(module.getContext());
  if (lowName == "bf16")
    lowType = BFloat16Type::get(module.getContext());
  if (auto applied =
          module->getAttrOfType<StringAttr>(AmpDialect::kAppliedAttrName)) {
    auto [appliedLevel, appliedType] = applied.getValue().split(':');
    isO1 = appliedLevel.equals_insensitive("o1");
    if (std::optional<Precision> precision = parseLowPrecision(appliedType))
      lowType = getFloatType(module.getContext(), *precision);
    else if (isFloat8Dtype(appliedType))
      lowType = BFloat16Type::get(module.getContext()); // The rest's type.
  }
  LowPrecisionBytes lowBytes =
      log ? measureLowPrecisionBytes(module, lowType, isO1, &log->policy,
                                     &log->unguarded, &log->float8Ops)
          : measureLowPrecisionBytes(module, lowType, isO1);
  // Share of the ideal's low-precision bytes that the module stores low.
  double reached =
      lowBytes.ideal ? double(lowBytes.reached) / double(lowBytes.ideal) : 1.0;

  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> file;
  llvm::raw_ostream *os = &llvm::errs();
  if (!output.empty()) {
    file = openOutputFile(output, &errorMessage);
    if (!file) {
      module.emitError("amp-report: ") << errorMessage;
      return failure();
    }
    os = &file->os();
  }

  ReportFigures figures{perOp,   summary,  numPerUseCasts, perUseBytesConverted,
                        lowName, lowBytes, reached};
  if (format == "json")
    writeJsonReport(*os, figures, title, log);
  else
    writeTextReport(*os, figures, title);
  if (file)
    file->keep();
  return success();
}
