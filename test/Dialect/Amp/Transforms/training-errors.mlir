// Functions that do not follow the training convention: one error each, at
// the function or the argument.
// RUN: amp-opt %s -split-input-file --amp-training -verify-diagnostics
// RUN: not amp-opt %s -split-input-file --amp-training="scaler=nope" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRESET

// PRESET: error: amp-training: unknown loss-scaler preset 'nope' (known: pytorch, paddle, paddle-static, deepspeed, megatron, apex, colossalai, bf16)

// expected-error @+1 {{a training function (it has an 'amp.loss_seed' argument) needs an 'amp.optimizer' dictionary attribute}}
func.func @no_optimizer(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}) {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{unknown optimizer kind 'lamb' (known: sgd, momentum, adam, adamw)}}
func.func @unknown_kind(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "lamb", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.optimizer' needs a string 'kind'}}
func.func @no_kind(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.optimizer' of kind 'sgd' has no setting 'beta1' (it takes: kind, lr, weight_decay)}}
func.func @foreign_setting(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64, beta1 = 0.9 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.optimizer' needs a float 'lr'}}
func.func @no_lr(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "adam"}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.optimizer' setting 'lr' = -0.1 is out of range (0, inf)}}
func.func @negative_lr(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = -0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.optimizer' setting 'beta2' = 1 is out of range [0, 1)}}
func.func @beta_one(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "adam", lr = 0.1 : f64, beta2 = 1.0 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.optimizer' setting 'momentum' must be a float, got "high"}}
func.func @momentum_string(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "momentum", lr = 0.1 : f64, momentum = "high"}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{Nesterov momentum requires a momentum > 0 and zero dampening (as in PyTorch)}}
func.func @nesterov_dampening(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "momentum", lr = 0.1 : f64, momentum = 0.9 : f64,
                                 dampening = 0.1 : f64, nesterov = true}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.optimizer' setting 'nesterov' must be a bool}}
func.func @nesterov_float(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "momentum", lr = 0.1 : f64, momentum = 0.9 : f64,
                                 nesterov = 1.0 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{the 'amp.loss_seed' argument must be a tensor<f32>, got 'f32'}}
func.func @scalar_seed(%p: tensor<2xf32> {amp.param = "p"}, %s: f32 {amp.loss_seed})
    -> (tensor<2xf32> {amp.grad = "p"}) attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %p : tensor<2xf32>
}

// -----

func.func @two_seeds(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed},
    // expected-error @+1 {{a training function has one 'amp.loss_seed' argument, this is the second}}
    %t: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{parameter 'p' must be an f32 tensor of static shape, got 'tensor<?xf32>'}}
func.func @dynamic_param(%p: tensor<?xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<?xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<?xf32>
}

// -----

func.func @duplicate_name(%p: tensor<2xf32> {amp.param = "p"},
    // expected-error @+1 {{two parameters are named 'p'}}
    %q: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

func.func @two_roles(%p: tensor<2xf32> {amp.param = "p"},
    // expected-error @+1 {{argument #1 has more than one of 'amp.param', 'amp.buffer', 'amp.loss_seed', 'amp.batch'}}
    %s: tensor<f32> {amp.loss_seed, amp.batch})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{a training function needs at least one 'amp.param' argument}}
func.func @no_params(%s: tensor<f32> {amp.loss_seed}) -> (tensor<f32> {amp.loss})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{a training function needs an 'amp.loss' result}}
func.func @no_loss(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %p : tensor<2xf32>
}

// -----

// expected-error @+1 {{the 'amp.loss' result must be a tensor<f32>, got 'tensor<2xf32>'}}
func.func @vector_loss(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<2xf32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %p, %p : tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{result #1 is neither the 'amp.loss' nor an 'amp.grad = "name"' gradient nor an 'amp.buffer = "name"' buffer}}
func.func @extra_result(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32>, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p, %p : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{result #1 is the gradient of 'q', which is not a parameter}}
func.func @gradient_of_unknown(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "q"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{parameter 'p' has no 'amp.grad' result}}
func.func @missing_gradient(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}) attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{parameter 'p' has two gradients}}
func.func @two_gradients(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p, %p : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{the gradient of 'p' has type 'tensor<3xf32>', its parameter 'tensor<2xf32>'}}
func.func @gradient_type(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed},
                         %g: tensor<3xf32>)
    -> (tensor<f32> {amp.loss}, tensor<3xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %g : tensor<f32>, tensor<3xf32>
}

// -----

// expected-error @+1 {{a training function must have exactly one return, it has 2}}
func.func @two_returns(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed},
                       %c: i1)
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  cf.cond_br %c, ^a, ^b
^a:
  return %s, %p : tensor<f32>, tensor<2xf32>
^b:
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{'amp.loss_scaling' must be a #amp.loss_scaling on a function}}
func.func @bad_scaler(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}, amp.loss_scaling = 2.0 : f32} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{amp-training adds a function '@step_init', but the module already has one}}
func.func @step(%p: tensor<2xf32> {amp.param = "p"}, %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}
func.func @step_init() {
  return
}

