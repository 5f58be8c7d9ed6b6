//===- Passes.td - amp lowering passes ---------------------*- tablegen -*-===//
//
// Part of amp-mlir. The passes that --lower-to-cpu and --lower-to-gpu use on
// top of upstream MLIR's. Grouped by banner, alphabetical within a group.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_PASSES_TD
#define AMP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Preparation (tensors)
//===----------------------------------------------------------------------===//

def AmpDecomposeAggregatesPass : Pass<"amp-decompose-aggregates"> {
  let summary = "Decompose aggregate linalg ops (softmax) into structured ops";
  let description = [{
    Rewrites every op with `linalg::AggregatedOpInterface` (`linalg.softmax`)
    into the structured ops it stands for: a max reduction, a subtraction
    and exponential, a sum reduction and a division. A softmax in f16 or
    bf16 is decomposed in f32 between an `arith.extf` and an `arith.truncf`
    (which fuse into the generics), so its sum accumulates in f32. Loops, bufferization and GPU mapping then see only structured ops.
    An op whose decomposition fails is left unchanged with a remark.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // AMP_CONVERSION_PASSES_TD
