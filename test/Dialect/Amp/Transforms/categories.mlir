// The default categories of docs/policies.md, checked op by op through the
// O1 explanations with greedy placement (each op is fed by a function
// argument, so a gray op stays f32 as "follows its operands (0 in f16, 1 in
// f32)").
// RUN: amp-opt %s --amp-o1="explain=true placement=greedy" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @linalg(%m: tensor<4x4xf32>, %v: tensor<4xf32>, %t: tensor<1x4x4x4xf32>,
                  %f: tensor<2x4x3x3xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %ev = tensor.empty() : tensor<4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f16 (white list)
  %0 = linalg.matmul ins(%m, %m : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f16 (white list)
  %1 = linalg.matvec ins(%m, %v : tensor<4x4xf32>, tensor<4xf32>) outs(%ev : tensor<4xf32>) -> tensor<4xf32>
  %ce = tensor.empty() : tensor<1x2x2x2xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f16 (white list)
  %2 = linalg.conv_2d_nchw_fchw ins(%t, %f : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>) outs(%ce : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %3 = linalg.softmax dimension(1) ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // A sum reduction is black; a max reduction is gray.
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %4 = linalg.reduce ins(%m : tensor<4x4xf32>) outs(%ev : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands (0 in f16, 1 in f32))
  %5 = linalg.reduce ins(%m : tensor<4x4xf32>) outs(%ev : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  // Cross-entropy-like: log in the body.
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %6 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x4xf32>) outs(%ev : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %l = math.log %x : f32
    %s = arith.subf %acc, %l : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands (0 in f16, 1 in f32))
  %7 = linalg.transpose ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) permutation = [1, 0]
  return
}

func.func @tosa(%a: tensor<1x4x4xf32>, %x: tensor<1x4x4x4xf32>, %w: tensor<2x3x3x4xf32>,
                %b: tensor<2xf32>, %zp: tensor<1xf32>) {
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f16 (white list)
  %0 = tosa.matmul %a, %a, %zp, %zp : (tensor<1x4x4xf32>, tensor<1x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f16 (white list)
  %1 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<2x3x3x4xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %2 = tosa.exp %a : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %3 = tosa.reduce_sum %a {axis = 2 : i32} : (tensor<1x4x4xf32>) -> tensor<1x4x1xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %4 = tosa.rsqrt %a : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands (0 in f16, 1 in f32))
  %5 = tosa.sigmoid %a : (tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands (0 in f16, 1 in f32))
  %6 = tosa.reduce_max %a {axis = 2 : i32} : (tensor<1x4x4xf32>) -> tensor<1x4x1xf32>
  return
}

func.func @arith_math(%a: tensor<4xf32>, %i: tensor<4xi32>) {
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands (0 in f16, 2 in f32))
  %0 = arith.addf %a, %a : tensor<4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %1 = math.exp %a : tensor<4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %2 = math.log1p %a : tensor<4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (black list)
  %3 = math.powf %a, %a : tensor<4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands (0 in f16, 1 in f32))
  %4 = math.tanh %a : tensor<4xf32>
  // Integer ops are not decided: no remark.
  // CHECK-NOT: categories.mlir:[[@LINE+1]]
  %5 = arith.addi %i, %i : tensor<4xi32>
  return
}

// Max pooling is gray whatever its rank, as PyTorch's autocast lists no
// pooling (it runs in its input's type): the named 1-D and 2-D poolings, and
// the 3-D max pool that torch-mlir writes as a generic with a convolution's
// indexing maps and a window operand. A generic with the same maps whose
// body multiplies is a convolution: white.
#in3 = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d * 2 + kd, h * 2 + kh, w * 2 + kw)>
#win3 = affine_map<(n, c, d, h, w, kd, kh, kw) -> (kd, kh, kw)>
#out3 = affine_map<(n, c, d, h, w, kd, kh, kw) -> (n, c, d, h, w)>
func.func @pooling(%x1: tensor<1x2x8xf32>, %x2: tensor<1x2x4x4xf32>, %x3: tensor<1x2x4x4x4xf32>,
                   %k3: tensor<2x2x2xf32>) {
  %w1 = tensor.empty() : tensor<2xf32>
  %o1 = tensor.empty() : tensor<1x2x4xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands
  %0 = linalg.pooling_ncw_max {dilations = dense<1> : vector<1xi64>, strides = dense<2> : vector<1xi64>}
      ins(%x1, %w1 : tensor<1x2x8xf32>, tensor<2xf32>) outs(%o1 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %w2 = tensor.empty() : tensor<2x2xf32>
  %o2 = tensor.empty() : tensor<1x2x2x2xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands
  %1 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x2, %w2 : tensor<1x2x4x4xf32>, tensor<2x2xf32>) outs(%o2 : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %w3 = tensor.empty() : tensor<2x2x2xf32>
  %o3 = tensor.empty() : tensor<1x2x2x2x2xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f32 (follows its operands
  %2 = linalg.generic {indexing_maps = [#in3, #win3, #out3],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x3, %w3 : tensor<1x2x4x4x4xf32>, tensor<2x2x2xf32>) outs(%o3 : tensor<1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %win: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1x2x2x2x2xf32>
  // CHECK: categories.mlir:[[@LINE+1]]:{{.*}} amp: f16 (white list)
  %3 = linalg.generic {indexing_maps = [#in3, #win3, #out3],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x3, %k3 : tensor<1x2x4x4x4xf32>, tensor<2x2x2xf32>) outs(%o3 : tensor<1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %k: f32, %acc: f32):
    %p = arith.mulf %in, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x2x2x2xf32>
  return
}
