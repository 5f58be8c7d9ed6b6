// #amp.loss_scaling: presets, overrides, spelling; amp.precision pins.
// RUN: amp-opt %s -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file --mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s

// The default preset is PyTorch's GradScaler; fields print in full.
// CHECK-LABEL: func.func private @default
// CHECK-SAME: c = #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, backoff_interval = 1, hysteresis = 1, consecutive_hysteresis = false, dynamic = true>
func.func private @default() attributes {c = #amp.loss_scaling<>}

// -----

// CHECK-LABEL: func.func private @presets
// CHECK-SAME: apex = #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, backoff_interval = 1, hysteresis = 1, consecutive_hysteresis = false, max_scale = 16777216.0, dynamic = true>
// CHECK-SAME: colossalai = #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 1000, backoff_interval = 1, hysteresis = 2, consecutive_hysteresis = false, min_scale = 1.0, max_scale = 4294967296.0, dynamic = true>
// CHECK-SAME: deepspeed = #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 1000, backoff_interval = 1, hysteresis = 2, consecutive_hysteresis = false, min_scale = 1.0, dynamic = true>
// CHECK-SAME: megatron = #amp.loss_scaling<init_scale = 4294967296.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 1000, backoff_interval = 1, hysteresis = 2, consecutive_hysteresis = false, min_scale = 1.0, dynamic = true>
// CHECK-SAME: paddle = #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, backoff_interval = 1, hysteresis = 1, consecutive_hysteresis = false, dynamic = true>
// CHECK-SAME: paddle_static = #amp.loss_scaling<init_scale = 32768.0, growth_factor = 2.0, backoff_factor = 0.8, growth_interval = 1000, backoff_interval = 2, hysteresis = 1, consecutive_hysteresis = false, min_scale = 1.0, dynamic = true>
// CHECK-SAME: pytorch = #amp.loss_scaling<init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000, backoff_interval = 1, hysteresis = 1, consecutive_hysteresis = false, dynamic = true>
func.func private @presets() attributes {
  pytorch = #amp.loss_scaling<preset = "pytorch">,
  paddle = #amp.loss_scaling<preset = "paddle">,
  paddle_static = #amp.loss_scaling<preset = "paddle-static">,
  deepspeed = #amp.loss_scaling<preset = "deepspeed">,
  megatron = #amp.loss_scaling<preset = "megatron">,
  apex = #amp.loss_scaling<preset = "apex">,
  colossalai = #amp.loss_scaling<preset = "colossalai">
}

// -----

// Overrides apply on top of the preset wherever `preset` appears; integer
// literals are accepted for the float fields; order does not matter.
// CHECK-LABEL: func.func private @overrides
// CHECK-SAME: a = #amp.loss_scaling<init_scale = 1024.0, growth_factor = 4.0, backoff_factor = 0.25, growth_interval = 3, backoff_interval = 1, hysteresis = 5, consecutive_hysteresis = true, min_scale = 0.5, dynamic = true>
// CHECK-SAME: b = #amp.loss_scaling<init_scale = 1.0, growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 1000, backoff_interval = 1, hysteresis = 2, consecutive_hysteresis = false, min_scale = 1.0, dynamic = false>
// CHECK-SAME: c = #amp.loss_scaling<init_scale = 0.125, growth_factor = 1.0009765625, backoff_factor = 0.1, growth_interval = 2000, backoff_interval = 1, hysteresis = 1, consecutive_hysteresis = false, min_scale = 1.0e-05, max_scale = 1.0e+30, dynamic = true>
func.func private @overrides() attributes {
  a = #amp.loss_scaling<growth_interval = 3, preset = "deepspeed",
                        init_scale = 1024, growth_factor = 4.0,
                        backoff_factor = 0.25, hysteresis = 5,
                        consecutive_hysteresis = true, min_scale = 0.5>,
  b = #amp.loss_scaling<preset = "megatron", init_scale = 1, dynamic = false>,
  c = #amp.loss_scaling<init_scale = 0.125, growth_factor = 1.0009765625,
                        backoff_factor = 0.1, min_scale = 1.0e-5,
                        max_scale = 1.0e30>
}

// -----

// CHECK-LABEL: func.func @pins
// CHECK: tosa.matmul {{.*}}{amp.precision = "bf16"}
// CHECK: linalg.softmax {amp.precision = "f32"}
func.func @pins(%a: tensor<1x4x8xf32>, %b: tensor<1x8x4xf32>, %z: tensor<1xf32>,
                %t: tensor<4x4xf32>) -> (tensor<1x4x4xf32>, tensor<4x4xf32>) {
  %0 = tosa.matmul %a, %b, %z, %z {amp.precision = "bf16"}
      : (tensor<1x4x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>)
      -> tensor<1x4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %1 = linalg.softmax {amp.precision = "f32"} dimension(1)
      ins(%t : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<1x4x4xf32>, tensor<4x4xf32>
}
