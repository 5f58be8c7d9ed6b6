//===- AmpOps.td - amp dialect operations ------------------*- tablegen -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_TD
#define AMP_DIALECT_AMP_IR_AMPOPS_TD

include "amp/Dialect/Amp/IR/AmpDialect.td"
include "amp/Dialect/Amp/IR/AmpAttributes.td"
include "amp/Dialect/Amp/IR/AmpInterfaces.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/CastInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Amp_Op<string mnemonic, list<Trait> traits = []>
    : Op<Amp_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Amp_FloatTensorOrScalar : AnyTypeOf<[AnyFloat, TensorOf<[AnyFloat]>],
    "floating-point scalar or tensor">;
def Amp_Gradient : RankedTensorOf<[AnyFloat]>;
// Loss-scaler state: host scalars, or 0-d tensors (device-resident on the GPU
// pipeline, so no host synchronisation is needed per step).
def Amp_ScaleValue : AnyTypeOf<[F32, 0DTensorOf<[F32]>], "f32 or tensor<f32>">;
def Amp_FlagValue : AnyTypeOf<[I1, 0DTensorOf<[I1]>], "i1 or tensor<i1>">;
// The operands of an op in destination-passing style, on tensors or buffers.
def Amp_TensorOrBuffer : AnyTypeOf<[AnyRankedTensor, AnyMemRef],
    "ranked tensor or memref">;
def Amp_CounterValue : AnyTypeOf<[I32, 0DTensorOf<[I32]>],
    "i32 or tensor<i32>">;

//===----------------------------------------------------------------------===//
// fp16_guard / yield
//===----------------------------------------------------------------------===//

