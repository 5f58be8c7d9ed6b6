//===- Internal.h - shared internals of amp_runtime -------------*- C++ -*-===//
//
// Part of amp-mlir. Error plumbing, argument validation and the lazy module
// record shared by the CPU, GPU and no-CUDA (stub) parts of the runtime. No
// CUDA types here: this header is used by builds without CUDA headers too.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LIB_INTERNAL_H
#define AMP_RUNTIME_LIB_INTERNAL_H

#include "amp/runtime/AmpRuntime.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#if defined(__GNUC__) || defined(__clang__)
#define AMP_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define AMP_PRINTF_LIKE(fmt, args)
#endif

namespace amp {
namespace rt {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Sets the calling thread's last error to "<call>: <formatted reason>".
/// Always returns false so that `return setError(...)` reads naturally.
bool setError(const char *call, const char *fmt, ...) AMP_PRINTF_LIKE(2, 3);

/// Appends formatted text to the thread's last error; returns false.
bool appendError(const char *fmt, ...) AMP_PRINTF_LIKE(1, 2);

/// Calls the installed error handler (or the default one: print + abort)
/// with the thread's last error. Must be called with no lock held and, as far
/// as possible, no live object with a non-trivial destructor in the caller
/// chain (handlers may longjmp).
void raiseLastError();

/// Convenience: setError(...) then raiseLastError().
void raiseError(const char *call, const char *fmt, ...) AMP_PRINTF_LIKE(2, 3);

/// "f32", "f16", "bf16" or "<invalid dtype N>".
const char *dtypeName(int32_t type);
/// Bytes per element of F32, F16 and BF16 (the types every floating-point
/// entry point takes), 0 for other values.
size_t dtypeSize(int32_t type);
/// F8E4M3FN or F8E5M2: the FP8 types, which only the GEMM takes.
bool isFloat8(int32_t type);
/// Bytes per element of a GEMM operand type: dtypeSize, and 1 for FP8.
size_t gemmElementSize(int32_t type);
/// The f32 value of FP8 element `index` of `type` at `base` (exact).
float float8ToF32(const void *base, int32_t type, int64_t index);

//===----------------------------------------------------------------------===//
// Argument validation (shared by CPU reference, GPU and stub builds)
//===----------------------------------------------------------------------===//

/// The arguments of each library call (LibraryCalls.def), in order:
/// GemmArgs, ScaledGemmArgs, ConvArgs, ConvBackwardDataArgs,
/// ConvBackwardFilterArgs, ConstantArgs, UnscaleBufferArgs,
/// UnscaleBuffersArgs, AllReduceArgs.
#define AMP_LIBRARY_CALL_FIELD(KIND, C_TYPE, NAME) C_TYPE NAME;
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  struct STEM##Args {                                                          \
    PARAMS(AMP_LIBRARY_CALL_FIELD, )                                           \
  };
#include "amp/runtime/LibraryCalls.def"
#undef AMP_LIBRARY_CALL_FIELD

/// What the argument checks of a library call found.
enum class CallCheck {
  Invalid, ///< The last error says why.
  Nothing, ///< Valid, and there is no work (no GPU call is made).
  Work,    ///< Valid, with work for the backend.
};

/// The argument checks of each library call, shared by every backend (CUDA,
/// stubs, simulator, CPU twin) and run before it: `onGpu` adds the limits
/// of the GPU libraries (int32 sizes for cuBLAS, symmetric padding for
/// cuDNN). Read nothing through the pointers.
#define AMP_LIBRARY_CALL(STEM, GPU_NAME, CPU_NAME, RESULT, PARAMS)             \
  CallCheck check(const char *call, const STEM##Args &args, bool onGpu);
#include "amp/runtime/LibraryCalls.def"

/// Checks sizes, leading dimensions, strides, pointers and the type
/// combination; on failure sets "<call>: <reason>" and returns false.
/// `forCuBlas` additionally requires every size to fit in int32.
bool validateGemm(const char *call, const GemmArgs &args, bool forCuBlas);

/// The GEMM part of a ScaledGemm call (its first parameters are Gemm's),
/// and the ScaledGemm call of a GEMM with those scales and amax.
GemmArgs getGemmArgs(const ScaledGemmArgs &args);
ScaledGemmArgs getScaledGemmArgs(const GemmArgs &args, const float *aScale,
                                 const float *bScale, float *dAmax);

/// The GEMM part of a GemmEpilogue or GemmBiasGrad call (their first
/// parameters are Gemm's).
GemmArgs getGemmArgs(const GemmEpilogueArgs &args);
GemmArgs getGemmArgs(const GemmBiasGradArgs &args);

/// The elements of a GemmBiasGrad call's bias gradient: m for the operand
/// AMP_GEMM_BIAS_GRAD_A, n for AMP_GEMM_BIAS_GRAD_B.
int64_t getBiasGradElements(const GemmBiasGradArgs &args);

/// What a GemmEpilogue call's epilogue (an AmpGemmEpilogue) does with its
/// bias and aux pointers: whether it adds the bias (all but the gradients
/// DGELU and DRELU); whether `aux` is a ReLU mask (RELU_AUX_BIAS, DRELU)
/// rather than a matrix of C's type and layout (GELU_AUX_BIAS, DGELU);
/// whether it uses `aux` at all; whether it reads `aux` (the gradients).
inline bool epilogueAddsBias(int32_t epilogue) {
  return epilogue != AMP_GEMM_EPILOGUE_DGELU &&
         epilogue != AMP_GEMM_EPILOGUE_DRELU;
}
inline bool epilogueAuxIsReluMask(int32_t epilogue) {
  return epilogue == AMP_GEMM_EPILOGUE_RELU_AUX_BIAS ||
         epilogue == AMP_GEMM_EPILOGUE_DRELU;
}
inline bool epilogueUsesAux(int32_t epilogue) {
  return epilogueAuxIsReluMask(epilogue) ||
         epilogue == AMP_GEMM_EPILOGUE_GELU_AUX_BIAS ||
         epilogue == AMP_GEMM_EPILOGUE_DGELU;
}
inline bool epilogueReadsAux(int32_t epilogue) {
  return epilogueUsesAux(epilogue) && !epilogueAddsBias(epilogue);
}
/// The `slot` of an ampGpuConstant call (a pointer-sized, pointer-aligned
/// word of the compiled module, zero at load) as the atomic the backends
/// cache the device copy in.
inline std::atomic<void *> *getConstantSlot(void *slot) {
  static_assert(sizeof(std::atomic<void *>) == sizeof(void *) &&
                    std::atomic<void *>::is_always_lock_free,
                "a slot is a plain pointer-sized word of the module");
  return static_cast<std::atomic<void *> *>(slot);
}

/// Elements spanned by `batch` row-major `rows x cols` matrices with leading
/// dimension `ld`, `stride` apart (rows, cols and batch >= 1).
inline uint64_t getMatrixSpan(int64_t batch, int64_t rows, int64_t cols,
                              int64_t ld, int64_t stride) {
  uint64_t one = static_cast<uint64_t>((rows - 1) * ld + cols);
  return one + static_cast<uint64_t>((batch > 1 ? batch - 1 : 0) * stride);
}

/// Bytes of the aux buffer of `args` (0 where its epilogue has none): the
/// ReLU mask, or a matrix of C's type, ldc and strideC.
uint64_t getEpilogueAuxBytes(const GemmEpilogueArgs &args);

/// The checks of validateGemm for an FP8 GEMM (FP8 operands, an f32, bf16
/// or f16 output), then the scale and amax pointers (NULL or 4-byte
/// aligned). `forCuBlasLt` adds cuBLASLt's rules (int32 sizes, the TN
/// layout, multiples of 16, 16-byte alignment).
bool validateScaledGemm(const char *call, const ScaledGemmArgs &args,
                        bool forCuBlasLt);

/// Checks sizes, layout, pointers and the type combination. `forCuDnn`
/// additionally requires symmetric padding (oh/ow recomputed from padTop and
/// padLeft) and int32 sizes.
bool validateConv(const char *call, const ConvArgs &args, bool forCuDnn);

/// The operands of a backward convolution (ConvBackwardData: dy, wt and dx;
/// ConvBackwardFilter: x, dy and dw) as those of a forward one, its two
/// inputs as x and wt and its output as y, with the geometry of the forward
/// convolution (n, c, h, w, f, kh, kw, oh, ow, padding, strides,
/// dilations), the layout and beta: for the checks shared with
/// validateConv, the cuDNN descriptors and the simulator's records. The
/// element counts of the view's x, wt and y are not those of a forward
/// convolution's (dy has n*f*oh*ow elements).
ConvArgs getConvArgs(const ConvBackwardDataArgs &args);
ConvArgs getConvArgs(const ConvBackwardFilterArgs &args);
/// The convolution of a ConvEpilogue call (beta 0).
ConvArgs getConvArgs(const ConvEpilogueArgs &args);

/// A convolution of batch 0 (a dynamic batch that came out empty, which the
/// compiled code's calls may pass: ampCpuLibraryConv2d, and the GPU's
/// ampGpuConv2d): Nothing when the rest is valid (validateConv with a batch
/// of 1), else Invalid with the error set.
CallCheck checkEmptyConvBatch(const char *call, const ConvArgs &args,
                              bool onGpu);

/// A GEMM with a size of 0 (a dynamic one that came out empty: compiled
/// code has no static empty contraction), which the compiled code's calls
/// may pass (the CPU library's and the GPU's GEMMs): the rest is checked on
/// a probe with size 1 where a size is 0 (the empty operands' pointers are
/// not read). Nothing when batch, m or n is 0; Work when only k is 0 (C =
/// beta * C; `onGpu` refuses it, as cuBLASLt's FP8 GEMM would); Invalid,
/// with the error set, when the rest is not valid.
CallCheck checkEmptyGemm(const char *call, const GemmArgs &args, bool onGpu);
CallCheck checkEmptyScaledGemm(const char *call, const ScaledGemmArgs &args,
                               bool onGpu);
/// Whether a size of `args` is 0 and none is negative: checkEmptyGemm's.
bool isEmptyGemm(const GemmArgs &args);

/// ampGpu/ampCpuCheckFiniteAndUnscaleBuffer: a valid dtype, 0 <= numel <=
/// 2^54, and for numel > 0 non-NULL pointers, in/out aligned to their
/// elements and invScale to 4 bytes, in == out or disjoint. Reads nothing
/// through the pointers (CheckFinite.cpp).
bool validateUnscaleBuffer(const char *call, const void *in, const void *out,
                           int64_t numel, int32_t dtype, const float *invScale,
                           const uint8_t *foundInf);

/// ampGpu/ampCpuCheckFiniteAndUnscaleBuffers: 0 <= count, non-NULL arrays
/// when count > 0, every entry valid for validateUnscaleBuffer (the error
/// names the entry), and invScale/foundInf non-NULL when any entry has
/// elements.
bool validateUnscaleBuffers(const char *call, int64_t count,
                            const void *const *ins, void *const *outs,
                            const int64_t *numels, const int32_t *dtypes,
                            const float *invScale, const uint8_t *foundInf);

//===----------------------------------------------------------------------===//
// Lazily loaded GPU module record (created without any CUDA call)
//===----------------------------------------------------------------------===//

struct ModuleRecord {
  static constexpr uint32_t kMagic = 0x414d504dU; // "AMPM"
  uint32_t magic = kMagic;
  const void *data = nullptr;
  size_t size = 0;
  bool isPtx = false;
  int optLevel = 4;
  /// The CUmodule once loaded (opaque here), plus GPU-side caches.
  void *impl = nullptr;
};

/// Reads an environment variable as a boolean ("1", "true", "on", "yes").
bool envFlag(const char *name, bool defaultValue);

} // namespace rt
} // namespace amp

#endif // AMP_RUNTIME_LIB_INTERNAL_H
