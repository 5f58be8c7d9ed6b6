// RUN: amp-opt %s -split-input-file --amp-narrow-convolution-results --verify-diagnostics | FileCheck %s

// The input gradient of f16 operands into an f32 zero fill: computed in
// f16 into an f16 zero fill, widened for its f32 reader; the f32 fill is
// gone.
// CHECK-LABEL: func.func @backward_data
// CHECK-SAME: (%[[DY:.*]]: tensor<2x8x4x4xf16>, %[[W:.*]]: tensor<8x3x3x3xf16>)
// CHECK-NOT: linalg.fill ins(%{{.*}} : f32)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f16) outs(%{{.*}} : tensor<2x3x8x8xf16>)
// CHECK: %[[DX:.*]] = amp.conv2d_backward_data ins(%[[DY]], %[[W]] : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>) outs(%[[FILL]] : tensor<2x3x8x8xf16>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf16>
// CHECK: %[[WIDE:.*]] = arith.extf %[[DX]] : tensor<2x3x8x8xf16> to tensor<2x3x8x8xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[WIDE]], %[[WIDE]]
// CHECK: return %[[SUM]]
func.func @backward_data(%dy: tensor<2x8x4x4xf16>, %w: tensor<8x3x3x3xf16>) -> tensor<2x3x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x3x8x8xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x8x4x4xf16>, tensor<8x3x3x3xf16>)
      outs(%zero : tensor<2x3x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x3x8x8xf32>
  %sum = arith.addf %dx, %dx : tensor<2x3x8x8xf32>
  return %sum : tensor<2x3x8x8xf32>
}

// -----

// The filter gradient in bf16, NHWC, with a dynamic batch; its narrowing to
// bf16 reads the bf16 result itself, its other reader the widening.
// CHECK-LABEL: func.func @backward_filter
// CHECK-SAME: (%[[X:.*]]: tensor<?x8x8x3xbf16>, %[[DY:.*]]: tensor<?x4x4x8xbf16>)
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : bf16) outs(%{{.*}} : tensor<8x3x3x3xbf16>)
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter ins(%[[X]], %[[DY]] : tensor<?x8x8x3xbf16>, tensor<?x4x4x8xbf16>) outs(%[[FILL]] : tensor<8x3x3x3xbf16>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last -> tensor<8x3x3x3xbf16>
// CHECK: %[[WIDE:.*]] = arith.extf %[[DW]] : tensor<8x3x3x3xbf16> to tensor<8x3x3x3xf32>
// CHECK-NOT: arith.truncf
// CHECK: return %[[DW]], %[[WIDE]]
func.func @backward_filter(%x: tensor<?x8x8x3xbf16>, %dy: tensor<?x4x4x8xbf16>) -> (tensor<8x3x3x3xbf16>, tensor<8x3x3x3xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x3x3x3xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<8x3x3x3xf32>) -> tensor<8x3x3x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<?x8x8x3xbf16>, tensor<?x4x4x8xbf16>)
      outs(%zero : tensor<8x3x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last -> tensor<8x3x3x3xf32>
  %low = arith.truncf %dw : tensor<8x3x3x3xf32> to tensor<8x3x3x3xbf16>
  return %low, %dw : tensor<8x3x3x3xbf16>, tensor<8x3x3x3xf32>
}

// -----