def Amp_Fp16GuardOp : Amp_Op<"fp16_guard", [
    SingleBlock, NoRegionArguments, RecursiveMemoryEffects,
    RecursivelySpeculatable,
    DeclareOpInterfaceMethods<RegionBranchOpInterface>]> {
  let summary = "marks a region where low precision is allowed";
  let description = [{
    `amp.fp16_guard` runs its single block once and returns the values its
    `amp.yield` terminator yields. It marks the operations where the AMP
    passes may compute in low precision (fp16 or bf16, despite the name,
    which follows Paddle's `fp16_guard`): when a module contains a guard and
    the policy's `use-fp16-guard` is on (the default then), operations outside
    every guard stay in fp32.

    Values defined outside may be used inside; guards may nest. The region has
    no arguments. Once the policy has run, guards are inlined
    (`--amp-inline-guards`) and the output uses upstream dialects only.

    ```mlir
    %r:2 = amp.fp16_guard -> (tensor<8x16xf32>, tensor<8xf32>) {
      %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>)
                         outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
      amp.yield %0, %bias : tensor<8x16xf32>, tensor<8xf32>
    }
    amp.fp16_guard {
      "test.side_effect"() : () -> ()
      amp.yield
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // Builds a guard with the given result types and an empty body block
    // (without terminator).
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes)>
  ];
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
    /// The body's only block.
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Amp_YieldOp : Amp_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"Fp16GuardOp">]> {
  let summary = "terminator of `amp.fp16_guard`";
  let description = [{
    Returns values from an `amp.fp16_guard` region; their types must equal the
    guard's result types.

    ```mlir
    amp.yield %a, %b : tensor<8x16xf32>, tensor<8xf32>
    amp.yield
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ /* nothing to do */ }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

def Amp_CastOp : Amp_Op<"cast", [
    Pure, DeclareOpInterfaceMethods<CastOpInterface>]> {
  let summary = "precision conversion owned by the AMP passes";
  let description = [{
    Converts a floating-point scalar, vector or tensor to another
    floating-point element type of the same shape, rounding to nearest even
    when it narrows. Source and result must be of the same kind (both
    scalars, both vectors or both tensors) with the same shape and the same
    tensor encoding.

    Unlike `arith.truncf`/`arith.extf` written by a user, an `amp.cast`
    belongs to the AMP passes: cast placement may move, share or remove it.
    It folds

    * `amp.cast %x : T to T` to `%x`;
    * a cast of an exact cast, `A -> B -> C` where every value of `A` is
      representable in `B` (e.g. `f16 -> f32 -> f16`, `bf16 -> f32 -> f16`),
      to the single cast `A -> C`, and to the source itself when `C == A`.

    A lossy pair such as `f32 -> f16 -> f32` rounds, and never folds here.

    ```mlir
    %h = amp.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
    %s = amp.cast %f : f16 to f32
    %v = amp.cast %w : vector<4xbf16> to vector<4xf32>
    ```
  }];
  let arguments = (ins FloatLike:$input);
  let results = (outs FloatLike:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// True if every value of the source element type is representable in the
    /// result element type, i.e. the cast never rounds or overflows.
    bool isExact();
  }];
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def Amp_ScaleLossOp : Amp_Op<"scale_loss", [Pure]> {
  let summary = "multiplies the loss by the loss scale, in fp32";
  let description = [{
    Returns `loss * scale` computed in fp32: the loss (a scalar or a tensor,
    in any floating-point type) is converted to f32 first, as Apex, Paddle and
    DeepSpeed do, so a large scale cannot overflow a low-precision loss. The
    result has the loss's shape and element type f32. Gradients computed from
    the scaled loss are scaled by `scale` too and must go through
    `amp.check_finite_and_unscale` before the optimizer step.

    With a hand-written backward pass, scale the backward seed instead (the
    gradient of the loss with respect to the logits): every gradient computed
    from it is then scaled by `scale`, exactly as automatic differentiation
    of a scaled loss gives.

    `scale` is an `f32` or a `tensor<f32>` (a 0-d tensor stays in device
    memory on the GPU pipeline).

    ```mlir
    %scaled = amp.scale_loss %loss by %scale : tensor<f16>, f32 -> tensor<f32>
    %s = amp.scale_loss %l by %scale : f32, f32 -> f32
    %seed = amp.scale_loss %dlogits by %s0 : tensor<8x4xf32>, tensor<f32>
        -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensorOrScalar:$loss, Amp_ScaleValue:$scale);
  let results = (outs Amp_FloatTensorOrScalar:$result);
  let assemblyFormat = [{
    $loss `by` $scale attr-dict `:` type($loss) `,` type($scale) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Amp_CheckFiniteAndUnscaleOp : Amp_Op<"check_finite_and_unscale", [
    Pure, InferTypeOpAdaptor]> {
  let summary = "unscales gradients and reports whether any is non-finite";
  let description = [{
    Multiplies every element of every gradient by `1 / scale` (the reciprocal
    computed in double precision and rounded to f32, exact for the power-of-two
    scales every preset uses) and returns the unscaled gradients, of the same
    types, plus `found_inf`: true if any element of any input gradient, or
    of any unscaled gradient, is Inf or NaN, or if `1 / scale` is not finite
    and positive (the one rule of every unscale entry point of the runtime,
    docs/runtime-api.md). This is Paddle's `check_finite_and_unscale` and PyTorch's
    `_amp_foreach_non_finite_check_and_unscale_`; the runtime does it in one
    pass over memory, one launch per element type.

    The precision policies keep the gradients in the type the front end
    wrote them in (fp32 for a training step written in fp32): low-precision
    gradients are widened before they are unscaled, so small gradients do
    not underflow, and the optimizer reads fp32 gradients.

    `scale` is an `f32` (then `found_inf` is an `i1`) or a `tensor<f32>`
    (then `found_inf` is a `tensor<i1>`).

    ```mlir
    %g:2, %found_inf = amp.check_finite_and_unscale %dw, %db :
        tensor<16x8xf32>, tensor<8xf32> by %scale : f32
    ```
  }];
  let arguments = (ins Variadic<Amp_Gradient>:$gradients,
                       Amp_ScaleValue:$scale);
  let results = (outs Variadic<Amp_Gradient>:$unscaled,
                      Amp_FlagValue:$found_inf);
  let assemblyFormat = [{
    $gradients `:` type($gradients) `by` $scale `:` type($scale) attr-dict
  }];
  let hasVerifier = 1;
}

def Amp_UnscaleGradientsOp : Amp_Op<"unscale_gradients", [
    AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "unscales gradients by an inverse scale into their "
                "destinations, ORing their non-finiteness into a flag";
  let description = [{
    What `amp-loss-scaling-to-linalg` makes of `amp.check_finite_and_unscale`:
    the reciprocal already computed (`inverse` is `1 / scale` in f32: a host
    scalar, or a 0-d tensor or buffer), the gradients unscaled together. It
    stays one op through bufferization, so that no pass fuses other work
    into the unscale, and so that the GPU pipeline makes it one call of the
    runtime's multi-tensor unscale (`ampGpuCheckFiniteAndUnscaleBuffers`:
    one launch for every gradient, `amp-linalg-to-library-calls`); on
    buffers, `amp-loss-scaling-to-linalg` makes it loops (a generic per
    gradient) where no call is made.

    It is in destination-passing style, on tensors or on buffers alike.
    `inits` are one destination per gradient, of its type and shape, then
    the flag (`i1`, 0-d). Each destination receives its gradient times
    `inverse`, computed in f32 (in f64 for f64 gradients) and rounded once
    to the gradient's type; the flag receives its initial value ORed with
    whether any unscaled value is Inf or NaN or `inverse` is not finite and
    positive (the rule of every unscale entry point of the runtime,
    docs/runtime-api.md). On tensors the results are the destinations'
    new values; on buffers (what it bufferizes to) it has none.

    ```mlir
    %u:3 = amp.unscale_gradients ins(%dw, %db : tensor<16x8xf32>, tensor<8xf32>)
        by %inverse : tensor<f32>
        outs(%e0, %e1, %flag : tensor<16x8xf32>, tensor<8xf32>, tensor<i1>)
        -> tensor<16x8xf32>, tensor<8xf32>, tensor<i1>
    amp.unscale_gradients ins(%dw, %db : memref<16x8xf32>, memref<8xf32>)
        by %inverse : memref<f32>
        outs(%o0, %o1, %flag : memref<16x8xf32>, memref<8xf32>, memref<i1>)
    ```
  }];
  let arguments = (ins Variadic<Amp_TensorOrBuffer>:$gradients,
                       AnyTypeOf<[F32, Amp_TensorOrBuffer]>:$inverse,
                       Variadic<Amp_TensorOrBuffer>:$inits);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `ins` `(` $gradients `:` type($gradients) `)`
    `by` $inverse `:` type($inverse)
    `outs` `(` $inits `:` type($inits) `)` attr-dict
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitsMutable(); }
    /// The destinations of the unscaled gradients (the inits but the flag).
    OperandRange getOutputs() { return getInits().drop_back(); }
    /// The flag's destination (the last init).
    Value getFlag() { return getInits().back(); }
  }];
  let hasVerifier = 1;
}

def Amp_OptimizerUpdateOp : Amp_Op<"optimizer_update", [
    AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "the optimizer's update of every parameter of a training "
                "step, skipped on an overflow";
  let description = [{
    What `amp-training` makes of the optimizer: the update of every
    parameter and its state in one op, so that the GPU pipeline makes it
    one call of the runtime's multi-tensor optimizer
    (`ampGpuOptimizerUpdateBuffers`: one launch per 48 parameters, reading
    the step count and the skip flag on the device), and
    `amp-loss-scaling-to-linalg` makes it loops (a generic per parameter,
    in f32) where no call is made. It stays one op through bufferization.

    It is in destination-passing style, on tensors or on buffers alike.
    `gradients` are one per parameter (f32, f16 or bf16, already unscaled),
    `step` the number of updates applied before this one (`i32`, 0-d) and
    `skip` the overflow flag (`i1`, 0-d). `params` are the current values:
    the parameters (f32 master weights), then the kind's state of every
    parameter, all f32 and of the parameter's shape: none for `sgd`, the
    momentum buffers for `momentum`, the first moments and then the second
    moments for `adam` and `adamw`. `inits` are their destinations, one
    each, of the same types, which receive the new values (or the current
    ones when `skip` is set) and are not read: a destination may be its
    current value's own buffer (an update in place) or a fresh one. The
    rules and settings are PyTorch's (`SGD` with `weight_decay`, `momentum`,
    `dampening` and `nesterov`; `Adam` and `AdamW` with `beta1`, `beta2`,
    `eps` and `weight_decay`); the first update of a momentum buffer (`step`
    0) sets it to the gradient, momentum 0 is plain SGD (the buffer keeps
    its value), and Adam's bias corrections use `step + 1`. On tensors the
    results are the destinations' new values; on buffers it has none.

    ```mlir
    %r:4 = amp.optimizer_update momentum
        ins(%dw, %db : tensor<16x8xf32>, tensor<8xbf16>)
        step(%step : tensor<i32>) skip(%found_inf : tensor<i1>)
        params(%w, %b, %vw, %vb : tensor<16x8xf32>, tensor<8xf32>,
               tensor<16x8xf32>, tensor<8xf32>)
        outs(%e0, %e1, %e2, %e3 : tensor<16x8xf32>, tensor<8xf32>,
             tensor<16x8xf32>, tensor<8xf32>)
        {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64}
        -> tensor<16x8xf32>, tensor<8xf32>, tensor<16x8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Amp_OptimizerKind:$kind,
                       Variadic<Amp_TensorOrBuffer>:$gradients,
                       Amp_TensorOrBuffer:$step, Amp_TensorOrBuffer:$skip,
                       Variadic<Amp_TensorOrBuffer>:$current,
                       Variadic<Amp_TensorOrBuffer>:$inits,
                       F64Attr:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       UnitAttr:$nesterov,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1.0e-8">:$eps);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $kind `ins` `(` $gradients `:` type($gradients) `)`
    `step` `(` $step `:` type($step) `)` `skip` `(` $skip `:` type($skip) `)`
    `params` `(` $current `:` type($current) `)`
    `outs` `(` $inits `:` type($inits) `)` attr-dict
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitsMutable(); }
    /// The number of state tensors per parameter of `kind`: 0, 1 or 2.
    static unsigned getNumStates(OptimizerKind kind);
    /// The current master weights (the first of `current`, one per
    /// gradient).
    OperandRange getParams() {
      return getCurrent().take_front(getGradients().size());
    }
    /// The current state `index` (0 or 1) of every parameter.
    OperandRange getStates(unsigned index) {
      size_t n = getGradients().size();
      return getCurrent().slice(n * (1 + index), n);
    }
  }];
  let hasVerifier = 1;
}

def Amp_UpdateLossScalingOp : Amp_Op<"update_loss_scaling", [
    Pure, InferTypeOpAdaptor,
    AllTypesMatch<["good_steps", "bad_steps", "hysteresis"]>]> {
  let summary = "advances the dynamic loss scaler by one step";
  let description = [{
    The unified loss-scaler state machine (a superset of PyTorch's
    `_amp_update_scale_`, Paddle's `update_loss_scaling`, DeepSpeed's and
    Megatron's scalers), configured by a `#amp.loss_scaling` attribute. The
    scaler state is threaded through the training step as four values:

    | value | type | meaning |
    |---|---|---|
    | `scale` | f32 | the current loss scale |
    | `good_steps` | i32 | consecutive clean steps since the last growth or overflow |
    | `bad_steps` | i32 | consecutive counted overflows (Paddle's `decr_count`) |
    | `hysteresis` | i32 | overflows still absorbed before back-off (DeepSpeed's `cur_hysteresis`) |

    Given `found_inf` from `amp.check_finite_and_unscale`, it returns the
    state after this step. On an overflow the optimizer step must be skipped
    (whatever the state machine does to the scale); the scale backs off once
    the hysteresis is used up and `backoff_interval` consecutive overflows
    were counted. After `growth_interval` consecutive clean steps it grows,
    capped by `max_scale` and never to infinity. A static scaler
    (`dynamic = false`) returns its state unchanged. The initial state is
    `(init_scale, 0, 0, hysteresis)`. The state is either five host scalars
    or five 0-d tensors (device-resident on the GPU pipeline), not a mix.

    ```mlir
    %s, %g, %b, %h = amp.update_loss_scaling found_inf(%found_inf : i1)
        scale(%scale : f32) good_steps(%good : i32) bad_steps(%bad) hysteresis(%hyst)
        config #amp.loss_scaling<preset = "pytorch">
    ```
  }];
  let arguments = (ins Amp_FlagValue:$found_inf, Amp_ScaleValue:$scale,
                       Amp_CounterValue:$good_steps,
                       Amp_CounterValue:$bad_steps,
                       Amp_CounterValue:$hysteresis,
                       Amp_LossScalingAttr:$config);
  let results = (outs Amp_ScaleValue:$new_scale,
                      Amp_CounterValue:$new_good_steps,
                      Amp_CounterValue:$new_bad_steps,
                      Amp_CounterValue:$new_hysteresis);
  let assemblyFormat = [{
    `found_inf` `(` $found_inf `:` type($found_inf) `)`
    `scale` `(` $scale `:` type($scale) `)`
    `good_steps` `(` $good_steps `:` type($good_steps) `)`
    `bad_steps` `(` $bad_steps `)` `hysteresis` `(` $hysteresis `)`
    `config` qualified($config) attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// What amp.all_reduce reads and writes besides its operand: the process
// group's communication. Every collective writes it, so none is CSE'd,
// hoisted, reordered against another or erased when its result is unused.
def Amp_CollectiveResource : Resource<"::mlir::amp::CollectiveResource">;

def Amp_AllReduceOp : Amp_Op<"all_reduce", [
    AllTypesMatch<["input", "result"]>,
    MemoryEffects<[MemRead<Amp_CollectiveResource>,
                   MemWrite<Amp_CollectiveResource>]>]> {
  let summary = "reduces a tensor elementwise across the ranks of the "
                "process group";
  let description = [{
    Every rank of the process group passes a tensor of the same type; every
    rank gets the elementwise reduction of all of them, of that type. This
    is the collective of data-parallel training: each rank computes the
    gradients of its shard of the batch, and `mean` gives all of them the
    gradient of the whole batch (`max` of `found_inf` gives all of them the
    same decision to skip the step).

    | kind | element types | result |
    |---|---|---|
    | `sum` | f32, f16, bf16, i32 | sum over the ranks |
    | `mean` | f32, f16, bf16 | sum over the ranks divided by their number |
    | `max` | f32, f16, bf16, i32, i1 | maximum (on i1: logical or) |
    | `min` | f32, f16, bf16, i32, i1 | minimum (on i1: logical and) |

    The operand is a ranked tensor, of static or dynamic shape (every rank
    must pass the same shape), 0-d included. f16 and bf16 values are reduced
    in f32 and the result is rounded once to nearest even; f32 sums are
    computed in f32 in an order the communication library chooses, so they
    may differ from a sequential sum in the last bits (but are the same on
    every rank). An integer sum that overflows is undefined.

    The process group is the processes started together by an MPI launcher
    (`mpirun -n N`, MPI_COMM_WORLD); a process started alone is a group of
    one, where the op is the identity (`mean` divides by 1). Every rank must
    execute the same collectives in the same order.

    The op communicates: it has a memory effect on a resource of its own,
    so it is never erased (even when its result is unused), merged with an
    identical one, hoisted out of a loop or reordered with another
    collective. The precision passes leave it alone: it keeps the type its
    operand was written with. It bufferizes to a fresh buffer (a copy of the
    operand) that `amp.all_reduce_in_place` reduces; the lowering pipelines
    make that a call of the runtime (`amp-to-library-calls`:
    `ampAllReduce` on the CPU and `ampGpuAllReduce` on device buffers,
    docs/runtime-api.md).

    ```mlir
    %g2 = amp.all_reduce mean %g : tensor<16x8xf32>
    %f2 = amp.all_reduce max %found_inf : tensor<i1>
    %n = amp.all_reduce sum %count : tensor<?xi32>
    ```
  }];
  let arguments = (ins Amp_ReduceKind:$kind, AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Amp_AllReduceInPlaceOp : Amp_Op<"all_reduce_in_place", [
    MemoryEffects<[MemRead<Amp_CollectiveResource>,
                   MemWrite<Amp_CollectiveResource>]>]> {
  let summary = "reduces a buffer elementwise across the ranks of the "
                "process group, in place";
  let description = [{
    The buffer form of `amp.all_reduce`, what it bufferizes to: every rank
    passes a buffer of the same type and shape, and afterwards each holds
    the elementwise reduction of all of them (the same kinds, element types
    and rounding as `amp.all_reduce`). It reads and writes the buffer and
    communicates (the collectives' resource), so it is never erased,
    merged, hoisted or reordered with another collective.

    The buffer must have the identity layout: the runtime reduces its
    elements as one contiguous array from its aligned pointer. Host buffers
    and device buffers alike: `amp-to-library-calls` makes it a
    call of the runtime's `ampAllReduce` (host memory) or, with
    `device=true` (after `amp-memref-to-gpu`), of its device twin
    `ampGpuAllReduce`.

    ```mlir
    amp.all_reduce_in_place mean %buf : memref<?x8xf32>
    amp.all_reduce_in_place max %flag : memref<i1>
    ```
  }];
  let arguments = (ins Amp_ReduceKind:$kind,
                   Arg<AnyMemRef, "the buffer, reduced in place",
                       [MemRead, MemWrite]>:$buffer);
  let assemblyFormat = "$kind $buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// FP8 scaling (per-tensor)
//===----------------------------------------------------------------------===//

def Amp_Float8Tensor : RankedTensorOf<[F8E4M3FN, F8E5M2]>;
def Amp_WideFloatTensor : RankedTensorOf<[F32, F16, BF16]>;

def Amp_AmaxOp : Amp_Op<"amax", [Pure]> {
  let summary = "the largest magnitude of a tensor, in f32";
  let description = [{
    Returns `max(|x|)` over every element of `input` (f32, f16 or bf16),
    as an f32: the statistic per-tensor FP8 scaling derives its scale from
    (TransformerEngine's `amax`, torchao's `tensor_to_amax`). A NaN
    anywhere makes the result NaN, as `torch.amax(x.abs())` does; an empty
    tensor gives 0. The result is an `f32` or a `tensor<f32>` (a 0-d
    tensor stays in device memory on the GPU pipeline, as the loss scale
    does).

    It folds on a constant input.

    ```mlir
    %a = amp.amax %x : tensor<16x8xf32> -> f32
    %d = amp.amax %g : tensor<?x64xbf16> -> tensor<f32>
    ```
  }];
  let arguments = (ins Amp_WideFloatTensor:$input);
  let results = (outs Amp_ScaleValue:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Amp_QuantizeOp : Amp_Op<"quantize", [Pure]> {
  let summary = "scales a tensor and rounds it to FP8, saturating";
  let description = [{
    Returns `saturate(x * scale)` in an FP8 type (`f8E4M3FN` or
    `f8E5M2`): each element is widened to f32, multiplied by `scale` in
    f32, rounded to the nearest FP8 value (ties to even), and a finite
    value beyond the type's largest finite one (448 for E4M3FN, 57344 for
    E5M2), or an infinity, becomes that largest value with its sign. NaN
    stays NaN. This is the quantization of TransformerEngine's and
    torchao's per-tensor recipes, and PTX's `cvt.rn.satfinite`.

    `scale` is an `f32` or a `tensor<f32>`; the result has the input's
    shape. It folds when both the input and the scale are constants.

    ```mlir
    %q = amp.quantize %x by %scale : tensor<16x8xf32>, f32
        -> tensor<16x8xf8E4M3FN>
    ```
  }];
  let arguments = (ins Amp_WideFloatTensor:$input, Amp_ScaleValue:$scale);
  let results = (outs Amp_Float8Tensor:$result);
  let extraClassDeclaration = [{
    /// The largest finite value of the FP8 type `type`, exact in f32 (448
    /// for f8E4M3FN, 57344 for f8E5M2): where quantize saturates.
    static float getLargestFinite(FloatType type);
  }];
  let assemblyFormat = [{
    $input `by` $scale attr-dict `:` type($input) `,` type($scale) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Amp_DequantizeOp : Amp_Op<"dequantize", [Pure]> {
  let summary = "the values an FP8 tensor stands for, `q / scale`";
  let description = [{
    Returns `q / scale`: each FP8 element widened exactly to f32 and
    divided by `scale` in f32, then rounded to the result's element type
    (f32, f16 or bf16; to nearest, ties to even). With the scale
    `amp.quantize` used, it gives back the quantized tensor's values. A
    contraction on two quantized operands multiplies its f32 result by
    `1 / (scale_a * scale_b)` instead, in its epilogue, as cuBLASLt does
    with its scale pointers.

    ```mlir
    %y = amp.dequantize %q by %scale : tensor<16x8xf8E4M3FN>, f32
        -> tensor<16x8xbf16>
    ```
  }];
  let arguments = (ins Amp_Float8Tensor:$input, Amp_ScaleValue:$scale);
  let results = (outs Amp_WideFloatTensor:$result);
  let assemblyFormat = [{
    $input `by` $scale attr-dict `:` type($input) `,` type($scale) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Amp_ScaledMatmulOp : Amp_Op<"scaled_matmul", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<AmpPrecisionOpInterface, [
        "operandMustStayF32", "getAccumulatorType",
        "convertToPrecision"]>]> {
  let summary = "a (batch) matmul of FP8 operands, scaled and rounded once";
  let description = [{
    The FP8 GEMM of per-tensor scaling, what `amp-float8-contractions`
    makes of a matmul it takes into FP8: `lhs` is `[b x] m x k` and `rhs`
    is stored `[b x] n x k` (B transposed, cuBLASLt's FP8 layout), both
    `f8E4M3FN` or `f8E5M2`. The destination `init` (`[b x] m x n`, f32,
    bf16 or f16) receives

        init[m, n] = round(scale * sum_k f32(lhs[m, k]) * f32(rhs[n, k]))

    accumulated in f32, multiplied by `scale` (a 0-d f32: the
    dequantization factor `1 / (scale_a * scale_b)`) in f32 and rounded
    once to the destination's type (to nearest, ties to even). The
    destination's values are not read.

    It is in destination-passing style, on tensors or on buffers alike,
    and stays one op through bufferization, so that the lowering makes it
    one call of the backend's scaled GEMM with `scale` as its scale
    pointer (`amp-linalg-to-library-calls`: `ampGpuScaledGemm`, cuBLASLt;
    `ampCpuLibraryScaledGemm`). Where no library takes it,
    `amp-float8-scaling-to-linalg` makes it a `linalg.matmul` into an f32
    accumulator and an elementwise generic that scales and rounds.

    To the precision passes and the report it is a white contraction that
    accumulates in f32 (as the linalg matmul it replaces), already in FP8,
    whose scale stays f32: a level leaves it as it is.

    ```mlir
    %y = amp.scaled_matmul ins(%qa, %qb : tensor<4x8xf8E4M3FN>, tensor<16x8xf8E4M3FN>)
        scale(%inv : tensor<f32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    amp.scaled_matmul ins(%a, %b : memref<?x4x8xf8E4M3FN>, memref<?x16x8xf8E5M2>)
        scale(%s : memref<f32>) outs(%c : memref<?x4x16xbf16>)
    ```
  }];
  let arguments = (ins Amp_TensorOrBuffer:$lhs, Amp_TensorOrBuffer:$rhs,
                       Amp_TensorOrBuffer:$scale, Amp_TensorOrBuffer:$init);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    `scale` `(` $scale `:` type($scale) `)`
    `outs` `(` $init `:` type($init) `)` attr-dict
    (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
    /// Whether the operands are `b x m x k`, `b x n x k` and `b x m x n`.
    bool isBatched() {
      return ::llvm::cast<::mlir::ShapedType>(getInit().getType())
                 .getRank() == 3;
    }
    /// What it computes as a linalg (batch) matmul's indexing maps:
    /// C(m, n) += A(m, k) * B(n, k), after the batch when `batched`.
    static ::llvm::SmallVector<::mlir::AffineMap, 3>
    getIndexingMaps(::mlir::MLIRContext *context, bool batched);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

def Amp_AttentionOp : Amp_Op<"attention", [
    AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "scaled dot-product attention, as one fused computation";
  let description = [{
    Attention over the keys of each query, per batch and head:

        S[b, h, i, j] = scale * sum_d query[b, h, i, d] * key[b, h, j, d]
                        + bias[b, h, i, j]        (-inf where causal, j > i)
        out[b, h, i, :] = sum_j softmax_j(S[b, h, i, :]) * value[b, h, j, :]
        stats[b, h, i] = log(sum_j exp(S[b, h, i, j]))

    `query` is `B x H x Sq x D`, `key` and `value` `B x H x Skv x D`, the
    first destination `out` is `query`'s shape; with `bshd` the four are
    stored `B x S x H x D` instead (a projection's output split into heads,
    read where it is). `bias` (optional) is `B|1 x H|1 x Sq x Skv` (a size
    of 1 broadcasts), added after the scaling: an additive mask. The
    optional second destination `stats` (f32, `B x H x Sq`) receives each
    row's log-sum-exp, which a backward pass needs. `query`, `key`,
    `value`, `bias` and `out` have one element type (f32, f16 or bf16).

    Scores, softmax and sums are computed in f32 (or wider) and `out` is
    rounded once; a row whose scores are all -inf has no specified value
    (NaN in the loops and the CPU reference). No score matrix
    is materialised where the op is one library call: the GPU pipeline
    makes it cuDNN's fused attention (`ampGpuAttention`, 16-bit types) and
    the CPU pipeline `ampCpuLibraryAttention` (`amp-linalg-to-library-
    calls`). `amp-fuse-attention` makes it of the matmul, scaling, mask,
    softmax and matmul chain of a model's attention. In destination-passing
    style, on tensors (results: the destinations' values) or on buffers.

    ```mlir
    %o = amp.attention ins(%q, %k, %v : tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>)
        bias(%mask : tensor<2x1x64x64xf16>) outs(%e : tensor<2x4x64x16xf16>)
        scale = 2.500000e-01 causal -> tensor<2x4x64x16xf16>
    ```
  }];
  let arguments = (ins Amp_TensorOrBuffer:$query, Amp_TensorOrBuffer:$key,
                       Amp_TensorOrBuffer:$value,
                       Optional<Amp_TensorOrBuffer>:$bias,
                       Variadic<Amp_TensorOrBuffer>:$inits, F32Attr:$scale,
                       UnitAttr:$causal, UnitAttr:$bshd);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,`
        type($value) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $inits `:` type($inits) `)`
    `scale` `=` $scale (`causal` $causal^)? (`bshd` $bshd^)? attr-dict
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitsMutable(); }
    /// The destination of the attention's output.
    ::mlir::Value getOut() { return getInits().front(); }
    /// The destination of the rows' log-sum-exp, or null.
    ::mlir::Value getStats() {
      return getInits().size() > 1 ? getInits()[1] : ::mlir::Value();
    }
    /// The index of the batch, head, sequence and head-dimension
    /// dimensions in query, key, value and out.
    ::std::array<unsigned, 4> getDimensionOrder() {
      return getBshd() ? ::std::array<unsigned, 4>{0, 2, 1, 3}
                       : ::std::array<unsigned, 4>{0, 1, 2, 3};
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// attention_backward
//===----------------------------------------------------------------------===//

def Amp_AttentionBackwardOp : Amp_Op<"attention_backward", [
    AttrSizedOperandSegments, DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "the gradients of an amp.attention, as one fused computation";
  let description = [{
    The gradients of `amp.attention` (same `query`, `key`, `value`,
    `bias`, `scale`, `causal` and layout) with respect to query, key and
    value, given the forward's `out` and `stats` (its rows' log-sum-exp)
    and `grad_out`, the gradient of `out`. Per batch and head, with
    `S = scale * query * key^T + bias` (-inf where causal, j > i):

        P = exp(S - stats)                  (the forward's softmax)
        grad_value = P^T * grad_out
        dP = grad_out * value^T
        dS = P * (dP - rowsum(grad_out * out))   (elementwise)
        grad_query = scale * dS * key
        grad_key = scale * dS^T * query

    The three destinations are `grad_query` (query's shape), `grad_key`
    and `grad_value` (key's); they are written, not accumulated into. The
    bias gets no gradient (a constant mask). `grad_out` and `out` have the
    query's shape; all but `stats` (f32, `B x H x Sq`) have one element
    type (f32, f16 or bf16). Products and sums are computed in f32 (or
    wider) and each gradient is rounded once; the score matrix is
    recomputed, not read, so the forward never stores it.

    The GPU pipeline makes it cuDNN's fused attention backward
    (`ampGpuAttentionBackward`); elsewhere `amp-attention-to-linalg`
    gives it as loops. `amp-fuse-attention` makes it, with a forward
    `amp.attention` that writes `stats`, of a training step's attention
    and the softmax and matmul gradients its backward reads the
    probabilities in. In destination-passing style, on tensors (results:
    the destinations' values) or on buffers.

    ```mlir
    %dq, %dk, %dv = amp.attention_backward
        ins(%q, %k, %v, %o, %do, %stats : tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>,
            tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64xf32>)
        outs(%e, %e, %e : tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>)
        scale = 2.500000e-01 causal
        -> tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>
    ```
  }];
  let arguments = (ins Amp_TensorOrBuffer:$query, Amp_TensorOrBuffer:$key,
                       Amp_TensorOrBuffer:$value, Amp_TensorOrBuffer:$out,
                       Amp_TensorOrBuffer:$grad_out, Amp_TensorOrBuffer:$stats,
                       Optional<Amp_TensorOrBuffer>:$bias,
                       Variadic<Amp_TensorOrBuffer>:$inits, F32Attr:$scale,
                       UnitAttr:$causal, UnitAttr:$bshd);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `,` $out `,` $grad_out `,` $stats `:`
        type($query) `,` type($key) `,` type($value) `,` type($out) `,`
        type($grad_out) `,` type($stats) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `outs` `(` $inits `:` type($inits) `)`
    `scale` `=` $scale (`causal` $causal^)? (`bshd` $bshd^)? attr-dict
    (`->` type($results)^)?
  }];
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitsMutable(); }
    ::mlir::Value getGradQuery() { return getInits()[0]; }
    ::mlir::Value getGradKey() { return getInits()[1]; }
    ::mlir::Value getGradValue() { return getInits()[2]; }
    /// As AttentionOp's.
    ::std::array<unsigned, 4> getDimensionOrder() {
      return getBshd() ? ::std::array<unsigned, 4>{0, 2, 1, 3}
                       : ::std::array<unsigned, 4>{0, 1, 2, 3};
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// conv2d_backward_data / conv2d_backward_filter
//===----------------------------------------------------------------------===//

class Amp_Conv2DGradientOp<string mnemonic, string summaryText>
    : Amp_Op<mnemonic, [
        DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = summaryText;
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    `ins` `(` $lhs `,` $rhs `:` type($lhs) `,` type($rhs) `)`
    `outs` `(` $init `:` type($init) `)`
    `strides` `=` $strides `padding` `=` $padding `dilations` `=` $dilations
    (`channels_last` $channels_last^)? attr-dict (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    MutableOperandRange getDpsInitsMutable() { return getInitMutable(); }
  }];
  let hasVerifier = 1;
}

// The operands of both gradients, and their layout: NCHW (filters FCHW),
// or with `channels_last` NHWC (filters FHWC, cuDNN's KRSC).
defvar Amp_Conv2DGradientArguments = (ins Amp_TensorOrBuffer:$lhs,
    Amp_TensorOrBuffer:$rhs, Amp_TensorOrBuffer:$init,
    DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
    DenseI64ArrayAttr:$dilations, UnitAttr:$channels_last);

def Amp_Conv2DBackwardDataOp
    : Amp_Conv2DGradientOp<"conv2d_backward_data",
                           "the input gradient of a 2-D convolution"> {
  let description = [{
    The gradient of a 2-D convolution (`linalg.conv_2d_nchw_fchw` with
    these `strides` and `dilations`, of an input padded by `padding` zeros
    on both sides of each spatial dimension) with respect to its input:
    `lhs` is the output gradient `dy` (`n x f x oh x ow`), `rhs` the filter
    (`f x c x kh x kw`), and the destination `init` (`n x c x h x w`)
    receives

        init[n, c, y, x] += sum over f, r, s and the (oy, ox) with
                            oy * strides[0] - padding[0] + r * dilations[0] == y
                            and likewise for x, of dy[n, f, oy, ox] * w[f, c, r, s]

    computed in the destination's type, as a linalg convolution accumulates
    (16-bit operands are widened exactly). `oh` must be
    `(h + 2 * padding[0] - dilations[0] * (kh - 1) - 1) / strides[0] + 1`,
    and likewise `ow`: the output size of the forward convolution.

    With `channels_last`, every operand is stored with its channels last:
    `dy` as `n x oh x ow x f`, the filter as `f x kh x kw x c` (cuDNN's
    KRSC) and `init` as `n x h x w x c`, with the same sums
    (`amp-channels-last` makes this form).

    `amp-raise-convolution-gradients` makes it of the transposed
    convolution that torch-mlir and `from_torch_training` write for the
    gradient (zero insertion for the stride, the flipped filter), so that
    `amp-linalg-to-library-calls` can make it one call of cuDNN's backward
    data convolution (`ampGpuConv2dBackwardData`).
    `amp-convolution-gradients-to-linalg` makes it loops where no call
    takes it. In destination-passing style, on tensors or on buffers.

    ```mlir
    %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>)
        outs(%zero : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1]
        dilations = [1, 1] -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = Amp_Conv2DGradientArguments;
}

def Amp_Conv2DBackwardFilterOp
    : Amp_Conv2DGradientOp<"conv2d_backward_filter",
                           "the filter gradient of a 2-D convolution"> {
  let description = [{
    The gradient of a 2-D convolution (as for `amp.conv2d_backward_data`)
    with respect to its filter: `lhs` is the convolution's input `x`
    (`n x c x h x w`), `rhs` the output gradient `dy` (`n x f x oh x ow`),
    and the destination `init` (`f x c x kh x kw`) receives

        init[f, c, r, s] += sum over n, oy, ox of
            x[n, c, oy * strides[0] - padding[0] + r * dilations[0],
                    ox * strides[1] - padding[1] + s * dilations[1]]
            * dy[n, f, oy, ox]                     (zero outside x)

    computed in the destination's type. The sizes are related as for
    `amp.conv2d_backward_data`; with `channels_last`, `x` is `n x h x w x
    c`, `dy` `n x oh x ow x f` and `init` `f x kh x kw x c`.

    `amp-raise-convolution-gradients` makes it of the convolution of the
    input by the output gradient, batch and channels swapped, that
    `from_torch_training` and torch-mlir write for the gradient, so that
    `amp-linalg-to-library-calls` can make it one call of cuDNN's backward
    filter convolution (`ampGpuConv2dBackwardFilter`).
    `amp-convolution-gradients-to-linalg` makes it loops where no call
    takes it.

    ```mlir
    %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8x8xf16>, tensor<2x8x4x4xf16>)
        outs(%zero : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1]
        dilations = [1, 1] -> tensor<8x3x3x3xf32>
    ```
  }];
  let arguments = Amp_Conv2DGradientArguments;
}

#endif // AMP_DIALECT_AMP_IR_AMPOPS_TD
