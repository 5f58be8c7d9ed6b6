//===- Passes.td - amp transformation passes ---------------*- tablegen -*-===//
//
// Part of amp-mlir. Passes are grouped by banner and kept alphabetical within
// a group.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
