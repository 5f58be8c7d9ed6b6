//===- AmpAttributes.cpp - amp attributes ---------------------------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpAttributes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mlir::amp;

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/Amp/IR/AmpAttributes.cpp.inc"

void AmpDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "amp/Dialect/Amp/IR/AmpAttributes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// LossScalingAttr: presets
//===----------------------------------------------------------------------===//

namespace {
struct LossScalingPreset {
  llvm::StringLiteral name;
  double initScale, growthFactor, backoffFactor;
  int64_t growthInterval, backoffInterval, hysteresis;
  bool consecutiveHysteresis, hasMin;
  double minScale;
  bool hasMax;
  double maxScale;
  bool dynamic;
};
} // namespace

static const LossScalingPreset kPresets[] = {
#define AMP_LOSS_SCALER_PRESET(NAME, INIT, GROWTH, BACKOFF, GI, BI, HYST,      \
                               CONS, HAS_MIN, MIN, HAS_MAX, MAX, DYN)          \
  {llvm::StringLiteral(NAME),                                                  \
   INIT,                                                                       \
   GROWTH,                                                                     \
   BACKOFF,                                                                    \
   GI,                                                                         \
   BI,                                                                         \
   HYST,                                                                       \
   CONS != 0,                                                                  \
   HAS_MIN != 0,                                                               \
   MIN,                                                                        \
   HAS_MAX != 0,                                                               \
   MAX,                                                                        \
   DYN != 0},
#include "amp/runtime/LossScalerPresets.def"
};

static const LossScalingPreset *lookupPreset(StringRef name) {
  for (const LossScalingPreset &preset : kPresets)
    if (preset.name == name)
      return &preset;
  return nullptr;
}

ArrayRef<StringRef> LossScalingAttr::getPresetNames() {
  static const SmallVector<StringRef> names = [] {
    SmallVector<StringRef> result;
    for (const LossScalingPreset &preset : kPresets)
      result.push_back(preset.name);
    return result;
  }();
  return names;
}

static std::optional<double> optionalIf(bool has, double value) {
  return has ? std::optional<double>(value) : std::nullopt;
}

static std::optional<APFloat> toAPFloat(std::optional<double> value) {
  if (!value)
    return std::nullopt;
  return APFloat(*value);
}

LossScalingAttr
LossScalingAttr::get(MLIRContext *context, double initScale,
                     double growthFactor, double backoffFactor,
                     int64_t growthInterval, int64_t backoffInterval,
                     int64_t hysteresis, bool consecutiveHysteresis,
                     std::optional<double> minScale,
                     std::optional<double> maxScale, bool dynamic) {
  return Base::get(context, APFloat(initScale), APFloat(growthFactor),
                   APFloat(backoffFactor), growthInterval, backoffInterval,
                   hysteresis, consecutiveHysteresis, toAPFloat(minScale),
                   toAPFloat(maxScale), dynamic);
}

LossScalingAttr LossScalingAttr::getPreset(MLIRContext *context,
                                           StringRef name) {
  const LossScalingPreset *p = lookupPreset(name);
  if (!p)
    return {};
  return get(context, p->initScale, p->growthFactor, p->backoffFactor,
             p->growthInterval, p->backoffInterval, p->hysteresis,
             p->consecutiveHysteresis, optionalIf(p->hasMin, p->minScale),
             optionalIf(p->hasMax, p->maxScale), p->dynamic);
}

//===----------------------------------------------------------------------===//
// LossScalingAttr: verification
//===----------------------------------------------------------------------===//

