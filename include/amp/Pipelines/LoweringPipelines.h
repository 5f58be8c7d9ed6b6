//===- LoweringPipelines.h - --lower-to-cpu / --lower-to-gpu ----*- C++ -*-===//
//
// Part of amp-mlir. Lowering of tensor programs in f32/f16/bf16 (the output of
// --amp-o1/--amp-o2, or any such module of linalg, tosa, tensor, arith and
// math ops) to the LLVM dialect: for the host CPU, or for NVIDIA GPUs through
// the gpu/nvvm dialects with matmuls and convolutions as cuBLAS/cuDNN calls
// into libamp_runtime.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_LOWERINGPIPELINES_H
#define AMP_PIPELINES_LOWERINGPIPELINES_H

#include "amp/Dialect/Amp/Transforms/Options.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>

namespace mlir {
namespace amp {

/// What both lowerings take: how low-precision values are rounded, as text
/// (the option, which amp-opt's --lower-to-cpu/--lower-to-gpu parse and the
/// rounding passes resolve, with errors at the op they run on) or typed
/// (roundingMode, from a driver that parsed it where it entered).
template <typename Derived>
struct LoweringOptionsBase : public PassPipelineOptions<Derived> {
  detail::PassOptions::Option<std::string> rounding{
      *this, "rounding",
      llvm::cl::desc("How low-precision values are rounded: once (where "
                     "stored; f32 inside each loop nest), per-op (after "
                     "every low op), or empty: the module's amp.rounding, "
                     "else once"),
      llvm::cl::init("")};
  /// Set by a driver that parsed the rounding where it entered (the
  /// runner's parseCompileOptions): it wins over `rounding`, and the
  /// rounding passes get it typed.
  std::optional<RoundingMode> roundingMode;
};

/// Options of --lower-to-cpu.
struct LowerToCpuOptions : public LoweringOptionsBase<LowerToCpuOptions> {
  PassOptions::Option<bool> emitCInterface{
      *this, "c-interface",
      llvm::cl::desc("Give every function a _mlir_ciface_ wrapper that takes "
                     "memref descriptors by pointer (for C callers and JIT)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse chains of elementwise linalg ops before "
                     "bufferizing"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("Compute each contraction whose f32 result is only "
                     "narrowed tile by tile inside its epilogue's loops, so "
                     "that no full-size f32 result is allocated"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> epilogueTileSize{
      *this, "epilogue-tile-size",
      llvm::cl::desc("Tile size of fused epilogues along their two innermost "
                     "dimensions"),
      llvm::cl::init(32)};
  PassOptions::Option<bool> libraries{
      *this, "libraries",
      llvm::cl::desc("Matmuls and batch matmuls as calls of libamp_runtime's "
                     "ampCpuLibraryGemm, 2-D convolutions as "
                     "ampCpuLibraryConv2d (im2col and that GEMM; the host's "
                     "CBLAS, OpenBLAS; plain loops in the runtime without "
                     "one), their narrowed epilogue written by the call; "
                     "false: generated loops"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> libraryConvolutions{
      *this, "library-convolutions",
      llvm::cl::desc("With libraries: 2-D convolutions as "
                     "ampCpuLibraryConv2d calls too; false: generated loops "
                     "for them (fused into their epilogue's tiles), the "
                     "matmuls still library calls"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("math.erf, math.tanh (GELU's) and math.exp as "
                     "polynomial approximations that vectorise with their "
                     "loop (amp-approximate-math); false: libm's erff, tanhf "
                     "and expf"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> runtimeAllocator{
      *this, "runtime-allocator",
      llvm::cl::desc("Buffers allocated and freed through libamp_runtime's "
                     "_mlir_memref_to_llvm_alloc/_free, which keep large "
                     "blocks for reuse (the code then needs libamp_runtime); "
                     "false: malloc and free"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> splitReductions{
      *this, "split-reductions",
      llvm::cl::desc("Reductions along a contiguous innermost dimension "
                     "accumulated in f32, in this many lanes that "
                     "vectorise (amp-split-reductions); 0: one scalar "
                     "accumulator"),
      llvm::cl::init(8)};
};

/// Options of --lower-to-gpu.
struct LowerToGpuOptions : public LoweringOptionsBase<LowerToGpuOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture (sm_80, sm_90, ...)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features; empty: the lowest PTX version that "
                     "supports `chip` (+ptx80 for sm_90)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary format: fatbin (cubin + PTX), isa (PTX "
                     "text) or bin (cubin)"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root (ptxas, fatbinary, libdevice)"),
      llvm::cl::init("/usr/local/cuda")};
  PassOptions::Option<bool> libraries{
      *this, "libraries",
      llvm::cl::desc("Matmuls as cuBLAS and 2-D convolutions as cuDNN calls "
                     "into libamp_runtime; false: generated kernels"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("Optimization level of the kernels"),
      llvm::cl::init(3)};
  PassOptions::Option<unsigned> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of generated kernels"),
      llvm::cl::init(256)};
  PassOptions::Option<unsigned> vectorBytes{
      *this, "vector-bytes",
      llvm::cl::desc("Bytes per access of the widest type in vectorised "
                     "elementwise kernels (0: one element per access)"),
      llvm::cl::init(16)};
  PassOptions::Option<bool> simulate{
      *this, "simulate",
      llvm::cl::desc("Kernels as host functions for the GPU simulator "
                     "(libamp_runtime_gpusim, amp-run --target=gpu-sim) "
                     "instead of gpu.binary; needs no CUDA toolkit"),
      llvm::cl::init(false)};
};

/// Adds the passes of --lower-to-cpu: TOSA to linalg, decomposition of
/// aggregate ops (softmax), elementwise fusion, bufferization, matmuls as
/// CPU library calls (when `libraries`), loops, LLVM.
void buildLowerToCpuPipeline(OpPassManager &pm,
                             const LowerToCpuOptions &options);

/// Checks the options of --lower-to-gpu (chip, features, format, toolkit).
/// Returns failure with a message in `error` if they are unusable.
LogicalResult verifyLowerToGpuOptions(const LowerToGpuOptions &options,
                                      std::string &error);

/// Adds the passes of --lower-to-gpu: TOSA to linalg, library calls for
/// matmuls and convolutions (when `libraries`), fused elementwise kernels,
/// device temporaries, gpu/nvvm lowering and `gpu.binary` creation (with
/// `simulate`, host functions for the GPU simulator instead).
void buildLowerToGpuPipeline(OpPassManager &pm,
                             const LowerToGpuOptions &options);

/// Registers --lower-to-cpu and --lower-to-gpu.
void registerLoweringPipelines();

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_LOWERINGPIPELINES_H
