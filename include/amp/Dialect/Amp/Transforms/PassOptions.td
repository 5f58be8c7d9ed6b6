//===- PassOptions.td - the options of AMP, declared once ---*- tablegen -*-===//
//
// Part of amp-mlir. Every option of the AMP pipelines is declared here, once,
// in groups. The passes that take a group list it (Passes.td, and amp-o1 /
// amp-o2 in amp/Pipelines/Passes.td, which take them all); the typed
// AmpOptions of Options.h is bound to whichever holds them
// (bindAmpOptions), and amp-run's flags, the C API and Python pass them as
// text to amp-o1/amp-o2's parser (parseAmpOptions). An option added here
// and to AmpOptions is an option of every tool.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSOPTIONS_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PASSOPTIONS_TD

include "mlir/Pass/PassBase.td"

// The rounding of the lowering passes that round (amp-round-once,
// amp-fuse-elementwise): empty takes what the level recorded. Drivers that
// parsed it give those passes a RoundingMode instead (their typed create
// functions).
defvar AmpLoweringRoundingOption =
    Option<"rounding", "rounding", "std::string", "\"\"",
           "once (each loop nest computes in f32 and rounds what it "
           "stores; shared elementwise producers are recomputed), per-op "
           "(after every low op), or empty: the module's amp.rounding "
           "(once if none)">;

// The options that decide precisions: amp-auto-mixed-precision,
// amp-precision-pipeline, amp-o1 and amp-o2.
defvar AmpDecisionOptions = [
    Option<"dtype", "dtype", "std::string", "\"\"",
           "Low-precision type: f16 (the default), bf16, or fp8 (the "
           "contractions' operands in FP8 with per-tensor scaling, the rest "
           "in bf16); also spelled fp16, float16, half, bfloat16, float8">,
    Option<"fp8Format", "fp8-format", "std::string", "\"hybrid\"",
           "With dtype=fp8, the FP8 types: hybrid (the default, "
           "TransformerEngine's: E4M3 forward, E5M2 gradients), e4m3 or "
           "e5m2">,
    Option<"fp8Scaling", "fp8-scaling", "std::string", "\"delayed\"",
           "With dtype=fp8, where scales come from: delayed (the default, "
           "TransformerEngine's: an amax history that training steps carry "
           "as state; functions without state use current) or current (the "
           "amax of the tensor now)">,
    Option<"fp8AmaxHistoryLen", "fp8-amax-history-len", "int64_t", "16",
           "With fp8-scaling=delayed: the steps of the amax history, in "
           "[1, 65536]">,
    Option<"fp8AmaxCompute", "fp8-amax-compute", "std::string", "\"max\"",
           "With fp8-scaling=delayed: the amax of a scale, max (of the "
           "history) or most_recent">,
    Option<"fp8Margin", "fp8-margin", "int", "0",
           "With dtype=fp8: scale = fp8_max / amax / 2^margin, margin in "
           "[0, 30]">,
    Option<"fp8MinSize", "fp8-min-size", "int64_t", "0",
           "With dtype=fp8: contractions of fewer multiply-adds (per batch) "
           "stay in bf16">,
    Option<"fp8CostModel", "fp8-cost-model", "std::string", "\"none\"",
           "With dtype=fp8: none (every contraction goes FP8) or h100 (only "
           "those an H100 roofline estimates faster in FP8 than in bf16, "
           "quantization included)">,
    Option<"fp8Kernels", "fp8-kernels", "std::string", "\"auto\"",
           "With dtype=fp8: which FP8 contractions the target computes from "
           "FP8 operands (the others read them widened exactly to bf16, for "
           "a bf16 kernel): all, cublaslt (the GEMMs cuBLASLt's FP8 GEMM "
           "takes, sm_89 and later), none (GPUs before sm_89), or auto (the "
           "default: the compilation's target, set by amp-run, amp-compile, "
           "the C API and Python; all in amp-opt)">,
    ListOption<"customWhiteList", "custom-white-list", "std::string",
               "Op names forced to low precision">,
    ListOption<"customBlackList", "custom-black-list", "std::string",
               "Op names kept in fp32 (wins over all but amp.precision)">,
    Option<"useFp16Guard", "use-fp16-guard", "std::string", "\"auto\"",
           "Only ops inside amp.fp16_guard may go low: true, false, or auto "
           "(true exactly when the module has a guard)">,
    Option<"policyFile", "policy-file", "std::string", "\"\"",
           "JSON file with dtype, custom_white_list, custom_black_list, "
           "categories and use_fp16_guard">,
    Option<"calibrationMargin", "calibration-margin", "double", "4.0",
           "With calibrated ranges (amp.absmax, the calibration option): "
           "ops that read or compute a tensor larger in magnitude than the "
           "low type's largest finite value divided by this margin (at "
           "least 1) stay out of the low type">,
    Option<"calibrationFallback", "calibration-fallback", "std::string",
           "\"f32\"",
           "Where those ops go: f32 (the default) or bf16 (when bf16's "
           "range holds them; with dtype=f16)">,
    Option<"explain", "explain", "bool", "false",
           "Emit a remark with the precision and reason of each decided op">,
    Option<"placement", "placement", "std::string", "\"auto\"",
           "How gray ops are placed: auto (the default: autocast at O1; at "
           "O2 every op goes low), autocast (PyTorch's type promotion: low "
           "only when every float operand is low; named, at O2 too), "
           "optimal (fewest bytes moved by ops and conversions, an exact "
           "min-cut) or greedy (each follows its operands in program "
           "order, as TF's painting)">,
    Option<"lossScaling", "loss-scaling", "std::string", "\"auto\"",
           "Loss scaling of training steps: auto (on for f16, off for "
           "bf16), on (as written) or off (scale 1; the finite check "
           "stays as a NaN/Inf guard)">,
    Option<"argPrecision", "arg-precision", "std::string", "\"keep\"",
           "Float tensor arguments of public functions: keep (their types "
           "as written) or low (the low type, for each argument that every "
           "user converts to it)">,
    Option<"rounding", "rounding", "std::string", "\"once\"",
           "How the lowering rounds low-precision values: once (where a "
           "value is stored or read by a contraction; f32 inside fused "
           "loop nests) or per-op (after every low op, as eager autocast); "
           "recorded on the module as amp.rounding">,
    Option<"f64", "f64", "::mlir::amp::F64Computations",
           "::mlir::amp::F64Computations::Demote",
           "f64 computations between f32 values (torch-mlir's norm "
           "statistics): demote (compute them in f32, decided like the "
           "other ops) or keep (leave them in f64)",
           "AMP_F64_COMPUTATIONS_VALUES">
];

