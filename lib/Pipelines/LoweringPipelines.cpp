//===- LoweringPipelines.cpp - --lower-to-cpu / --lower-to-gpu ------------===//
//
// Part of amp-mlir.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/LoweringPipelines.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/Amp/Transforms/Float8Kernels.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::amp;

/// The loss-scaling ops as tensor code, TOSA to linalg/arith/tensor, then
/// aggregates (softmax) decomposed and elementwise chains fused: what both
/// pipelines start with. `libraryCalls`: the pipeline makes library calls
/// (the GPU's `libraries`): amp-round-once keeps the narrowing of a library
/// contraction's result. `scaledMatmulCalls`: amp.scaled_matmul stays for
/// a library call (else it is loops from here). `convolutionGradientCalls`:
/// the gradients of 2-D convolutions are raised to their amp ops for the
/// backend's backward calls (else the amp ops of the input are loops from
/// here). `narrowConvolutions`: convolutions of 16-bit operands with an f32
/// result compute in the operands' type (the GPU's legacy cuDNN calls).
/// `channelsLast`: convolutions and the work between them in NHWC.
/// `attention`: attention chains become amp.attention (and their backward
/// amp.attention_backward) for the backend's fused calls, with these
/// options (else an amp.attention of the input is loops from here).
static void addTensorPreparation(
    OpPassManager &pm, bool fuseElementwise,
    std::optional<RoundingMode> rounding, bool libraryCalls,
    bool scaledMatmulCalls, bool convolutionGradientCalls,
    bool narrowConvolutions = false, bool channelsLast = false,
    std::optional<AmpFuseAttentionPassOptions> attention = std::nullopt) {
  // A module AMP has not rewritten (O0: the fp32 reference) may still have
  // guards, and one rewritten with keep-amp-casts has amp.cast: both are
  // only markers for the precision passes.
  pm.addPass(createAmpInlineGuardsPass());
  pm.addPass(createAmpMaterializeCastsPass());
  // Constant ml_program globals (frontend weights) become arith.constant:
  // upstream bufferization has no model of ml_program.global_load_const.
  pm.addPass(createAmpInlineGlobalConstantsPass());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createAmpLossScalingToLinalgPass());
  AmpFloat8ScalingToLinalgPassOptions float8;
  float8.scaledMatmuls = !scaledMatmulCalls;
  fpm.addPass(createAmpFloat8ScalingToLinalgPass(float8));
  fpm.addPass(tosa::createTosaToLinalgNamed());
  fpm.addPass(tosa::createTosaToLinalg());
  fpm.addPass(createTosaToArithPass());
  fpm.addPass(createTosaToTensorPass());
  fpm.addPass(createAmpDecomposeAggregatesPass());
  // While the casts are still arith ops on tensors, which the raise moves.
  if (convolutionGradientCalls)
    fpm.addPass(createAmpRaiseConvolutionGradientsPass());
  else
    fpm.addPass(createAmpConvolutionGradientsToLinalgPass());
  // Before elementwise fusion: the widening of each narrowed result fuses
  // into its readers.
  if (narrowConvolutions)
    fpm.addPass(createAmpNarrowConvolutionResultsPass());
  // arith.extf/truncf on tensors (materialized AMP casts) become generics.
  fpm.addPass(createConvertElementwiseToLinalgPass());
  // NHWC, once elementwise work is generics that read through maps.
  if (channelsLast)
    fpm.addPass(createAmpChannelsLastPass());
  // Attention as one op, while its chain is still separate generics (before
  // elementwise fusion), casts included.
  if (attention)
    fpm.addPass(createAmpFuseAttentionPass(*attention));
  else
    fpm.addPass(createAmpAttentionToLinalgPass());
  // No CSE here: it would merge the zero fills of equal-shaped matmul
  // results, and bufferization would then copy the shared fill (a kernel)
  // and the library calls accumulate (beta = 1) instead of overwriting.
  pm.addPass(createCanonicalizerPass());
  if (fuseElementwise) {
    // No rounding given: the passes read the module's amp.rounding.
    // With library calls, a bias add after a GEMM narrowed to 16 bits is
    // stored as the call's epilogue.
    AmpFuseElementwisePassOptions fusion;
    fusion.libraryEpilogues = libraryCalls;
    pm.addPass(rounding ? createAmpFuseElementwisePass(*rounding, libraryCalls)
                        : createAmpFuseElementwisePass(fusion));
    pm.addPass(createCanonicalizerPass());
  }
  // Input that was CSE'd before (a frontend's, a user's --cse) may still
  // share them: each contraction gets its own, right before it, so that
  // both pipelines match its epilogue. Empty contractions become their
  // init.
  pm.addNestedPass<func::FuncOp>(createAmpPrepareContractionsPass());
  // Each loop nest computes in f32 and rounds what it stores (unless the
  // module or the option says per-op).
  if (rounding) {
    pm.addPass(createAmpRoundOncePass(*rounding, libraryCalls));
  } else {
    AmpRoundOncePassOptions once;
    once.keepLibraryNarrowing = libraryCalls;
    pm.addPass(createAmpRoundOncePass(once));
  }
  pm.addPass(createCanonicalizerPass());
}

