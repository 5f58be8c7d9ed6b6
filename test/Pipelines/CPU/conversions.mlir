// Exact f16/bf16 rounding of the conversions --lower-to-cpu produces: round
// to nearest, ties to even, overflow to infinity, subnormals kept.
// RUN: amp-opt %s --lower-to-cpu=rounding=per-op \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%amp_runtime \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

// Round trip through f16; results near 1 are printed as (y - 1) * 2^20.
func.func @f16_near_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  %y = arith.extf %h : tensor<4xf16> to tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %scale = arith.constant dense<1048576.0> : tensor<4xf32>
  %d = arith.subf %y, %one : tensor<4xf32>
  %r = arith.mulf %d, %scale : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @f16_round_trip(%x: tensor<6xf32>) -> tensor<6xf32> {
  %h = arith.truncf %x : tensor<6xf32> to tensor<6xf16>
  %y = arith.extf %h : tensor<6xf16> to tensor<6xf32>
  return %y : tensor<6xf32>
}

func.func @bf16_near_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = arith.truncf %x : tensor<4xf32> to tensor<4xbf16>
  %y = arith.extf %h : tensor<4xbf16> to tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %scale = arith.constant dense<1048576.0> : tensor<4xf32>
  %d = arith.subf %y, %one : tensor<4xf32>
  %r = arith.mulf %d, %scale : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @bf16_round_trip(%x: tensor<3xf32>) -> tensor<3xf32> {
  %h = arith.truncf %x : tensor<3xf32> to tensor<3xbf16>
  %y = arith.extf %h : tensor<3xbf16> to tensor<3xf32>
  return %y : tensor<3xf32>
}

func.func @main() {
  // 1 + 2^-10 (exact), 1 + 2^-11 (tie: to 1), 1 + 3 * 2^-11 (tie: to
  // 1 + 2^-9), 1 + 2^-11 + 2^-20 (above the tie: up).
  %a = arith.constant dense<[1.0009765625, 1.00048828125, 1.00146484375, 1.00048923492431640625]> : tensor<4xf32>
  %ra = call @f16_near_one(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %ua = tensor.cast %ra : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%ua) : (tensor<*xf32>) -> ()
  // CHECK: [1024,  0,  2048,  1024]

  // 65504 (max), 65519 (below the tie: max), 65520 (tie: overflows),
  // 2^-24 (smallest subnormal), 2^-25 (tie: to 0), 3 * 2^-25 (tie: 2^-23).
  %b = arith.constant dense<[65504.0, 65519.0, 65520.0, 5.9604644775390625e-08, 2.98023223876953125e-08, 8.94069671630859375e-08]> : tensor<6xf32>
  %rb = call @f16_round_trip(%b) : (tensor<6xf32>) -> tensor<6xf32>
  %ub = tensor.cast %rb : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%ub) : (tensor<*xf32>) -> ()
  // CHECK: [65504,  65504,  inf,  5.96046e-08,  0,  1.19209e-07]

  // bf16: 1 + 2^-7 (exact), 1 + 2^-8 (tie: to 1), 1 + 3 * 2^-8 (tie: to
  // 1 + 2^-6), 1 + 2^-8 + 2^-20 (above the tie: up).
  %c = arith.constant dense<[1.0078125, 1.00390625, 1.01171875, 1.00390720367431640625]> : tensor<4xf32>
  %rc = call @bf16_near_one(%c) : (tensor<4xf32>) -> tensor<4xf32>
  %uc = tensor.cast %rc : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%uc) : (tensor<*xf32>) -> ()
  // CHECK: [8192,  0,  16384,  8192]

  // bf16 keeps f32's range: 3.0e38 stays finite, f32's max overflows, a
  // small normal value stays non-zero.
  %d = arith.constant dense<[3.0e38, 3.4028234663852886e38, 2.0e-38]> : tensor<3xf32>
  %rd = call @bf16_round_trip(%d) : (tensor<3xf32>) -> tensor<3xf32>
  %ud = tensor.cast %rd : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%ud) : (tensor<*xf32>) -> ()
  // CHECK: [3.00406e+38,  inf,  2.00201e-38]

  // f32 subnormals round to bf16's (integer code on every CPU, not the
  // host's conversion, which may flush them): 1e-39 to 11 * 2^-133,
  // -3e-40 to -3 * 2^-133, 1.5e-41 to 0 (below half of 2^-133).
  %s = arith.constant dense<[1.0e-39, -3.0e-40, 1.5e-41]> : tensor<3xf32>
  %rs = call @bf16_round_trip(%s) : (tensor<3xf32>) -> tensor<3xf32>
  %us = tensor.cast %rs : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%us) : (tensor<*xf32>) -> ()
  // CHECK: [1.01019e-39,  -2.75506e-40,  0]
  return
}
