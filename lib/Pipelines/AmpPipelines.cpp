//===- AmpPipelines.cpp - the --amp-o1 / --amp-o2 pipelines ---------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::buildAmpPipeline(OpPassManager &pm, const AmpOptions &options) {
  // Calibrated ranges name the values of the module as written: first.
  if (!options.calibration.empty()) {
    AmpApplyRangesPassOptions ranges;
    ranges.calibration = options.calibration;
    pm.addPass(createAmpApplyRangesPass(ranges));
  }
  // Weights held in constant ml_program globals become constants, which the
  // policies convert at compile time.
  pm.addPass(createAmpInlineGlobalConstantsPass());
  // Forward-backward functions of the training convention become training
  // steps (loss scaling, fp32 masters, the optimizer); other functions are
  // left alone.
  AmpTrainingPassOptions training;
  training.scaler = options.scaler;
  training.dataParallel = options.dataParallel;
  pm.addPass(createAmpTrainingPass(training));
  if (!options.splitStages) {
    pm.addPass(createAmpPrecisionPipelinePass(options));
    return;
  }
  for (AmpStage stage : getAmpStages(options)) {
    switch (stage) {
    case AmpStage::Decide:
      pm.addPass(createAmpAutoMixedPrecisionPass(options));
      break;
    case AmpStage::InlineGuards:
      pm.addPass(createAmpInlineGuardsPass());
      break;
    case AmpStage::ElideCasts:
      pm.addPass(createAmpCastElisionPass());
      break;
    case AmpStage::Report:
      pm.addPass(createAmpReportPass(getAmpReportOptions(options)));
      break;
    case AmpStage::MaterializeCasts:
      pm.addPass(createAmpMaterializeCastsPass());
      break;
    case AmpStage::Float8Contractions:
      pm.addPass(createAmpFloat8ContractionsPass(
          *options.fp8, /*markApplied=*/true, options.explain));
      break;
    case AmpStage::PrecisionGraph:
      pm.addPass(
          createAmpPrecisionGraphPass(getAmpPrecisionGraphOptions(options)));
      break;
    }
  }
}

namespace mlir {
namespace amp {
#define GEN_PASS_DEF_AMPO1PASS
#define GEN_PASS_DEF_AMPO2PASS
#define GEN_PASS_REGISTRATION
#include "amp/Pipelines/Passes.h.inc"
} // namespace amp
} // namespace mlir

namespace {
/// Copies a pass option's value to the options struct's field.
template <typename Option, typename T>
void copyOptionValue(const Option &option, T &field) {
  field = option.getValue();
}
template <typename Option>
void copyOptionValue(const Option &option, SmallVector<std::string> &field) {
  field.assign(option.begin(), option.end());
}

/// --amp-o1 / --amp-o2: binds its options (declared in PassOptions.td) to
/// AmpOptions and runs the pipeline buildAmpPipeline builds from them.
template <typename PassBase, AmpLevel Level>
struct AmpLevelPass : public PassBase {
  using PassBase::PassBase;
  AMP_OPTIONS_BINDABLE

  /// The options' values, as the generated options struct holds them.
  void getValues(AmpOptionValues &values) const {
#define AMP_PASS_OPTION(FIELD, NAME) copyOptionValue(this->FIELD, values.FIELD);
#include "amp/Pipelines/AmpOptionTable.inc"
  }

  /// The typed options; on failure, `error` says which value is wrong.
  LogicalResult bind(AmpOptions &options, std::string &error) const {
    options = AmpOptions();
    options.level = Level;
    return bindAmpOptions(*this, options, error);
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    AmpOptions options;
    std::string error;
    if (failed(bind(options, error)))
      return;
    OpPassManager pipeline(ModuleOp::getOperationName());
    buildAmpPipeline(pipeline, options);
    pipeline.getDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *) override {
    AmpOptions options;
    error.clear();
    pipeline = OpPassManager(ModuleOp::getOperationName());
    if (succeeded(bind(options, error)))
      buildAmpPipeline(pipeline, options);
    return success();
  }

  void runOnOperation() override {
    // An invalid value is reported on the module, before anything changes,
    // as the precision passes report theirs.
    if (!error.empty()) {
      mlir::emitError(this->getOperation().getLoc(), "amp: ") << error;
      return this->signalPassFailure();
    }
    if (failed(this->runPipeline(pipeline, this->getOperation())))
      this->signalPassFailure();
  }

