// RUN: amp-opt %s --amp-channels-last --canonicalize --split-input-file -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s --amp-channels-last="channel-multiple=0" --canonicalize --split-input-file 2>&1 | FileCheck %s --check-prefix=NOPAD
// RUN: not amp-opt %s --amp-channels-last="channel-multiple=x" 2>&1 | FileCheck %s --check-prefix=BADOPTION
// BADOPTION: channel-multiple

// A block of two 3x3 convolutions with a per-channel sum (a batch norm's
// statistics) and a scale, ReLU and narrowing between them, all in NCHW
// with a dynamic batch: the convolutions become NHWC/FHWC, and the only
// transposes left are at the boundary (the input, the two filters, the
// result); the generics read the NHWC result through their maps, the
// elementwise one writes NHWC in loops (n, h, w, c) and the pads pad H and
// W where they now are.
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[C3:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @block
// CHECK: %[[XT:.*]] = linalg.transpose ins(%arg0 : tensor<?x8x6x6xf16>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[PX:.*]] = tensor.pad %[[XT]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[W1:.*]] = linalg.transpose ins(%arg1 : tensor<8x8x3x3xf16>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[Y:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[PX]], %[[W1]] : tensor<?x8x8x8xf16>, tensor<8x3x3x8xf16>) outs(%{{.*}} : tensor<?x6x6x8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[LAST]], #[[CH]]], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%[[Y]] : tensor<?x6x6x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[C3]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[Y]], %arg3 : tensor<?x6x6x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<?x6x6x8xf16>)
// CHECK: %[[PR:.*]] = tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[W2:.*]] = linalg.transpose ins(%arg2 : tensor<8x8x3x3xf16>)
// CHECK: %[[Y2:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[PR]], %[[W2]] :
// CHECK: %[[OUT:.*]] = linalg.transpose ins(%[[Y2]] : tensor<?x6x6x8xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[OUT]], %[[SUM]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#stat = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @block(%x: tensor<?x8x6x6xf16>, %w1: tensor<8x8x3x3xf16>, %w2: tensor<8x8x3x3xf16>, %scale: tensor<8xf32>) -> (tensor<?x8x6x6xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %hz = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8x6x6xf16>
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %hz : f16
  } : tensor<?x8x6x6xf16> to tensor<?x8x8x8xf16>
  %e = tensor.empty(%n) : tensor<?x8x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%px, %w1 : tensor<?x8x8x8xf16>, tensor<8x8x3x3xf16>) outs(%z : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  // A per-channel sum (a batch norm's statistics).
  %se = tensor.empty() : tensor<8xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%se : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #stat], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%y : tensor<?x8x6x6xf32>) outs(%sz : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  // Scale, ReLU and narrowing, per channel.
  %he = tensor.empty(%n) : tensor<?x8x6x6xf16>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %scale : tensor<?x8x6x6xf32>, tensor<8xf32>) outs(%he : tensor<?x8x6x6xf16>) {
  ^bb0(%in: f32, %s: f32, %out: f16):
    %m = arith.mulf %in, %s : f32
    %relu = arith.maximumf %m, %zero : f32
    %t = arith.truncf %relu : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x8x6x6xf16>
  %pr = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %hz : f16
  } : tensor<?x8x6x6xf16> to tensor<?x8x8x8xf16>
  %e2 = tensor.empty(%n) : tensor<?x8x6x6xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %y2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%pr, %w2 : tensor<?x8x8x8xf16>, tensor<8x8x3x3xf16>) outs(%z2 : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  return %y2, %sum : tensor<?x8x6x6xf32>, tensor<8xf32>
}

// -----

