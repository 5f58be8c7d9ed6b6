// The loss-scaling ops compiled for the CPU and run: the scale trajectories
// of the research test vectors (loss_scaling.md section 3.5: init 1024,
// growth_interval 3, flags I I C C C I C I I I C C C) for the four families
// of scalers, and check_finite_and_unscale on f16/f32 gradients.
// RUN: amp-opt %s --lower-to-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%amp_runtime \
// RUN: | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

// Runs the 13 steps with a scaler of the given family and returns the scale
// after every step (and, for the last family, whether each step is applied).
func.func @trajectory_pytorch(%flags: tensor<13xi1>) -> tensor<13xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c13 = arith.constant 13 : index
  %s0 = arith.constant 1024.0 : f32
  %z = arith.constant 0 : i32
  %h0 = arith.constant 1 : i32
  %e = tensor.empty() : tensor<13xf32>
  %r:5 = scf.for %i = %c0 to %c13 step %c1
      iter_args(%out = %e, %s = %s0, %g = %z, %b = %z, %h = %h0)
      -> (tensor<13xf32>, f32, i32, i32, i32) {
    %f = tensor.extract %flags[%i] : tensor<13xi1>
    %s1, %g1, %b1, %h1 = amp.update_loss_scaling found_inf(%f : i1)
        scale(%s : f32) good_steps(%g : i32) bad_steps(%b) hysteresis(%h)
        config #amp.loss_scaling<preset = "pytorch", init_scale = 1024.0, growth_interval = 3>
    %o = tensor.insert %s1 into %out[%i] : tensor<13xf32>
    scf.yield %o, %s1, %g1, %b1, %h1 : tensor<13xf32>, f32, i32, i32, i32
  }
  return %r#0 : tensor<13xf32>
}

func.func @trajectory_paddle_static(%flags: tensor<13xi1>) -> tensor<13xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c13 = arith.constant 13 : index
  %s0 = arith.constant 1024.0 : f32
  %z = arith.constant 0 : i32
  %h0 = arith.constant 1 : i32
  %e = tensor.empty() : tensor<13xf32>
  %r:5 = scf.for %i = %c0 to %c13 step %c1
      iter_args(%out = %e, %s = %s0, %g = %z, %b = %z, %h = %h0)
      -> (tensor<13xf32>, f32, i32, i32, i32) {
    %f = tensor.extract %flags[%i] : tensor<13xi1>
    %s1, %g1, %b1, %h1 = amp.update_loss_scaling found_inf(%f : i1)
        scale(%s : f32) good_steps(%g : i32) bad_steps(%b) hysteresis(%h)
        config #amp.loss_scaling<preset = "paddle-static", init_scale = 1024.0, growth_interval = 3>
    %o = tensor.insert %s1 into %out[%i] : tensor<13xf32>
    scf.yield %o, %s1, %g1, %b1, %h1 : tensor<13xf32>, f32, i32, i32, i32
  }
  return %r#0 : tensor<13xf32>
}

// DeepSpeed/Megatron/Colossal-AI: hysteresis 2, refilled on growth. The state
// is held in 0-d tensors here (the GPU form).
func.func @trajectory_deepspeed(%flags: tensor<13xi1>) -> tensor<13xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c13 = arith.constant 13 : index
  %s0 = arith.constant dense<1024.0> : tensor<f32>
  %z = arith.constant dense<0> : tensor<i32>
  %h0 = arith.constant dense<2> : tensor<i32>
  %e = tensor.empty() : tensor<13xf32>
  %r:5 = scf.for %i = %c0 to %c13 step %c1
      iter_args(%out = %e, %s = %s0, %g = %z, %b = %z, %h = %h0)
      -> (tensor<13xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>) {
    %fs = tensor.extract_slice %flags[%i] [1] [1] : tensor<13xi1> to tensor<i1>
    %s1, %g1, %b1, %h1 = amp.update_loss_scaling found_inf(%fs : tensor<i1>)
        scale(%s : tensor<f32>) good_steps(%g : tensor<i32>) bad_steps(%b) hysteresis(%h)
        config #amp.loss_scaling<preset = "deepspeed", init_scale = 1024.0, growth_interval = 3>
    %v = tensor.extract %s1[] : tensor<f32>
    %o = tensor.insert %v into %out[%i] : tensor<13xf32>
    scf.yield %o, %s1, %g1, %b1, %h1 : tensor<13xf32>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>
  }
  return %r#0 : tensor<13xf32>
}

