// Every verifier rule of amp.attention, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @mixed(%q: memref<1x2x8x16xf16>, %t: tensor<1x2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects every operand to be a tensor, or every operand a buffer}}
  %o = amp.attention ins(%q, %t, %t : memref<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%t : tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>
  return
}

// -----

func.func @three_destinations(%t: tensor<1x2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects one or two destinations (out, stats), got 3}}
  %o:3 = amp.attention ins(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>
  return
}

// -----

func.func @no_result(%t: tensor<1x2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects one result of each destination's type on tensors, and none on buffers}}
  amp.attention ins(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%t : tensor<1x2x8x16xf16>) scale = 1.0
  return
}

// -----

func.func @result_on_buffers(%m: memref<1x2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects one result of each destination's type on tensors, and none on buffers}}
  %o = amp.attention ins(%m, %m, %m : memref<1x2x8x16xf16>, memref<1x2x8x16xf16>, memref<1x2x8x16xf16>) outs(%m : memref<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>
  return
}

// -----

func.func @integers(%t: tensor<1x2x8x16xi32>) {
  // expected-error @+1 {{'amp.attention' op expects f32, f16 or bf16 elements, got 'i32'}}
  %o = amp.attention ins(%t, %t, %t : tensor<1x2x8x16xi32>, tensor<1x2x8x16xi32>, tensor<1x2x8x16xi32>) outs(%t : tensor<1x2x8x16xi32>) scale = 1.0 -> tensor<1x2x8x16xi32>
  return
}

// -----

func.func @rank(%q: tensor<2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects query, key, value and out of rank 4 with one element type}}
  %o = amp.attention ins(%q, %q, %q : tensor<2x8x16xf16>, tensor<2x8x16xf16>, tensor<2x8x16xf16>) outs(%q : tensor<2x8x16xf16>) scale = 1.0 -> tensor<2x8x16xf16>
  return
}

// -----

