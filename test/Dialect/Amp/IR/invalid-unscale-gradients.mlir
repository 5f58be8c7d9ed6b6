// Every verifier rule of amp.unscale_gradients, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @no_gradient(%inv: tensor<f32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects at least one gradient}}
  %u = "amp.unscale_gradients"(%inv, %flag) <{operandSegmentSizes = array<i32: 0, 1, 1>}> : (tensor<f32>, tensor<i1>) -> tensor<i1>
  return
}

// -----

func.func @inits(%g: tensor<4xf32>, %inv: tensor<f32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects one destination per gradient and then the flag: 2 inits, got 1}}
  %u = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f32> outs(%flag : tensor<i1>) -> tensor<i1>
  return
}

// -----

func.func @mixed(%g: memref<4xf32>, %inv: tensor<f32>, %out: tensor<4xf32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects every operand to be a tensor, or every operand a buffer (the inverse scale may be an f32)}}
  %u:2 = amp.unscale_gradients ins(%g : memref<4xf32>) by %inv : tensor<f32> outs(%out, %flag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1>
  return
}

// -----

func.func @inverse(%g: tensor<4xf32>, %inv: tensor<f16>, %out: tensor<4xf32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects the inverse scale to be an f32 or a 0-d f32, got 'tensor<f16>'}}
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f16> outs(%out, %flag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1>
  return
}

// -----

func.func @flag(%g: tensor<4xf32>, %inv: tensor<f32>, %out: tensor<4xf32>, %flag: tensor<1xi1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects the flag (the last init) to be a 0-d i1, got 'tensor<1xi1>'}}
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f32> outs(%out, %flag : tensor<4xf32>, tensor<1xi1>) -> tensor<4xf32>, tensor<1xi1>
  return
}

// -----

func.func @integer(%g: tensor<4xi32>, %inv: tensor<f32>, %out: tensor<4xi32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects float gradients, got 'tensor<4xi32>' for gradient #0}}
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xi32>) by %inv : tensor<f32> outs(%out, %flag : tensor<4xi32>, tensor<i1>) -> tensor<4xi32>, tensor<i1>
  return
}

// -----

func.func @destination(%g: tensor<4xf16>, %inv: tensor<f32>, %out: tensor<4xf32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects the destination of gradient #0 to have its element type and shape, got 'tensor<4xf32>' for 'tensor<4xf16>'}}
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xf16>) by %inv : tensor<f32> outs(%out, %flag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>, tensor<i1>
  return
}

// -----

func.func @shape(%g: tensor<4xf32>, %inv: tensor<f32>, %out: tensor<8xf32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expects the destination of gradient #0 to have its element type and shape, got 'tensor<8xf32>' for 'tensor<4xf32>'}}
  %u:2 = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f32> outs(%out, %flag : tensor<8xf32>, tensor<i1>) -> tensor<8xf32>, tensor<i1>
  return
}

// -----

func.func @results(%g: tensor<4xf32>, %inv: tensor<f32>, %out: tensor<4xf32>, %flag: tensor<i1>) {
  // expected-error @+1 {{'amp.unscale_gradients' op expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %u = amp.unscale_gradients ins(%g : tensor<4xf32>) by %inv : tensor<f32> outs(%out, %flag : tensor<4xf32>, tensor<i1>) -> tensor<4xf32>
  return
}
