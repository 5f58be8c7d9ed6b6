//===- AmpPipelines.h - the --amp-o1 / --amp-o2 pipelines -------*- C++ -*-===//
//
// Part of amp-mlir. The one builder of the AMP pipelines, used by amp-opt
// (--amp-o1, --amp-o2), the runner (amp-run, amp-compile), the C API and,
// through the C API, Python; and the one parser of their textual options.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_AMPPIPELINES_H
#define AMP_PIPELINES_AMPPIPELINES_H

#include "amp/Dialect/Amp/Transforms/Options.h"
#include "amp/Pipelines/OptionValue.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace amp {

#define GEN_PASS_DECL
#include "amp/Pipelines/Passes.h.inc"

/// Adds the AMP pipeline of `options`: constant globals inlined, training
/// steps built from forward-backward functions (amp-training), then the
/// stages (getAmpStages): as one pass, amp-precision-pipeline, unless
/// `splitStages`.
void buildAmpPipeline(OpPassManager &pm, const AmpOptions &options);

/// The options of --amp-o1/--amp-o2, each a field of the type its
/// declaration in PassOptions.td gives it (the options struct mlir-tblgen
/// generates; the two levels have the same options): what a driver sets,
/// option by option (setAmpOption) or from text (parseAmpOptions), and
/// binds to the typed AmpOptions once it has them all (bindAmpOptions).
using AmpOptionValues = AmpO2PassOptions;

/// The options of --amp-o1/--amp-o2, in declaration order, with the kind of
/// value each takes (amp-tblgen's table of PassOptions.td's declarations).
llvm::ArrayRef<OptionInfo> getAmpOptionInfos();

/// Sets option `name` of `values` to `value`, a value of the option's kind
/// (an enumerated option of an enum type takes its spelling); failure with
/// a message in `error` for an unknown name, a value of another kind, or an
/// integer out of the option's range. A string's spelling of an enumerated
/// value is checked when the values are bound.
LogicalResult setAmpOption(AmpOptionValues &values, llvm::StringRef name,
                           const OptionValue &value, std::string &error);

/// Sets the options that `text` names (--amp-o1's syntax: "dtype=bf16
/// placement=greedy"), parsed by --amp-o1/--amp-o2's own parser, in
/// `values`; the others keep their values. On failure (a syntax error, an
/// unknown option, a value its type cannot hold), `error` is the parser's
/// message and `values` is unchanged.
LogicalResult parseAmpOptions(llvm::StringRef text, AmpOptionValues &values,
                              std::string &error);

/// `values` bound to `options` for `level` (O1 or O2), every enumerated
/// value checked against its table; on failure, `error` is the message
/// ("arg-precision must be keep or low, got 'x'"). Op names and policy files
/// are checked against a context by checkAmpPolicy.
LogicalResult bindAmpOptions(const AmpOptionValues &values, AmpLevel level,
                             AmpOptions &options, std::string &error);

/// parseAmpOptions of `text` over the defaults, then bindAmpOptions.
LogicalResult parseAmpOptions(llvm::StringRef text, AmpLevel level,
                              AmpOptions &options, std::string &error);

/// Registers --amp-o1 and --amp-o2.
void registerAmpPipelines();

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_AMPPIPELINES_H