LogicalResult LossScalingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, APFloat initScaleValue,
    APFloat growthFactorValue, APFloat backoffFactorValue,
    int64_t growthInterval, int64_t backoffInterval, int64_t hysteresis,
    bool consecutiveHysteresis, std::optional<APFloat> minScaleValue,
    std::optional<APFloat> maxScaleValue, bool dynamic) {
  auto toDouble = [](const APFloat &v) {
    bool losesInfo;
    APFloat copy = v;
    copy.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                 &losesInfo);
    return copy.convertToDouble();
  };
  double initScale = toDouble(initScaleValue);
  double growthFactor = toDouble(growthFactorValue);
  double backoffFactor = toDouble(backoffFactorValue);
  std::optional<double> minScale, maxScale;
  if (minScaleValue)
    minScale = toDouble(*minScaleValue);
  if (maxScaleValue)
    maxScale = toDouble(*maxScaleValue);
  auto positiveFinite = [&](StringRef name, double value) -> LogicalResult {
    if (!std::isfinite(value) || value <= 0.0)
      return emitError() << "loss_scaling: '" << name
                         << "' must be finite and > 0, got " << value;
    // The scale is held in f32 (as in the runtime), and 1/scale must be
    // finite: normal f32 values only.
    if (value < std::numeric_limits<float>::min() ||
        value > std::numeric_limits<float>::max())
      return emitError() << "loss_scaling: '" << name
                         << "' must be a normal f32 value (scales are kept "
                            "in f32 and 1/scale must be finite), got "
                         << value;
    return success();
  };
  auto counter = [&](StringRef name, int64_t value) -> LogicalResult {
    if (value < 1 || value > std::numeric_limits<int32_t>::max())
      return emitError() << "loss_scaling: '" << name
                         << "' must be in [1, 2^31 - 1], got " << value;
    return success();
  };
  if (failed(positiveFinite("init_scale", initScale)))
    return failure();
  if (!std::isfinite(growthFactor) || growthFactor <= 1.0)
    return emitError() << "loss_scaling: 'growth_factor' must be finite and "
                          "> 1, got "
                       << growthFactor;
  if (!std::isfinite(backoffFactor) || backoffFactor <= 0.0 ||
      backoffFactor >= 1.0)
    return emitError() << "loss_scaling: 'backoff_factor' must be in (0, 1), "
                          "got "
                       << backoffFactor;
  if (failed(counter("growth_interval", growthInterval)) ||
      failed(counter("backoff_interval", backoffInterval)) ||
      failed(counter("hysteresis", hysteresis)))
    return failure();
  if (minScale && failed(positiveFinite("min_scale", *minScale)))
    return failure();
  if (maxScale && failed(positiveFinite("max_scale", *maxScale)))
    return failure();
  if (minScale && maxScale && *minScale > *maxScale)
    return emitError() << "loss_scaling: 'min_scale' (" << *minScale
                       << ") must not exceed 'max_scale' (" << *maxScale << ")";
  if ((minScale && initScale < *minScale) ||
      (maxScale && initScale > *maxScale))
    return emitError() << "loss_scaling: 'init_scale' (" << initScale
                       << ") must lie within [min_scale, max_scale]";
  return success();
}

//===----------------------------------------------------------------------===//
// LossScalingAttr: parsing and printing
//===----------------------------------------------------------------------===//

