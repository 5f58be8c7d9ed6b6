//===- Passes.td - amp lowering transforms -----------------*- tablegen -*-===//
//
// Part of amp-mlir. The passes that --lower-to-cpu and --lower-to-gpu use
// that are not conversions: they rewrite within one level (fusion,
// contraction epilogues, aggregate decomposition, host waits, GPU math,
// checks of host code). One pass per file of lib/Transforms, named after its
// flag. Grouped by banner, alphabetical within a group.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TRANSFORMS_PASSES_TD
#define AMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"
include "amp/Dialect/Amp/Transforms/PassOptions.td"

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

    Contractions with any other user of their f32 result are left alone,
    with `skip-library-contractions` so are matmuls and batch matmuls, and
    with `skip-library-convolutions` the 2-D convolutions
    `linalg.conv_2d_nchw_fchw`, `conv_2d_nhwc_hwcf` and `conv_2d_nhwc_fhwc`:
    `amp-linalg-to-library-calls target=cpu` computes each of them whole in
    one library call that writes the narrowed result itself.
  }];
  let options = [
    Option<"tileSize", "tile-size", "int64_t", "32",
           "Tile size along the two innermost dimensions of the epilogue">,
    Option<"skipLibraryContractions", "skip-library-contractions", "bool",
           "false",
           "Leave matmuls and batch matmuls (CPU library calls) whole">,
    Option<"skipLibraryConvolutions", "skip-library-convolutions", "bool",
           "false",
           "Leave the 2-D convolutions of the CPU library calls whole">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpSplitReductionsPass
    : Pass<"amp-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "Reductions accumulated in f32 registers, `ratio` lanes at a "
                "time, so that their loops vectorise";
  let description = [{
    For `--lower-to-cpu`, on tensors. A `linalg.generic` with one reduction
    dimension, innermost and contiguous in its inputs (softmax's max and
    sum, a norm's mean and variance), becomes a loop nest whose innermost
    loop adds each element into its own accumulator: the accumulator is
    read and written at every step, and LLVM may not reorder floating-point
    sums, so the loop stays scalar and each step waits for the previous
    one. This pass rewrites it in two steps:

    - a reduction into f16 or bf16 (its body extends the accumulator to
      f32 and truncates what it yields, as `amp-round-once` leaves it)
      accumulates in f32 instead, and is rounded once after the loop nest
      by an elementwise `linalg.generic` (one rounding where there was one
      per element; for a max or min the result is the same);
    - the reduction dimension of size `n` is split into `n / ratio` steps
      of `ratio` parallel lanes (upstream's `linalg::splitReduction` with
      an inner parallel dimension): lane `j` sums the elements
      `j, j + ratio, ...`, which is an 8-wide vector of f32 for the default
      ratio, and a second, small reduction adds the lanes.

    The order of the sum is fixed by `ratio`, not by the CPU the code is
    compiled for: the result has the same bits on every machine. Only
    reductions with static sizes, a dimension at least twice `ratio` and
    divisible by it, one result and a combiner upstream recognises (add,
    mul, max, min) are split; the others are left as they are. `ratio` 0
    turns the pass off.

    ```mlir
    %r = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<8x512xf32>) outs(%fill : tensor<8xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %s = arith.addf %in, %acc : f32
        linalg.yield %s : f32 } -> tensor<8xf32>
    // becomes
    %e = tensor.expand_shape %x [[0], [1, 2]] : ... into tensor<8x64x8xf32>
    %p = linalg.generic {iterator_types = ["parallel", "reduction",
                                           "parallel"]}
        ins(%e) outs(%lanes : tensor<8x8xf32>) { ... }
    %r = linalg.generic {iterator_types = ["parallel", "reduction"]}
        ins(%p) outs(%fill : tensor<8xf32>) { ... }
    ```
  }];
  let options = [
    Option<"ratio", "ratio", "int64_t", "8",
           "Parallel lanes of a split reduction (0: no splitting)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpFuseAttentionPass
    : Pass<"amp-fuse-attention", "::mlir::func::FuncOp"> {
  let summary = "Make a model's attention (matmul, scale, mask, softmax, "
                "matmul) one amp.attention, and its backward one "
                "amp.attention_backward";
  let description = [{
    Finds, on tensors, the chain that a model's attention is written as
    (torch-mlir's form, after the precision passes: their casts are looked
    through):

        S = batch_matmul(Q, K^T)       (a zero-filled f32 accumulator)
        X = S * c1 / c2 ... + bias     (elementwise: constant factors, one
                                        additive mask of B|1 x H|1 x Sq x Skv)
        P = softmax(X)                 (the rows' max, exp(X - max), its sum,
                                        the division)
        O = batch_matmul(P, V)

    with Q, K^T and V `B*H x ...` collapses of 4-D tensors (the scores and
    softmax on the `B x H x Sq x Skv` view, or on the `B*H x Sq x Skv`
    product itself as `linalg.softmax` decomposes it, and Q K^T also as a
    batch matmul that reads K through its indexing maps), and makes it one
    `amp.attention` (scale and bias as found, the output of the element
    type the chain stored). Where Q, K and V are the head-split
    transposes of `B x S x H x D` tensors (a projection's output) and the
    output is transposed back, the op reads and writes that layout
    (`bshd`): no transpose is left.

    The fused op rounds once: the chain's roundings of the scores and
    probabilities to 16 bits (per op at O2) go, as in PyTorch's fused
    attention. It is made only where the GPU's fused call takes it
    (`ampGpuAttention`: f16 or bf16, a head dimension that is a multiple of
    8 up to 128).

    In a training step the backward reads the chain's values (torch's
    autograd: `dV = P^T dO`, `dP = dO V^T`, the softmax's gradient
    `dS = dP*P - P*rowsum(dP*P)` scaled by the scores' factors, `dQ = dS K`,
    `dK^T = Q^T dS`, as batch matmuls of transposes of the forward's
    operands). Where every outside reader is that backward, the forward
    op also writes its rows' log-sum-exp (`stats`) and the backward becomes
    one `amp.attention_backward` reading the forward's output and stats,
    in the same layout; its three products are replaced (merged back
    without a transpose where the op is `bshd`). Otherwise, and where any
    value of the chain has another reader, the chain stays and a remark
    says why; so does every chain for a chip before sm_80, which cuDNN's
    fused attention does not run on. `--lower-to-gpu` runs it with
    `libraries` (`compute-capability` from its `chip`).
  }];
  let options = [
    Option<"computeCapability", "compute-capability", "int", "90",
           "The chip's compute capability (10 * major + minor, as "
           "--lower-to-gpu's chip): before 80 (sm_80, Ampere) cuDNN has no "
           "fused attention, and every chain stays, with a remark">
  ];
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::linalg::LinalgDialect",
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
    A reshape between two generics (torch-mlir imports a linear on
    [B*S, N] and reads it as [B, S, N]) is moved out of the way when that
    lets them fuse, as IREE moves reshapes to its dispatch regions' edges:
    an elementwise producer read through an `expand_shape` only by generics
    is computed in the expanded shape, and a generic that reads a
    `collapse_shape` of a generic's result in its producer's shape. Unlike
    upstream's `linalg-fuse-elementwise-ops`, named matmuls and
    convolutions are never turned into generics (they keep their library
    calls): a reshape stops at them.

    When rounding once (the `rounding` option, or the module's
    `amp.rounding`, as `amp-round-once`), an elementwise producer read by
    several ops is first cloned for each generic reader that could fuse it,
    as Inductor inlines pointwise ops into their consumers: it is recomputed
    in f32 in each loop nest instead of stored (and rounded) once and read
    back. The softmax's exponentials, for example, are recomputed by the sum
    and the division; a layer norm's output is stored for the next matmul
    (which reads it rounded) and recomputed by the residual add. A producer
    with a large body, or more readers than `max-recompute-users`, and what
    may be a contraction's epilogue (an op on its result, as the narrowing,
    that a library call or a fused tile could write) are stored as before.
    An op that also reads a value computed from the contraction's result is
    not an epilogue, and is recomputed when every one of its readers can
    fuse it, that value is a broadcast statistic (not a full-size tensor),
    and the result it reads is no wider than what it stores: batch norm's
    `x - mean` after a convolution is recomputed by the variance, the
    normalization and the backward pass, which read the convolution's
    result instead of a stored copy.

    After fusion, a reduction that computes what an earlier one of its
    block computes (the same inputs, body and maps, and inits that are the
    same values or fills of the same value) is replaced by it: torch's
    batch norm sums its input twice, once for the mean and once inside the
    variance, and one pass over the activation is saved per batch norm.
    Unlike CSE, which this pipeline does not run here, it merges no fills
    (each contraction keeps its own accumulator).
  }];
  let options = [
    AmpLoweringRoundingOption,
    Option<"maxRecomputeUsers", "max-recompute-users", "unsigned", "4",
           "The most readers a shared elementwise producer may have and "
           "still be recomputed by each of them">,
    Option<"libraryEpilogues", "library-epilogues", "bool", "false",
           "The contractions are library calls that write a 16-bit result "
           "themselves: a result narrowed to 16 bits counts as the "
           "contraction's, so that an elementwise op reading it with no "
           "statistic of it (a bias add) is stored once as the call's "
           "epilogue rather than recomputed by its readers">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpFuseSiblingReductionsPass : Pass<"amp-fuse-sibling-reductions"> {
  let summary = "Compute reductions that read the same tensor over the same "
                "loops in one generic of several results";
  let description = [{
    Merges two reduction generics (on tensors) of a block into one generic
    with the results of both when they run the same loops (the same
    iterators, the same map for all their results, and an input that both
    read through the same permutation map, so that the loops' sizes are
    the same) and nothing reads the first's results before the second: the
    merged generic replaces both at the second's place, reads each input
    (tensor and map) once, and computes each result from the same values,
    in the same order, as before. Merged generics merge again with later
    siblings. Views of the first's results between the two (a reshape of
    a sum) move after the merged generic; a computation on them in between
    (the rest of a residual branch's backward) keeps both apart, as it
    would have to move too. The first's own fill
    (`amp-prepare-contractions` gives each reduction one) moves right
    before the merged generic, so that each fill stays right before its
    reduction.

    The GPU lowering makes a generic of several reductions one kernel with
    an accumulator per result (`amp-map-loops-to-gpu`): batch norm's
    backward sums the output gradient and its product with the centred
    input, two reductions over the same tensors, which then read them once.
    The CPU pipeline does not run this pass (its reductions split into
    vector lanes one result at a time, `amp-split-reductions`).

    ```mlir
    %s = linalg.generic {... reduction ...} ins(%dy : tensor<?x64x8x8xf16>) outs(%zero : tensor<64xf32>) ...
    %p = linalg.generic {... reduction ...} ins(%dy, %x : ...) outs(%zero2 : tensor<64xf32>) ...
    // becomes
    %m:2 = linalg.generic {... reduction ...} ins(%dy, %x : ...) outs(%zero, %zero2 : tensor<64xf32>, tensor<64xf32>) ...
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AmpPrepareContractionsPass
    : Pass<"amp-prepare-contractions", "::mlir::func::FuncOp"> {
  let summary = "Give each contraction a fill of its f32 accumulator (and "
                "of its input's zero padding) of its own, read transposed "
                "operands through its indexing maps, replace empty "
                "contractions by their accumulator";
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
      fill of its own in the same block is moved right before it, with a
      clone of its `tensor.empty` where other ops share that (`--cse`
      merges the empties of one type: bufferized, the accumulator would be
      the buffer of an earlier op, allocated there, and the GPU's 16-bit
      narrowing of it would not apply; GPT-2 at 3072 tokens). So does
      each reduction (a `linalg.generic` or `linalg.reduce` of one result,
      of any type: a batch norm's sums, a softmax's maximum and sum, O2's
      maximum in f16): bufferized, its buffer is then filled in place
      instead of copied from a shared fill, a kernel per reduction on a
      GPU.
    * **A padding of its own.** A convolution whose input is inserted
      (`tensor.insert_slice`) into a zero fill that other ops share (after
      `--cse`, the paddings of a backward's gradients of the same shape)
      gets a clone of that fill right before the insertion. Bufferized,
      the padded buffer is then filled in place instead of copied from the
      shared fill, and the library calls' padding matcher sees a fill and a
      copy: the call reads the unpadded source with its own padding.
    * **Transposed operands.** A `linalg.matmul` or `linalg.batch_matmul`
      operand that is a `linalg.transpose` of its two innermost dimensions
      (torch-mlir imports `linear` as x times the transposed weight) is read
      through the contraction's indexing map instead: the map's two
      innermost results swap, which the library calls pass as transA/transB,
      so no transpose of the weights runs in every call. Transposes left
      unused are erased; others (of other dimensions, read by other ops)
      stay.
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

def AmpChannelsLastPass
    : Pass<"amp-channels-last", "::mlir::func::FuncOp"> {
  let summary = "Put 2-D convolutions, their gradients, pooling and the "
                "elementwise and reduction work between them in NHWC";
  let description = [{
    Tensor Cores and cuDNN's fast convolution kernels want the channels
    last (NHWC, filters KRSC); PyTorch models are NCHW. Where cuDNN is
    given NCHW it transforms each tensor to NHWC and back around the
    convolution, every time. This pass makes the layout change once, at the
    model's boundary, on tensors:

    * each `linalg.conv_2d_nchw_fchw` becomes `linalg.conv_2d_nhwc_fhwc`
      (filter `f x kh x kw x c`: cuDNN's KRSC), `linalg.pooling_nchw_max` /
      `_sum` become `linalg.pooling_nhwc_max` / `_sum`, and
      `amp.conv2d_backward_data` / `_filter` take `channels_last`; each
      reads its operands through a `linalg.transpose` to NHWC and its
      result is transposed back to NCHW;
    * the transposes then move until they meet and cancel: a transpose back
      to NCHW that a `linalg.generic` reads becomes that operand's indexing
      map (the generic reads the NHWC tensor), and a 4-D elementwise result
      of such a generic is written in NHWC, its loops interchanged so that
      the channels are innermost (the stores contiguous); a transpose to
      NHWC moves above a `tensor.pad` (its padding permuted) and into the
      generic that produces its only operand, and one back to NCHW below a
      pad; two transposes compose, and transposes of `tensor.empty` and
      `linalg.fill` are made in the new shape.

    What remains are transposes at the boundary: the model's input (which
    needs no gradient), the filters (function arguments in FCHW), and
    values that leave the NHWC region (a flatten before a linear layer, a
    function result). The function computes the same values: only where
    elements are stored changes, and the loops' order, so sums may round
    in another order.

    With `channel-multiple` (default 8), an NHWC convolution of 16-bit
    operands whose input channels are not a multiple of it (ResNet's RGB
    stem: 3) gets them padded with zeros to the next multiple, input and
    filter (and the input of its filter gradient, whose result is cut
    back): Tensor Cores need channels in multiples of 8. Zeros meet zeros
    only, so the results are the same; a remark says where it was done.

    Run on tensors before elementwise fusion (`--lower-to-gpu`'s
    `channels-last`).

    ```mlir
    %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<?x16x8x8xf16>, tensor<16x16x3x3xf16>) ...
    %r = linalg.generic {... (d0, d1, d2, d3) -> (d0, d1, d2, d3) ...} ins(%y ...)  // ReLU
    // becomes
    %y = linalg.conv_2d_nhwc_fhwc ins(%xt, %wt : tensor<?x8x8x16xf16>, tensor<16x3x3x16xf16>) ...
    %r = linalg.generic {... (d0, d1, d2, d3) -> (d0, d1, d2, d3) ...} ins(%y ...)  // NHWC
    ```
  }];
  let options = [
    Option<"channelMultiple", "channel-multiple", "int64_t", "8",
           "Pad the input channels of 16-bit NHWC convolutions to a multiple "
           "of this (0: none)">
  ];
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpRaiseConvolutionGradientsPass
    : Pass<"amp-raise-convolution-gradients", "::mlir::func::FuncOp"> {
  let summary = "Make the gradients of 2-D convolutions, written as forward "
                "convolutions, amp.conv2d_backward_data and "
                "amp.conv2d_backward_filter";
  let description = [{
    A training step from PyTorch writes the gradients of a 2-D convolution
    (NCHW input, FCHW filter) as forward convolutions (torch-mlir's and
    `from_torch_training`'s decompositions of `convolution_backward`):

    * **the input gradient** is a `linalg.conv_2d_nchw_fchw` of stride 1
      whose input is the output gradient `dy` with `stride - 1` zeros
      inserted between its rows and columns and padded
      (`tensor.insert_slice` with strides into a zero fill, a `tensor.pad`
      for stride 1, or `dy` itself), and whose filter is the forward filter
      flipped in both spatial dimensions with its two channel dimensions
      swapped (a `linalg.generic` that reads it with `tensor.extract`);
    * **the filter gradient** is a `linalg.conv_2d_nchw_fchw` of the input
      `x` by `dy`, both with batch and channels swapped
      (`linalg.transpose` with permutation `[1, 0, 2, 3]`), `x` padded by the
      forward padding on both sides, whose stride is the forward dilation
      and whose dilation is the forward stride, into a zero fill; its
      result cut to the kernel's size (`tensor.extract_slice`) and
      transposed back.

    This pass makes each of them the op that says what it is
    (`amp.conv2d_backward_data`, `amp.conv2d_backward_filter`, with the
    forward convolution's strides, padding and dilations), so that
    `amp-linalg-to-library-calls` can make it one call of cuDNN's backward
    convolution: no zero-inserted copy of `dy` (four times its size for a
    stride of 2), no transposes of `x` and `dy`, and no convolution whose
    "filter" is as large as the image. A cast (`arith.extf`/`arith.truncf`
    on tensors, what the precision passes insert) between these ops is
    kept: it is applied to the operand or the result of the new op
    instead.

    Only static shapes are raised, and only where the sizes are those of a
    forward convolution that cuDNN computes (its padding symmetric); every
    other convolution is left as it is. Run on tensors, before elementwise
    fusion, in `--lower-to-gpu` with `libraries`.

    ```mlir
    %xt = linalg.transpose ins(%x : tensor<2x3x8x8xf16>) outs(...) permutation = [1, 0, 2, 3]
    %dyt = linalg.transpose ins(%dy : tensor<2x8x4x4xf16>) outs(...) permutation = [1, 0, 2, 3]
    %p = tensor.pad %xt low[0, 0, 1, 1] high[0, 0, 1, 1] {...}
    %c = linalg.conv_2d_nchw_fchw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
        ins(%p, %dyt : tensor<3x2x10x10xf16>, tensor<8x2x4x4xf16>) outs(%zero : tensor<3x8x4x4xf32>) -> ...
    %s = tensor.extract_slice %c[0, 0, 0, 0] [3, 8, 3, 3] [1, 1, 1, 1] : ... to tensor<3x8x3x3xf32>
    %dw = linalg.transpose ins(%s : tensor<3x8x3x3xf32>) outs(...) permutation = [1, 0, 2, 3]
    // becomes
    %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x3x8x8xf16>, tensor<2x8x4x4xf16>)
        outs(%zero2 : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1]
        -> tensor<8x3x3x3xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def AmpNarrowConvolutionResultsPass
    : Pass<"amp-narrow-convolution-results", "::mlir::func::FuncOp"> {
  let summary = "Compute each convolution of 16-bit operands with an f32 "
                "result in its operands' type, and widen the result where "
                "it is read";
  let description = [{
    cuDNN's legacy API runs a convolution on x, w and y of one data type; it
    has no configuration that reads f16 or bf16 and writes f32. The
    runtime computes such a call exactly, by widening both operands to f32
    and running an f32 (TF32) convolution: two more passes over the
    operands, a result twice the size, and tensor cores at half the f16
    rate. In a training step at O1 and O2 most of them are gradients: the
    input gradient read by a batch norm's backward in f32, the filter
    gradient of an f32 master weight.

    This pass makes each such convolution compute in its operands' type
    instead, as PyTorch's autocast does: cuDNN accumulates in f32 and
    rounds the result once to f16 or bf16, which is written at half the
    bytes and widened (`arith.extf`, fused into its readers later) where it
    is read. A `arith.truncf` of the result to the operands' type reads the
    new result itself. One rounding more than the f32 result, for the f16
    or bf16 tensor-core rate and no widening passes.

    It applies to the 2-D convolutions that `ampGpuConv2d` takes
    (`linalg.conv_2d_nchw_fchw`, `conv_2d_nhwc_hwcf`, the grouped
    `conv_2d_ngchw_gfchw`, the depthwise `depthwise_conv_2d_nchw_chw`,
    `depthwise_conv_2d_nhwc_hwc` and `depthwise_conv_2d_nhwc_hwcm`) and to
    `amp.conv2d_backward_data` and `amp.conv2d_backward_filter`, on
    tensors, when both operands have one 16-bit float type, the result is
    f32 and its init is a zero `linalg.fill`. A convolution that
    accumulates into another init is left as it is, with a remark: its
    f32 accumulator is part of what it computes. Run on tensors before
    elementwise fusion, in `--lower-to-gpu` with `libraries` unless
    `exact-convolutions` is set.

    ```mlir
    %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>)
        outs(%zero : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1]
        dilations = [1, 1] -> tensor<2x3x8x8xf32>
    // becomes
    %zero16 = linalg.fill ins(%c0 : f16) outs(%e : tensor<2x3x8x8xf16>) -> tensor<2x3x8x8xf16>
    %dx16 = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>)
        outs(%zero16 : tensor<2x3x8x8xf16>) strides = [2, 2] padding = [1, 1]
        dilations = [1, 1] -> tensor<2x3x8x8xf16>
    %dx = arith.extf %dx16 : tensor<2x3x8x8xf16> to tensor<2x3x8x8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

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

def AmpMergeGpuLaunchesPass
    : Pass<"amp-merge-gpu-launches", "::mlir::ModuleOp"> {
  let summary = "One kernel launch for consecutive launches that do not "
                "depend on each other";
  let description = [{
    Runs after `gpu-kernel-outlining` (before `gpu-async-region`), on 1-D
    `gpu.launch_func` ops. A training step is mostly launches one after
    another that touch different buffers: the f16 copies of every weight at
    O2, a batch norm's updates of its running statistics, the optimizer's
    update of each parameter. Each is a kernel launch (a few microseconds
    of the GPU's front end, a node of a CUDA graph) for a few microseconds
    of work or less.

    Two launches (the ops between them pure, allocations, or frees of
    buffers the first does not touch) become one launch, where the second
    was, of a new kernel over the sum of their grids: a block below the
    first grid's size runs the first kernel's body, the others the
    second's with their block index less the first grid's size. Each body
    keeps its own grid and block sizes; the merged block is the larger of
    the two, and a body of a smaller block runs in its threads below its
    own size. The new kernel's arguments are both kernels', then the two
    grid sizes; its `gpu.module` is marked `amp.uneven_blocks` (the GPU
    simulator's count-only mode then runs every block of it). Kernels no
    launch calls any more are erased.

    Launches are merged only when neither writes a buffer the other reads
    or writes. Buffers are compared by the value they are views of: two
    allocations are distinct, and two buffers that are not both allocations
    (the function's arguments) are taken to be the same. A kernel that
    synchronises its block (`gpu.barrier`, `gpu.all_reduce`, ...) is merged
    only with one of a block no larger. Launches with async dependencies,
    dynamic shared memory, clusters or a 2-D/3-D grid or block, and kernels
    with memory attributions, more than one block, or a memory effect on
    anything but their arguments and their own allocations are left alone.
    At most `max-bodies` launches become one: each body is in the merged
    kernel once, and `amp-deduplicate-gpu-kernels` no longer shares it
    with an equal launch elsewhere.
  }];
  let options = [
    Option<"maxBodies", "max-bodies", "unsigned", "8",
           "The most launches merged into one (at least 2)">
  ];
  let dependentDialects = [
    "::mlir::amp::AmpDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect"
  ];
}

def AmpElideHostWaitsPass
    : Pass<"amp-elide-host-waits", "::mlir::func::FuncOp"> {
  let summary = "No host wait before host code that needs nothing from the "
                "device";
  let description = [{
    Runs after `gpu-async-region`, which makes the host wait for all GPU
    work before every call and every op with side effects, and start a new
    stream after it. The wait is dropped, and the token chain goes on, when
    the host code up to the next GPU op needs nothing from the device:
    - calls of functions marked `amp.stream_ordered` (the cuBLAS/cuDNN
      wrappers of libamp_runtime, which enqueue on the runtime's single
      in-order stream, as its kernels, copies and allocations do), and
      calls of functions defined in the module (compiled the same way);
    - `cf.assert` checks (a frontend's shape checks: a dynamic batch's
      sizes, broadcasts, contracting dimensions). Their conditions are host
      values (`amp-check-host-code` has rejected host code that reads device
      memory), so the check needs no device result, and an abort leaves the
      queued work behind as any abort does;
    - pure host ops, and stores to host stack memory (`llvm.alloca`, the
      tables of library calls).
    The wait at the end of an `scf.for`/`scf.while` body of the function is
    dropped when a host wait follows the loop in the function body. Only the
    final wait of the function remains: nothing in a step makes the host
    wait, as CUDA graph capture requires. Code compiled this way needs a
    runtime whose streams are one in-order stream, as libamp_runtime's are.
  }];
}

def AmpDeduplicateGpuKernelsPass
    : Pass<"amp-deduplicate-gpu-kernels", "::mlir::ModuleOp"> {
  let summary = "One gpu.module for each distinct outlined kernel";
  let description = [{
    Runs after `gpu-kernel-outlining`, which gives every `gpu.launch` a
    `gpu.module` of its own. A model repeats its layers, so most of those
    kernels are the same code: an imported 12-block ViT has 389 launches of
    34 distinct kernels. Each `gpu.module` is lowered to NVVM, linked with
    libdevice, compiled to PTX and assembled by a `ptxas` process of its
    own, and loaded by `mgpuModuleLoad` at startup, so the copies cost most
    of `--lower-to-gpu`'s time (docs/performance.md).

    A `gpu.module` whose only op is one kernel `gpu.func`, and which is the
    same as an earlier one except for the names of the module and the
    kernel (same function type, attributes and body), is erased; the
    `gpu.launch_func` ops that launched it launch the earlier one. Modules
    of any other form are left as they are. Locations are not compared:
    the kept kernel keeps the first one's.
  }];
}

def AmpGpuIntegerPowersPass
    : Pass<"amp-gpu-integer-powers", "::mlir::gpu::GPUModuleOp"> {
  let summary = "math.fpowi's exponent in GPU kernels as libdevice's int";
  let description = [{
    Runs on GPU modules before `convert-gpu-to-nvvm`, which lowers
    `math.fpowi` to libdevice's `__nv_powif(float, int)` (`__nv_powi` for
    f64) but declares the callee from the op's own types. Frontends give
    the exponent as i64 (torch-mlir's `x ** 3` in GPT-2's tanh GELU): the
    kernel then called `__nv_powif(f32, i64)`, the PTX passed the exponent
    in a 64-bit register pair that libdevice's function does not read, and
    the power was taken to whatever its 32-bit register held. The CPU and
    the GPU simulator computed `x^3`.

    Each `math.fpowi` whose exponent is not i32 gets an i32 one: a
    constant (a scalar, or a splat) as an i32 constant, any other value
    sign-extended if narrower, or clamped to [INT32_MIN, INT32_MAX]
    keeping its parity if wider (beyond 2^31 an f32 power is 0, +-1, +-inf
    or NaN either way; an f64 one differs only for a base within about
    2^-21 of 1).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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
    On a 1-D vector (a vectorised elementwise kernel's) each element is
    computed so.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::vector::VectorDialect"
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
    `scf.parallel` or a `gpu.launch` (the loops that become kernels, and
    the reductions `amp-map-loops-to-gpu` mapped to blocks: the
    cross-entropy's sum over the targets), with a remark per assert, as
    IREE strips debug asserts from its dispatches. The CPU
    pipeline keeps them. On the device an out-of-range index is then not
    reported by the kernel; the GPU simulator (`--target=gpu-sim`) still
    reports the out-of-bounds access it causes.
  }];
}

def AmpReadOnlyArgumentsPass
    : Pass<"amp-read-only-arguments", "::mlir::func::FuncOp"> {
  let summary = "The tensor arguments of a public function are not written: "
                "`bufferization.writable = false`";
  let description = [{
    Runs before One-Shot Bufferize in `--lower-to-cpu`. Bufferization takes
    a function's arguments as writable: a value computed in the shape of an
    argument may be written into the argument's buffer. The caller of a
    compiled function would then have to hand over a copy of each input.
    With `bufferization.writable = false` on every tensor argument of every
    public function with a body, a buffer an argument's value must be
    written into is allocated (and filled from the argument where what it
    writes reads it) inside the function, only where the function writes,
    and the caller's buffers are read only: the runner and the
    `torch.compile` backend pass their callers' memory to the function as
    it is, without a copy. (An argument returned unchanged is cloned by the
    deallocation pipeline, as any buffer the function does not own.)

    Private functions keep their arguments writable: their callers are in
    the module, and bufferization copies at a call site what the callee
    writes into a buffer that may not be written.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def AmpNoaliasAllocationsPass
    : Pass<"amp-noalias-allocations", "::mlir::ModuleOp"> {
  let summary = "The runtime allocator's results are noalias, as malloc's";
  let description = [{
    Runs after `finalize-memref-to-llvm` with its generic allocation
    functions (`--lower-to-cpu`'s `runtime-allocator`). LLVM knows that
    `malloc` and `aligned_alloc` return memory that no other live pointer
    reaches, but not `_mlir_memref_to_llvm_alloc` and
    `_mlir_memref_to_llvm_aligned_alloc`, which libamp_runtime defines: to
    its alias analysis every buffer of a function might then be every
    other, and a loop that reads one buffer and writes another (a split
    reduction accumulating into its partial sums) is not vectorized. The
    pass gives the declarations of those two functions a `noalias` result
    (`llvm.noalias`), which their definitions honour: each call returns a
    block that nothing else holds until it is freed.
  }];
}

def AmpApproximateMathPass : Pass<"amp-approximate-math"> {
  let summary = "math.erf, math.tanh and math.exp as arithmetic (polynomial "
                "approximations), for the CPU";
  let description = [{
    On the CPU, `math.erf` and `math.tanh` (GELU's two forms: PyTorch's
    exact one and the tanh one of GPT-2's `gelu_new`) have no LLVM
    intrinsic and become calls of libm's scalar `erff` and `tanhf` in every
    iteration, which also keeps the loop nest around them from being
    vectorised. This pass rewrites each f32 `math.erf` and `math.tanh`
    (scalar or vector) with upstream MLIR's polynomial approximations
    (`populatePolynomialApproximateErfPattern`,
    `populatePolynomialApproximateTanhPattern`): arithmetic that LLVM
    vectorises with the rest of the loop body. Against the correctly
    rounded functions each is at most 4 units in the last place and
    2.5e-7 absolute (libm's: 1 and 2 ulp), measured over [-10, 10] in steps of
    2^-12, over the whole exponent range and at the special values by
    `test/Transforms/math-approximation.test`. So is each f32 `math.exp`
    (a softmax's, a sigmoid's; upstream's
    `populateMathPolynomialApproximationPatterns` for exp only): at most 2
    ulp (measured: 1, as libm's `expf`), its results below the normal range
    flushed towards zero (at most 2^-126 off), so that the lanes of a split
    reduction (`amp-split-reductions`) vectorise. An op of another type
    (f64) is left to libm, with a remark; 16-bit ones are computed in f32
    by then (`math-extend-to-supported-types` runs first).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def AmpExpandFloat8Pass : Pass<"amp-expand-float8"> {
  let summary = "f32 <-> f8E4M3FN / f8E5M2 conversions as integer bit "
                "operations, for targets without FP8 (the CPU)";
  let description = [{
    LLVM has no 8-bit float type, and upstream `arith-expand` expands
    only bf16, f8E8M0FNU and f4E2M1FN conversions, so an `arith.truncf`
    to `f8E4M3FN` or `f8E5M2` would stay unlowered on the CPU. This pass
    rewrites each `arith.extf` from and `arith.truncf` to those two types
    (FP8's OCP formats, E4M3 for activations and weights and E5M2 for
    gradients) as integer operations on the bits, through `arith.bitcast`
    to `i8`, with the semantics `ml_dtypes` (and `arith`'s own folder)
    give them:

    - `truncf` rounds to nearest, ties to even (also into the subnormals);
      a value that rounds beyond the largest finite one (448 for E4M3FN,
      57344 for E5M2) becomes E5M2's infinity, or E4M3FN's NaN (it has no
      infinity), as do infinities; NaN stays NaN; the sign is kept,
      zeros included. Saturating conversions are a separate operation.
    - `extf` is exact; E4M3FN's `S.1111.111` and E5M2's all-ones
      exponent with a nonzero mantissa are NaN, E5M2's all-ones exponent
      with a zero mantissa is infinity.

    f16 and bf16 sources and results go through f32, exactly. Scalars,
    vectors and tensors alike (the ops are elementwise). Anything else
    (f64 sources, a `roundingmode` other than to-nearest-even, the other
    f8 formats) is left unchanged, with a remark saying why.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
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
    one block of its length), within CUDA's limits whatever the rank. A
    dynamic extent may be 0 (an empty batch): the grid is then one idle
    block, as CUDA takes no grid of 0 blocks (the blocks' loop runs at
    least once; its threads' bound is the real extent).
    Reductions with an f32 accumulator (the `scf.for` loops that
    `convert-linalg-to-parallel-loops` writes for the reduction dimensions,
    inside or outside the parallel output loops, folding with `addf`, `mulf`, `maxnumf`, `maximumf`, `minnumf` or
    `minimumf`) become a `gpu.launch` with one block per output (256
    threads, or a warp multiple for shorter rows; 1024 for a reduction to
    one value): each thread folds a strided share from the identity, a
    `gpu.all_reduce` combines them (warp shuffles and shared memory), and
    thread 0 folds the total into the output (a dynamic count of outputs
    that comes out 0: one block that reduces and stores nothing). A body
    that accumulates into several buffers at the same indices, each
    independently (`amp-fuse-sibling-reductions`' generics), is one kernel
    with a partial and an all-reduce per buffer. Where a thread folds
    several elements (a dynamic row, or one of at least twice the block's
    threads), what it would compute again in every iteration of its loop
    is computed once, above it: pure ops of invariant operands, and loads,
    at the block's output indices or constants, of static buffers the nest
    does not write (a variance's mean and its division by the count). A
    reduction epilogue is
    applied there too (`fuse-reduction-epilogues`): when the f32 result is a
    temporary that only the next loop reads, elementwise at the output's
    indices (a mean's division and its narrowing to f16), thread 0 runs
    that loop's body on the total and stores what it stores, so the kernel
    writes the low type and the f32 result and the second kernel are gone
    (the values are the same bits). Reductions over the same rows that read
    each other's results at the row, and the elementwise loop over those
    rows and their elements right after them (a softmax: the row maximum,
    the sum of exponentials, the division; a layer norm: the mean, the
    variance, the normalisation) are one kernel with a block per row
    (`fuse-rows`): its phases run one after another, each result's value
    replaces the later phases' loads of it, a row that several phases read
    is read from global memory once and staged in workgroup memory (a
    static row, up to 16 KiB), and a result nothing else reads is no longer
    stored. A result read at another row, or an output read at an element
    it does not write, keeps the kernels apart. And host code that reads or
    writes memory outside any
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
    (an f16 -> f32 cast: 8-byte loads, 16-byte stores). Each buffer is seen
    as 1-D; a group of the vector length lies in one row of each broadcast
    operand. Where the element count is no multiple of the vector length
    and every access is of the whole buffer or of one element, the whole
    groups are vectorised and the last block's first thread takes the tail,
    element by element. Device buffers must then be 16-byte aligned:
    allocations are (cudaMalloc aligns to 256), and the GPU simulator
    checks every aligned access.

    The grid of a vectorised kernel has at most `sm-count` times 2048 /
    `block-size` blocks (a chip's SMs, each as full as threads allow; 0: no
    limit). A loop that one group per thread covers within it is one group
    per thread. A larger one (or a dynamic batch) gives each block a
    contiguous share of the groups, a multiple of `block-size` (every
    block's but the last's the same), taken in steps of `block-size` x
    `vectors-per-thread` groups: in a whole step each thread takes
    `vectors-per-thread` groups a block apart (coalesced), with the loads
    of all of them issued before their math; in a step that is not whole
    (a share's last), each group alone, if in the share. The condition is
    the same for a whole block, so no warp diverges on it.
  }];
  let options = [
    Option<"blockSize", "block-size", "unsigned", "256",
           "Threads per block along the innermost dimension">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "Bytes per access of the widest type in vectorised elementwise "
           "loops (0: no vectorisation)">,
    Option<"vectorsPerThread", "vectors-per-thread", "unsigned", "4",
           "Groups of vector-bytes per thread and step of a vectorised "
           "kernel's loop over its block's share, their loads issued "
           "first">,
    Option<"smCount", "sm-count", "unsigned", "0",
           "Streaming multiprocessors of the chip: a vectorised kernel's "
           "grid is at most sm-count * 2048 / block-size blocks, each "
           "taking a share of the groups (0: no limit)">,
    Option<"fuseReductionEpilogues", "fuse-reduction-epilogues", "bool",
           "true",
           "Apply the elementwise loop that is the only reader of a "
           "reduction's result in the reduction's kernel">,
    Option<"fuseRows", "fuse-rows", "bool", "true",
           "Run reductions over the same rows that read each other's "
           "results, and the elementwise loop over those rows after them, "
           "in one kernel with a block per row">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::affine::AffineDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

#endif // AMP_TRANSFORMS_PASSES_TD
