//===- Passes.td - amp conversion passes -------------------*- tablegen -*-===//
//
// Part of amp-mlir. The conversions that --lower-to-cpu and --lower-to-gpu
// use on top of upstream MLIR's: each rewrites ops of one dialect or level
// (amp's loss-scaling ops, linalg on buffers, loops, memrefs, NVVM kernels)
// into another, and lives in lib/Conversion/<From>To<To>/. The lowering
// transforms that are not conversions are in amp/Transforms/Passes.td.
// Grouped by banner, alphabetical within a group.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CONVERSION_PASSES_TD
#define AMP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// AttentionToLinalg (tensors or buffers)
//===----------------------------------------------------------------------===//

def AmpAttentionToLinalgPass : Pass<"amp-attention-to-linalg"> {
  let summary = "Lower amp.attention and amp.attention_backward to linalg "
                "generics";
  let description = [{
    Gives `amp.attention` its meaning as loops, where no library call takes
    it: f32 scores (a generic summing over the head dimension), scaled,
    biased and masked; the rows' maximum; their exponentials and sums; the
    weighted sum of the values, in f32; the output rounded once from that
    sum divided by the row's sum; and where asked the stats (maximum plus
    the logarithm of the sum). Eight generics, the scores materialised
    (what the fused call avoids).

    `amp.attention_backward` likewise, in twelve: the scores again and
    `P = exp(S - stats)`; `dV = P^T dO` (summed over the queries),
    `dP = dO V^T`, the rows' `D = dO . out`, `dS = scale * P * (dP - D)`,
    `dQ = dS K` and `dK = dS^T Q`, each summed in f32, then the three
    gradients rounded once into their destinations.

    On tensors or buffers alike (f32 temporaries: `tensor.empty` or
    `memref.alloc`, freed by the pipelines' deallocation). `--lower-to-cpu`
    runs it on tensors; `--lower-to-gpu` runs it after
    `amp-linalg-to-library-calls`, for what no call took (kernels, which
    the call's remark says).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// ConvolutionGradientsToLinalg (tensors or buffers)
//===----------------------------------------------------------------------===//

def AmpConvolutionGradientsToLinalgPass
    : Pass<"amp-convolution-gradients-to-linalg"> {
  let summary = "Lower amp.conv2d_backward_data and "
                "amp.conv2d_backward_filter to linalg generics";
  let description = [{
    Gives the gradients of a 2-D convolution their meaning as loops, where
    no library call takes them: each becomes one `linalg.generic` over the
    destination's four dimensions (parallel) and the three it sums over
    (reductions), accumulating into the destination in its type.

    * `amp.conv2d_backward_filter`: the output gradient is read through
      the generic's indexing map; the input element at
      `oy * stride - padding + r * dilation` is read in the body
      (`tensor.extract`, `memref.load`) and counts 0 outside the input.
    * `amp.conv2d_backward_data`: the filter is read through the map; the
      output gradient element `oy = (y + padding - r * dilation) / stride`
      is read in the body where that division is exact and `oy` in range,
      else counts 0.

    On tensors or buffers alike. `--lower-to-cpu`, and `--lower-to-gpu`
    without `libraries`, run it on tensors; `--lower-to-gpu` with
    `libraries` runs it after `amp-linalg-to-library-calls`, for what no
    call took (a kernel each, which the call's remark says).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect", "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Float8ScalingToLinalg (tensors)
//===----------------------------------------------------------------------===//

def AmpFloat8ScalingToLinalgPass : Pass<"amp-float8-scaling-to-linalg"> {
  let summary = "Lower the amp FP8 scaling ops to linalg and arith";
  let description = [{
    Gives `amp.amax`, `amp.quantize` and `amp.dequantize` their meaning as
    tensor code, so that both pipelines compile them like any other
    computation:

    * `amp.quantize`: an elementwise generic that widens to f32, multiplies
      by the scale, clamps to the FP8 type's largest finite value
      (`arith.maximumf`/`minimumf`, so NaN stays NaN) and rounds with
      `arith.truncf` (to nearest, ties to even);
    * `amp.dequantize`: an elementwise generic, `extf(q) / scale`, rounded
      to the result's type;
    * `amp.amax`: a full reduction with `arith.maximumf` of `math.absf`
      from 0, extracted when the result is an `f32`;
    * `amp.scaled_matmul`, on buffers, and on tensors with
      `scaled-matmuls` (a pipeline that makes no library call): a
      `linalg.matmul` (`batch_matmul`) of the FP8 operands into a
      zero-filled f32 accumulator (the destination itself when it is f32),
      then an elementwise generic that multiplies by the scale and rounds
      to the destination's type. On tensors it stays by default, one op
      through bufferization for `amp-linalg-to-library-calls`.

    A `tensor<f32>` scale is read by the generics as a 0-d input, so on
    the GPU it stays in device memory. The f8 conversions are then
    `arith.truncf`/`extf`: `amp-expand-float8` writes them as integer code
    on the CPU.
  }];
  let options = [
    Option<"scaledMatmuls", "scaled-matmuls", "bool", "false",
           "Lower amp.scaled_matmul on tensors too (else only on buffers, "
           "where no library call took it)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// LossScalingToLinalg (tensors)
//===----------------------------------------------------------------------===//

def AmpLossScalingToLinalgPass : Pass<"amp-loss-scaling-to-linalg"> {
  let summary = "Lower the amp loss-scaling ops to linalg and arith";
  let description = [{
    Gives `amp.scale_loss`, `amp.check_finite_and_unscale` and
    `amp.update_loss_scaling` their meaning as tensor code, so that both
    pipelines compile them like any other computation:

    * `amp.scale_loss`: `float(loss) * scale`, an elementwise generic for a
      tensor loss;
    * `amp.check_finite_and_unscale`: `1/scale` computed in f64 and rounded
      to f32; then (`amp.unscale_gradients`) per gradient ONE generic that
      writes
      `round(float(g) * inv)` and ORs into the flag whether that value is
      Inf or NaN (read back from the gradient's type, so an f16 overflow
      counts; one pass over the gradient); the flag is chained
      through the gradients, so there is no separate combining step. The
      generics are made once the step is bufferized: before, the unscale is
      ONE `amp.unscale_gradients` for all gradients (the reciprocal
      computed), which no pass fuses other work into, and which
      `amp-to-library-calls` makes one call of the runtime's multi-tensor
      kernel on the GPU. The pipelines run this pass again
      after bufferization (and after the library calls), where it makes
      the generics of what is left;
    * `amp.optimizer_update` on buffers (what `amp-training`'s optimizer
      bufferizes to, where `amp-to-library-calls` made no call of it): one
      generic per parameter, in f32, that reads the gradient, the step
      count, the flag and the current values and writes the new values to
      their destinations, or the current ones on an overflow;
    * `amp.update_loss_scaling`: the unified state machine (the runtime's
      `updateLossScalerState`, operation for operation: hysteresis, back-off
      interval, floor at `min_scale` or the smallest normal f32, cap at
      `max_scale`, no growth to Inf) as `arith.select`s. With the state in
      0-d tensors it is a zero-dimensional generic (a one-thread kernel on
      the GPU, so the state never leaves the device).

    An op of a form it does not handle (an unranked loss) is left unchanged
    with a remark.
  }];
  let dependentDialects = [
    "::mlir::amp::AmpDialect",
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// To GPU and library calls (buffers)
//===----------------------------------------------------------------------===//

def AmpToLibraryCallsPass : Pass<"amp-to-library-calls", "::mlir::ModuleOp"> {
  let summary = "The amp buffer ops as runtime calls: collectives, the "
                "gradients' unscale";
  let description = [{
    On bufferized code, rewrites the amp ops that are runtime calls, each
    built from its op (no tagged generic matched back):

    * each `amp.all_reduce_in_place` (what `amp.all_reduce` bufferizes to)
      into a call of the runtime's `ampAllReduce(pointer, count, dtype,
      kind)`: the buffer's aligned pointer, its element count (read from
      its sizes where they are dynamic), the element type's `AmpDType` code
      and the kind's value (`#amp.reduce_kind`). The host function is
      declared as an `llvm.func` and called with `llvm.call`, so that no C
      wrapper is requested for it. With `device=true` (the GPU pipeline,
      after `amp-memref-to-gpu` has put the buffers on the device), it calls
      the device twin `ampGpuAllReduce` instead (same arguments; a private
      `func.func` marked `amp.stream_ordered`: it enqueues on the runtime's
      stream, copying the buffer to the host, reducing and copying back).
    * with `device=true`, each `amp.unscale_gradients` on buffers (what
      `amp-loss-scaling-to-linalg` makes of an `amp.check_finite_and_unscale`,
      bufferized) into one call of `ampGpuCheckFiniteAndUnscaleBuffers`,
      the runtime's one-launch unscale and check of a table of buffers,
      which reads the inverse scale and ORs into the flag on the device (no
      host synchronisation). The table's host arrays (pointers, element
      counts, dtypes) are `llvm.alloca`s in the function's entry block,
      filled right before the call. Where the call does not fit (a strided
      gradient buffer, an f64 gradient, a host-scalar inverse scale) the op
      is left as it is, with a remark, for `amp-loss-scaling-to-linalg` to make
      generics of (one-thread generated kernels). Without `device` the op is
      left to the loops, without a remark.
    * with `device=true`, each `amp.optimizer_update` on buffers into one
      call of `ampGpuOptimizerUpdateBuffers`, the runtime's multi-tensor
      optimizer (one launch per 48 parameters), which reads the step count
      and the flag on the device: host arrays of the current values' and
      the destinations' pointers, gradient pointers and types and element
      counts, then the kind and its settings as f32 arguments. A strided
      buffer keeps the op, with a remark, for `amp-loss-scaling-to-linalg`.

    The declarations come from the runtime's table (`RuntimeCalls.h`); a
    module that defines another symbol of that name is an error on the op.
  }];
  let options = [
    Option<"device", "device", "bool", "false",
           "The buffers are device buffers: call ampGpuAllReduce, "
           "ampGpuCheckFiniteAndUnscaleBuffers and "
           "ampGpuOptimizerUpdateBuffers">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"
  ];
}

def AmpLinalgToLibraryCallsPass
    : Pass<"amp-linalg-to-library-calls", "::mlir::ModuleOp"> {
  let summary = "Matmuls as cuBLAS (or CPU BLAS), 2-D convolutions as "
                "cuDNN calls";
  let description = [{
    On bufferized functions, rewrites `linalg.matmul` and
    `linalg.batch_matmul` (including transposed-operand indexing maps, the
    form `tosa.matmul` lowers to) into calls of libamp_runtime's
    `ampGpuGemm` (cuBLAS `cublasGemmEx` / strided-batched, f16 or bf16
    operands, f32 compute, Tensor Core math), and `linalg.conv_2d_nchw_fchw`
    / `linalg.conv_2d_nhwc_hwcf` / `linalg.conv_2d_nhwc_fhwc` (strides,
    dilations; padding is the separate pad that produces the input; their
    grouped and depthwise forms) into `ampGpuConv2d` (cuDNN; NHWC/FHWC is
    cuDNN's NHWC with its KRSC filter, `amp-channels-last`'s form), and
    `amp.conv2d_backward_data` / `amp.conv2d_backward_filter` (NCHW, or
    `channels_last`) into cuDNN's backward calls.
    Buffers are passed as device pointers; a `linalg.fill` of zero into the
    output right before the op is erased and the call overwrites instead of
    accumulating (beta = 0).

    Epilogues: when that zero-filled output is an f32 `memref.alloc` whose
    only readers are generics that narrow it (`arith.truncf` to the f16 or
    bf16 type of the operands, see `amp/Transforms/ContractionEpilogues.h`),
    the call writes the 16-bit type itself (cType/yType f16 or bf16, f32
    compute, one rounding) and the f32 buffer goes away: a conversion-only
    generic is erased and the call writes its output; a generic that fuses
    the narrowing with more elementwise work reads the 16-bit buffer in
    place of its `truncf`. An accumulator with any other reader stays f32.
    On the GPU an NHWC/FHWC convolution whose one reader computes a
    per-channel scale and shift of it, maybe a residual and a ReLU (batch
    norm in inference) is one `ampGpuConv2dEpilogue` call (cuDNN's graph
    API), its per-channel terms computed by a generic over the channels
    before it (`conv-epilogues`).

    FP8 GEMMs (`amp.scaled_matmul` on buffers, from
    `amp-float8-contractions`: cuBLASLt's TN layout) become
    `ampGpuScaledGemm` (`ampCpuLibraryScaledGemm` with target=cpu), built
    from the op: its 0-d scale buffer is the call's A scale pointer, and
    an f32 destination whose readers only narrow it to bf16 or f16 is
    written in that type, folded as above (a 16-bit D). A linalg (batch)
    matmul of FP8 operands is the same call with NULL scales (1). When the
    call's f32 output is reduced by an abs-max generic (an `amp.amax`
    lowered: a 0-d f32 buffer filled with +0, `maximumf(out, absf(in))`
    over all of it) with nothing writing the output in between, the call's
    amax pointer computes it instead (the reduction and the fill go, the
    buffer is allocated before the call); otherwise it is NULL. A scaled
    matmul the call does not take (a chip before sm_89 with
    `float8-gemms=false`, sizes cuBLASLt refuses) stays, with a remark, for
    `amp-float8-scaling-to-linalg` to make loops of.

    GEMM sizes, leading dimensions and batch strides may be dynamic (a
    frontend's dynamic batch): the call reads them from the buffers'
    descriptors at run time, and so may a convolution's batch (the cuDNN
    call sets its descriptors at each call). Ops that do not fit (a
    convolution with another dynamic dimension or stride, or of another
    form: 1-D or 3-D, or another filter order; a non-contiguous inner
    dimension, mixed operand types,
    other indexing maps) stay linalg ops, to become generated kernels, with
    a remark that says why.

    With `target=cpu` (`--lower-to-cpu`'s `libraries`), the same matmuls
    and batch matmuls, with the same epilogues, become calls of
    `ampCpuLibraryGemm` on host pointers: the host's CBLAS library
    (OpenBLAS), f16/bf16 operands widened to f32, f32 accumulation, a 16-bit
    result written rounded once. The same convolutions, and
    `linalg.conv_2d_nhwc_fhwc` (what `tosa.conv2d` lowers to), become calls
    of `ampCpuLibraryConv2d`: the runtime packs each image into a column
    buffer (im2col, widening f16/bf16 to f32) for that f32 GEMM; their batch
    may be dynamic. Other convolutions (grouped, depthwise, 1-D, 3-D) stay
    linalg ops (loops), with a remark.

    The calls are built by one pattern set per family
    (`populateAmpGemmToLibraryCallsPatterns`,
    `populateAmpScaledGemmToLibraryCallsPatterns`,
    `populateAmpConvToLibraryCallsPatterns`), each asking the target's
    `LibraryBackend` what its libraries take, and applied once per op in
    program order (`applyLibraryCallPatterns`).
  }];
  let options = [
    Option<"target", "target", "std::string", "\"gpu\"",
           "Where the calls run: gpu (cuBLAS/cuDNN on device pointers) or "
           "cpu (ampCpuLibraryGemm/ampCpuLibraryConv2d, the host's CBLAS, "
           "on host pointers)">,
    Option<"convolutions", "convolutions", "bool", "true",
           "2-D convolutions as library calls too; false: they stay linalg "
           "ops (generated kernels or loops), without a remark">,
    Option<"convEpilogues", "conv-epilogues", "bool", "true",
           "target=gpu: the one elementwise generic reading an NHWC/FHWC "
           "convolution's output, when it computes a per-channel scale and "
           "bias, maybe a residual and a ReLU of it (batch norm in "
           "inference), is computed by the call "
           "(ampGpuConv2dEpilogue: cuDNN's graph API), its per-channel "
           "terms by a generic over the channels; false: it stays a "
           "kernel">,
    Option<"float8Gemms", "float8-gemms", "bool", "true",
           "target=gpu: the chip has cuBLASLt's FP8 GEMMs (sm_89 and later); "
           "false: an FP8 GEMM stays a generated kernel, with a remark "
           "(decide FP8 with fp8-kernels=none for bf16 calls instead)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"
  ];
}


def AmpMemRefToGPUPass : Pass<"amp-memref-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Put the buffers of a bufferized module on the device";
  let description = [{
    Runs after ownership-based buffer deallocation (which decides what is
    freed where, in loops and across calls, with `bufferization.dealloc`)
    and instead of its lowering. `memref.alloc` becomes `gpu.alloc`,
    `memref.dealloc` `gpu.dealloc`, `bufferization.clone` a `gpu.alloc` and
    a `linalg.copy`. Each `bufferization.dealloc` becomes host scalar code
    (pointer comparisons for aliasing and the retained values' ownership)
    and `gpu.dealloc`: an unconditional one where the condition is known,
    else one of a `memref<i8>` descriptor of the selected pointer (the
    buffer's or NULL, which `mgpuMemFree` ignores), so that no region (and
    no host synchronisation from `gpu-async-region`) is needed.
    `memref.get_global` (a constant) becomes a call of the runtime's
    `ampGpuConstant(hostPtr, bytes, slot)`, a device copy uploaded once
    per loaded module, cached in `slot` (a zeroed private global
    `<global>__amp_device_copy` of the module, one per constant global),
    and never freed by compiled code. `memref.copy` becomes
    `linalg.copy`, a kernel whatever the layouts. Function arguments are
    taken to be device buffers already. The collectives' buffers
    (`amp.all_reduce_in_place`) are then device buffers:
    `amp-to-library-calls{device=true}` runs after it.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"
  ];
}

def AmpGPUToSimPass
    : Pass<"amp-gpu-to-sim", "::mlir::ModuleOp"> {
  let summary = "Make NVVM kernels host functions that the GPU simulator "
                "launches";
  let description = [{
    Runs in `--lower-to-gpu="simulate=true"` in place of
    `gpu-module-to-binary`, on the same IR: host code already lowered by
    `gpu-to-llvm`, kernels already lowered to the LLVM and NVVM dialects.
    Every function and global of each `gpu.module` moves into the host
    module (renamed `<module>.<symbol>`); each NVVM op becomes a call into
    the simulator (`libamp_runtime_gpusim`, `AmpGpuSim.h`): special
    registers `ampSimSpecialRegister`, `nvvm.barrier0` `ampSimBarrier`,
    `nvvm.shfl.sync` `ampSimShuffle`. Every load and store through a pointer
    that is not a kernel `alloca` or a module global is checked by
    `ampSimCheckAccess` (out-of-bounds accesses are reported with the
    kernel's name, and the simulator counts their bytes). Each basic block
    that computes on floating-point values starts with a call of
    `ampSimCountFlops` with its count of floating-point operations (for the
    simulator's roofline estimate). A packed entry `<module>.<kernel>.packed(ptr params)`
    unpacks the cuLaunchKernel parameter array, and each `gpu.launch_func`
    becomes a call of `ampSimLaunchKernelWithSizes` with the kernel's name,
    that entry, the grid, the block, whether the kernel synchronises (then
    its threads run as fibers) and the byte size of each parameter (a
    constant global `<kernel name>.param_sizes`, which a CUDA graph's
    capture reads to keep the parameters' values).

    An NVVM op the simulator does not model (tensor-core, async-copy or
    cluster ops, dynamic shared memory) is an error naming the kernel and
    the op, and the pass fails.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Float8ToNVVM
//===----------------------------------------------------------------------===//

def AmpFloat8ToNVVMPass : Pass<"amp-float8-to-nvvm"> {
  let summary = "Saturated f32 -> FP8 roundings in GPU kernels as PTX's "
                "cvt.rn.satfinite (sm_89 and later)";
  let description = [{
    In the kernels of `gpu.module`s, an `arith.truncf` from f32 to
    `f8E4M3FN` or `f8E5M2` whose operand is clamped to that type's finite
    range by `arith.maximumf` and `arith.minimumf` (what
    `amp-float8-scaling-to-linalg` writes for `amp.quantize`) becomes
    `nvvm.convert.f32x2.to.f8x2` with round-to-nearest and `satfinite`
    (`cvt.rn.satfinite.e4m3x2.f32`, `.e5m2x2`), of which it keeps the low
    byte, bitcast to the FP8 type. PTX rounds to nearest even into the
    subnormals and keeps NaN, as `arith.truncf` does: on a clamped value
    the bits are the same as `amp-expand-float8`'s integer code, in one
    instruction. Other FP8 conversions (an unclamped `truncf`, `extf`,
    vectors) are left to `amp-expand-float8`. The instruction needs
    sm_89 or later: `--lower-to-gpu` runs this pass for such a `chip`
    only.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

#endif // AMP_CONVERSION_PASSES_TD