  OpPassManager pipeline{ModuleOp::getOperationName()};
  std::string error;
};

struct AmpO1Pass
    : public AmpLevelPass<mlir::amp::impl::AmpO1PassBase<AmpO1Pass>,
                          AmpLevel::O1> {
  using AmpLevelPass::AmpLevelPass;
};
struct AmpO2Pass
    : public AmpLevelPass<mlir::amp::impl::AmpO2PassBase<AmpO2Pass>,
                          AmpLevel::O2> {
  using AmpLevelPass::AmpLevelPass;
};

} // namespace

LogicalResult mlir::amp::parseAmpOptions(StringRef text,
                                         AmpOptionValues &values,
                                         std::string &error) {
  // The level pass's parser, over the values given so far: it changes only
  // the options that the text names.
  AmpO2Pass pass(values);
  std::string message;
  if (failed(pass.initializeOptions(text, [&](const Twine &diagnostic) {
        message = diagnostic.str();
        return failure();
      }))) {
    // The option parser's message, without the name of its command line.
    StringRef parser = "<Pass-Options-Parser>: ";
    error = StringRef(message).trim().str();
    if (StringRef(error).starts_with(parser))
      error = error.substr(parser.size());
    if (error.empty())
      error = "invalid options '" + text.str() + "'";
    return failure();
  }
  pass.getValues(values);
  return success();
}

LogicalResult mlir::amp::bindAmpOptions(const AmpOptionValues &values,
                                        AmpLevel level, AmpOptions &options,
                                        std::string &error) {
  options = AmpOptions();
  options.level = level;
  return bindAmpOptions(values, options, error);
}

LogicalResult mlir::amp::parseAmpOptions(StringRef text, AmpLevel level,
                                         AmpOptions &options,
                                         std::string &error) {
  AmpOptionValues values;
  return failure(failed(parseAmpOptions(text, values, error)) ||
                 failed(bindAmpOptions(values, level, options, error)));
}

//===----------------------------------------------------------------------===//
// By name
//===----------------------------------------------------------------------===//

/// The kind of value an option of type T takes: an enum takes its spelling.
template <typename T> static constexpr OptionKind getAmpOptionKind() {
  if constexpr (std::is_same_v<T, bool>)
    return OptionKind::Bool;
  else if constexpr (std::is_integral_v<T>)
    return OptionKind::Integer;
  else if constexpr (std::is_floating_point_v<T>)
    return OptionKind::Float;
  else if constexpr (std::is_same_v<T, std::string> || std::is_enum_v<T>)
    return OptionKind::String;
  else
    return OptionKind::StringList;
}

ArrayRef<OptionInfo> mlir::amp::getAmpOptionInfos() {
  static const OptionInfo infos[] = {
#define AMP_PASS_OPTION(FIELD, NAME)                                           \
  {NAME, getAmpOptionKind<decltype(AmpOptionValues::FIELD)>()},
#include "amp/Pipelines/AmpOptionTable.inc"
  };
  return infos;
}

/// Sets `field` from a value of its kind; a string is an enum's spelling.
template <typename T>
static LogicalResult assignAmpOption(StringRef name, T &field,
                                     const OptionValue &value,
                                     std::string &error) {
  return assignOptionValue<getAmpOptionKind<T>()>(
      name, field, value, error, [&](const auto &text) {
        if constexpr (std::is_enum_v<T>) {
          std::optional<T> parsed = parseOptionValue<T>(text);
          if (!parsed) {
            error = getInvalidValueMessage<T>(text);
            return failure();
          }
          field = *parsed;
        } else if constexpr (std::is_same_v<T, std::string>) {
          field = text;
        }
        return success();
      });
}

LogicalResult mlir::amp::setAmpOption(AmpOptionValues &values, StringRef name,
                                      const OptionValue &value,
                                      std::string &error) {
#define AMP_PASS_OPTION(FIELD, NAME)                                           \
  if (name == NAME)                                                            \
    return assignAmpOption(name, values.FIELD, value, error);
#include "amp/Pipelines/AmpOptionTable.inc"
  error =
      getUnknownOptionMessage(name, "the AMP pipeline", getAmpOptionInfos());
  return failure();
}

void mlir::amp::registerAmpPipelines() { registerAmpPipelinesPasses(); }
