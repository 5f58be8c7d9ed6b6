//===- Passes.td - amp transformation passes ---------------*- tablegen -*-===//
//
// Part of amp-mlir. Passes are grouped by banner and kept alphabetical within
// a group.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"
include "amp/Dialect/Amp/Transforms/PassOptions.td"

//===----------------------------------------------------------------------===//
// Precision policies
//===----------------------------------------------------------------------===//

def AmpAutoMixedPrecisionPass
    : Pass<"amp-auto-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Decide the precision of every float op and rewrite it";
  let description = [{
    The core of `--amp-o1` and `--amp-o2`. For every operation that has an
    `AmpPrecisionOpInterface` model and computes in f32, it decides between
    f32 and the low type (`dtype`) and rewrites the op accordingly, asking
    for its operands in the types it needs: one `amp.cast` per (value, type),
    constants converted at compile time (round to nearest even), and
    `tensor.empty` re-created in the new type. Ops that stay f32, and ops
    without a model (calls, loops, returns, yields), get their operands back
    in their original types, so function signatures, loop-carried values
    and region results keep their types and the module stays valid.

    Decision order: an `amp.precision` pin; the custom black list; outside
    every `amp.fp16_guard` when guards are on; ops that cannot compute in
    `dtype`; ops fed by a constant that would overflow `dtype` (kept f32,
    with a warning on the constant); the custom white list; then the level:

    * O1: white ops go low, black ops stay f32, and gray ops are placed:
      with `placement=auto` (the default) or `autocast`, each promotes its
      operands in program order as PyTorch's autocast does (low only when
      all its non-constant float operands are low; f32 when one is f32 or
      when it reads no float tensor, such as a gather from an f32 table);
      with `placement=optimal` so that the conversions move the fewest
      bytes (an exact s-t minimum cut over the whole module, one
      conversion per value and type, ties towards low precision); with
      `placement=greedy` each follows its operands in program order (low
      when at least as many of its non-constant float operands are low as
      are f32);
    * O2: every op that can go low does; with `placement=autocast` named,
      gray ops promote their operands as at O1 (a transformer's residual
      stream stays f32).

    Contractions and sum/product reductions keep f32 accumulators (their
    init operands and results) while their inputs go low; norm-like
    generics keep their per-channel operands in f32.

    With `arg-precision=low`, a float tensor argument of a public function
    that no op of the module calls takes the low type in the signature when
    every user converts it to the low type, as Apex O2 casts the model once;
    its conversion disappears. Results keep their types.

    Before deciding, an f64 computation between f32 values (torch-mlir
    computes a norm's statistics in f64 over f32 data: `arith.extf` to
    f64, f64 generics, `arith.truncf` back) is demoted to f32 and then
    decided like the other ops; `f64=keep` leaves it in f64.

    With `explain`, each decided op gets a remark with its precision and the
    reason. The pass marks the module with `amp.applied = "<level>:<dtype>"`
    and does nothing on a module that carries it, so the pipelines are
    idempotent. Invalid options (unknown op names, an op in both lists, an
    unknown dtype or level, a bad policy file, an arg-precision other than
    keep or low, a rounding other than once or per-op) are reported before
    anything changes. The module also gets `amp.rounding = "once"` or
    `"per-op"` (the `rounding` option), which the lowering pipelines follow
    (see `amp-round-once`).
  }];
  let options = !listconcat([
    Option<"level", "level", "std::string", "\"O1\"",
           "AMP level: O1 (white/black/gray lists) or O2 (all low)">
  ], AmpDecisionOptions);
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpPrecisionPipelinePass
    : Pass<"amp-precision-pipeline", "::mlir::ModuleOp"> {
  let summary = "All stages of --amp-o1/--amp-o2 in one pass";
  let description = [{
    Runs the stages of the AMP pipelines in order, as one pass:
    `amp-auto-mixed-precision`, `amp-inline-guards`, `amp-cast-elision`, the
    report (`report=text|json`), `amp-materialize-casts` (unless
    `keep-amp-casts`), and the precision graph of the result
    (`graph-file`, as `amp-precision-graph`). `--amp-o1` and `--amp-o2` use
    it, so that the module is verified once after AMP rather than after
    every stage: on large modules verification costs more than the stages
    themselves (see docs/performance.md). With `split-stages=true` the
    pipelines add the stage passes one by one instead, for
    `--mlir-print-ir-after-all` and a verification after each stage.
  }];
  let options = !listconcat([
    Option<"level", "level", "std::string", "\"O1\"",
           "AMP level: O1 or O2">
  ], AmpDecisionOptions, AmpOutputOptions);
  // No TOSA: tosa.cast and tosa.const are only created next to TOSA ops,
  // whose dialect the parser has loaded. Loading it for a linalg module
  // costs more than the AMP passes on a small one.
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpRoundOncePass : Pass<"amp-round-once"> {
  let summary = "Compute in f32 inside loop nests; round where stored";
  let description = [{
    The low type is a storage format. In each `linalg.generic` body (one
    loop nest on the CPU, one kernel on the GPU, once elementwise chains are
    fused), f16/bf16 `arith` and `math` ops are computed in f32, and a value
    that is narrowed and widened again inside the body is read unrounded:
    only the values the body yields (what is written to memory) are
    rounded, once. Inductor (`codegen_upcast_to_fp32`) and XLA
    (`SimplifyFPConversions` with excess precision) do the same.

    Before (a fused O2 chain: the add's result is rounded before the exp):

    ```mlir
    ^bb0(%a: f16, %b: f16, %out: f16):
      %0 = arith.addf %a, %b : f16
      %1 = arith.extf %0 : f16 to f32
      %2 = math.exp %1 : f32
      %3 = arith.truncf %2 : f32 to f16
      linalg.yield %3 : f16
    ```

    After:

    ```mlir
    ^bb0(%a: f16, %b: f16, %out: f16):
      %0 = arith.extf %a : f16 to f32
      %1 = arith.extf %b : f16 to f32
      %2 = arith.addf %0, %1 : f32
      %3 = math.exp %2 : f32
      %4 = arith.truncf %3 : f32 to f16
      linalg.yield %4 : f16
    ```

    The mode is the `rounding` option, or when it is empty the module's
    `amp.rounding` attribute (written by `--amp-o1`/`--amp-o2`), or once.
    With `per-op` the pass changes nothing. With `keep-library-narrowing`
    (the GPU pipeline), the narrowing of a matmul's or convolution's result
    stays (read directly or through a reshaped view): the cuBLAS/cuDNN
    call writes the low type itself.
  }];
  let options = [
    AmpLoweringRoundingOption,
    Option<"keepLibraryNarrowing", "keep-library-narrowing", "bool",
           "false",
           "Keep the narrowing of a contraction's result (written by a "
           "library call in the low type)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AmpFloat8ContractionsPass : Pass<"amp-float8-contractions"> {
  let summary = "Contraction operands in FP8 with per-tensor scaling, "
                "delayed (an amax history carried by training steps) or "
                "current";
  let description = [{
    The rule TransformerEngine and torchao follow, as a transformation:
    only the operands of contractions become FP8. For each `linalg.matmul`
    and `linalg.batch_matmul` on tensors whose operands are f32, f16 or
    bf16 and whose result is f32, each operand `x` gets a per-tensor scale
    and is quantized:

    ```
    q = amp.quantize x by scale     (saturating, to nearest even)
    ```

    the contraction reads the two FP8 tensors and accumulates in f32, and
    its result is multiplied by `1 / (scale_a * scale_b)`, as cuBLASLt does
    with its scale pointers: a matmul or batch matmul the target computes
    in FP8 becomes `amp.scaled_matmul` (B stored n x k), which takes the
    factor as its scale and becomes one library call; a convolution (or a
    contraction widened back to bf16, below) keeps its linalg op and gets
    an elementwise epilogue that multiplies, which fuses with what reads
    it. A contraction that accumulated into values adds them in an
    epilogue. Scales stay 0-d tensors (in device memory on the GPU).

    **Formats.** `format=e4m3` uses `f8E4M3FN` for every operand,
    `format=e5m2` `f8E5M2`. `format=hybrid` (the default,
    TransformerEngine's `Format.HYBRID`) uses E4M3 for the forward pass
    and E5M2 for gradients: an operand computed from the backward seed of a
    training step (the result of its `amp.scale_loss`) is a gradient.

    **Scaling.** `current` derives the scale from the tensor's amax now:
    `scale = fp8_max / amax / 2^margin`, 1 when amax is 0 or not finite.
    `delayed` (the default, TransformerEngine's `DelayedScaling`) applies
    to the training steps `amp-training` builds (a function with
    `amp.scaler` arguments, an `amp.found_inf` result and an
    `@<name>_init`): each quantized operand gets two pieces of state,
    carried like the loss scaler's:

    - an argument and a result `{amp.fp8 = "amax_history:<site>"}`, a
      `tensor<Nxf32>` of the amaxes of the last N steps (N =
      `amax-history-len`), most recent first;
    - an argument and a result `{amp.fp8 = "scale:<site>"}`, the
      `tensor<f32>` the operand is quantized with in this step.

    `<site>` is `c<k>.lhs` or `c<k>.rhs` for the k-th contraction of the
    step (in program order). After the step, the operand's amax now enters
    the history, and the new scale is `fp8_max / amax / 2^margin` of the
    history's largest amax (`amax-compute=max`) or of its newest
    (`most_recent`); an amax of 0 or one that is not finite keeps the old
    scale. A step that found an overflow (`found_inf`) leaves the
    histories and the scales as they were, as it leaves the weights. When
    the step all-reduces `found_inf` (data-parallel), the amaxes join that
    collective (one `amp.all_reduce max` of `[found_inf, amax...]`), so
    every rank derives the same scales. `@<name>_init` returns histories
    of zeros and scales of 1. The state arguments come after the loss
    scaler's, the results before `found_inf`.

    A function without that state (inference) uses current scaling:
    delayed scaling needs the amaxes of earlier calls.

    `kernels` says which FP8 contractions the target computes from FP8
    operands. With `cublaslt` (a GPU of sm_89 or later), a convolution
    (cuDNN's legacy API has no FP8 form) and a GEMM that cuBLASLt's FP8
    GEMM does not take (E5M2 x E5M2, a static `k` or `n` not a multiple of
    16) read their FP8 operands widened exactly to bf16 (`arith.extf`:
    every E4M3 and E5M2 value is a bf16 value), so that the bf16 library
    call computes the same products; with `none` (a GPU before sm_89),
    every FP8 contraction does. Each widened contraction gets a remark
    saying why. `all` (and `auto`, which drivers that know the target
    replace) widens nothing.

    `min-size` keeps a contraction with fewer than that many multiply-adds
    (M*N*K per batch, when they are static) as it is: too small to gain
    from FP8. `cost-model=h100` keeps one as it is when a roofline of an
    H100 SXM (989 bf16 and 1979 FP8 dense TFLOP/s, 3.35 TB/s) does not
    estimate it faster in FP8, counting the quantizations' memory traffic
    (the amax and the quantize read each operand that is not a constant,
    the quantize writes one byte per element): the remark gives both
    estimates. Static sizes only. A contraction of another form (an init that is not an f32
    accumulator, f64 operands) is left as it is, with a remark.

    `dtype=fp8` at O1 and O2 runs this pass after the level's precision
    passes (in bf16), with its `fp8-*` options, and marks the module
    `amp.applied = "<level>:fp8"`. An operand that the level narrowed from
    f32 (`arith.truncf` or `amp.cast`), directly or through transposes and
    reshapes, is quantized from the f32 value, so that it is rounded once;
    the FP8 tensor is then moved (in 1-byte elements). The level keeps the
    f32 constants that these contractions read (weights) in f32 for this
    pass (`amp.fp8_source`); the pass folds the narrowings of those it did
    not take and removes the marks.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"hybrid\"",
           "hybrid (E4M3 forward, E5M2 gradients), e4m3 or e5m2">,
    Option<"scaling", "scaling", "std::string", "\"delayed\"",
           "delayed (training steps carry an amax history; other functions "
           "use current) or current">,
    Option<"amaxHistoryLen", "amax-history-len", "int64_t", "16",
           "delayed: the steps of the amax history">,
    Option<"amaxCompute", "amax-compute", "std::string", "\"max\"",
           "delayed: max (of the history) or most_recent">,
    Option<"margin", "margin", "int", "0",
           "scale = fp8_max / amax / 2^margin">,
    Option<"minSize", "min-size", "int64_t", "0",
           "keep contractions with fewer multiply-adds than this">,
    Option<"costModel", "cost-model", "std::string", "\"none\"",
           "none, or h100: keep contractions that an H100 roofline does not "
           "estimate faster in FP8 than in bf16">,
    Option<"kernels", "kernels", "std::string", "\"auto\"",
           "Which FP8 contractions the target computes from FP8 operands: "
           "all (auto too), cublaslt (the GEMMs cuBLASLt's FP8 GEMM takes) or "
           "none; the others read their FP8 operands widened exactly to bf16, "
           "with a remark">,
    Option<"explain", "explain", "bool", "false",
           "A remark on each contraction made FP8 (the ones left as they "
           "are always get one)">,
    Option<"markApplied", "mark-applied", "bool", "false",
           "Mark an AMP level's module (amp.applied = \"<level>:<dtype>\") "
           "as \"<level>:fp8\", as dtype=fp8 does">
  ];
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def AmpMaterializeCastsPass : Pass<"amp-materialize-casts"> {
  let summary = "Rewrite amp.cast as arith.extf/arith.truncf or tosa.cast";
  let description = [{
    Turns every `amp.cast` into upstream ops: `tosa.cast` when the value
    lives in a TOSA graph (its producer or a user is a TOSA op), otherwise
    `arith.extf` / `arith.truncf` on the scalar, vector or tensor (through
    f32 when neither type contains the other, as for f16 <-> bf16).
  }];
  // tosa.cast is only created next to TOSA ops (see above).
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def AmpPrecisionGraphPass
    : Pass<"amp-precision-graph", "::mlir::ModuleOp"> {
  let summary = "Draw the data flow of each function as a Graphviz graph, "
                "coloured by precision";
  let description = [{
    Writes the data-flow graph of every function of the module (or of the
    one named by `function`) in Graphviz DOT: one node per function argument
    and per op, an edge from each producer to each of its users, each
    function in its own box, and ops with regions that have no AMP model
    (loops, conditionals, guards) in nested boxes. Render it with
    `dot -Tsvg` (or `scripts/precision-graph.py`).

    Nodes are labelled with the op name and its result types (`1x8x32xf16`)
    and filled by the precision the op computes in, decided as `amp-report`
    does (the narrowest float type among its operands and results, for ops
    with an AMP model): fp32 blue, f16 orange, bf16 green, other floats
    purple; ops that are not float ops (no model, such as `tensor.empty`,
    constants, calls and returns, or no float type) are grey. Conversions
    (`amp.cast`, `arith.extf`, `arith.truncf`, float `tosa.cast`) are red
    hexagons labelled with their source and target types, their shape and
    the bytes they read and write per call, as the report counts them (`?`
    for dynamic sizes). Edges take the colour of the value's element type.
    The graph carries a legend and a title line with the totals of the
    report. Ops nested in an op with an AMP model (linalg bodies) are part
    of it and not drawn.

    `output` is a file path, `-` for stdout, or empty (the default) for
    stderr, as `amp-report` and `--view-op-graph` do, so that the module
    printed on stdout stays valid. A file that cannot be opened is an
    error. With more than `max-nodes` nodes the graph stops there, says so
    in its title, and the pass emits a warning. The IR is not changed.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"\"",
           "Where to write: a file path, '-' for stdout; empty for stderr">,
    Option<"title", "title", "std::string", "\"amp\"",
           "Title of the graph (e.g. amp-o1)">,
    Option<"function", "function", "std::string", "\"\"",
           "Draw only the function of this name (all functions if empty)">,
    Option<"maxNodes", "max-nodes", "unsigned", "500",
           "Stop drawing after this many nodes, with a warning (0: no "
           "limit)">
  ];
}

def AmpCheckNanInfPass : Pass<"amp-check-nan-inf", "::mlir::ModuleOp"> {
  let summary = "Record the first op whose result is not finite";
  let description = [{
    Paddle's `FLAGS_check_nan_inf` and PyTorch's anomaly mode for compiled
    modules, naming the op where an Inf or a NaN starts. After each op that
    computes in low precision (f16/bf16), and each narrowing conversion, it
    tests the operands the op reads and its results:
    - the op *produced* the first Inf or NaN when a result holds one and
      none of its operands does (an f16 convolution or product that
      overflowed; what computes on its Inf afterwards is not blamed);
    - an Inf or a NaN *reached* the op when an operand holds one that comes
      from outside the checks: the function's argument, or an op that is
      not checked (an f32 op without `all=true`).
    An op that uses an Inf or a NaN as a constant makes its identity, not
    an overflow: the `-inf` padding of a max pool (`tensor.pad`), the
    `-inf` a `linalg.fill` writes as a max reduction's init. It is not
    checked, and its readers are not blamed for the value it gave them.

    The first event, in execution order, writes its number to the global
    `@amp_nan_inf_site` (an `i32`, -1 while every tested value is finite);
    the module's `amp.nan_inf_sites` attribute says what each number
    means ("was produced by 'op' at loc", "reached 'op' at loc from
    ...").
    With `all=true` every float op is checked, f32 ones included.

    Run it after `--amp-o1`/`--amp-o2` and before lowering. `amp-run
    --check-nan-inf` and `amp_mlir.compile(..., check_nan_inf=True)` run it,
    read the global after each call and report the op. Ops nested in
    another op's region (linalg bodies) are checked through that op.
  }];
  let options = [
    Option<"all", "all", "bool", "false",
           "Check every float op, not only low-precision ops and narrowing "
           "conversions">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpRecordRangesPass : Pass<"amp-record-ranges", "::mlir::ModuleOp"> {
  let summary = "Make a function also return the largest finite magnitude "
                "of each float tensor it computes";
  let description = [{
    The instrument of range calibration (`amp-apply-ranges`, Python's
    `compile(..., calibration=[...])`, `amp-run --record-ranges`). The
    function named by `function` (default: the module's only public
    function with a body) gains one result, a `tensor<Nxf32>`: for each of
    its N *ranged values* (the float tensor arguments, then the float
    tensor results of the ops of its body, in order; see
    `getRangedValues`), the largest magnitude of its finite elements (0 when
    it has none). Infinities and NaNs are left out: a `-inf` padding or
    fill is an identity, not a magnitude to keep.

    Run on the module as written, in f32 (level O0), on representative
    inputs; `amp-apply-ranges` then reads the maxima back onto the same
    module. Ops nested in another op's region are measured through it.
    Only single-block functions can be instrumented.
  }];
  let options = [
    Option<"function", "function", "std::string", "\"\"",
           "The function to instrument (default: the only public one)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def AmpApplyRangesPass : Pass<"amp-apply-ranges", "::mlir::ModuleOp"> {
  let summary = "Attach calibrated ranges (amp.absmax) to the ops and "
                "arguments of a function";
  let description = [{
    Reads a calibration file written from `amp-record-ranges`' extra result
    (by Python's `compile(..., calibration=[...])` or `amp-run
    --record-ranges=FILE`):

      {"function": "forward", "absmax": [3.5, 0.0, 1.2e31, ...]}

    and attaches each maximum to the value it was measured on: an
    `amp.absmax` array on each op (one entry per result, -1 where a result
    was not measured), a float `amp.absmax` on each argument. The precision
    policies (`amp-auto-mixed-precision`, `--amp-o1`/`--amp-o2`) then keep
    in f32 (or in bf16, `calibration-fallback=bf16`) each op that reads or
    computes a tensor whose maximum exceeds the low type's largest finite
    value divided by `calibration-margin`, with a remark per op.

    The file must come from the same module as written: its function and
    number of values must match, or the pass fails, located at the
    function. `--amp-o1`/`--amp-o2` run it first, when their `calibration`
    option names a file.
  }];
  let options = AmpCalibrationOptions;
}

def AmpReportPass : Pass<"amp-report", "::mlir::ModuleOp"> {
  let summary = "Print how much of the module runs in low precision";
  let description = [{
    Counts the float operations (ops with an AMP model that compute on
    floats) by precision, the conversions (`amp.cast`, `arith.extf`,
    `arith.truncf`, float `tosa.cast`) and the bytes they read and write per
    call, then prints

    ```
    amp-o1: 12/20 float ops in f16, 5 casts, 1.2 MiB converted per call
    ```

    followed by a table per op name; `format=json` writes the same as JSON.
    An op's precision is the narrowest float type among its operands and
    results. Casts of dynamic size are counted but their bytes are not (the
    report says how many). The JSON report also gives `per_use_casts` and
    `per_use_bytes_converted`: what inserting one conversion per use, with
    no sharing, would have cost (the naive baseline of cast placement).
  }];
  let options = [
    Option<"format", "format", "std::string", "\"text\"",
           "text or json">,
    Option<"output", "output", "std::string", "\"\"",
           "Where to write: a file path, '-' for stdout; empty for stderr">,
    Option<"title", "title", "std::string", "\"amp\"",
           "Name at the start of the summary line (e.g. amp-o1)">
  ];
}

//===----------------------------------------------------------------------===//
// Cast placement
//===----------------------------------------------------------------------===//

def AmpCastElisionPass : Pass<"amp-cast-elision"> {
  let summary = "Remove, share, move and fuse amp.cast conversions";
  let description = [{
    Makes the conversions the AMP passes inserted as cheap as they can be
    without changing results:

    * identity casts vanish and exact round trips fold (`f16 -> f32 -> f16`);
      a lossy round trip (`f32 -> f16 -> f32`) stays unless
      `allow-excess-precision` is set (both casts are AMP's, and the option
      trades the rounding the program would have done for extra precision,
      as XLA's excess-precision flag does);
    * a user's `arith.truncf` / `tosa.cast` that narrows an exact AMP
      widening back to its source type gives the source (provably exact);
      other user casts are never touched;
    * casts of constants fold at compile time (round to nearest even); a
      constant that would overflow keeps its cast, with a warning;
    * one cast per (value, type), placed right after the value, shared by
      all users; casts of loop-invariant values move out of `scf.for`,
      `scf.while` and other loops;
    * casts move across pure data movement (transpose, reshape, collapse,
      expand, slice, pad, broadcast, concat) to the side where the tensor is
      smaller;
    * a cast feeding or fed by an elementwise `linalg.generic` is fused into
      its body (extend on read, truncate on write), so it costs no memory
      pass of its own.

    The patterns are available as `mlir::amp::populateAmpCastElisionPatterns`.
  }];
  let options = [
    Option<"allowExcessPrecision", "allow-excess-precision", "bool", "false",
           "Fold lossy AMP round trips (f32 -> f16 -> f32 becomes the f32 "
           "value): faster, but results differ from running the casts">
  ];
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Structural clean-up
//===----------------------------------------------------------------------===//

def AmpInlineGuardsPass : Pass<"amp-inline-guards"> {
  let summary = "Inline `amp.fp16_guard` regions into their parent block";
  let description = [{
    Replaces every `amp.fp16_guard` (nested ones included) by the operations
    of its body and its results by the values its `amp.yield` yields. The
    precision policies run it last, once the guards have done their job of
    marking where low precision is allowed, so that their output uses
    upstream dialects only.

    Before:

    ```mlir
    %r = amp.fp16_guard -> tensor<4xf32> {
      %0 = arith.addf %a, %b : tensor<4xf32>
      amp.yield %0 : tensor<4xf32>
    }
    ```

    After:

    ```mlir
    %r = arith.addf %a, %b : tensor<4xf32>
    ```

    The patterns are available as `mlir::amp::populateAmpInlineGuardsPatterns`.
    The `num-guards-inlined` statistic counts only where LLVM is built with
    statistics enabled (Debian's LLVM is not).
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
  let statistics = [
    Statistic<"numGuardsInlined", "num-guards-inlined",
              "Number of amp.fp16_guard regions inlined">
  ];
}

def AmpInlineGlobalConstantsPass
    : Pass<"amp-inline-global-constants", "::mlir::ModuleOp"> {
  let summary = "Turn loads of constant `ml_program` globals into constants";
  let description = [{
    Frontends keep weights in `ml_program.global`s (torch-mlir does with
    `experimental_support_mutation`, IREE's importers always). The precision
    policies convert constants at compile time but not globals, and
    upstream bufferization has no model of `ml_program.global_load_const`.
    This pass replaces every `ml_program.global_load_const` and every
    `ml_program.global_load` of an immutable global whose value is a
    tensor literal (`dense<...>`, `dense_resource<...>`) by an
    `arith.constant` of that value, then erases the private globals left
    without uses. Mutable globals (a random seed) stay, and bufferize to
    `memref.global`.

    Before:

    ```mlir
    ml_program.global private @w(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
    %w = ml_program.global_load_const @w : tensor<4xf32>
    ```

    After:

    ```mlir
    %w = arith.constant dense<1.0> : tensor<4xf32>
    ```

    The `--amp-o1`/`--amp-o2` pipelines and `--lower-to-cpu`/`--lower-to-gpu`
    run it first.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def AmpTrainingPass : Pass<"amp-training", "::mlir::ModuleOp"> {
  let summary = "Turn a frontend's forward-backward function into a "
                "mixed-precision training step";
  let description = [{
    Takes a function that computes a loss and the gradients of the loss with
    respect to the parameters, as `amp_mlir.from_torch_training` imports it
    from PyTorch, and makes it a complete training step with dynamic loss
    scaling, fp32 master weights and the optimizer update, so that nobody
    writes the loss-scaling ops by hand. The function is recognised by its
    argument and result attributes:

    | where | attribute | meaning |
    |---|---|---|
    | argument | `amp.param = "name"` | a parameter (f32, static shape) |
    | argument and result | `amp.buffer = "name"` | a model buffer (batch norm's running statistics): the argument, and the result of its new value, of one type and static shape |
    | argument | `amp.batch` | a batch tensor (inputs, targets); unmarked arguments are batch tensors too |
    | argument | `amp.loss_seed` | a `tensor<f32>`: the seed of the backward pass; every gradient is `d loss / d param * seed` |
    | result | `amp.loss` | the loss, a `tensor<f32>` |
    | result | `amp.grad = "name"` | the gradient of parameter `name`, of its type |
    | function | `amp.optimizer = {kind = ..., lr = ..., ...}` | the optimizer: `sgd`, `momentum`, `adam` or `adamw` with PyTorch's settings (`weight_decay`; `momentum`, `dampening`, `nesterov`; `beta1`, `beta2`, `eps`) |
    | function | `amp.loss_scaling = #amp.loss_scaling<...>` | optional: the scaler configuration (otherwise the `scaler` option's preset) |

    The step it builds, in place of the function (same name):

    * the seed is the loss scale (`amp.scale_loss` of 1 by the scale), so the
      backward pass computes scaled gradients;
    * `amp.check_finite_and_unscale` over all gradients (one op), then
      `amp.update_loss_scaling`;
    * with `data-parallel=true`: `found_inf` is all-reduced with `max` and
      the unscaled gradients and the loss with `mean` (`amp.all_reduce`), so
      every rank takes the same decision and the same update;
    * the optimizer update of every parameter and its state as one
      `amp.optimizer_update`, in f32, into fresh destinations, skipped when
      `found_inf` is set: on an overflow no parameter, moment or step
      counter changes (one call of the runtime's multi-tensor optimizer on
      the GPU, a loop per parameter elsewhere);
    * the parameters become `{amp.master}` arguments, so `--amp-o1` /
      `--amp-o2` cast each to low precision once per step for the forward
      and backward passes and keep the update in f32.

    Signature of the step: arguments `(params..., buffers...,
    optimizer state..., step, scale, good_steps, bad_steps, hysteresis,
    batch...)`, results `(loss, params..., buffers..., optimizer state...,
    step, scale, good_steps, bad_steps, hysteresis, found_inf)`, each with
    an attribute naming it
    (`amp.param`, `amp.optimizer_state = "exp_avg:name"`, `amp.scaler =
    "scale"`, ...). The optimizer state is PyTorch's: `momentum_buffer` per
    parameter for momentum, `exp_avg` and `exp_avg_sq` for Adam and AdamW,
    then one `step` counter (`tensor<i32>`, the number of updates applied).
    A buffer's new value is taken even on a skipped step (the forward pass
    ran, as PyTorch's running statistics are updated before `GradScaler`
    skips the optimizer). A second function `@<name>_init` returns the
    initial optimizer and scaler state (zeros, step 0, the configuration's
    initial scale and hysteresis; not the buffers, whose initial values
    are the model's). docs/loss-scaling.md#training-from-a-frontend has the
    whole convention.

    A function that does not follow the convention is an error at its
    location, naming what is missing; a module without an `amp.loss_seed`
    argument is left unchanged.
  }];
  let options = AmpTrainingOptions;
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
