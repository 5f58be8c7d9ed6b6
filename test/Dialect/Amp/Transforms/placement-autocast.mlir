// placement=autocast: gray ops promote their operands as PyTorch's autocast
// does. A residual add of a low projection and the f32 stream stays f32 (the
// stream is never rounded), an add of two low values goes low, a gather
// from an f32 table (no float operand) stays f32, and a bias constant does
// not promote. The optimal placement rounds the stream instead (fewer bytes).
// RUN: amp-opt %s -split-input-file --amp-o1="placement=autocast" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o1="placement=autocast explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: amp-opt %s -split-input-file --amp-o1="placement=autocast dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s -split-input-file --amp-o1="placement=optimal" | FileCheck %s --check-prefix=OPT

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// REMARK: remark: amp: f16 (white list)
// The bias add follows the projection (the constant does not count).
// REMARK: remark: amp: f16 (promotes its operands (1 in f16))
// The residual add reads the f16 projection and the f32 stream: f32.
// REMARK: remark: amp: f32 (promotes its operands (1 in f16, 1 in f32: the widest))
// A gather from an f32 table reads no float tensor: f32, the table's type.
// REMARK: remark: amp: f32 (promotes its operands (no float tensor: the type of what it reads, f32))
// CHECK-LABEL: func.func @residual
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16xf16>) outs(%{{.*}} : tensor<8x16xf16>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: return %{{.*}} : tensor<8x16xf32>
// BF16-LABEL: func.func @residual
// BF16: linalg.generic
// BF16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// OPT-LABEL: func.func @residual
// OPT: arith.truncf %{{.*}} : tensor<8x16xf32> to tensor<8x16xf16>
// OPT: linalg.generic
// OPT: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<8x16xf16>)
func.func @residual(%stream: tensor<8x16xf32>, %w: tensor<16x16xf32>)
    -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %bias = arith.constant dense<0.5> : tensor<16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%stream, %w : tensor<8x16xf32>, tensor<16x16xf32>)
                      outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id],
                            iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%biased, %stream : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %sum : tensor<8x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#ids = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @gather
// CHECK: tensor.extract %{{.*}} : tensor<10x16xf32>
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @gather(%ids: tensor<8xindex>) -> tensor<8x16xf32> {
  %table = arith.constant dense<0.25> : tensor<10x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [#ids, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xindex>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%i: index, %o: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<10x16xf32>
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// A batch norm as torch-mlir writes it: its statistics are frozen constants,
// and rsqrt(var + eps) is computed from them alone. Tensors computed from
// constants alone do not promote, as constants do not: the normalization of
// the low matmul result goes low, and the folded statistics are converted
// where it reads them (64 bytes, not the activation).

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>

// REMARK: remark: amp: f16 (white list)
// REMARK: remark: amp: f32 (computes from constants only: f32, converted where a low op reads it)
// REMARK: remark: amp: f32 (black list)
// REMARK: remark: amp: f16 (promotes its operands (1 in f16))
// BF16-LABEL: func.func @batch_norm
// BF16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16xbf16>)
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16xf16>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// The min-cut keeps this small block f32 (its result is returned in f32).
// OPT-LABEL: func.func @batch_norm
// OPT: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16xf32>)
func.func @batch_norm(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>)
    -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %var = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0,
                               1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]> : tensor<16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %e16 = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>)
                      outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %shifted = linalg.generic {indexing_maps = [#vec, #vec],
                             iterator_types = ["parallel"]}
      ins(%var : tensor<16xf32>) outs(%e16 : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %eps : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %scale = linalg.generic {indexing_maps = [#vec, #vec],
                           iterator_types = ["parallel"]}
      ins(%shifted : tensor<16xf32>) outs(%e16 : tensor<16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.rsqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %scale : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// A parameter the model adds or concatenates as a tensor of its own (a
// ViT's position embedding and class token) is an f32 operand in PyTorch,
// and promotes the op: the add of the low patch embeddings and the
// position embedding is f32, and so is the concat of a class token. A
// vector parameter, even broadcast first, stays folded as a batch norm's
// is: the shift by %bias goes low.

#id = affine_map<(d0, d1) -> (d0, d1)>

// REMARK: remark: amp: f16 (white list)
// REMARK: remark: amp: f16 (promotes its operands (1 in f16))
// REMARK: remark: amp: f32 (promotes its operands (1 in f16, 1 in f32, 1 of them a parameter tensor: the widest))
// REMARK: remark: amp: f32 (promotes its operands (1 in f16, 1 in f32, 1 of them a parameter tensor: the widest))
// CHECK-LABEL: func.func @position_embedding
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<16x16xf16>)
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<16xf16>) outs(%{{.*}} : tensor<8x16xf16>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<8x16xf16>) outs(%{{.*}} : tensor<8x16xf16>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x16xf16>, tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<1x16xf32>, tensor<8x16xf32>) -> tensor<9x16xf32>
func.func @position_embedding(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>)
    -> (tensor<8x16xf32>, tensor<9x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %bias = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0,
                                1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]> : tensor<16xf32>
  %pos = arith.constant dense<[[0.5, 1.5, 2.5, 3.5, 0.5, 1.5, 2.5, 3.5,
                                0.5, 1.5, 2.5, 3.5, 0.5, 1.5, 2.5, 3.5],
                               [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0,
                                1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]]> : tensor<2x16xf32>
  %cls = arith.constant dense<[[0.25, 0.5, 0.75, 1.0, 0.25, 0.5, 0.75, 1.0,
                                0.25, 0.5, 0.75, 1.0, 0.25, 0.5, 0.75, 1.0]]> : tensor<1x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>)
                      outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = linalg.broadcast ins(%bias : tensor<16xf32>) outs(%e : tensor<8x16xf32>)
                        dimensions = [0]
  %shifted = linalg.generic {indexing_maps = [#id, #id, #id],
                             iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %p = tensor.concat dim(0) %pos, %pos, %pos, %pos
      : (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%shifted, %p : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %t = tensor.concat dim(0) %cls, %shifted : (tensor<1x16xf32>, tensor<8x16xf32>) -> tensor<9x16xf32>
  return %y, %t : tensor<8x16xf32>, tensor<9x16xf32>
}
