// Every verifier rule of the amp ops, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @guard_result_count(%a: f32) -> f32 {
  // expected-note @+1 {{guard here}}
  %0 = amp.fp16_guard -> f32 {
    // expected-error @+1 {{'amp.yield' op yields 2 values but its 'amp.fp16_guard' has 1 results}}
    amp.yield %a, %a : f32, f32
  }
  return %0 : f32
}

// -----

func.func @guard_result_type(%a: f32) -> f16 {
  // expected-note @+1 {{guard here}}
  %0 = amp.fp16_guard -> f16 {
    // expected-error @+1 {{'amp.yield' op operand #0 has type 'f32' but the guard's result #0 has type 'f16'}}
    amp.yield %a : f32
  }
  return %0 : f16
}

// -----

func.func @guard_no_results_but_yields(%a: f32) {
  // expected-note @+1 {{guard here}}
  amp.fp16_guard {
    // expected-error @+1 {{'amp.yield' op yields 1 values but its 'amp.fp16_guard' has 0 results}}
    amp.yield %a : f32
  }
  return
}

// -----

func.func @guard_with_arguments() {
  // expected-error @+1 {{'amp.fp16_guard' op region should have no arguments}}
  amp.fp16_guard {
  ^bb0(%x: f32):
    amp.yield
  }
  return
}

// -----

func.func @guard_two_blocks() {
  // expected-error @+1 {{'amp.fp16_guard' op expects region #0 to have 0 or 1 blocks}}
  amp.fp16_guard {
    cf.br ^bb1
  ^bb1:
    amp.yield
  }
  return
}

// -----

func.func @guard_empty_body() {
  // expected-error @+1 {{'amp.fp16_guard' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  amp.fp16_guard {
  }
  return
}

// -----

func.func @guard_missing_terminator(%a: f32) {
  amp.fp16_guard {
    // expected-error @+1 {{block with no terminator}}
    %0 = arith.addf %a, %a : f32
  }
  return
}

// -----

func.func @yield_outside_guard(%a: f32) {
  // expected-error @+1 {{'amp.yield' op expects parent op 'amp.fp16_guard'}}
  amp.yield %a : f32
}

// -----

func.func @cast_integer_source(%a: tensor<4xi32>) {
  // expected-error @+1 {{'amp.cast' op operand #0 must be floating-point-like, but got 'tensor<4xi32>'}}
  %0 = amp.cast %a : tensor<4xi32> to tensor<4xf16>
  return
}

// -----

func.func @cast_integer_result(%a: f32) {
  // expected-error @+1 {{'amp.cast' op result #0 must be floating-point-like, but got 'i16'}}
  %0 = amp.cast %a : f32 to i16
  return
}

// -----

func.func @cast_shape(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'amp.cast' op expects source and result of the same shape, got 'tensor<4x8xf32>' and 'tensor<8x4xf16>'}}
  %0 = amp.cast %a : tensor<4x8xf32> to tensor<8x4xf16>
  return
}

// -----

func.func @cast_dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{'amp.cast' op expects source and result of the same shape}}
  %0 = amp.cast %a : tensor<?xf32> to tensor<4xf16>
  return
}

// -----

func.func @cast_ranked_to_unranked(%a: tensor<4xf32>) {
  // expected-error @+1 {{'amp.cast' op expects source and result of the same shape}}
  %0 = amp.cast %a : tensor<4xf32> to tensor<*xf16>
  return
}

// -----

func.func @cast_scalable(%a: vector<[4]xf32>) {
  // expected-error @+1 {{'amp.cast' op expects source and result of the same shape}}
  %0 = amp.cast %a : vector<[4]xf32> to vector<4xf16>
  return
}

// -----

func.func @cast_kind_tensor_vector(%a: tensor<4xf32>) {
  // expected-error @+1 {{'amp.cast' op expects source and result of the same kind (scalar, vector or tensor), got 'tensor<4xf32>' and 'vector<4xf16>'}}
  %0 = amp.cast %a : tensor<4xf32> to vector<4xf16>
  return
}

// -----

func.func @cast_kind_scalar_tensor(%a: f32) {
  // expected-error @+1 {{'amp.cast' op expects source and result of the same kind (scalar, vector or tensor)}}
  %0 = amp.cast %a : f32 to tensor<f16>
  return
}

// -----