// A forward convolution with a dynamic batch: the f16 init has the f32
// init's sizes, and the named op's body is built for f16 (accumulated in
// f32 by the call, rounded once); the f32 fill stays for its other reader.
// Only a narrowing reads the result: no widening is made.
// CHECK-LABEL: func.func @forward_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x8xf16>, %[[W:.*]]: tensor<4x3x3x3xf16>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[E32:.*]] = tensor.empty(%[[N]]) : tensor<?x4x6x6xf32>
// CHECK: %[[ZERO32:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E32]] : tensor<?x4x6x6xf32>)
// CHECK: %[[E16:.*]] = tensor.empty(%{{.*}}) : tensor<?x4x6x6xf16>
// CHECK: %[[ZERO16:.*]] = linalg.fill ins(%{{.*}} : f16) outs(%[[E16]] : tensor<?x4x6x6xf16>)
// CHECK: %[[Y:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[X]], %[[W]] : tensor<?x3x8x8xf16>, tensor<4x3x3x3xf16>) outs(%[[ZERO16]] : tensor<?x4x6x6xf16>)
// CHECK-NOT: arith.extf
// CHECK: return %[[Y]], %[[ZERO32]]
func.func @forward_dynamic(%x: tensor<?x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> (tensor<?x4x6x6xf16>, tensor<?x4x6x6xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %n = tensor.dim %x, %c0 : tensor<?x3x8x8xf16>
  %e = tensor.empty(%n) : tensor<?x4x6x6xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<?x3x8x8xf16>, tensor<4x3x3x3xf16>) outs(%zero : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %low = arith.truncf %y : tensor<?x4x6x6xf32> to tensor<?x4x6x6xf16>
  return %low, %zero : tensor<?x4x6x6xf16>, tensor<?x4x6x6xf32>
}

// -----

// A depthwise convolution, NHWC.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[Y:.*]] = linalg.depthwise_conv_2d_nhwc_hwc {{.*}} outs(%{{.*}} : tensor<1x6x6x4xf16>) -> tensor<1x6x6x4xf16>
// CHECK: arith.extf %[[Y]] : tensor<1x6x6x4xf16> to tensor<1x6x6x4xf32>
func.func @depthwise(%x: tensor<1x8x8x4xf16>, %w: tensor<3x3x4xf16>) -> tensor<1x6x6x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x8x8x4xf16>, tensor<3x3x4xf16>) outs(%zero : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %y : tensor<1x6x6x4xf32>
}

// -----

// Left as they are: f32 operands, an f16 result already, operands of two
// types, a filter order the GPU's call does not take (NHWC/FHWC), and a
// convolution into an init that is not zero (a remark says why).
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: arith.extf
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x4x6x6xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x4x6x6xf16>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x4x6x6xf32>)
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x6x6x4xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.*}} : tensor<1x4x6x6xf32>)
func.func @unchanged(%x32: tensor<1x3x8x8xf32>, %w32: tensor<4x3x3x3xf32>,
                     %x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>,
                     %wb: tensor<4x3x3x3xbf16>, %xl: tensor<1x8x8x3xf16>,
                     %wl: tensor<4x3x3x3xf16>, %bias: tensor<1x4x6x6xf32>)
    -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf16>, tensor<1x4x6x6xf32>, tensor<1x6x6x4xf32>, tensor<1x4x6x6xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %h = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %z0 = linalg.fill ins(%cst : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x32, %w32 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%z0 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %eh = tensor.empty() : tensor<1x4x6x6xf16>
  %z1 = linalg.fill ins(%h : f16) outs(%eh : tensor<1x4x6x6xf16>) -> tensor<1x4x6x6xf16>
  %y1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) outs(%z1 : tensor<1x4x6x6xf16>) -> tensor<1x4x6x6xf16>
  %z2 = linalg.fill ins(%cst : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %y2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %wb : tensor<1x3x8x8xf16>, tensor<4x3x3x3xbf16>) outs(%z2 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %el = tensor.empty() : tensor<1x6x6x4xf32>
  %z3 = linalg.fill ins(%cst : f32) outs(%el : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %y3 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%xl, %wl : tensor<1x8x8x3xf16>, tensor<4x3x3x3xf16>) outs(%z3 : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  // expected-remark @+1 {{amp: the f32 result of 'f16' operands is kept: the convolution accumulates into an init that is not zero (the GPU's call widens the operands to f32)}}
  %y4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>) outs(%bias : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y0, %y1, %y2, %y3, %y4 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf16>, tensor<1x4x6x6xf32>, tensor<1x6x6x4xf32>, tensor<1x4x6x6xf32>
}
