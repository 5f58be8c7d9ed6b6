// Every verifier rule of amp.optimizer_update, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @no_gradient(%step: tensor<i32>, %skip: tensor<i1>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects at least one gradient}}
  "amp.optimizer_update"(%step, %skip) <{kind = 0 : i32, lr = 1.0 : f64, operandSegmentSizes = array<i32: 0, 1, 1, 0, 0>}> : (tensor<i32>, tensor<i1>) -> ()
  return
}

// -----

func.func @inits(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects the 1 parameters and then 2 state tensor(s) per parameter for 'adam', and a destination for each: 3 params and 3 inits, got 1 and 1}}
  %r = amp.optimizer_update adam ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 1.0e-03 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @mixed(%g: memref<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects every operand to be a tensor, or every operand a buffer}}
  %r = amp.optimizer_update sgd ins(%g : memref<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 1.0e-01 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @step(%g: tensor<4xf32>, %step: tensor<i64>, %skip: tensor<i1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects the step count to be a 0-d i32, got 'tensor<i64>'}}
  %r = amp.optimizer_update sgd ins(%g : tensor<4xf32>) step(%step : tensor<i64>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 1.0e-01 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @skip(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<1xi1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects the skip flag to be a 0-d i1, got 'tensor<1xi1>'}}
  %r = amp.optimizer_update sgd ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<1xi1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 1.0e-01 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @gradient_type(%g: tensor<4xf64>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects f32, f16 or bf16 gradients, got 'tensor<4xf64>' for gradient #0}}
  %r = amp.optimizer_update sgd ins(%g : tensor<4xf64>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 1.0e-01 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @param_type(%g: tensor<4xf16>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf16>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects the parameter of gradient #0 to be f32 of the gradient's shape, got 'tensor<4xf16>' for 'tensor<4xf16>'}}
  %r = amp.optimizer_update sgd ins(%g : tensor<4xf16>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf16>)
      outs(%p : tensor<4xf16>) {lr = 1.0e-01 : f64} -> tensor<4xf16>
  return
}

// -----

func.func @state_shape(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>, %v: tensor<5xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects the state of gradient #0 to be f32 of the gradient's shape, got 'tensor<5xf32>' for 'tensor<4xf32>'}}
  %r:2 = amp.optimizer_update momentum ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p, %v : tensor<4xf32>, tensor<5xf32>)
      outs(%p, %v : tensor<4xf32>, tensor<5xf32>) {lr = 1.0e-01 : f64, momentum = 0.9 : f64} -> tensor<4xf32>, tensor<5xf32>
  return
}

// -----

func.func @lr(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects lr in (0, inf), got 0}}
  %r = amp.optimizer_update sgd ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 0.0 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @momentum(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects momentum in [0, 1], got 1.5}}
  %r:2 = amp.optimizer_update momentum ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p, %v : tensor<4xf32>, tensor<4xf32>)
      outs(%p, %v : tensor<4xf32>, tensor<4xf32>) {lr = 1.0e-01 : f64, momentum = 1.5 : f64} -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @beta2(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects beta2 in [0, 1), got 1}}
  %r:3 = amp.optimizer_update adamw ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p, %m, %v : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%p, %m, %v : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {lr = 1.0e-03 : f64, beta2 = 1.0 : f64} -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @eps(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects eps in (0, inf), got -1}}
  %r:3 = amp.optimizer_update adam ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p, %m, %v : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%p, %m, %v : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {lr = 1.0e-03 : f64, eps = -1.0 : f64} -> tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @weight_decay(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects weight_decay in [0, inf), got -0.5}}
  %r = amp.optimizer_update sgd ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 1.0e-01 : f64, weight_decay = -0.5 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @nesterov(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects nesterov only with kind 'momentum', a momentum > 0 and zero dampening (as in PyTorch)}}
  %r:2 = amp.optimizer_update momentum ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p, %v : tensor<4xf32>, tensor<4xf32>)
      outs(%p, %v : tensor<4xf32>, tensor<4xf32>) {lr = 1.0e-01 : f64, momentum = 0.9 : f64, dampening = 0.1 : f64, nesterov} -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @kind(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sgd, momentum, adam, adamw]}}
  %r = amp.optimizer_update lamb ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>)
      outs(%p : tensor<4xf32>) {lr = 1.0e-01 : f64} -> tensor<4xf32>
  return
}

// -----

func.func @destination(%g: tensor<4xf32>, %step: tensor<i32>, %skip: tensor<i1>, %p: tensor<4xf32>, %e: tensor<?xf32>) {
  // expected-error @+1 {{'amp.optimizer_update' op expects destination #0 to have the type of its value, 'tensor<4xf32>', got 'tensor<?xf32>'}}
  %r = amp.optimizer_update sgd ins(%g : tensor<4xf32>) step(%step : tensor<i32>) skip(%skip : tensor<i1>)
      params(%p : tensor<4xf32>) outs(%e : tensor<?xf32>) {lr = 1.0e-01 : f64} -> tensor<?xf32>
  return
}