/// Prints `value` so that it parses back to the same double and always lexes
/// as a float literal (MLIR's lexer needs a '.' in a float).
static void printDouble(AsmPrinter &printer, double value) {
  char buffer[64];
  if (std::isfinite(value) && value == std::floor(value) &&
      std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof(buffer), "%.1f", value);
    printer << buffer;
    return;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  std::string text(buffer);
  if (std::isfinite(value) && text.find('.') == std::string::npos) {
    size_t exponent = text.find('e');
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  printer << text;
}

static constexpr StringLiteral kKnobNames[] = {
    "preset",          "init_scale",
    "growth_factor",   "backoff_factor",
    "growth_interval", "backoff_interval",
    "hysteresis",      "consecutive_hysteresis",
    "min_scale",       "max_scale",
    "dynamic"};

Attribute LossScalingAttr::parse(AsmParser &parser, Type) {
  MLIRContext *context = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};

  // Fields are read first and applied on top of the preset afterwards, so
  // that `preset` may appear anywhere in the list.
  StringRef presetName = "pytorch";
  std::optional<double> initScale, growthFactor, backoffFactor, minScale,
      maxScale;
  // Integer fields as value + flag: GCC 12 reports std::optional<int64_t>
  // here as maybe-uninitialized (a known false positive).
  struct IntField {
    int64_t value = 0;
    bool set = false;
    int64_t valueOr(int64_t fallback) const { return set ? value : fallback; }
  } growthInterval, backoffInterval, hysteresis;
  std::optional<bool> consecutiveHysteresis, dynamic;
  llvm::StringSet<> seen;
  std::string presetStorage;

  auto parseBool = [&](std::optional<bool> &out) -> ParseResult {
    if (succeeded(parser.parseOptionalKeyword("true"))) {
      out = true;
      return success();
    }
    if (succeeded(parser.parseOptionalKeyword("false"))) {
      out = false;
      return success();
    }
    return parser.emitError(parser.getCurrentLocation(),
                            "expected 'true' or 'false'");
  };
  // Accepts integer literals too: `init_scale = 65536`.
  auto parseDouble = [&](std::optional<double> &out) -> ParseResult {
    bool negative = succeeded(parser.parseOptionalMinus());
    uint64_t integer;
    OptionalParseResult isInteger = parser.parseOptionalInteger(integer);
    double value;
    if (isInteger.has_value()) {
      if (failed(*isInteger))
        return failure();
      value = static_cast<double>(integer);
    } else if (parser.parseFloat(value)) {
      return failure();
    }
    out = negative ? -value : value;
    return success();
  };
  auto parseInt = [&](IntField &out) -> ParseResult {
    if (parser.parseInteger(out.value))
      return failure();
    out.set = true;
    return success();
  };

  if (failed(parser.parseOptionalGreater())) {
    do {
      SMLoc keyLoc = parser.getCurrentLocation();
      StringRef key;
      if (parser.parseKeyword(&key))
        return {};
      if (!llvm::is_contained(kKnobNames, key)) {
        std::string known;
        llvm::raw_string_ostream os(known);
        llvm::interleaveComma(kKnobNames, os);
        parser.emitError(keyLoc, "unknown loss_scaling field '")
            << key << "'; expected one of: " << known;
        return {};
      }
      if (!seen.insert(key).second) {
        parser.emitError(keyLoc, "loss_scaling field '")
            << key << "' appears more than once";
        return {};
      }
      if (parser.parseEqual())
        return {};
      ParseResult result = success();
      if (key == "preset") {
        SMLoc valueLoc = parser.getCurrentLocation();
        if (parser.parseString(&presetStorage))
          return {};
        if (!lookupPreset(presetStorage)) {
          std::string known;
          llvm::raw_string_ostream os(known);
          llvm::interleaveComma(getPresetNames(), os,
                                [&](StringRef n) { os << '"' << n << '"'; });
          parser.emitError(valueLoc, "unknown loss_scaling preset \"")
              << presetStorage << "\"; expected one of: " << known;
          return {};
        }
        presetName = presetStorage;
      } else if (key == "init_scale") {
        result = parseDouble(initScale);
      } else if (key == "growth_factor") {
        result = parseDouble(growthFactor);
      } else if (key == "backoff_factor") {
        result = parseDouble(backoffFactor);
      } else if (key == "min_scale") {
        result = parseDouble(minScale);
      } else if (key == "max_scale") {
        result = parseDouble(maxScale);
      } else if (key == "growth_interval") {
        result = parseInt(growthInterval);
      } else if (key == "backoff_interval") {
        result = parseInt(backoffInterval);
      } else if (key == "hysteresis") {
        result = parseInt(hysteresis);
      } else if (key == "consecutive_hysteresis") {
        result = parseBool(consecutiveHysteresis);
      } else {
        result = parseBool(dynamic);
      }
      if (failed(result))
        return {};
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater())
      return {};
  }

  const LossScalingPreset &p = *lookupPreset(presetName);
  return getChecked(
      [&] { return parser.emitError(loc); }, context,
      APFloat(initScale.value_or(p.initScale)),
      APFloat(growthFactor.value_or(p.growthFactor)),
      APFloat(backoffFactor.value_or(p.backoffFactor)),
      growthInterval.valueOr(p.growthInterval),
      backoffInterval.valueOr(p.backoffInterval),
      hysteresis.valueOr(p.hysteresis),
      consecutiveHysteresis.value_or(p.consecutiveHysteresis),
      toAPFloat(minScale ? minScale : optionalIf(p.hasMin, p.minScale)),
      toAPFloat(maxScale ? maxScale : optionalIf(p.hasMax, p.maxScale)),
      dynamic.value_or(p.dynamic));
}

void LossScalingAttr::print(AsmPrinter &printer) const {
  printer << "<init_scale = ";
  printDouble(printer, getInitScaleValue());
  printer << ", growth_factor = ";
  printDouble(printer, getGrowthFactorValue());
  printer << ", backoff_factor = ";
  printDouble(printer, getBackoffFactorValue());
  printer << ", growth_interval = " << getGrowthInterval()
          << ", backoff_interval = " << getBackoffInterval()
          << ", hysteresis = " << getHysteresis()
          << ", consecutive_hysteresis = "
          << (getConsecutiveHysteresis() ? "true" : "false");
  if (std::optional<double> minScale = getMinScaleValue()) {
    printer << ", min_scale = ";
    printDouble(printer, *minScale);
  }
  if (std::optional<double> maxScale = getMaxScaleValue()) {
    printer << ", max_scale = ";
    printDouble(printer, *maxScale);
  }
  printer << ", dynamic = " << (getDynamic() ? "true" : "false") << ">";
}