func.func @cast_encoding(%a: tensor<4xf32, "dense">) {
  // expected-error @+1 {{'amp.cast' op expects source and result of the same encoding, got 'tensor<4xf32, "dense">' and 'tensor<4xf16>'}}
  %0 = amp.cast %a : tensor<4xf32, "dense"> to tensor<4xf16>
  return
}

// -----

func.func @scale_loss_shape(%l: tensor<2xf32>, %s: f32) {
  // expected-error @+1 {{'amp.scale_loss' op expects the result to have the shape of the loss 'tensor<2xf32>', got 'tensor<f32>'}}
  %0 = amp.scale_loss %l by %s : tensor<2xf32>, f32 -> tensor<f32>
  return
}

// -----

func.func @scale_loss_scalar_to_tensor(%l: f32, %s: f32) {
  // expected-error @+1 {{'amp.scale_loss' op expects the result to have the shape of the loss 'f32', got 'tensor<f32>'}}
  %0 = amp.scale_loss %l by %s : f32, f32 -> tensor<f32>
  return
}

// -----

func.func @scale_loss_unranked_to_ranked(%l: tensor<*xf32>, %s: f32) {
  // expected-error @+1 {{'amp.scale_loss' op expects the result to have the shape of the loss 'tensor<*xf32>', got 'tensor<2xf32>'}}
  %0 = amp.scale_loss %l by %s : tensor<*xf32>, f32 -> tensor<2xf32>
  return
}

// -----

func.func @scale_loss_low_precision_result(%l: f16, %s: f32) {
  // expected-error @+1 {{'amp.scale_loss' op expects an f32 result (the scaled loss is computed in fp32), got 'f16'}}
  %0 = amp.scale_loss %l by %s : f16, f32 -> f16
  return
}

// -----

func.func @scale_loss_scale_type(%l: f32, %s: f16) {
  // expected-error @+1 {{'amp.scale_loss' op operand #1 must be f32 or tensor<f32>, but got 'f16'}}
  %0 = amp.scale_loss %l by %s : f32, f16 -> f32
  return
}

// -----

func.func @scale_loss_tensor_scale_scalar_loss(%l: f32, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.scale_loss' op expects a tensor loss with a tensor<f32> scale (a 0-d tensor<f32> loss for a scalar), got 'f32'}}
  %0 = amp.scale_loss %l by %s : f32, tensor<f32> -> f32
  return
}

// -----

func.func @scale_loss_ranked_scale(%l: tensor<2xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'amp.scale_loss' op operand #1 must be f32 or tensor<f32>, but got 'tensor<1xf32>'}}
  %0 = amp.scale_loss %l by %s : tensor<2xf32>, tensor<1xf32> -> tensor<2xf32>
  return
}

// -----

