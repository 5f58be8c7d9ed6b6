// A training step of a one-layer model as a front end hands it to amp-mlir:
// the forward matmul may run in low precision (it sits in an amp.fp16_guard),
// the loss reduction is pinned to fp32, and the gradients go through dynamic
// loss scaling. `make demo` parses, verifies and round-trips this file.
//
// The scaler state (scale, good_steps, bad_steps, hysteresis) is threaded
// through the step: the caller passes it in and gets the next state back.

func.func @train_step(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>,
                      %dw: tensor<16x4xf16>, %db: tensor<4xf32>,
                      %scale: f32, %good: i32, %bad: i32, %hyst: i32)
    -> (tensor<f32>, tensor<16x4xf16>, tensor<4xf32>, i1, f32, i32, i32, i32) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x4xf32>)
      -> tensor<8x4xf32>

  // Forward: the matmul may compute in fp16 and accumulates in fp32.
  %y = amp.fp16_guard -> tensor<8x4xf32> {
    %xh = amp.cast %x : tensor<8x16xf32> to tensor<8x16xf16>
    %wh = amp.cast %w : tensor<16x4xf32> to tensor<16x4xf16>
    %mm = linalg.matmul ins(%xh, %wh : tensor<8x16xf16>, tensor<16x4xf16>)
                        outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
    amp.yield %mm : tensor<8x4xf32>
  }

  // Loss: a sum, numerically fragile in fp16, so its precision is pinned.
  %linit = tensor.empty() : tensor<f32>
  %lacc = linalg.fill ins(%zero : f32) outs(%linit : tensor<f32>)
      -> tensor<f32>
  %loss = linalg.reduce ins(%y : tensor<8x4xf32>) outs(%lacc : tensor<f32>)
      dimensions = [0, 1] {amp.precision = "f32"}
    (%in: f32, %sum: f32) {
      %s = arith.addf %in, %sum : f32
      linalg.yield %s : f32
    }

  // Loss scaling: scale the loss, unscale and check the gradients, advance
  // the scaler. On found_inf the optimizer step is skipped.
  %scaled = amp.scale_loss %loss by %scale : tensor<f32>, f32 -> tensor<f32>
  %g:2, %found_inf = amp.check_finite_and_unscale %dw, %db :
      tensor<16x4xf16>, tensor<4xf32> by %scale : f32
  %s1, %good1, %bad1, %hyst1 = amp.update_loss_scaling found_inf(%found_inf : i1)
      scale(%scale : f32) good_steps(%good : i32) bad_steps(%bad) hysteresis(%hyst)
      config #amp.loss_scaling<preset = "pytorch">
  return %scaled, %g#0, %g#1, %found_inf, %s1, %good1, %bad1, %hyst1
      : tensor<f32>, tensor<16x4xf16>, tensor<4xf32>, i1, f32, i32, i32, i32
}