// -----

// Model buffers (amp.buffer): an argument and the result of its new value,
// by name, of one type.
func.func @buffer_and_param(%p: tensor<2xf32> {amp.param = "p"},
                            // expected-error @+1 {{argument #1 has more than one of 'amp.param', 'amp.buffer', 'amp.loss_seed', 'amp.batch'}}
                            %b: tensor<2xf32> {amp.param = "q", amp.buffer = "b"},
                            %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

func.func @dynamic_buffer(%p: tensor<2xf32> {amp.param = "p"},
                          // expected-error @+1 {{buffer 'b' must be a tensor of static shape, got 'tensor<?xf32>'}}
                          %b: tensor<?xf32> {amp.buffer = "b"},
                          %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}, tensor<?xf32> {amp.buffer = "b"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p, %b : tensor<f32>, tensor<2xf32>, tensor<?xf32>
}

// -----

func.func @two_buffers(%p: tensor<2xf32> {amp.param = "p"},
                       %b: tensor<2xf32> {amp.buffer = "b"},
                       // expected-error @+1 {{two buffers are named 'b'}}
                       %c: tensor<2xf32> {amp.buffer = "b"},
                       %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{buffer 'b' has no 'amp.buffer' result (its new value)}}
func.func @no_new_value(%p: tensor<2xf32> {amp.param = "p"},
                        %b: tensor<2xf32> {amp.buffer = "b"},
                        %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p : tensor<f32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{result #2 is the new value of buffer 'c', which is not an argument}}
func.func @unknown_buffer(%p: tensor<2xf32> {amp.param = "p"},
                          %b: tensor<2xf32> {amp.buffer = "b"},
                          %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}, tensor<2xf32> {amp.buffer = "c"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p, %b : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{buffer 'b' has two new values}}
func.func @two_new_values(%p: tensor<2xf32> {amp.param = "p"},
                          %b: tensor<2xf32> {amp.buffer = "b"},
                          %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}, tensor<2xf32> {amp.buffer = "b"}, tensor<2xf32> {amp.buffer = "b"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p, %b, %b : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// expected-error @+1 {{the new value of buffer 'b' has type 'tensor<2xf16>', its argument 'tensor<2xf32>'}}
func.func @new_value_type(%p: tensor<2xf32> {amp.param = "p"},
                          %b: tensor<2xf32> {amp.buffer = "b"},
                          %c: tensor<2xf16>,
                          %s: tensor<f32> {amp.loss_seed})
    -> (tensor<f32> {amp.loss}, tensor<2xf32> {amp.grad = "p"}, tensor<2xf16> {amp.buffer = "b"})
    attributes {amp.optimizer = {kind = "sgd", lr = 0.1 : f64}} {
  return %s, %p, %c : tensor<f32>, tensor<2xf32>, tensor<2xf16>
}
