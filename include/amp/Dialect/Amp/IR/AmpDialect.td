//===- AmpDialect.td - amp dialect definition --------------*- tablegen -*-===//
//
// Part of amp-mlir. The `amp` dialect: automatic mixed precision.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPDIALECT_TD
#define AMP_DIALECT_AMP_IR_AMPDIALECT_TD

include "mlir/IR/OpBase.td"

def Amp_Dialect : Dialect {
  let name = "amp";
  let cppNamespace = "::mlir::amp";
  let summary = "Automatic mixed precision: guards, casts, loss scaling and "
                "collectives";
  let description = [{
    The `amp` dialect carries what a compiler needs to run a tensor program in
    mixed precision (fp32 with fp16 or bf16):

    * `amp.fp16_guard` regions mark where low precision is allowed (Paddle's
      `fp16_guard`); outside them, a guarded module stays in fp32.
    * `amp.cast` is a precision conversion that the AMP passes own: unlike
      `arith.truncf`/`arith.extf` written by a user, it may be moved, shared
      or removed by cast placement.
    * `amp.scale_loss`, `amp.check_finite_and_unscale` and
      `amp.update_loss_scaling` express dynamic loss scaling in the training
      step, with the scaler's knobs in a `#amp.loss_scaling` attribute.
    * `amp.all_reduce` reduces a tensor across the ranks of a data-parallel
      process group (MPI ranks; a single process is a group of one).
    * The discardable attribute `amp.precision = "f32" | "f16" | "bf16"` pins
      one operation's compute precision, whatever the policy says.
    * The discardable attribute `amp.absmax` records the calibrated largest
      magnitude of an op's results (or of a function argument), which the
      precision policies keep within the low type's range.
    * `AmpPrecisionOpInterface` is how operations of any dialect declare how
      they behave under AMP (category, operands that must stay fp32,
      accumulation type), through external models attached at registration.
  }];

  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasConstantMaterializer = 1;

  let extraClassDeclaration = [{
    /// Name of the discardable attribute that pins an op's precision.
    static constexpr ::llvm::StringLiteral kPrecisionAttrName = "amp.precision";
    /// Calibrated ranges (`amp-apply-ranges`): on an op, the largest finite
    /// magnitude of each result in the calibration runs (a
    /// `array<f32: ...>`, one entry per result, -1 for results that were not
    /// measured); on a function argument, an f32 float attribute. The
    /// precision policies keep ops whose operands or results exceed the low
    /// type's range out of it.
    static constexpr ::llvm::StringLiteral kAbsMaxAttrName = "amp.absmax";
    /// On a gpu.module (amp-merge-gpu-launches): its kernel's blocks run
    /// the bodies of this many (an i32) launches, in consecutive ranges
    /// whose sizes are its last arguments, in order (the GPU simulator's
    /// count-only mode counts each range as a kernel).
    static constexpr ::llvm::StringLiteral kUnevenBlocksAttrName =
        "amp.uneven_blocks";
    /// Name of the discardable attribute the AMP policies leave on the module
    /// they rewrote ("O1:f16"); a second run leaves such a module alone.
    static constexpr ::llvm::StringLiteral kAppliedAttrName = "amp.applied";
    /// Name of the discardable attribute the AMP policies leave on the module
    /// they rewrote: how the lowering rounds low-precision values, "once"
    /// (where stored) or "per-op" (after every low op).
    static constexpr ::llvm::StringLiteral kRoundingAttrName = "amp.rounding";
    /// Unit attribute on the declaration of a runtime function that enqueues
    /// its work on the runtime's single in-order stream (the cuBLAS/cuDNN
    /// wrappers): no host wait is needed around its calls.
    static constexpr ::llvm::StringLiteral kStreamOrderedAttrName =
        "amp.stream_ordered";
    /// Unit attribute on an f32 tensor argument of a training step: an fp32
    /// master weight. The precision policies cast it once per step for the
    /// low-precision forward and backward passes and leave the optimizer
    /// reading it in f32.
    static constexpr ::llvm::StringLiteral kMasterAttrName = "amp.master";
    /// Array of strings on a module: the ops amp-check-nan-inf checks, by
    /// the number it stores for them ("'math.exp' at model.mlir:12:3").
    static constexpr ::llvm::StringLiteral kNanInfSitesAttrName =
        "amp.nan_inf_sites";
    /// The training-step convention (`amp-training`,
    /// docs/loss-scaling.md#training-from-a-frontend): a dictionary on a
    /// forward-backward function naming its optimizer, and the loss
    /// scaler's configuration (a #amp.loss_scaling) on a training step.
    static constexpr ::llvm::StringLiteral kOptimizerAttrName = "amp.optimizer";
    static constexpr ::llvm::StringLiteral kLossScalingAttrName =
        "amp.loss_scaling";
    /// Argument and result attributes of the training-step convention:
    /// parameters, batch tensors and the backward seed of a forward-backward
    /// function, its loss and gradients; the optimizer and scaler state and
    /// found_inf of the training step amp-training builds.
    static constexpr ::llvm::StringLiteral kParamAttrName = "amp.param";
    /// A model buffer of the training-step convention: state the forward
    /// pass reads and updates (batch norm's running statistics), an
    /// argument and the result of its new value, by name.
    static constexpr ::llvm::StringLiteral kBufferAttrName = "amp.buffer";
    static constexpr ::llvm::StringLiteral kBatchAttrName = "amp.batch";
    static constexpr ::llvm::StringLiteral kLossSeedAttrName = "amp.loss_seed";
    static constexpr ::llvm::StringLiteral kLossAttrName = "amp.loss";
    static constexpr ::llvm::StringLiteral kGradAttrName = "amp.grad";
    static constexpr ::llvm::StringLiteral kOptimizerStateAttrName =
        "amp.optimizer_state";
    static constexpr ::llvm::StringLiteral kScalerAttrName = "amp.scaler";
    static constexpr ::llvm::StringLiteral kFoundInfAttrName = "amp.found_inf";
    /// Argument and result attribute of a training step's FP8 state
    /// (amp-float8-contractions, delayed scaling): "amax_history:<site>" or
    /// "scale:<site>".
    static constexpr ::llvm::StringLiteral kFloat8StateAttrName = "amp.fp8";
    /// Unit attribute on an f32 constant that a contraction reads under
    /// dtype=fp8: the precision passes keep it in f32 (its casts do not fold)
    /// so that amp-float8-contractions quantizes it from its f32 values,
    /// rounding it once. That pass removes the mark and folds what is left.
    static constexpr ::llvm::StringLiteral kFloat8SourceAttrName =
        "amp.fp8_source";

  private:
    void registerAttributes();
  public:
  }];
}

#endif // AMP_DIALECT_AMP_IR_AMPDIALECT_TD