// DeepSpeed consecutive_hysteresis / Apex's update_scale_hysteresis kernel.
func.func @trajectory_consecutive(%flags: tensor<13xi1>) -> tensor<13xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c13 = arith.constant 13 : index
  %s0 = arith.constant 1024.0 : f32
  %z = arith.constant 0 : i32
  %h0 = arith.constant 2 : i32
  %e = tensor.empty() : tensor<13xf32>
  %r:5 = scf.for %i = %c0 to %c13 step %c1
      iter_args(%out = %e, %s = %s0, %g = %z, %b = %z, %h = %h0)
      -> (tensor<13xf32>, f32, i32, i32, i32) {
    %f = tensor.extract %flags[%i] : tensor<13xi1>
    %s1, %g1, %b1, %h1 = amp.update_loss_scaling found_inf(%f : i1)
        scale(%s : f32) good_steps(%g : i32) bad_steps(%b) hysteresis(%h)
        config #amp.loss_scaling<preset = "deepspeed", init_scale = 1024.0, growth_interval = 3, consecutive_hysteresis = true>
    %o = tensor.insert %s1 into %out[%i] : tensor<13xf32>
    scf.yield %o, %s1, %g1, %b1, %h1 : tensor<13xf32>, f32, i32, i32, i32
  }
  return %r#0 : tensor<13xf32>
}