// Max pooling and the convolution gradients: NHWC forms (pooling's window
// is only a shape), and the gradients' channels_last; a gradient read by
// an elementwise generic is read in place. The input, which the pooling
// and the filter gradient both read, is transposed once.
// CHECK-LABEL: func.func @pool_and_gradients
// CHECK: linalg.transpose ins(%arg0 :
// CHECK: linalg.pooling_nhwc_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x8x4xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<2x4x4x4xf32>)
// CHECK: %[[DX:.*]] = amp.conv2d_backward_data ins(%{{.*}}, %{{.*}} : tensor<2x4x4x6xf32>, tensor<6x3x3x4xf32>) outs(%{{.*}} : tensor<2x8x8x4xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
// CHECK: amp.conv2d_backward_filter ins(%{{.*}}, %{{.*}} : tensor<2x8x8x4xf32>, tensor<2x4x4x6xf32>) outs(%{{.*}} : tensor<6x3x3x4xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last
// CHECK: linalg.generic {{.*}} ins(%[[DX]] : tensor<2x8x8x4xf32>) outs(%{{.*}} : tensor<2x8x8x4xf32>)
// CHECK-NOT: linalg.transpose ins(%arg0 :
func.func @pool_and_gradients(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x6x4x4xf32>, %w: tensor<6x4x3x3xf32>)
    -> (tensor<2x4x4x4xf32>, tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %window = tensor.empty() : tensor<2x2xf32>
  %pe = tensor.empty() : tensor<2x4x4x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %window : tensor<2x4x8x8xf32>, tensor<2x2xf32>) outs(%pf : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %de = tensor.empty() : tensor<2x4x8x8xf32>
  %dz = linalg.fill ins(%zero : f32) outs(%de : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  %dx = amp.conv2d_backward_data ins(%dy, %w : tensor<2x6x4x4xf32>, tensor<6x4x3x3xf32>)
      outs(%dz : tensor<2x4x8x8xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<2x4x8x8xf32>
  %we = tensor.empty() : tensor<6x4x3x3xf32>
  %wz = linalg.fill ins(%zero : f32) outs(%we : tensor<6x4x3x3xf32>) -> tensor<6x4x3x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x4x8x8xf32>, tensor<2x6x4x4xf32>)
      outs(%wz : tensor<6x4x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<6x4x3x3xf32>
  %ne = tensor.empty() : tensor<2x4x8x8xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dx : tensor<2x4x8x8xf32>) outs(%ne : tensor<2x4x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x4x8x8xf32>
  return %pool, %neg, %dw : tensor<2x4x4x4xf32>, tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>
}

// -----

// Left as they are: a convolution on buffers (the pass runs on tensors),
// and a gradient already channels_last.
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.transpose
// CHECK: amp.conv2d_backward_data {{.*}} channels_last -> tensor<2x8x8x4xf32>
// CHECK-NOT: linalg.transpose
func.func @left_alone(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>,
                      %dy: tensor<2x4x4x6xf32>, %k: tensor<6x3x3x4xf32>, %dz: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
  linalg.conv_2d_nchw_fchw ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32>)
  %dx = amp.conv2d_backward_data ins(%dy, %k : tensor<2x4x4x6xf32>, tensor<6x3x3x4xf32>)
      outs(%dz : tensor<2x8x8x4xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] channels_last -> tensor<2x8x8x4xf32>
  return %dx : tensor<2x8x8x4xf32>
}

// -----

// A filter's gradient from its backward call (KRSC) is unscaled in KRSC
// (amp.unscale_gradients is elementwise per gradient), and the update that
// reads it with the filter and its momentum in FCHW (two FCHW tensors, one
// KRSC) reads it through its map and writes FCHW: no transpose of the
// gradient is left, only the boundary's of x and dy.
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @update
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter {{.*}} channels_last -> tensor<6x3x3x4xf32>
// CHECK: %[[U:.*]]:2 = amp.unscale_gradients ins(%[[DW]] : tensor<6x3x3x4xf32>) by %arg3 : tensor<f32> outs(%{{.*}}, %{{.*}} : tensor<6x3x3x4xf32>, tensor<i1>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], {{.*}} ins(%arg2, %[[U]]#0 : tensor<6x4x3x3xf32>, tensor<6x3x3x4xf32>) outs(%arg4 : tensor<6x4x3x3xf32>)
// CHECK-NOT: linalg.transpose ins(%[[DW]]
// CHECK-NOT: linalg.transpose ins(%[[U]]
func.func @update(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x6x4x4xf32>, %w: tensor<6x4x3x3xf32>,
                  %inverse: tensor<f32>, %momentum: tensor<6x4x3x3xf32>) -> (tensor<6x4x3x3xf32>, tensor<i1>) {
  %zero = arith.constant 0.0 : f32
  %false = arith.constant false
  %we = tensor.empty() : tensor<6x4x3x3xf32>
  %wz = linalg.fill ins(%zero : f32) outs(%we : tensor<6x4x3x3xf32>) -> tensor<6x4x3x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x4x8x8xf32>, tensor<2x6x4x4xf32>)
      outs(%wz : tensor<6x4x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<6x4x3x3xf32>
  %ue = tensor.empty() : tensor<6x4x3x3xf32>
  %fe = tensor.empty() : tensor<i1>
  %ff = linalg.fill ins(%false : i1) outs(%fe : tensor<i1>) -> tensor<i1>
  %u:2 = amp.unscale_gradients ins(%dw : tensor<6x4x3x3xf32>) by %inverse : tensor<f32>
      outs(%ue, %ff : tensor<6x4x3x3xf32>, tensor<i1>) -> tensor<6x4x3x3xf32>, tensor<i1>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%w, %u#0 : tensor<6x4x3x3xf32>, tensor<6x4x3x3xf32>) outs(%momentum : tensor<6x4x3x3xf32>) {
  ^bb0(%p: f32, %g: f32, %v: f32):
    %a = arith.addf %v, %g : f32
    %b = arith.addf %a, %p : f32
    linalg.yield %b : f32
  } -> tensor<6x4x3x3xf32>
  return %m, %u#1 : tensor<6x4x3x3xf32>, tensor<i1>
}

