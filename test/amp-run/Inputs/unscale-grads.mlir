// Gradients of the three types the runtime's unscale kernels take, for
// gpu-sim-loss-scaling.test: f32 and f16 arguments, and a bf16 one rounded
// from f32 in the function (.npy has no bf16), widened back to return it.
func.func @unscale(%a: tensor<1000xf32>, %b: tensor<7x37xf16>,
                   %c32: tensor<3x333xf32>, %scale: tensor<f32>)
    -> (tensor<1000xf32>, tensor<7x37xf16>, tensor<3x333xf32>, tensor<i1>) {
  %c = arith.truncf %c32 : tensor<3x333xf32> to tensor<3x333xbf16>
  %g:3, %found = amp.check_finite_and_unscale %a, %b, %c
      : tensor<1000xf32>, tensor<7x37xf16>, tensor<3x333xbf16>
      by %scale : tensor<f32>
  %gc = arith.extf %g#2 : tensor<3x333xbf16> to tensor<3x333xf32>
  return %g#0, %g#1, %gc, %found
      : tensor<1000xf32>, tensor<7x37xf16>, tensor<3x333xf32>, tensor<i1>
}
