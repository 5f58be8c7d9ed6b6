// At O2 every op computes in f16, but sums accumulate in f32: 4096 ones add
// up to 4096 (in f16 accumulation the sum sticks at 2048, where the spacing
// of f16 numbers becomes 2). The user's own f16 accumulation (last case)
// shows the difference. The matmul both as the runtime's library call (the
// default: f16 operands widened, f32 accumulation in the CPU BLAS) and as
// generated loops (libraries=false).
// RUN: amp-opt %s --amp-o2 --lower-to-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%amp_runtime \
// RUN: | FileCheck %s
// RUN: amp-opt %s --amp-o2 --lower-to-cpu=libraries=false \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%amp_runtime \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

// A dot product of 4096 ones (matmul 1x4096 * 4096x1).
func.func @dot(%a: tensor<1x4096xf32>, %b: tensor<4096x1xf32>) -> tensor<1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x4096xf32>, tensor<4096x1xf32>) outs(%init : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// A sum reduction of 4096 ones.
func.func @sum(%x: tensor<4096xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<4096xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// A softmax over 4096 equal logits: 1/4096 each (with an f16 sum it would be
// 1/2048).
func.func @softmax(%x: tensor<1x4096xf32>) -> tensor<1x4096xf32> {
  %e = tensor.empty() : tensor<1x4096xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<1x4096xf32>) outs(%e : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %r : tensor<1x4096xf32>
}

// The user's own f16 accumulator (AMP leaves ops already in f16 alone).
func.func @sum_f16(%x: tensor<4096xf16>) -> tensor<f16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<f16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<f16>) -> tensor<f16>
  %r = linalg.reduce ins(%x : tensor<4096xf16>) outs(%init : tensor<f16>) dimensions = [0]
    (%in: f16, %acc: f16) {
      %s = arith.addf %in, %acc : f16
      linalg.yield %s : f16
    }
  return %r : tensor<f16>
}

func.func @main() {
  %ones_row = arith.constant dense<1.0> : tensor<1x4096xf32>
  %ones_col = arith.constant dense<1.0> : tensor<4096x1xf32>
  %ones = arith.constant dense<1.0> : tensor<4096xf32>

  %d = call @dot(%ones_row, %ones_col) : (tensor<1x4096xf32>, tensor<4096x1xf32>) -> tensor<1x1xf32>
  %ud = tensor.cast %d : tensor<1x1xf32> to tensor<*xf32>
  call @printMemrefF32(%ud) : (tensor<*xf32>) -> ()
  // CHECK: {{\[}}[4096]]

  %s = call @sum(%ones) : (tensor<4096xf32>) -> tensor<f32>
  %us = tensor.cast %s : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%us) : (tensor<*xf32>) -> ()
  // CHECK: [4096]

  %p = call @softmax(%ones_row) : (tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %p0 = tensor.extract_slice %p[0, 0] [1, 2] [1, 1] : tensor<1x4096xf32> to tensor<2xf32>
  %up = tensor.cast %p0 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%up) : (tensor<*xf32>) -> ()
  // CHECK: [0.000244141,  0.000244141]

  %ones16 = arith.truncf %ones : tensor<4096xf32> to tensor<4096xf16>
  %h = call @sum_f16(%ones16) : (tensor<4096xf16>) -> tensor<f16>
  %h32 = arith.extf %h : tensor<f16> to tensor<f32>
  %uh = tensor.cast %h32 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%uh) : (tensor<*xf32>) -> ()
  // CHECK: [2048]
  return
}