// What the pipeline writes besides the module: amp-precision-pipeline,
// amp-o1 and amp-o2.
defvar AmpOutputOptions = [
    Option<"report", "report", "std::string", "\"none\"",
           "Precision report: none, text or json">,
    Option<"reportFile", "report-file", "std::string", "\"\"",
           "Where the report goes: a path, '-' for stdout; stderr if empty">,
    Option<"graphFile", "graph-file", "std::string", "\"\"",
           "Write the precision graph of the result (Graphviz DOT, as "
           "amp-precision-graph) to this path, '-' for stdout; none if "
           "empty">,
    Option<"keepAmpCasts", "keep-amp-casts", "bool", "false",
           "Leave amp.cast ops instead of arith.extf/truncf and tosa.cast">
];

// The training steps built from forward-backward functions: amp-training,
// amp-o1 and amp-o2.
defvar AmpTrainingOptions = [
    Option<"scaler", "scaler", "std::string", "\"pytorch\"",
           "Loss-scaler preset for functions without an amp.loss_scaling "
           "attribute (pytorch, paddle, deepspeed, megatron, apex, "
           "colossalai, paddle-static, bf16)">,
    Option<"dataParallel", "data-parallel", "bool", "false",
           "All-reduce found_inf (max), the gradients and the loss (mean) "
           "across the ranks of the process group">
];

// Range calibration: amp-apply-ranges, amp-o1 and amp-o2.
defvar AmpCalibrationOptions = [
    Option<"calibration", "calibration", "std::string", "\"\"",
           "A calibration file ({\"function\": ..., \"absmax\": [...]}, "
           "from amp-run --record-ranges or Python's compile(calibration=)): "
           "the largest magnitude of each tensor of the function in f32, "
           "which keeps the ops whose tensors would overflow the low type "
           "out of it (calibration-margin, calibration-fallback)">
];

// How amp-o1 and amp-o2 run their stages.
defvar AmpStageOptions = [
    Option<"splitStages", "split-stages", "bool", "false",
           "Run the stages as separate passes (one verification and "
           "--mlir-print-ir-after-all dump each) instead of "
           "amp-precision-pipeline">
];

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSOPTIONS_TD
