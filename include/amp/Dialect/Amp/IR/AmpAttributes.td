//===- AmpAttributes.td - amp attributes and enums ---------*- tablegen -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPATTRIBUTES_TD
#define AMP_DIALECT_AMP_IR_AMPATTRIBUTES_TD

include "amp/Dialect/Amp/IR/AmpDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Amp_Precision : I32EnumAttr<"Precision",
    "compute precision of an operation under AMP", [
      I32EnumAttrCase<"f32", 0>,
      I32EnumAttrCase<"f16", 1>,
      I32EnumAttrCase<"bf16", 2>
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

def Amp_Category : I32EnumAttr<"Category",
    "how an operation behaves under an AMP policy", [
      // Paddle: white list (AMP_WHITE_LIST); PyTorch autocast: "lower precision".
      I32EnumAttrCase<"White", 0, "white">,
      // Paddle: black list; PyTorch: "float32" ops.
      I32EnumAttrCase<"Black", 1, "black">,
      // Paddle: gray list; PyTorch: "promote"; TF: "clear/infer" lists.
      I32EnumAttrCase<"Gray", 2, "gray">,
      // Not a floating-point computation (integer ops, shape arithmetic).
      I32EnumAttrCase<"Unsupported", 3, "unsupported">
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

def Amp_ReduceKind : I32EnumAttr<"ReduceKind",
    "how amp.all_reduce combines the ranks' values", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"mean", 1>,
      I32EnumAttrCase<"max", 2>,
      I32EnumAttrCase<"min", 3>
    ]> {
  let cppNamespace = "::mlir::amp";
  // The values are the `kind` argument of the runtime's ampAllReduce
  // (runtime/include/amp/runtime/AmpCollectives.h).
}

def Amp_OptimizerKind : I32EnumAttr<"OptimizerKind",
    "the update rule of amp.optimizer_update (PyTorch's optimizers)", [
      I32EnumAttrCase<"sgd", 0>,
      I32EnumAttrCase<"momentum", 1>,
      I32EnumAttrCase<"adam", 2>,
      I32EnumAttrCase<"adamw", 3>
    ]> {
  let cppNamespace = "::mlir::amp";
  // The values are the runtime's AmpOptimizerKind (AMP_OPTIMIZER_SGD, ...,
  // runtime/include/amp/runtime/AmpLossScaling.h), the `kind` argument of
  // ampGpuOptimizerUpdateBuffers.
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class Amp_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Amp_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Amp_LossScalingAttr : Amp_Attr<"LossScaling", "loss_scaling"> {
  let summary = "configuration of a dynamic loss scaler";
  let description = [{
    The knobs of the unified dynamic loss scaler (a superset of PyTorch's
    `GradScaler`, Paddle's `update_loss_scaling`, DeepSpeed's
    `DynamicLossScaler`, Megatron's and Apex's scalers):

    | parameter | meaning |
    |---|---|
    | `init_scale` | initial loss scale (> 0, finite) |
    | `growth_factor` | scale multiplier after `growth_interval` clean steps (> 1) |
    | `backoff_factor` | scale multiplier on a counted overflow, in (0, 1) |
    | `growth_interval` | consecutive clean steps before growing (>= 1) |
    | `backoff_interval` | consecutive counted overflows before backing off (>= 1; Paddle's `decr_every_n_nan_or_inf`) |
    | `hysteresis` | overflows absorbed before back-off becomes active (>= 1; DeepSpeed's `delayed_shift`) |
    | `consecutive_hysteresis` | refill the hysteresis on every clean step instead of on growth |
    | `min_scale` | optional floor applied after back-off |
    | `max_scale` | optional cap applied after growth |
    | `dynamic` | `false`: the scale stays `init_scale` (steps are still checked and skipped) |

    The textual form lists fields by name, in any order. Fields left out take
    the value of a preset: `preset = "pytorch"` (the default), `"paddle"`,
    `"paddle-static"`, `"deepspeed"`, `"megatron"`, `"apex"` or
    `"colossalai"`, or `"bf16"` (scale 1, not dynamic: no loss scaling,
    the finite check stays as a NaN guard). The printed form always spells
    every field out:

    ```mlir
    #amp.loss_scaling<preset = "deepspeed", growth_interval = 500>
    // prints as
    #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0,
                      backoff_factor = 0.5, growth_interval = 500,
                      backoff_interval = 1, hysteresis = 2,
                      consecutive_hysteresis = false, min_scale = 1.0,
                      dynamic = true>
    ```
  }];
  let parameters = (ins
    APFloatParameter<"initial loss scale">:$initScale,
    APFloatParameter<"growth multiplier">:$growthFactor,
    APFloatParameter<"back-off multiplier">:$backoffFactor,
    "int64_t":$growthInterval,
    "int64_t":$backoffInterval,
    "int64_t":$hysteresis,
    "bool":$consecutiveHysteresis,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$minScale,
    OptionalParameter<"std::optional<::llvm::APFloat>">:$maxScale,
    "bool":$dynamic
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "double":$initScale, "double":$growthFactor,
                     "double":$backoffFactor, "int64_t":$growthInterval,
                     "int64_t":$backoffInterval, "int64_t":$hysteresis,
                     "bool":$consecutiveHysteresis,
                     "std::optional<double>":$minScale,
                     "std::optional<double>":$maxScale, "bool":$dynamic)>
  ];
  let extraClassDeclaration = [{
    /// The floating-point knobs as doubles.
    double getInitScaleValue() const {
      return getInitScale().convertToDouble();
    }
    double getGrowthFactorValue() const {
      return getGrowthFactor().convertToDouble();
    }
    double getBackoffFactorValue() const {
      return getBackoffFactor().convertToDouble();
    }
    std::optional<double> getMinScaleValue() const {
      if (auto v = getMinScale())
        return v->convertToDouble();
      return std::nullopt;
    }
    std::optional<double> getMaxScaleValue() const {
      if (auto v = getMaxScale())
        return v->convertToDouble();
      return std::nullopt;
    }

    /// The configuration of a named preset ("pytorch", "paddle", ...), or a
    /// null attribute for an unknown name.
    static LossScalingAttr getPreset(::mlir::MLIRContext *context,
                                     ::llvm::StringRef name);
    /// Names of the presets, in documentation order.
    static ::llvm::ArrayRef<::llvm::StringRef> getPresetNames();
  }];
}

#endif // AMP_DIALECT_AMP_IR_AMPATTRIBUTES_TD
