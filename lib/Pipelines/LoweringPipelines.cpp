//===- LoweringPipelines.cpp - --lower-to-cpu / --lower-to-gpu ------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/LoweringPipelines.h"
#include "amp/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::amp;

/// TOSA to linalg/arith/tensor, then aggregates (softmax) decomposed and
/// elementwise chains fused: what both pipelines start with.
static void addTensorPreparation(OpPassManager &pm, bool fuseElementwise) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(tosa::createTosaToLinalgNamed());
  fpm.addPass(tosa::createTosaToLinalg());
  fpm.addPass(createTosaToArithPass());
  fpm.addPass(createTosaToTensorPass());
  fpm.addPass(createAmpDecomposeAggregatesPass());
  // arith.extf/truncf on tensors (materialized AMP casts) become generics.
  fpm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  if (fuseElementwise)
    pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

static bufferization::OneShotBufferizePassOptions bufferizeOptions() {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  return options;
}

void mlir::amp::buildLowerToCpuPipeline(OpPassManager &pm,
                                        const LowerToCpuOptions &options) {
  addTensorPreparation(pm, options.fuseElementwise);
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions()));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  if (options.emitCInterface)
    pm.addPass(LLVM::createLLVMRequestCWrappersPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::amp::registerLoweringPipelines() {
  PassPipelineRegistration<LowerToCpuOptions>(
      "lower-to-cpu",
      "Lower tensor programs in f32/f16/bf16 (linalg, tosa, tensor, arith, "
      "math) to the LLVM dialect for the host CPU",
      buildLowerToCpuPipeline);
}