func.func @element_types(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x16xbf16>) {
  // expected-error @+1 {{'amp.attention' op expects query, key, value and out of rank 4 with one element type}}
  %o = amp.attention ins(%q, %k, %k : tensor<1x2x8x16xf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) outs(%q : tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>
  return
}

// -----

func.func @head_dims(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x8x32xf16>) {
  // expected-error @+1 {{'amp.attention' op expects query B x H x Sq x D, key and value B x H x Skv x D and out of query's sizes}}
  %o = amp.attention ins(%q, %k, %k : tensor<1x2x8x16xf16>, tensor<1x2x8x32xf16>, tensor<1x2x8x32xf16>) outs(%q : tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>
  return
}

// -----

func.func @bshd_sizes(%q: tensor<1x8x2x16xf16>, %k: tensor<1x2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects query B x Sq x H x D, key and value B x Skv x H x D and out of query's sizes}}
  %o = amp.attention ins(%q, %k, %k : tensor<1x8x2x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%q : tensor<1x8x2x16xf16>) scale = 1.0 bshd -> tensor<1x8x2x16xf16>
  return
}

// -----

func.func @bias_shape(%t: tensor<1x2x8x16xf16>, %b: tensor<1x2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects a bias of the query's element type, B|1 x H|1 x Sq x Skv, got 'tensor<1x2x8x16xf16>'}}
  %o = amp.attention ins(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) bias(%b : tensor<1x2x8x16xf16>) outs(%t : tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>
  return
}

// -----

func.func @stats_type(%t: tensor<1x2x8x16xf16>, %s: tensor<1x2x8xf16>) {
  // expected-error @+1 {{'amp.attention' op expects stats of f32, B x H x Sq, got 'tensor<1x2x8xf16>'}}
  %o:2 = amp.attention ins(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%t, %s : tensor<1x2x8x16xf16>, tensor<1x2x8xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8xf16>
  return
}

// -----

func.func @scale(%t: tensor<1x2x8x16xf16>) {
  // expected-error @+1 {{'amp.attention' op expects a finite scale}}
  %o = amp.attention ins(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) outs(%t : tensor<1x2x8x16xf16>) scale = 0x7F800000 -> tensor<1x2x8x16xf16>
  return
}

// -----

// amp.attention_backward: its own rules; the shared ones (element type,
// sizes, bias, stats, scale) with its operand names.
func.func @backward_two_destinations(%t: tensor<1x2x8x16xf16>, %s: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'amp.attention_backward' op expects three destinations (grad_query, grad_key, grad_value), got 2}}
  %g:2 = amp.attention_backward ins(%t, %t, %t, %t, %t, %s : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8xf32>) outs(%t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>
  return
}

// -----

func.func @backward_mixed(%t: tensor<1x2x8x16xf16>, %s: memref<1x2x8xf32>) {
  // expected-error @+1 {{'amp.attention_backward' op expects every operand to be a tensor, or every operand a buffer}}
  %g:3 = amp.attention_backward ins(%t, %t, %t, %t, %t, %s : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, memref<1x2x8xf32>) outs(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>
  return
}

// -----

func.func @backward_gradient_type(%t: tensor<1x2x8x16xf16>, %b: tensor<1x2x8x16xbf16>, %s: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'amp.attention_backward' op expects query, key, value, out, grad_out and the gradients of rank 4 with one element type}}
  %g:3 = amp.attention_backward ins(%t, %t, %t, %t, %t, %s : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8xf32>) outs(%t, %b, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xf16>
  return
}

// -----

// grad_key must have the key's sequence length (4), not the query's (8).
func.func @backward_gradient_sizes(%q: tensor<1x2x8x16xf16>, %k: tensor<1x2x4x16xf16>, %s: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'amp.attention_backward' op expects query B x H x Sq x D, key and value B x H x Skv x D, out, grad_out and grad_query of query's sizes, grad_key and grad_value of key's, got 'tensor<1x2x8x16xf16>', 'tensor<1x2x4x16xf16>', 'tensor<1x2x4x16xf16>', 'tensor<1x2x8x16xf16>', 'tensor<1x2x8x16xf16>', 'tensor<1x2x8x16xf16>', 'tensor<1x2x8x16xf16>', 'tensor<1x2x4x16xf16>'}}
  %g:3 = amp.attention_backward ins(%q, %k, %k, %q, %q, %s : tensor<1x2x8x16xf16>, tensor<1x2x4x16xf16>, tensor<1x2x4x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8xf32>) outs(%q, %q, %k : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x4x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x4x16xf16>
  return
}

// -----

func.func @backward_stats(%t: tensor<1x2x8x16xf16>, %s: tensor<1x2x8xf16>) {
  // expected-error @+1 {{'amp.attention_backward' op expects stats of f32, B x H x Sq, got 'tensor<1x2x8xf16>'}}
  %g:3 = amp.attention_backward ins(%t, %t, %t, %t, %t, %s : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8xf16>) outs(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>
  return
}

// -----

func.func @backward_bias(%t: tensor<1x2x8x16xf16>, %s: tensor<1x2x8xf32>, %b: tensor<1x2x8x4xf16>) {
  // expected-error @+1 {{'amp.attention_backward' op expects a bias of the query's element type, B|1 x H|1 x Sq x Skv, got 'tensor<1x2x8x4xf16>'}}
  %g:3 = amp.attention_backward ins(%t, %t, %t, %t, %t, %s : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8xf32>) bias(%b : tensor<1x2x8x4xf16>) outs(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) scale = 1.0 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>
  return
}

// -----

func.func @backward_scale(%t: tensor<1x2x8x16xf16>, %s: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'amp.attention_backward' op expects a finite scale}}
  %g:3 = amp.attention_backward ins(%t, %t, %t, %t, %t, %s : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8xf32>) outs(%t, %t, %t : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) scale = 0x7F800000 -> tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>
  return
}