static bufferization::OneShotBufferizePassOptions bufferizeOptions() {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  // Loops that carry tensors (a training loop's parameters, a scaler's
  // state) yield new buffers each iteration.
  options.allowReturnAllocsFromLoops = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  return options;
}

void mlir::amp::buildLowerToCpuPipeline(OpPassManager &pm,
                                        const CpuLoweringOptions &options) {
  // Rounding once, a fused epilogue reads a matmul's result unrounded, as
  // it does in the generated loops: the library call writes the low type
  // itself only where nothing but a conversion reads the result (it is
  // stored), else f32, which the epilogue's loop nest rounds once, where it
  // stores. (On the GPU, cuBLAS writes the low type and the epilogue
  // kernel reads it: one rounding more, for half the bytes.)
  addTensorPreparation(pm, options.fuseElementwise, options.rounding,
                       /*libraryCalls=*/false,
                       /*scaledMatmulCalls=*/options.libraries,
                       /*convolutionGradientCalls=*/false);
  // f16/bf16 math ops computed in f32 and rounded once, as the GPU kernels
  // do: LLVM would otherwise round a composite op (math.rsqrt: sqrt, then a
  // division) to f16 after each step.
  pm.addPass(math::createMathExtendToSupportedTypes());
  // GELU's erf or tanh as arithmetic that vectorises, not a libm call per
  // element.
  if (options.approximateMath)
    pm.addPass(createAmpApproximateMathPass());
  // A softmax's max and sum, a norm's moments: f32 lanes that vectorise, in
  // an order that does not depend on the CPU.
  if (options.splitReductions != 0) { // A negative ratio: the pass says so.
    AmpSplitReductionsPassOptions split;
    split.ratio = options.splitReductions;
    pm.addNestedPass<func::FuncOp>(createAmpSplitReductionsPass(split));
    pm.addPass(createCanonicalizerPass());
  }
  if (options.fuseEpilogues) {
    AmpFuseContractionEpiloguesPassOptions epilogues;
    epilogues.tileSize = options.epilogueTileSize;
    // Matmuls and convolutions stay whole for their library calls.
    epilogues.skipLibraryContractions = options.libraries;
    epilogues.skipLibraryConvolutions =
        options.libraries && options.libraryConvolutions;
    pm.addNestedPass<func::FuncOp>(
        createAmpFuseContractionEpiloguesPass(epilogues));
    pm.addPass(createCanonicalizerPass());
  }
  // The caller's buffers are read only: callers (the runner, the
  // torch.compile backend, an AOT library's) pass their memory without a
  // copy, and the function allocates what it would have written into them.
  pm.addNestedPass<func::FuncOp>(createAmpReadOnlyArgumentsPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions()));
  if (options.fuseEpilogues) {
    // Each tile's insert_slice bufferizes to a copy between two equal
    // subviews of the result: CSE makes them one, and the self-copy folds.
    pm.addPass(createCSEPass());
    pm.addPass(createCanonicalizerPass());
  }
  if (options.libraries) {
    AmpLinalgToLibraryCallsPassOptions calls;
    calls.target = "cpu";
    calls.convolutions = options.libraryConvolutions;
    pm.addPass(createAmpLinalgToLibraryCallsPass(calls));
    // A scaled matmul no call took: loops.
    pm.addNestedPass<func::FuncOp>(createAmpFloat8ScalingToLinalgPass());
  }
  // The unscale of the gradients (amp.unscale_gradients, one op through
  // bufferization): loops.
  pm.addNestedPass<func::FuncOp>(createAmpLossScalingToLinalgPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // The collectives' buffers, once their deallocation is placed (after the
  // collective, which reads and writes them): calls of the runtime (the
  // unscale is loops on the CPU, above).
  pm.addPass(createAmpToLibraryCallsPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // LLVM has no 8-bit floats: f32 <-> f8E4M3FN/f8E5M2 as integer code.
  pm.addPass(createAmpExpandFloat8Pass());
  // bf16 <-> f32 as integer code too (upstream's arith-expand, which also
  // expands max/min and integer divisions): LLVM calls __truncsfbf2 per
  // element on a CPU without AVX512-BF16, which keeps the loop scalar, and
  // AVX512-BF16's vcvtneps2bf16 treats subnormal inputs as zero. Exact,
  // ties to even, and the same bits on every CPU.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.runtimeAllocator;
  // The allocator aligns the blocks itself (the runtime's, or libc's
  // aligned_alloc): no pointer arithmetic through integers, which would
  // hide from LLVM which buffer an access reaches.
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  if (options.runtimeAllocator)
    pm.addPass(createAmpNoaliasAllocationsPass());
  if (options.emitCInterface)
    pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  pm.addPass(createConvertToLLVMPass());
  // Math ops LLVM has no intrinsic for (math.erf of GELU, ...) become libm
  // calls (erff), then LLVM calls; the others keep their intrinsics.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

//===----------------------------------------------------------------------===//
// --lower-to-gpu
//===----------------------------------------------------------------------===//

/// Whether PTX's cvt to e4m3x2/e5m2x2 is there: sm_90 and later from PTX
/// 7.8, sm_89 from PTX 8.1 (LLVM's NVPTX rule; the default +ptx80 covers
/// sm_90 but not sm_89).
static bool hasFloat8Conversions(const GpuLoweringOptions &options) {
  int cc = options.chip.computeCapability;
  unsigned ptx = getPtxVersion(options);
  return (cc >= 90 && ptx >= 78) || (cc == 89 && ptx >= 81);
}

void mlir::amp::buildLowerToGpuPipeline(OpPassManager &pm,
                                        const GpuLoweringOptions &options) {
  addTensorPreparation(
      pm, /*fuseElementwise=*/true, options.rounding,
      /*libraryCalls=*/options.libraries,
      /*scaledMatmulCalls=*/options.libraries,
      /*convolutionGradientCalls=*/options.libraries,
      /*narrowConvolutions=*/options.libraries && !options.exactConvolutions,
      /*channelsLast=*/options.libraries && options.channelsLast,
      options.libraries && options.fusedAttention
          ? std::optional(
                AmpFuseAttentionPassOptions{options.chip.computeCapability})
          : std::nullopt);
  // Reductions over the same tensor (batch norm's backward sums): one
  // kernel each group, reading it once.
  pm.addPass(createAmpFuseSiblingReductionsPass());
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions()));
  pm.addPass(createCanonicalizerPass());
  // C wrappers for the functions of the module only: not for the runtime's
  // entry points that the library calls declare next.
  pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  // FP8 contractions without an FP8 library kernel were decided for the
  // chip by the level (fp8-kernels): they read bf16 operands here.
  if (options.libraries) {
    AmpLinalgToLibraryCallsPassOptions calls;
    calls.float8Gemms = hasCublasLtFloat8Gemms(options.chip.computeCapability);
    calls.convEpilogues = options.convEpilogues;
    pm.addPass(createAmpLinalgToLibraryCallsPass(calls));
    // A scaled matmul or a convolution gradient no call took: loops, then
    // kernels.
    pm.addNestedPass<func::FuncOp>(createAmpFloat8ScalingToLinalgPass());
    pm.addNestedPass<func::FuncOp>(createAmpConvolutionGradientsToLinalgPass());
    // An attention no call took (another element type, head size): loops,
    // then kernels.
    pm.addNestedPass<func::FuncOp>(createAmpAttentionToLinalgPass());
  }
  // Ownership-based deallocation decides what is freed where (buffers of
  // loop bodies, buffers returned by callees, on every path), as in
  // buildBufferDeallocationPipeline but without its lowering: that one
  // emits helpers that load and store memrefs, which would be device
  // buffers here. amp-memref-to-gpu lowers bufferization.dealloc to host
  // scalar code and gpu.dealloc instead.
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createAmpMemRefToGPUPass());
  // The collectives and the gradients' unscale on what are now device
  // buffers: the runtime's device calls, stream-ordered (before
  // gpu-async-region, which chains them); an unscale the call does not fit
  // becomes generics (kernels).
  AmpToLibraryCallsPassOptions calls;
  calls.device = true;
  pm.addPass(createAmpToLibraryCallsPass(calls));
  pm.addNestedPass<func::FuncOp>(createAmpLossScalingToLinalgPass());

  // Everything else: parallel loops, tiled into blocks and threads, mapped
  // and outlined into kernels; one stream for the whole function.
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createConvertLinalgToParallelLoopsPass());
  AmpMapLoopsToGPUPassOptions map;
  map.blockSize = options.blockSize;
  map.vectorBytes = options.vectorBytes;
  map.vectorsPerThread = options.vectorsPerThread;
  map.smCount = getSmCount(options);
  map.fuseRows = options.fuseRows;
  fpm.addPass(createAmpMapLoopsToGPUPass(map));
  fpm.addPass(createAmpStripDeviceAssertsPass());
  fpm.addPass(createGpuMapParallelLoopsPass());
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addNestedPass<func::FuncOp>(createAmpCheckHostCodePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Independent launches (the weights' f16 copies, the optimizer's
  // updates) as one launch each few.
  if (options.mergeLaunches)
    pm.addPass(createAmpMergeGpuLaunchesPass());
  pm.addPass(createAmpDeduplicateGpuKernelsPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addNestedPass<func::FuncOp>(createAmpElideHostWaitsPass());

  // FP8 conversions in kernels: amp.quantize's saturated rounding as PTX's
  // cvt.rn.satfinite where the chip and PTX version have it
  // (hasFloat8Conversions), the rest (widenings, older chips) as integer
  // code, as on the CPU: the same bits either way.
  if (hasFloat8Conversions(options))
    pm.addPass(createAmpFloat8ToNVVMPass());
  pm.addPass(createAmpExpandFloat8Pass());

  // gpu/nvvm to LLVM and the kernel binaries (upstream's
  // gpu-lower-to-nvvm-pipeline, with the toolkit and PTX version explicit).
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip.str();
  target.features = PtxVersion{getPtxVersion(options)}.str();
  target.optLevel = options.optLevel;
  target.linkLibs.push_back(options.toolkit +
                            "/nvvm/libdevice/libdevice.10.bc");
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
  // sqrt/rsqrt correctly rounded (sqrt.rn.f32), not libdevice's default
  // sqrt.approx.f32; f32 division is div.rn.f32 already.
  gpm.addPass(createAmpPreciseGpuMathPass());
  // math.fpowi with libdevice's i32 exponent: its lowering declares
  // __nv_powif from the op's types, and libdevice does not read an i64.
  gpm.addPass(createAmpGpuIntegerPowersPass());
  gpm.addPass(createConvertGpuOpsToNVVMOps());
  gpm.addPass(createCanonicalizerPass());
  gpm.addPass(createCSEPass());
  gpm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  if (options.simulate) {
    // The same kernels, as host functions the simulator launches.
    pm.addPass(createAmpGPUToSimPass());
  } else {
    GpuModuleToBinaryPassOptions binary;
    binary.toolkitPath = options.toolkit;
    binary.compilationTarget = stringifyOptionValue(options.format).str();
    pm.addPass(createGpuModuleToBinaryPass(binary));
  }
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

static LogicalResult verifyLowering(const CpuLoweringOptions &, std::string &) {
  return success();
}
static LogicalResult verifyLowering(const GpuLoweringOptions &options,
                                    std::string &error) {
  return verifyGpuLoweringOptions(options, error);
}

/// Registers pipeline `name`, whose textual options are read into the typed
/// ones once and verified, before `build` adds the passes.
template <typename Text, typename Typed>
static void registerLoweringPipeline(StringRef name, StringRef description,
                                     void (*build)(OpPassManager &,
                                                   const Typed &)) {
  std::string prefix = name.str() + ": ";
  mlir::registerPassPipeline(
      name, description,
      [prefix, build](OpPassManager &pm, StringRef text,
                      function_ref<LogicalResult(const Twine &)> onError) {
        Typed options;
        std::string error;
        if (failed(parseLoweringOptions(text, options, error)) ||
            failed(verifyLowering(options, error)))
          return onError(prefix + error);
        build(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(Text());
      });
}

void mlir::amp::registerLoweringPipelines() {
  registerLoweringPipeline<LowerToGpuOptions>(
      "lower-to-gpu",
      "Lower tensor programs in f32/f16/bf16 to host LLVM dialect plus "
      "gpu.binary kernels for NVIDIA GPUs, with matmuls and convolutions as "
      "cuBLAS/cuDNN calls into libamp_runtime",
      buildLowerToGpuPipeline);
  registerLoweringPipeline<LowerToCpuOptions>(
      "lower-to-cpu",
      "Lower tensor programs in f32/f16/bf16 (linalg, tosa, tensor, arith, "
      "math) to the LLVM dialect for the host CPU",
      buildLowerToCpuPipeline);
}
