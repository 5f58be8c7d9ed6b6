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
