// Contractions for comparing --lower-to-cpu's library calls
// (ampCpuLibraryGemm, ampCpuLibraryConv2d) with its generated loops
// (cpu-library.test).

// f16 operands, f32 accumulator and result.
func.func @matmul_f16(%a: tensor<48x96xf16>, %b: tensor<96x40xf16>) -> tensor<48x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<48x40xf32>) -> tensor<48x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<48x96xf16>, tensor<96x40xf16>) outs(%init : tensor<48x40xf32>) -> tensor<48x40xf32>
  return %r : tensor<48x40xf32>
}

// bf16 operands, an f32 accumulator that is only narrowed to bf16 (the
// epilogue the call writes itself).
func.func @matmul_bf16_narrowed(%a: tensor<33x70xbf16>, %b: tensor<70x65xbf16>) -> tensor<33x65xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<33x65xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<33x65xf32>) -> tensor<33x65xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<33x70xbf16>, tensor<70x65xbf16>) outs(%init : tensor<33x65xf32>) -> tensor<33x65xf32>
  %r = arith.truncf %mm : tensor<33x65xf32> to tensor<33x65xbf16>
  return %r : tensor<33x65xbf16>
}

// An f16 batch matmul whose narrowing is fused with a bias add and a ReLU.
func.func @batch_matmul_f16_bias_relu(%a: tensor<4x24x40xf16>, %b: tensor<4x40x16xf16>, %bias: tensor<16xf16>) -> tensor<4x24x16xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x24x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x24x16xf32>) -> tensor<4x24x16xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<4x24x40xf16>, tensor<4x40x16xf16>) outs(%init : tensor<4x24x16xf32>) -> tensor<4x24x16xf32>
  %out = tensor.empty() : tensor<4x24x16xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (j)>, affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<4x24x16xf32>, tensor<16xf16>) outs(%out : tensor<4x24x16xf16>) {
  ^bb0(%x: f32, %c: f16, %o: f16):
    %t = arith.truncf %x : f32 to f16
    %s = arith.addf %t, %c : f16
    %z = arith.constant 0.0 : f16
    %m = arith.maximumf %s, %z : f16
    linalg.yield %m : f16
  } -> tensor<4x24x16xf16>
  return %r : tensor<4x24x16xf16>
}

// An f16 convolution of a padded input (resnet's stem: 7x7, stride 2,
// padding 3) whose narrowing is fused with a bias add and a ReLU; odd sizes.
func.func @conv_f16_pad_stride_bias_relu(%x: tensor<2x3x17x15xf16>, %w: tensor<6x3x7x7xf16>, %bias: tensor<6xf16>) -> tensor<2x6x9x8xf16> {
  %zero = arith.constant 0.0 : f32
  %hz = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 0, 3, 3] high[0, 0, 3, 3] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %hz : f16
  } : tensor<2x3x17x15xf16> to tensor<2x3x23x21xf16>
  %e = tensor.empty() : tensor<2x6x9x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x9x8xf32>) -> tensor<2x6x9x8xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %w : tensor<2x3x23x21xf16>, tensor<6x3x7x7xf16>) outs(%init : tensor<2x6x9x8xf32>) -> tensor<2x6x9x8xf32>
  %out = tensor.empty() : tensor<2x6x9x8xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias : tensor<2x6x9x8xf32>, tensor<6xf16>) outs(%out : tensor<2x6x9x8xf16>) {
  ^bb0(%a: f32, %b: f16, %o: f16):
    %t = arith.truncf %a : f32 to f16
    %s = arith.addf %t, %b : f16
    %m = arith.maximumf %s, %hz : f16
    linalg.yield %m : f16
  } -> tensor<2x6x9x8xf16>
  return %r : tensor<2x6x9x8xf16>
}

// bf16 NHWC/FHWC (tosa.conv2d's form) with a dilation of 2 and unequal
// strides, only narrowed (the call writes bf16).
func.func @conv_bf16_nhwc_fhwc_dilated(%x: tensor<1x13x12x5xbf16>, %w: tensor<7x3x3x5xbf16>) -> tensor<1x5x8x7xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x8x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x8x7xf32>) -> tensor<1x5x8x7xf32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<2> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
    ins(%x, %w : tensor<1x13x12x5xbf16>, tensor<7x3x3x5xbf16>) outs(%init : tensor<1x5x8x7xf32>) -> tensor<1x5x8x7xf32>
  %r = arith.truncf %y : tensor<1x5x8x7xf32> to tensor<1x5x8x7xbf16>
  return %r : tensor<1x5x8x7xbf16>
}

// f32 1x1 convolutions: at unit stride (the input read in place) and at
// stride 2 (resnet's downsampling), NHWC/HWCF, accumulating into an input.
func.func @conv_f32_1x1(%x: tensor<3x9x7x11xf32>, %w: tensor<1x1x11x5xf32>, %acc: tensor<3x9x7x5xf32>, %w2: tensor<1x1x11x4xf32>) -> (tensor<3x9x7x5xf32>, tensor<3x5x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<3x9x7x11xf32>, tensor<1x1x11x5xf32>) outs(%acc : tensor<3x9x7x5xf32>) -> tensor<3x9x7x5xf32>
  %e = tensor.empty() : tensor<3x5x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x5x4x4xf32>) -> tensor<3x5x4x4xf32>
  %d = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w2 : tensor<3x9x7x11xf32>, tensor<1x1x11x4xf32>) outs(%init : tensor<3x5x4x4xf32>) -> tensor<3x5x4x4xf32>
  return %y, %d : tensor<3x9x7x5xf32>, tensor<3x5x4x4xf32>
}
