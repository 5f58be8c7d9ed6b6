//===- Passes.h - amp transformation passes ---------------------*- C++ -*-===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Policy.h"
#include "amp/Dialect/Amp/Transforms/Options.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

#include <string>
#include <vector>

namespace mlir {
class RewritePatternSet;
class RewriterBase;

namespace amp {
class Fp16GuardOp;

#define GEN_PASS_DECL
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

/// The global --amp-check-nan-inf adds: the number of the first checked op
/// whose result was not finite (an i32, -1 while all were); the module's
/// AmpDialect::kNanInfSitesAttrName names the ops.
inline constexpr llvm::StringLiteral kNanInfSiteGlobalName = "amp_nan_inf_site";

/// Replaces `op` by the operations of its body and its results by the values
/// its `amp.yield` yields.
void inlineFp16Guard(RewriterBase &rewriter, Fp16GuardOp op);

/// Folds the `amp.cast` ops under `root` (identities, exact round trips) in
/// program order and erases the casts left unused.
void foldAmpCasts(RewriterBase &rewriter, Operation *root);

/// Patterns that inline every `amp.fp16_guard` into its parent block.
void populateAmpInlineGuardsPatterns(RewritePatternSet &patterns);

class CastOp;
/// Replaces `op` by arith.extf/arith.truncf, or by tosa.cast in TOSA graphs.
void materializeCast(RewriterBase &rewriter, CastOp op);

/// Cast elision, sharing, motion and fusion (see --amp-cast-elision).
/// `allowExcessPrecision` also folds lossy AMP round trips.
void populateAmpCastElisionPatterns(RewritePatternSet &patterns,
                                    bool allowExcessPrecision = false);

/// Gives every (value, type) one amp.cast, placed right after the value, and
/// moves casts of loop-invariant values out of loops. Returns the number of
/// casts removed.
unsigned shareAmpCasts(RewriterBase &rewriter, Operation *root);

/// Patterns that rewrite every `amp.cast` into upstream ops.
void populateAmpMaterializeCastsPatterns(RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// The stages of --amp-o1/--amp-o2 as functions (what each pass runs), for
// compilers that drive them without a pass manager.
//===----------------------------------------------------------------------===//

/// What the decision pass read and decided, for the report.
struct AmpDecisionLog {
  /// The user's policy as the pass resolved it (level, dtype, lists,
  /// category overrides, whether guards are on): with the level's op table,
  /// what the report's ideal follows. Never what the pass decided.
  AmpPolicy policy;
  /// With guards on, the ops with a model that are outside every
  /// amp.fp16_guard (the guards are inlined before the report runs).
  llvm::DenseSet<Operation *> unguarded;
  /// One entry per decided op, in program order: what explain=true says.
  struct Entry {
    std::string op, location, precision, reason;
  };
  std::vector<Entry> entries;
  /// The ops of the FP8 recipe (dtype=fp8): scales, rescaling epilogues,
  /// state updates. The report counts its quantizations, not these.
  llvm::DenseSet<Operation *> float8Ops;
};

/// Decides and rewrites the precision of every op of `module`
/// (--amp-auto-mixed-precision). Errors are emitted as diagnostics; `changed`
/// says whether the module changed; `log`, if given, receives the decisions.
LogicalResult runAmpAutoMixedPrecision(ModuleOp module,
                                       const AmpOptions &options,
                                       bool *changed = nullptr,
                                       AmpDecisionLog *log = nullptr);

/// Checks what of `options` needs a context: the policy file, and that the
/// op names of the lists and the policy are registered and in one list
/// only. Errors are emitted with `emitError`.
LogicalResult checkAmpPolicy(const AmpOptions &options, MLIRContext *context,
                             function_ref<InFlightDiagnostic()> emitError);

/// The stages of --amp-o1/--amp-o2 after amp-training, in the order they
/// run: written once, run one after the other by amp-precision-pipeline,
/// added as passes one by one with split-stages.
enum class AmpStage {
  Decide,             ///< amp-auto-mixed-precision
  InlineGuards,       ///< amp-inline-guards
  ElideCasts,         ///< amp-cast-elision
  Report,             ///< amp-report (report=text|json)
  MaterializeCasts,   ///< amp-materialize-casts (unless keep-amp-casts)
  PrecisionGraph,     ///< amp-precision-graph (graph-file=)
  Float8Contractions, ///< amp-float8-contractions (dtype=fp8)
};
SmallVector<AmpStage> getAmpStages(const AmpOptions &options);
/// Marks the f32 constants (AmpDialect::kFloat8SourceAttrName) that the
/// contractions amp-float8-contractions would take read, directly or through
/// transposes and reshapes: the precision passes then keep them in f32, and
/// FP8 rounds them once. dtype=fp8 calls it before its decisions.
void markAmpFloat8Sources(Operation *root, const Float8Options &options);
/// amp-float8-contractions on the contractions nested in `root`; fails,
/// with an error on `root`, for options outside their ranges. With
/// `markApplied`, an amp.applied "<level>:<dtype>" on `root` becomes
/// "<level>:fp8"; with `explain`, each contraction made FP8 gets a remark
/// (those left as they are always do). `log`, if given, receives an entry
/// per contraction: its precision and why.
LogicalResult runAmpFloat8Contractions(Operation *root,
                                       const Float8Options &options,
                                       bool markApplied = false,
                                       bool explain = false,
                                       AmpDecisionLog *log = nullptr);
/// The options of the Report and PrecisionGraph stages, from `options`.
AmpReportPassOptions getAmpReportOptions(const AmpOptions &options);
AmpPrecisionGraphPassOptions getAmpPrecisionGraphOptions(
    const AmpOptions &options);

/// The passes of the stages, with their options taken from `options`.
std::unique_ptr<Pass>
createAmpAutoMixedPrecisionPass(const AmpOptions &options);
std::unique_ptr<Pass> createAmpPrecisionPipelinePass(const AmpOptions &options);

/// Inlines every amp.fp16_guard under `root` (--amp-inline-guards). Returns
/// true if there was one.
bool inlineAmpGuards(Operation *root);

/// Cast elision, sharing, motion and fusion under `root`
/// (--amp-cast-elision). The amp.cast ops left are appended to `remaining`
/// if given, in program order.
void elideAmpCasts(Operation *root, bool allowExcessPrecision = false,
                   SmallVectorImpl<CastOp> *remaining = nullptr);

/// Rewrites every amp.cast under `root` into upstream ops
/// (--amp-materialize-casts).
void materializeAmpCasts(Operation *root);

/// Rewrites `casts` into upstream ops, as materializeAmpCasts does, without
/// walking the module to find them.
void materializeAmpCasts(ArrayRef<CastOp> casts);

/// Prints the precision report of `module` (--amp-report).
LogicalResult emitAmpReport(ModuleOp module,
                            const AmpReportPassOptions &options,
                            const AmpDecisionLog *log = nullptr);

/// Writes the precision graph of `module` as Graphviz DOT
/// (--amp-precision-graph). Errors (an output that cannot be opened, an
/// unknown function) are emitted as diagnostics.
LogicalResult
emitAmpPrecisionGraph(ModuleOp module,
                      const AmpPrecisionGraphPassOptions &options);

/// The rounding mode of a lowering pass on `op`: `option` when not empty
/// (an error at `op` when it is not a mode), else the `amp.rounding` of the
/// closest ancestor that has one (what --amp-o1/--amp-o2 recorded), else
/// once.
FailureOr<RoundingMode> resolveRoundingMode(Operation *op, StringRef option);

/// amp-round-once with `rounding` given typed, by a driver that parsed it
/// where it entered (the runner): the pass then reads no text and no
/// amp.rounding attribute.
std::unique_ptr<Pass> createAmpRoundOncePass(RoundingMode rounding,
                                             bool keepLibraryNarrowing);

/// amp-float8-contractions with its recipe given typed (the AMP pipeline's,
/// bound once from its options): the pass then parses no text.
std::unique_ptr<Pass>
createAmpFloat8ContractionsPass(const Float8Options &options, bool markApplied,
                                bool explain);

/// A generic over 0-d tensors (`inputs`) whose body `build` computes the
/// results, of element types `resultElements`, from their scalar values;
/// returns the 0-d results. It is written as a one-element loop over
/// tensor<1xT> views: a loop survives bufferization as a loop, which the GPU
/// pipeline turns into a one-thread kernel (straight-line code would run on
/// the host and read device memory). The loss scaler's state machine and
/// FP8 scales are computed this way.
SmallVector<Value> buildScalarGeneric(
    OpBuilder &b, Location loc, ValueRange inputs, TypeRange resultElements,
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)> build);

/// The matmul, batch matmul or convolution (linalg's convolution interface,
/// which poolings implement too) whose result `value` is,
/// directly or through tensor.expand_shape/collapse_shape (the view its
/// epilogue reads it through); else null.
Operation *getContractionProducer(Value value);

/// True when `value` is the result of a matmul, batch matmul or convolution
/// (getContractionProducer).
bool isContractionResult(Value value);

/// The input of `value`'s defining linalg.transpose (on tensors) when it
/// swaps the two innermost dimensions and nothing else; else null. A
/// contraction reads such an operand through its indexing map instead
/// (amp-prepare-contractions), and FP8 quantizes what it transposes.
Value getInnerTransposeInput(Value value);

/// Whether `init` is a zero fill (a linalg.fill of +0.0 or -0.0) or a zero
/// constant: a contraction into it computes the product alone.
bool isZeroFill(Value init);

/// Rewrites one loop-nest body for round-once: f16/bf16 arith/math ops
/// compute in f32, and a value narrowed then widened inside `body` is read
/// unrounded; only yielded values stay narrowed. With
/// `keepLibraryNarrowing`, the narrowing of a contraction's result read by
/// the body stays (a library call writes the low type). Returns the number
/// of round trips removed.
unsigned roundOnceInBody(RewriterBase &rewriter, Block &body,
                         bool keepLibraryNarrowing = false);

#define GEN_PASS_REGISTRATION
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