func.func @unscale_flag_form(%g: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+2 {{'amp.check_finite_and_unscale' op inferred type(s) 'tensor<4xf32>', 'tensor<i1>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'i1'}}
  // expected-error @+1 {{'amp.check_finite_and_unscale' op failed to infer returned types}}
  %u, %found = "amp.check_finite_and_unscale"(%g, %s) : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, i1)
  return
}

// -----

func.func @update_mixed_state(%f: tensor<i1>, %s: f32, %c: i32) {
  // expected-error @+1 {{'amp.update_loss_scaling' op expects the scaler state to be all scalars or all 0-d tensors, got found_inf 'tensor<i1>', scale 'f32', counters 'i32'}}
  %0:4 = amp.update_loss_scaling found_inf(%f : tensor<i1>) scale(%s : f32) good_steps(%c : i32) bad_steps(%c) hysteresis(%c) config #amp.loss_scaling<>
  return
}

// -----

func.func @update_counter_types(%f: i1, %s: f32, %c: i32, %d: tensor<i32>) {
  // expected-error @+1 {{'amp.update_loss_scaling' op failed to verify that all of {good_steps, bad_steps, hysteresis} have same type}}
  %0:4 = "amp.update_loss_scaling"(%f, %s, %c, %d, %c) <{config = #amp.loss_scaling<>}> : (i1, f32, i32, tensor<i32>, i32) -> (f32, i32, i32, i32)
  return
}

// -----

func.func @scale_loss_integer_loss(%l: i32, %s: f32) {
  // expected-error @+1 {{'amp.scale_loss' op operand #0 must be floating-point scalar or tensor, but got 'i32'}}
  %0 = amp.scale_loss %l by %s : i32, f32 -> f32
  return
}

// -----

func.func @unscale_no_gradients(%s: f32) {
  // expected-error @+1 {{'amp.check_finite_and_unscale' op expects at least one gradient}}
  %found = "amp.check_finite_and_unscale"(%s) : (f32) -> i1
  return
}

// -----

func.func @unscale_integer_gradient(%g: tensor<4xi32>, %s: f32) {
  // expected-error @+1 {{'amp.check_finite_and_unscale' op operand #0 must be variadic of ranked tensor of floating-point values, but got 'tensor<4xi32>'}}
  %u, %found = amp.check_finite_and_unscale %g : tensor<4xi32> by %s : f32
  return
}

// -----

func.func @unscale_result_types(%g: tensor<4xf16>, %s: f32) {
  // expected-error @+2 {{'amp.check_finite_and_unscale' op inferred type(s) 'tensor<4xf16>', 'i1' are incompatible with return type(s) of operation 'tensor<4xf32>', 'i1'}}
  // expected-error @+1 {{'amp.check_finite_and_unscale' op failed to infer returned types}}
  %u, %found = "amp.check_finite_and_unscale"(%g, %s) : (tensor<4xf16>, f32) -> (tensor<4xf32>, i1)
  return
}

// -----

func.func @update_found_inf_type(%f: i32, %s: f32, %c: i32) {
  // expected-error @+1 {{'amp.update_loss_scaling' op operand #0 must be i1 or tensor<i1>, but got 'i32'}}
  %0:4 = "amp.update_loss_scaling"(%f, %s, %c, %c, %c) <{config = #amp.loss_scaling<>}> : (i32, f32, i32, i32, i32) -> (f32, i32, i32, i32)
  return
}

// -----

func.func @update_missing_config(%f: i1, %s: f32, %c: i32) {
  // expected-error @+1 {{'amp.update_loss_scaling' op requires attribute 'config'}}
  %0:4 = "amp.update_loss_scaling"(%f, %s, %c, %c, %c) : (i1, f32, i32, i32, i32) -> (f32, i32, i32, i32)
  return
}

// -----

func.func @precision_pin_value(%a: f32) {
  // expected-error @+1 {{'amp.precision' must be one of "f32", "f16" or "bf16", got "f64"}}
  %0 = arith.addf %a, %a {amp.precision = "f64"} : f32
  return
}

// -----

func.func @precision_pin_type(%a: f32) {
  // expected-error @+1 {{'amp.precision' must be one of "f32", "f16" or "bf16", got 16 : i64}}
  %0 = arith.addf %a, %a {amp.precision = 16} : f32
  return
}

// -----

func.func @absmax_not_array(%a: f32) {
  // expected-error @+1 {{'amp.absmax' must be an array<f32> with one entry per result (1), got 3.000000e+00 : f32}}
  %0 = arith.addf %a, %a {amp.absmax = 3.0 : f32} : f32
  return
}

// -----

func.func @absmax_entries(%a: f32) {
  // expected-error @+1 {{'amp.absmax' must be an array<f32> with one entry per result (1), got array<f32: 1.000000e+00, 2.000000e+00>}}
  %0 = arith.addf %a, %a {amp.absmax = array<f32: 1.0, 2.0>} : f32
  return
}

// -----

// expected-error @+1 {{'amp.absmax' on an argument must be a float, got "big"}}
func.func @absmax_arg(%w: tensor<4xf32> {amp.absmax = "big"}) {
  return
}

// -----

// amp.uneven_blocks marks a gpu.module (amp-merge-gpu-launches'), with its
// kernel's number of bodies (an i32, at least 2): not a function.
// expected-error @+1 {{'amp.uneven_blocks' must be an i32 of at least 2 (the kernel's bodies) on a gpu.module}}
func.func @uneven_blocks_on_a_function() attributes {amp.uneven_blocks = 2 : i32} {
  return
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{'amp.uneven_blocks' must be an i32 of at least 2 (the kernel's bodies) on a gpu.module}}
  gpu.module @uneven attributes {amp.uneven_blocks = 1 : i32} {
  }
}

// -----

func.func @unknown_amp_attribute(%a: f32) {
  // expected-error @+1 {{unknown amp dialect attribute 'amp.precison' (known: 'amp.precision', 'amp.applied', 'amp.stream_ordered', 'amp.nan_inf_sites', 'amp.optimizer', 'amp.loss_scaling', 'amp.fp8_source', 'amp.absmax', 'amp.uneven_blocks')}}
  %0 = arith.addf %a, %a {amp.precison = "f16"} : f32
  return
}

// -----

// expected-error @+1 {{'amp.nan_inf_sites' must be an array of strings on a module}}
module attributes {amp.nan_inf_sites = ["'math.exp' at x.mlir:1:1", 3]} {
}

// -----

func.func @sites_not_on_a_module(%x: f32) -> f32 {
  // expected-error @+1 {{'amp.nan_inf_sites' must be an array of strings on a module}}
  %y = arith.addf %x, %x {amp.nan_inf_sites = ["x"]} : f32
  return %y : f32
}

// -----

// expected-error @+1 {{'amp.stream_ordered' must be a unit attribute on a function}}
func.func private @lib(i32) attributes {amp.stream_ordered = 1 : i32}

// -----

func.func @not_a_function(%x: f32) -> f32 {
  // expected-error @+1 {{'amp.stream_ordered' must be a unit attribute on a function}}
  %y = arith.addf %x, %x {amp.stream_ordered} : f32
  return %y : f32
}

// -----

func.func @fp8_source_not_f32() -> tensor<2xf16> {
  // expected-error @+1 {{'amp.fp8_source' must be a unit attribute on an f32 constant}}
  %c = arith.constant {amp.fp8_source} dense<1.0> : tensor<2xf16>
  return %c : tensor<2xf16>
}

// -----

func.func @fp8_source_not_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'amp.fp8_source' must be a unit attribute on an f32 constant}}
  %y = arith.addf %x, %x {amp.fp8_source} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @fp8_source_not_unit() -> tensor<2xf32> {
  // expected-error @+1 {{'amp.fp8_source' must be a unit attribute on an f32 constant}}
  %c = arith.constant {amp.fp8_source = 1 : i32} dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.master' marks an fp32 master weight: argument #0 must hold f32 elements, got 'tensor<4xf16>'}}
func.func @master_not_f32(%w: tensor<4xf16> {amp.master}) {
  return
}

// -----

// expected-error @+1 {{'amp.master' must be a unit attribute}}
func.func @master_not_unit(%w: tensor<4xf32> {amp.master = 1 : i32}) {
  return
}

// -----

// expected-error @+1 {{unknown amp dialect argument attribute 'amp.weight' (known: 'amp.master', 'amp.absmax', 'amp.param', 'amp.buffer', 'amp.batch', 'amp.loss_seed', 'amp.optimizer_state', 'amp.scaler', 'amp.fp8')}}
func.func @unknown_arg_attr(%w: tensor<4xf32> {amp.weight}) {
  return
}

// -----

// The training-step convention (amp-training).
// expected-error @+1 {{unknown amp dialect result attribute 'amp.seed' (known: 'amp.param', 'amp.buffer', 'amp.loss', 'amp.grad', 'amp.optimizer_state', 'amp.scaler', 'amp.found_inf', 'amp.fp8')}}
func.func @unknown_result_attr() -> (tensor<f32> {amp.seed}) {
  %c = arith.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

// -----

// expected-error @+1 {{'amp.param' must be a string, got unit}}
func.func @param_not_string(%w: tensor<4xf32> {amp.param}) {
  return
}

// -----

// expected-error @+1 {{'amp.loss_seed' must be a unit attribute}}
func.func @seed_not_unit(%s: tensor<f32> {amp.loss_seed = "x"}) {
  return
}

// -----

// A result-only attribute on an argument.
// expected-error @+1 {{unknown amp dialect argument attribute 'amp.grad'}}
func.func @grad_on_argument(%w: tensor<4xf32> {amp.grad = "w"}) {
  return
}

// -----

// expected-error @+1 {{'amp.grad' must be a string, got 1 : i32}}
func.func @grad_not_string() -> (tensor<f32> {amp.grad = 1 : i32}) {
  %c = arith.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

// -----

// expected-error @+1 {{'amp.optimizer' must be a dictionary on a function}}
func.func @optimizer_not_dict() attributes {amp.optimizer = "sgd"} {
  return
}

// -----

// expected-error @+1 {{'amp.loss_scaling' must be a #amp.loss_scaling on a function}}
func.func @loss_scaling_not_attr() attributes {amp.loss_scaling = 1.0 : f32} {
  return
}
