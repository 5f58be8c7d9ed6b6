// Functions over every element type amp-run passes, and some it rejects.

// 2x3 f32 plus 2x3 f16 (widened), and the column sums of the f16 one.
func.func @mixed(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>)
    -> (tensor<2x3xf32>, tensor<3xf16>) {
  %wide = arith.extf %b : tensor<2x3xf16> to tensor<2x3xf32>
  %sum = arith.addf %a, %wide : tensor<2x3xf32>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<3xf16>
  %init = linalg.fill ins(%zero : f16) outs(%e : tensor<3xf16>) -> tensor<3xf16>
  %cols = linalg.reduce ins(%b : tensor<2x3xf16>) outs(%init : tensor<3xf16>) dimensions = [0]
    (%x: f16, %acc: f16) {
      %s = arith.addf %x, %acc : f16
      linalg.yield %s : f16
    }
  return %sum, %cols : tensor<2x3xf32>, tensor<3xf16>
}

// bf16 in, bf16 and 0-d f32 out.
func.func @bf16(%a: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<f32>) {
  %twice = arith.addf %a, %a : tensor<4xbf16>
  %wide = arith.extf %a : tensor<4xbf16> to tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %total = linalg.reduce ins(%wide : tensor<4xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %twice, %total : tensor<4xbf16>, tensor<f32>
}

// Integers and f64.
func.func @ints(%a: tensor<5xi32>, %b: tensor<5xi64>, %c: tensor<2xf64>)
    -> (tensor<5xi32>, tensor<5xi64>, tensor<2xf64>) {
  %a2 = arith.muli %a, %a : tensor<5xi32>
  %b2 = arith.addi %b, %b : tensor<5xi64>
  %c2 = arith.mulf %c, %c : tensor<2xf64>
  return %a2, %b2, %c2 : tensor<5xi32>, tensor<5xi64>, tensor<2xf64>
}

// A large result, for --print's summary.
func.func @big(%a: tensor<40x50xf32>) -> tensor<40x50xf32> {
  %r = arith.addf %a, %a : tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}

// No result at all.
func.func @nothing(%a: tensor<2xf32>) {
  return
}

// Rejected signatures.
func.func @scalar(%a: tensor<2xf32>, %s: f32) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
func.func @memref(%a: tensor<2xf32>) -> memref<2xf32> {
  %m = bufferization.to_buffer %a : tensor<2xf32> to memref<2xf32>
  return %m : memref<2xf32>
}
func.func @unsigned(%a: tensor<2xui8>) -> tensor<2xui8> {
  return %a : tensor<2xui8>
}
func.func private @external(%a: tensor<2xf32>) -> tensor<2xf32>
