//===- InitAll.cpp - register amp-mlir and what it builds on --------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "amp/Target/LLVMIR/AmpToLLVMIRTranslation.h"

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/Amp/ExternalModels/BufferizationModels.h"
#include "amp/Dialect/Amp/ExternalModels/PrecisionModels.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Pipelines/AmpPipelines.h"
#include "amp/Pipelines/LoweringPipelines.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MLProgram/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Passes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::amp::registerAmpDialect(DialectRegistry &registry) {
  registry.insert<amp::AmpDialect>();
}

void mlir::amp::registerAllDialects(DialectRegistry &registry) {
  registerAmpDialect(registry);
  // clang-format off
  registry.insert<affine::AffineDialect,
                  arith::ArithDialect,
                  bufferization::BufferizationDialect,
                  cf::ControlFlowDialect,
                  complex::ComplexDialect,
                  func::FuncDialect,
                  gpu::GPUDialect,
                  index::IndexDialect,
                  linalg::LinalgDialect,
                  LLVM::LLVMDialect,
                  math::MathDialect,
                  memref::MemRefDialect,
                  ml_program::MLProgramDialect,
                  NVVM::NVVMDialect,
                  scf::SCFDialect,
                  tensor::TensorDialect,
                  tosa::TosaDialect,
                  ub::UBDialect,
                  vector::VectorDialect>();
  // clang-format on
  // Every upstream dialect with the external models registered alongside
  // (bufferization, tiling, ...), as mlir-opt has them: the lowering
  // pipelines bufferize arith/tensor/linalg ops through those models.
  mlir::registerAllDialects(registry);
  // External models (inlining, convert-to-llvm, GPU targets) that the
  // dialects above promise; without them passes fail at run time.
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  amp::registerAmpDialectTranslation(registry);
  // How upstream ops behave under AMP.
  amp::registerAllPrecisionModels(registry);
  // How the amp ops that reach bufferization (amp.all_reduce) bufferize.
  amp::registerBufferizationModels(registry);
}

void mlir::amp::registerAllPasses() {
  amp::registerAmpPasses();
  amp::registerAmpPipelines();
  amp::registerAmpConversionPasses();
  amp::registerAmpLoweringTransformsPasses();
  amp::registerLoweringPipelines();

  // Generic passes: canonicalize, cse, inline, symbol-dce, ...
  mlir::registerTransformsPasses();
  // Conversions: tosa-to-linalg, convert-*-to-llvm, gpu-to-llvm, ...
  mlir::registerConversionPasses();
  // Dialect passes of the dialects amp-opt registers.
  affine::registerAffinePasses();
  arith::registerArithPasses();
  bufferization::registerBufferizationPasses();
  bufferization::registerBufferizationPipelines();
  func::registerFuncPasses();
  registerGPUPasses();
  gpu::registerGPUToNVVMPipeline();
  registerLinalgPasses();
  LLVM::registerLLVMPasses();
  math::registerMathPasses();
  memref::registerMemRefPasses();
  ml_program::registerMLProgramPasses();
  registerSCFPasses();
  tensor::registerTensorPasses();
  tosa::registerTosaPasses();
  tosa::registerTosaToLinalgPipelines();
  vector::registerVectorPasses();
}