// -----

// amp-training's optimizer update: the parameter whose gradient is a
// filter's from its backward call (KRSC, unscaled in KRSC) leaves the
// multi-tensor op as its own generic, which reads the gradient through its
// map and updates the filter and its momentum in FCHW; the bias, whose
// gradient is not transposed, stays in the op. No transpose of the
// gradient is left.
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @optimizer_update
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter {{.*}} channels_last -> tensor<6x3x3x4xf32>
// CHECK: %[[U:.*]]:3 = amp.unscale_gradients ins(%[[DW]], %arg5 : tensor<6x3x3x4xf32>, tensor<6xf32>)
// CHECK: %[[W:.*]]:2 = linalg.generic {indexing_maps = [#[[LAST]], #{{.*}}, #{{.*}}, #[[ID]], #[[ID]], #[[ID]], #[[ID]]], {{.*}} ins(%[[U]]#0, %arg6, %[[U]]#2, %arg2, %arg4 : tensor<6x3x3x4xf32>, tensor<i32>, tensor<i1>, tensor<6x4x3x3xf32>, tensor<6x4x3x3xf32>) outs(%{{.*}}, %{{.*}} : tensor<6x4x3x3xf32>, tensor<6x4x3x3xf32>)
// CHECK: arith.cmpi eq
// CHECK: %[[B:.*]]:2 = amp.optimizer_update momentum ins(%[[U]]#1 : tensor<6xf32>) step(%arg6 : tensor<i32>) skip(%[[U]]#2 : tensor<i1>) params(%arg7, %arg8 : tensor<6xf32>, tensor<6xf32>) outs(%{{.*}}, %{{.*}} : tensor<6xf32>, tensor<6xf32>) {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64}
// CHECK-NOT: linalg.transpose ins(%[[DW]]
// CHECK-NOT: linalg.transpose ins(%[[U]]
// CHECK: return %[[W]]#0, %[[B]]#0, %[[W]]#1, %[[B]]#1
func.func @optimizer_update(%x: tensor<2x4x8x8xf32>, %dy: tensor<2x6x4x4xf32>, %w: tensor<6x4x3x3xf32>,
                            %inverse: tensor<f32>, %momentum: tensor<6x4x3x3xf32>,
                            %db: tensor<6xf32>, %step: tensor<i32>, %b: tensor<6xf32>,
                            %mb: tensor<6xf32>)
    -> (tensor<6x4x3x3xf32>, tensor<6xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %false = arith.constant false
  %we = tensor.empty() : tensor<6x4x3x3xf32>
  %wz = linalg.fill ins(%zero : f32) outs(%we : tensor<6x4x3x3xf32>) -> tensor<6x4x3x3xf32>
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<2x4x8x8xf32>, tensor<2x6x4x4xf32>)
      outs(%wz : tensor<6x4x3x3xf32>) strides = [2, 2] padding = [1, 1] dilations = [1, 1] -> tensor<6x4x3x3xf32>
  %ue = tensor.empty() : tensor<6x4x3x3xf32>
  %be = tensor.empty() : tensor<6xf32>
  %fe = tensor.empty() : tensor<i1>
  %ff = linalg.fill ins(%false : i1) outs(%fe : tensor<i1>) -> tensor<i1>
  %u:3 = amp.unscale_gradients ins(%dw, %db : tensor<6x4x3x3xf32>, tensor<6xf32>) by %inverse : tensor<f32>
      outs(%ue, %be, %ff : tensor<6x4x3x3xf32>, tensor<6xf32>, tensor<i1>) -> tensor<6x4x3x3xf32>, tensor<6xf32>, tensor<i1>
  %ew = tensor.empty() : tensor<6x4x3x3xf32>
  %eb = tensor.empty() : tensor<6xf32>
  %em = tensor.empty() : tensor<6x4x3x3xf32>
  %emb = tensor.empty() : tensor<6xf32>
  %r:4 = amp.optimizer_update momentum ins(%u#0, %u#1 : tensor<6x4x3x3xf32>, tensor<6xf32>)
      step(%step : tensor<i32>) skip(%u#2 : tensor<i1>)
      params(%w, %b, %momentum, %mb : tensor<6x4x3x3xf32>, tensor<6xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>)
      outs(%ew, %eb, %em, %emb : tensor<6x4x3x3xf32>, tensor<6xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>)
      {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64}
      -> tensor<6x4x3x3xf32>, tensor<6xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>
  return %r#0, %r#1, %r#2, %r#3 : tensor<6x4x3x3xf32>, tensor<6xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>
}

// -----

// A convolution's result read by its size (a dynamic batch), by
// tensor.extract in a generic's body (max pooling's window) and
// concatenated along W with another NCHW tensor (max pooling's gradient):
// the size and the elements (channel %c, row %h, column %v) are read
// from the NHWC result (its size folds to the input's), the other
// tensor is transposed to NHWC (here a zero fill: made in NHWC) and the
// concatenation runs along NHWC's W, its result transposed back.
// CHECK-LABEL: func.func @dim_extract_concat
// CHECK: %[[Y:.*]] = linalg.conv_2d_nhwc_fhwc
// CHECK: tensor.extract %[[Y]][%{{.*}}, %arg2, %arg3, %arg4] : tensor<?x6x6x8xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x6x6x8xf32>)
// CHECK: %[[CAT:.*]] = tensor.concat dim(2) %[[Y]], %[[Z]] : (tensor<?x6x6x8xf32>, tensor<?x6x6x8xf32>) -> tensor<?x6x12x8xf32>
// CHECK: linalg.transpose ins(%[[CAT]] : tensor<?x6x12x8xf32>) {{.*}} permutation = [0, 3, 1, 2]
func.func @dim_extract_concat(%x: tensor<?x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %h: index, %v: index, %c: index)
    -> (tensor<?x8x6x12xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x8x8xf32>
  %e = tensor.empty(%n) : tensor<?x8x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<?x4x8x8xf32>, tensor<8x4x3x3xf32>)
      outs(%z : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %m = tensor.dim %y, %c0 : tensor<?x8x6x6xf32>
  %pe = tensor.empty(%m) : tensor<?xf32>
  %picked = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%pe : tensor<?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %element = tensor.extract %y[%i, %c, %h, %v] : tensor<?x8x6x6xf32>
    linalg.yield %element : f32
  } -> tensor<?xf32>
  %ze = tensor.empty(%m) : tensor<?x8x6x6xf32>
  %zz = linalg.fill ins(%zero : f32) outs(%ze : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %cat = tensor.concat dim(3) %y, %zz : (tensor<?x8x6x6xf32>, tensor<?x8x6x6xf32>) -> tensor<?x8x6x12xf32>
  return %cat, %picked : tensor<?x8x6x12xf32>, tensor<?xf32>
}

// -----

// A 16-bit convolution of 3 input channels (ResNet's stem) and its filter
// gradient: the channels padded with zeros to 8, the input and filter of
// the convolution (one pad with the spatial one), the input and
// destination of the gradient, cut back to 3 after; with
// channel-multiple=0, not padded. An f32 convolution is not padded.
// CHECK-LABEL: func.func @stem
// CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 5]
// CHECK: } : tensor<?x16x16x3xf16> to tensor<?x18x18x8xf16>
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 0, 5]
// CHECK: } : tensor<8x3x3x3xf16> to tensor<8x3x3x8xf16>
// CHECK: linalg.conv_2d_nhwc_fhwc{{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x18x18x8xf16>, tensor<8x3x3x8xf16>)
// CHECK: %[[DW:.*]] = amp.conv2d_backward_filter ins(%{{.*}}, %{{.*}} : tensor<?x16x16x8xf16>, tensor<?x16x16x8xf16>) outs(%{{.*}} : tensor<8x3x3x8xf32>)
// CHECK: tensor.extract_slice %[[DW]][0, 0, 0, 0] [8, 3, 3, 3] [1, 1, 1, 1]
// CHECK: linalg.conv_2d_nhwc_fhwc{{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x3x3x3xf32>, tensor<2x1x1x3xf32>)
// NOPAD-LABEL: func.func @stem
// NOPAD-NOT: high[0, 0, 0, 5]
// NOPAD: linalg.conv_2d_nhwc_fhwc{{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x18x18x3xf16>, tensor<8x3x3x3xf16>)
func.func @stem(%x: tensor<?x3x16x16xf16>, %w: tensor<8x3x3x3xf16>, %dy: tensor<?x8x16x16xf16>,
                %x32: tensor<1x3x3x3xf32>, %w32: tensor<2x3x1x1xf32>)
    -> (tensor<?x8x16x16xf32>, tensor<8x3x3x3xf32>, tensor<1x2x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %hz = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x16x16xf16>
  %px = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %hz : f16
  } : tensor<?x3x16x16xf16> to tensor<?x3x18x18xf16>
  %e = tensor.empty(%n) : tensor<?x8x16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x16x16xf32>) -> tensor<?x8x16x16xf32>
  // expected-remark @+1 {{amp: input channels padded with zeros from 3 to 8 (exact) for cuDNN's Tensor Core kernels}}
  %y = linalg.conv_2d_nchw_fchw ins(%px, %w : tensor<?x3x18x18xf16>, tensor<8x3x3x3xf16>) outs(%z : tensor<?x8x16x16xf32>) -> tensor<?x8x16x16xf32>
  %we = tensor.empty() : tensor<8x3x3x3xf32>
  %wz = linalg.fill ins(%zero : f32) outs(%we : tensor<8x3x3x3xf32>) -> tensor<8x3x3x3xf32>
  // expected-remark @+1 {{amp: input channels padded with zeros from 3 to 8 (exact) for cuDNN's Tensor Core kernels}}
  %dw = amp.conv2d_backward_filter ins(%x, %dy : tensor<?x3x16x16xf16>, tensor<?x8x16x16xf16>) outs(%wz : tensor<8x3x3x3xf32>) strides = [1, 1] padding = [1, 1] dilations = [1, 1] -> tensor<8x3x3x3xf32>
  %e32 = tensor.empty() : tensor<1x2x3x3xf32>
  %z32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %y32 = linalg.conv_2d_nchw_fchw ins(%x32, %w32 : tensor<1x3x3x3xf32>, tensor<2x3x1x1xf32>) outs(%z32 : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %y, %dw, %y32 : tensor<?x8x16x16xf32>, tensor<8x3x3x3xf32>, tensor<1x2x3x3xf32>
}