// Growth capped at max_scale, and never to Inf without a cap; back-off
// floored at min_scale.
func.func @limits() -> tensor<4xf32> {
  %f = arith.constant false
  %t = arith.constant true
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %big = arith.constant 3.0e38 : f32
  %s1, %g1, %b1, %h1 = amp.update_loss_scaling found_inf(%f : i1)
      scale(%big : f32) good_steps(%z : i32) bad_steps(%z) hysteresis(%one)
      config #amp.loss_scaling<init_scale = 1.0, growth_interval = 1>
  %c = arith.constant 12582912.0 : f32
  %s2, %g2, %b2, %h2 = amp.update_loss_scaling found_inf(%f : i1)
      scale(%c : f32) good_steps(%z : i32) bad_steps(%z) hysteresis(%one)
      config #amp.loss_scaling<preset = "apex", growth_interval = 1>
  %m = arith.constant 1.5 : f32
  %s3, %g3, %b3, %h3 = amp.update_loss_scaling found_inf(%t : i1)
      scale(%m : f32) good_steps(%z : i32) bad_steps(%z) hysteresis(%one)
      config #amp.loss_scaling<preset = "deepspeed", hysteresis = 1>
  %tiny = arith.constant 1.17549435e-38 : f32
  %s4, %g4, %b4, %h4 = amp.update_loss_scaling found_inf(%t : i1)
      scale(%tiny : f32) good_steps(%z : i32) bad_steps(%z) hysteresis(%one)
      config #amp.loss_scaling<init_scale = 1.0>
  %r = tensor.from_elements %s1, %s2, %s3, %s4 : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @unscale(%a: tensor<4xf16>, %b: tensor<3xf32>, %s: f32)
    -> (tensor<4xf16>, tensor<3xf32>, i1) {
  %u:2, %f = amp.check_finite_and_unscale %a, %b : tensor<4xf16>, tensor<3xf32> by %s : f32
  return %u#0, %u#1, %f : tensor<4xf16>, tensor<3xf32>, i1
}

func.func @main() {
  %flags = arith.constant dense<[true, true, false, false, false, true, false,
                                 true, true, true, false, false, false]> : tensor<13xi1>
  %p = call @trajectory_pytorch(%flags) : (tensor<13xi1>) -> tensor<13xf32>
  %pu = tensor.cast %p : tensor<13xf32> to tensor<*xf32>
  // CHECK: [512,  256,  256,  256,  512,  256,  256,  128,  64,  32,  32,  32,  64]
  call @printMemrefF32(%pu) : (tensor<*xf32>) -> ()
  %q = call @trajectory_paddle_static(%flags) : (tensor<13xi1>) -> tensor<13xf32>
  %qu = tensor.cast %q : tensor<13xf32> to tensor<*xf32>
  // CHECK: [1024,  819.2,  819.2,  819.2,  1638.4,  1638.4,  1638.4,  1638.4,  1310.72,  1310.72,  1310.72,  1310.72,  2621.44]
  call @printMemrefF32(%qu) : (tensor<*xf32>) -> ()
  %d = call @trajectory_deepspeed(%flags) : (tensor<13xi1>) -> tensor<13xf32>
  %du = tensor.cast %d : tensor<13xf32> to tensor<*xf32>
  // CHECK: [1024,  512,  512,  512,  1024,  1024,  1024,  512,  256,  128,  128,  128,  256]
  call @printMemrefF32(%du) : (tensor<*xf32>) -> ()
  %c = call @trajectory_consecutive(%flags) : (tensor<13xi1>) -> tensor<13xf32>
  %cu = tensor.cast %c : tensor<13xf32> to tensor<*xf32>
  // CHECK: [1024,  512,  512,  512,  1024,  1024,  1024,  1024,  512,  256,  256,  256,  512]
  call @printMemrefF32(%cu) : (tensor<*xf32>) -> ()

  // 3e38 * 2 overflows: kept. 12582912 * 2 capped at 2^24. 1.5 * 0.5 floored
  // at 1. The smallest normal is not halved (1/scale must stay finite).
  %l = call @limits() : () -> tensor<4xf32>
  %lu = tensor.cast %l : tensor<4xf32> to tensor<*xf32>
  // CHECK: [3e+38,  1.67772e+07,  1,  1.17549e-38]
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()

  // Unscale by 1024: 2048 -> 2, 6.1035e-5 (2^-14) -> 2^-24 (the smallest f16
  // subnormal, exact), 1 -> 2^-10; f32 values exact. No Inf: found_inf 0.
  %a = arith.constant dense<[2048.0, 6.103515625e-05, 1.0, -4096.0]> : tensor<4xf16>
  %b = arith.constant dense<[1024.0, 3.0, -0.5]> : tensor<3xf32>
  %s = arith.constant 1024.0 : f32
  %u0:3 = call @unscale(%a, %b, %s) : (tensor<4xf16>, tensor<3xf32>, f32) -> (tensor<4xf16>, tensor<3xf32>, i1)
  %u0a = arith.extf %u0#0 : tensor<4xf16> to tensor<4xf32>
  %u0au = tensor.cast %u0a : tensor<4xf32> to tensor<*xf32>
  // CHECK: [2,  5.96046e-08,  0.000976562,  -4]
  call @printMemrefF32(%u0au) : (tensor<*xf32>) -> ()
  %u0bu = tensor.cast %u0#1 : tensor<3xf32> to tensor<*xf32>
  // CHECK: [1,  0.00292969,  -0.000488281]
  call @printMemrefF32(%u0bu) : (tensor<*xf32>) -> ()
  %f0 = arith.extui %u0#2 : i1 to i32
  %f0t = tensor.from_elements %f0 : tensor<1xi32>
  %f0u = tensor.cast %f0t : tensor<1xi32> to tensor<*xi32>
  // CHECK: [0]
  call @printMemrefI32(%f0u) : (tensor<*xi32>) -> ()

  // An Inf in the f16 gradient and a NaN in the f32 one: found.
  %ai = arith.constant dense<[1.0, 0x7C00, 1.0, 1.0]> : tensor<4xf16>
  %u1:3 = call @unscale(%ai, %b, %s) : (tensor<4xf16>, tensor<3xf32>, f32) -> (tensor<4xf16>, tensor<3xf32>, i1)
  %f1 = arith.extui %u1#2 : i1 to i32
  %bn = arith.constant dense<[1.0, 0x7FC00000, 1.0]> : tensor<3xf32>
  %u2:3 = call @unscale(%a, %bn, %s) : (tensor<4xf16>, tensor<3xf32>, f32) -> (tensor<4xf16>, tensor<3xf32>, i1)
  %f2 = arith.extui %u2#2 : i1 to i32
  // A finite value that the scale makes overflow (60000 / 0.5 is Inf in
  // f16) is reported: found_inf covers every value written, as in the
  // runtime. So is an inverse scale that is not finite and > 0 (NaN, or
  // -1 from a scale of -1), with finite gradients.
  %sm = arith.constant 0.5 : f32
  %ab = arith.constant dense<[60000.0, 1.0, 1.0, 1.0]> : tensor<4xf16>
  %u3:3 = call @unscale(%ab, %b, %sm) : (tensor<4xf16>, tensor<3xf32>, f32) -> (tensor<4xf16>, tensor<3xf32>, i1)
  %f3 = arith.extui %u3#2 : i1 to i32
  %snan = arith.constant 0x7FC00000 : f32
  %u4:3 = call @unscale(%a, %b, %snan) : (tensor<4xf16>, tensor<3xf32>, f32) -> (tensor<4xf16>, tensor<3xf32>, i1)
  %f4 = arith.extui %u4#2 : i1 to i32
  %sneg = arith.constant -1.0 : f32
  %u5:3 = call @unscale(%a, %b, %sneg) : (tensor<4xf16>, tensor<3xf32>, f32) -> (tensor<4xf16>, tensor<3xf32>, i1)
  %f5 = arith.extui %u5#2 : i1 to i32
  %ft = tensor.from_elements %f1, %f2, %f3, %f4, %f5 : tensor<5xi32>
  %ftu = tensor.cast %ft : tensor<5xi32> to tensor<*xi32>
  // CHECK: [1,  1,  1,  1,  1]
  call @printMemrefI32(%ftu) : (tensor<*xi32>) -> ()
  return
}
