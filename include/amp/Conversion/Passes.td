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

def AmpLowerLossScalingPass : Pass<"amp-lower-loss-scaling"> {
  let summary = "Lower the amp loss-scaling ops to linalg and arith";
  let description = [{
    Gives `amp.scale_loss`, `amp.check_finite_and_unscale` and
    `amp.update_loss_scaling` their meaning as tensor code, so that both
    pipelines compile them like any other computation:

    * `amp.scale_loss`: `float(loss) * scale`, an elementwise generic for a
      tensor loss;
    * `amp.check_finite_and_unscale`: `1/scale` computed in f64 and rounded
      to f32; then per gradient ONE generic that writes
      `round(float(g) * inv)` and ORs `!isfinite(float(g))` into the flag
      (one pass over the gradient); the flag is chained through the
      gradients, so there is no separate combining step. The generic carries
      `library_call = "amp_check_finite_and_unscale"`: on the GPU pipeline
      it becomes a call of the runtime's parallel kernel;
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
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def AmpFuseContractionEpiloguesPass
    : Pass<"amp-fuse-contraction-epilogues", "::mlir::func::FuncOp"> {
  let summary = "Fuse contractions into the tiles of their narrowing epilogue";
  let description = [{
    For `--lower-to-cpu`, on tensors. A matmul, batch matmul or convolution
    whose f32 accumulator starts as a `linalg.fill` and whose result has one
    user, a `linalg.generic` that only narrows it (`arith.truncf` to f16 or
    bf16, possibly fused with bias adds and activations): the generic, the
    epilogue, is tiled in `scf.for` loops (`tile-size` along its two
    innermost dimensions, 1 along the others) and the contraction and the
    fill are fused into the loop body (upstream's
    `scf::tileConsumerAndFuseProducersUsingSCF`). After bufferization only a
    tile of f32 is allocated instead of the whole result, and each element
    is still accumulated in f32 over the whole reduction and rounded once.

    ```mlir
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> ...
    %mm = linalg.matmul ins(%a, %b : tensor<64x128xf16>, tensor<128x256xf16>)
                        outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
    %r = linalg.generic ... ins(%mm) outs(%e16 : tensor<64x256xf16>) {
      %t = arith.truncf %in : f32 to f16 ...
    // becomes
    %r = scf.for %i ... { scf.for %j ... {
      %acc = linalg.fill ... -> tensor<32x32xf32>
      %t = linalg.matmul ins(%a_i, %b_j ...) outs(%acc) -> tensor<32x32xf32>
      %n = linalg.generic ... ins(%t) ... -> tensor<32x32xf16>
      tensor.insert_slice %n ... }}
    ```

    Contractions with any other user of their f32 result are left alone.
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", "32",
           "Tile size along the two innermost dimensions of the epilogue">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpFuseElementwisePass : Pass<"amp-fuse-elementwise"> {
  let summary = "Fuse producer/consumer chains of elementwise linalg ops";
  let description = [{
    Fuses an elementwise `linalg.generic` into its elementwise consumer when
    it has no other user, so that a chain (bias add, activation, the casts
    AMP inserted) becomes one loop nest: one kernel on GPUs, one pass over
    memory on CPUs. Named elementwise ops (`linalg.add`, `linalg.exp`, ...)
    are generalized first so that they fuse too; fills and copies stay.
    Unlike upstream's `linalg-fuse-elementwise-ops`, it does not propagate
    reshapes, which would turn named matmuls and convolutions into generics
    and lose their library calls.

    When rounding once (the `rounding` option, or the module's
    `amp.rounding`, as `amp-round-once`), an elementwise producer read by
    several ops is first cloned for each generic reader that could fuse it,
    as Inductor inlines pointwise ops into their consumers: it is recomputed
    in f32 in each loop nest instead of stored (and rounded) once and read
    back. The softmax's exponentials, for example, are recomputed by the sum
    and the division; a layer norm's output is stored for the next matmul
    (which reads it rounded) and recomputed by the residual add. A producer
    with a large body, or more readers than `max-recompute-users`, and the
    narrowing of a contraction's result (its epilogue) are stored as
    before.
  }];
  let options = [
    Option<"rounding", "rounding", "std::string", "\"\"",
           "once (recompute shared elementwise producers), per-op, or "
           "empty: the module's amp.rounding (once if none)">,
    Option<"maxRecomputeUsers", "max-recompute-users", "unsigned", "4",
           "The most readers a shared elementwise producer may have and "
           "still be recomputed by each of them">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpPrepareContractionsPass
    : Pass<"amp-prepare-contractions", "::mlir::func::FuncOp"> {
  let summary = "Give each contraction a fill of its f32 accumulator of its "
                "own; replace empty contractions by their accumulator";
  let description = [{
    For both lowerings, on tensors, before their epilogues are matched
    (`amp-fuse-contraction-epilogues` on the CPU,
    `amp-linalg-to-library-calls` on the GPU). For each matmul, batch
    matmul or convolution:

    * **A fill of its own.** After `--cse` one zero `linalg.fill` often
      initialises the accumulators of several contractions of the same
      shape; shared, it would stop both lowerings from writing each result's
      16-bit narrowing from the contraction, and bufferization would copy
      it. A contraction whose init is a `linalg.fill` used by other ops gets
      a clone of it right before it (with a clone of the `tensor.empty` it
      fills), as IREE clones such producers into each dispatch region; a
      fill of its own in the same block is moved right before it.
    * **Empty loops.** A contraction with a loop of static size 0 (a matmul
      with K = 0) runs its body no time: its result is its init, which
      replaces it. Tiling it would fail (upstream's tile-and-fuse crashes
      on a zero-sized reduction), and no library call is made for it.

    ```mlir
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> ...
    %q = linalg.matmul ins(%x, %wq ...) outs(%acc : tensor<16x16xf32>) ...
    %k = linalg.matmul ins(%x, %wk ...) outs(%acc : tensor<16x16xf32>) ...
    // becomes
    %e1 = tensor.empty() : tensor<16x16xf32>
    %acc1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x16xf32>) -> ...
    %q = linalg.matmul ins(%x, %wq ...) outs(%acc1 : tensor<16x16xf32>) ...
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> ...
    %k = linalg.matmul ins(%x, %wk ...) outs(%acc : tensor<16x16xf32>) ...
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// GPU (buffers)
//===----------------------------------------------------------------------===//

def AmpCheckHostCodePass
    : Pass<"amp-check-host-code", "::mlir::func::FuncOp"> {
  let summary = "Reject host code that touches device buffers";
  let description = [{
    Runs after loops are mapped to GPU kernels. In `--lower-to-gpu` every
    buffer lives on the device, so a parallel loop that could not be mapped,
    a linalg op left over, or a `memref.load`/`memref.store` outside
    `gpu.launch` (other than on a host `memref.alloca`) would fault at run
    time: each is an error naming the op, and the pass fails. So is a
    `gpu.launch` whose constant sizes exceed CUDA's limits (block at most
    (1024, 1024, 64) and 1024 threads, grid y and z at most 65535), which
    `cuLaunchKernel` would refuse.
  }];
}

def AmpElideLibraryCallWaitsPass
    : Pass<"amp-elide-library-call-waits", "::mlir::func::FuncOp"> {
  let summary = "No host wait around calls of stream-ordered runtime functions";
  let description = [{
    Runs after `gpu-async-region`, which makes the host wait for all GPU
    work before every call and start a new stream after it. For calls of
    functions marked `amp.stream_ordered` (the cuBLAS/cuDNN wrappers of
    libamp_runtime, which enqueue on the runtime's single in-order stream,
    as its kernels, copies and allocations do), the wait is dropped and the
    token chain goes on across the call: the host no longer blocks between
    kernels and library calls. Only the final wait of the function remains.
    Calls of functions defined in the module (compiled the same way) count
    as stream-ordered too, stores to host stack memory (`llvm.alloca`, the
    tables of library calls) may come between the wait and the call, and
    the wait at the end of an `scf.for`/`scf.while` body of the function is
    dropped when a host wait follows the loop in the function body. Code
    compiled this way needs a runtime whose streams are one in-order
    stream, as libamp_runtime's are.
  }];
}

def AmpPreciseGpuMathPass
    : Pass<"amp-precise-gpu-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Correctly rounded sqrt and rsqrt in GPU kernels";
  let description = [{
    Runs on GPU modules before `convert-gpu-to-nvvm`, which would lower
    `math.sqrt` to libdevice's `__nv_sqrtf`: with LLVM 22's NVVMReflect
    defaults (`__CUDA_PREC_SQRT` reads 0) that is `sqrt.approx.f32`. Each
    `math.sqrt` and `math.rsqrt` on f32, f16 or bf16 without the `afn`
    fastmath flag becomes `llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"` (on
    the operand widened to f32 and narrowed back for 16-bit types), and
    rsqrt `1.0 / sqrt` (`div.rn.f32`), as the CPU lowering computes them.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect"
  ];
}

def AmpLinalgToLibraryCallsPass
    : Pass<"amp-linalg-to-library-calls", "::mlir::ModuleOp"> {
  let summary = "Matmuls as cuBLAS, 2-D convolutions as cuDNN, gradient "
                "unscaling as runtime calls";
  let description = [{
    On bufferized functions, rewrites `linalg.matmul` and
    `linalg.batch_matmul` (including transposed-operand indexing maps, the
    form `tosa.matmul` lowers to) into calls of libamp_runtime's
    `ampGpuGemm` (cuBLAS `cublasGemmEx` / strided-batched, f16 or bf16
    operands, f32 compute, Tensor Core math), and `linalg.conv_2d_nchw_fchw`
    / `linalg.conv_2d_nhwc_hwcf` (strides, dilations; padding is the
    separate pad that produces the input) into `ampGpuConv2d` (cuDNN).
    Buffers are passed as device pointers; a `linalg.fill` of zero into the
    output right before the op is erased and the call overwrites instead of
    accumulating (beta = 0).

    Epilogues: when that zero-filled output is an f32 `memref.alloc` whose
    only readers are generics that narrow it (`arith.truncf` to the f16 or
    bf16 type of the operands, see `amp/Conversion/ContractionEpilogues.h`),
    the call writes the 16-bit type itself (cType/yType f16 or bf16, f32
    compute, one rounding) and the f32 buffer goes away: a conversion-only
    generic is erased and the call writes its output; a generic that fuses
    the narrowing with more elementwise work reads the 16-bit buffer in
    place of its `truncf`. An accumulator with any other reader stays f32.

    The per-gradient generics of `amp-lower-loss-scaling` (library_call
    `"amp_check_finite_and_unscale"`) of one `amp.check_finite_and_unscale`
    (consecutive in a block, one inverse scale, one flag, nothing in between
    that touches memory other than allocations) become one call of
    `ampGpuCheckFiniteAndUnscaleBuffers`, the runtime's one-launch unscale
    and check of a table of buffers, which reads the inverse scale and ORs
    into the flag on the device (no host synchronisation). The table's host
    arrays (pointers, element counts, dtypes) are `llvm.alloca`s in the
    function's entry block, filled right before the call. With a host-scalar
    scale a generic stays a generated kernel, with a remark.

    GEMM sizes, leading dimensions and batch strides may be dynamic (a
    frontend's dynamic batch): the call reads them from the buffers'
    descriptors at run time. Ops that do not fit (a convolution of dynamic
    shape or strides, a non-contiguous inner dimension, mixed operand
    types, other indexing maps) stay linalg ops, to become generated
    kernels, with a remark that says why.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"
  ];
}

def AmpMapLoopsToGPUPass
    : Pass<"amp-map-loops-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Tile parallel loops into blocks and threads";
  let description = [{
    Prepares loops for `gpu-map-parallel-loops` and
    `convert-parallel-loops-to-gpu`: every outermost `scf.parallel` is
    flattened into one dimension (`collapseParallelLoops`; the indices are
    recovered by division) and tiled by `block-size`, so that every launch
    is 1-D with `block-size` threads per block (a loop shorter than a block:
    one block of its length), within CUDA's limits whatever the rank.
    Reductions with an f32 accumulator (the `scf.for` loops that
    `convert-linalg-to-parallel-loops` writes for the reduction dimensions,
    inside or outside the parallel output loops, folding with `addf`, `mulf`, `maxnumf`, `maximumf`, `minnumf` or
    `minimumf`) become a `gpu.launch` with one block per output (256
    threads, or a warp multiple for shorter rows; 1024 for a reduction to
    one value): each thread folds a strided share from the identity, a
    `gpu.all_reduce` combines them (warp shuffles and shared memory), and
    thread 0 folds the total into the output. A reduction epilogue is
    applied there too (`fuse-reduction-epilogues`): when the f32 result is a
    temporary that only the next loop reads, elementwise at the output's
    indices (a mean's division and its narrowing to f16), thread 0 runs
    that loop's body on the total and stores what it stores, so the kernel
    writes the low type and the f32 result and the second kernel are gone
    (the values are the same bits). And host code that reads or writes memory outside any
    parallel loop (the loops of a reduction to a scalar, a store) is wrapped
    in a one-iteration `scf.parallel`, so that it runs on the device where
    its buffers live. Do not canonicalize between this pass and the mapping:
    the canonicalizer merges the tile loops back.

    Elementwise loops over whole buffers (static bounds, every load and
    store at exactly the loop's indices of an identity-layout buffer of the
    loop's shape, arith ops on f16/bf16/f32/i32/f64/i64 scalars) are first
    vectorised: each thread loads and stores `vector-bytes` (16) bytes of
    the widest type at once (`vector.load`/`vector.store` aligned to their
    size, `ld.global.v4.f32` in PTX), a narrower type proportionally less
    (an f16 -> f32 cast: 8-byte loads, 16-byte stores). The element count
    must be a multiple of the vector length. Device buffers must then be
    16-byte aligned: allocations are (cudaMalloc aligns to 256), and the GPU
    simulator checks every aligned access.
  }];
  let options = [
    Option<"blockSize", "block-size", "unsigned", "256",
           "Threads per block along the innermost dimension">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "Bytes per access of the widest type in vectorised elementwise "
           "loops (0: no vectorisation)">,
    Option<"fuseReductionEpilogues", "fuse-reduction-epilogues", "bool",
           "true",
           "Apply the elementwise loop that is the only reader of a "
           "reduction's result in the reduction's kernel">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def AmpStripDeviceAssertsPass : Pass<"amp-strip-device-asserts"> {
  let summary = "Drop the cf.assert checks inside loops that become GPU "
                "kernels";
  let description = [{
    Frontends guard gathers with `cf.assert` (torch-mlir's index bounds
    checks in `cross_entropy`, `gather`, `embedding`). Upstream
    `convert-parallel-loops-to-gpu` does not map a loop whose body has one,
    so the whole loop would stay on the host, where `--lower-to-gpu`
    refuses it. This pass erases every `cf.assert` nested in an
    `scf.parallel` (the loops that become kernels), with a remark per
    assert, as IREE strips debug asserts from its dispatches. The CPU
    pipeline keeps them. On the device an out-of-range index is then not
    reported by the kernel; the GPU simulator (`--target=gpu-sim`) still
    reports the out-of-bounds access it causes.
  }];
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
    `ampGpuConstant(hostPtr, bytes)`, a device copy uploaded once per
    process and never freed by compiled code. `memref.copy` becomes
    `linalg.copy`, a kernel whatever the layouts. The host collective of a
    bufferized `amp.all_reduce`, `llvm.call @ampAllReduce`, becomes a call
    of the runtime's device twin `ampGpuAllReduce` (same arguments; it
    copies the buffer to the host, reduces and copies back, in stream
    order). Function arguments are taken to be device buffers already.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"
  ];
}

def AmpSimulateGPUKernelsPass
    : Pass<"amp-simulate-gpu-kernels", "::mlir::ModuleOp"> {
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
    kernel's name). A packed entry `<module>.<kernel>.packed(ptr params)`
    unpacks the cuLaunchKernel parameter array, and each `gpu.launch_func`
    becomes a call of `ampSimLaunchKernel` with the kernel's name, that
    entry, the grid, the block and whether the kernel synchronises (then
    its threads run as fibers).

    An NVVM op the simulator does not model (tensor-core, async-copy or
    cluster ops, dynamic shared memory) is an error naming the kernel and
    the op, and the pass fails.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // AMP_CONVERSION_PASSES_TD
