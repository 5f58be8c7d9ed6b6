// Every rule of #amp.loss_scaling: the parser's and the verifier's.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{loss_scaling: 'growth_factor' must be finite and > 1, got 1.000000e+00}}
func.func private @f() attributes {c = #amp.loss_scaling<growth_factor = 1.0>}

// -----

// expected-error @+1 {{loss_scaling: 'backoff_factor' must be in (0, 1), got 1.000000e+00}}
func.func private @f() attributes {c = #amp.loss_scaling<backoff_factor = 1.0>}

// -----

// expected-error @+1 {{loss_scaling: 'backoff_factor' must be in (0, 1), got 0.000000e+00}}
func.func private @f() attributes {c = #amp.loss_scaling<backoff_factor = 0.0>}

// -----

// expected-error @+1 {{loss_scaling: 'init_scale' must be finite and > 0, got 0.000000e+00}}
func.func private @f() attributes {c = #amp.loss_scaling<init_scale = 0.0>}

// -----

// expected-error @+1 {{loss_scaling: 'init_scale' must be finite and > 0, got -2.000000e+00}}
func.func private @f() attributes {c = #amp.loss_scaling<init_scale = -2.0>}

// -----

// expected-error @+1 {{loss_scaling: 'growth_interval' must be in [1, 2^31 - 1], got 0}}
func.func private @f() attributes {c = #amp.loss_scaling<growth_interval = 0>}

// -----

// expected-error @+1 {{loss_scaling: 'backoff_interval' must be in [1, 2^31 - 1], got 4294967296}}
func.func private @f() attributes {c = #amp.loss_scaling<backoff_interval = 4294967296>}

// -----

// expected-error @+1 {{loss_scaling: 'hysteresis' must be in [1, 2^31 - 1], got -1}}
func.func private @f() attributes {c = #amp.loss_scaling<hysteresis = -1>}

// -----

// expected-error @+1 {{loss_scaling: 'min_scale' must be finite and > 0, got 0.000000e+00}}
func.func private @f() attributes {c = #amp.loss_scaling<min_scale = 0.0>}

// -----

// expected-error @+1 {{loss_scaling: 'max_scale' must be finite and > 0, got -1.000000e+00}}
func.func private @f() attributes {c = #amp.loss_scaling<max_scale = -1.0>}

// -----

// expected-error @+1 {{loss_scaling: 'min_scale' (1.024000e+03) must not exceed 'max_scale' (1.000000e+00)}}
func.func private @f() attributes {c = #amp.loss_scaling<min_scale = 1024.0, max_scale = 1.0, init_scale = 2.0>}

// -----

// expected-error @+1 {{loss_scaling: 'init_scale' (6.553600e+04) must lie within [min_scale, max_scale]}}
func.func private @f() attributes {c = #amp.loss_scaling<max_scale = 1024.0>}

// -----

// expected-error @+1 {{loss_scaling: 'init_scale' (5.000000e-01) must lie within [min_scale, max_scale]}}
func.func private @f() attributes {c = #amp.loss_scaling<preset = "deepspeed", init_scale = 0.5>}

// -----

// expected-error @+1 {{unknown loss_scaling field 'growth'; expected one of: preset, init_scale, growth_factor, backoff_factor, growth_interval, backoff_interval, hysteresis, consecutive_hysteresis, min_scale, max_scale, dynamic}}
func.func private @f() attributes {c = #amp.loss_scaling<growth = 2.0>}

// -----

// expected-error @+1 {{loss_scaling field 'hysteresis' appears more than once}}
func.func private @f() attributes {c = #amp.loss_scaling<hysteresis = 2, hysteresis = 3>}

// -----

// expected-error @+1 {{unknown loss_scaling preset "tensorflow"; expected one of: "pytorch", "paddle", "paddle-static", "deepspeed", "megatron", "apex", "colossalai", "bf16"}}
func.func private @f() attributes {c = #amp.loss_scaling<preset = "tensorflow">}

// -----

// expected-error @+1 {{expected 'true' or 'false'}}
func.func private @f() attributes {c = #amp.loss_scaling<dynamic = 1>}

// -----

// expected-error @+1 {{expected integer value}}
func.func private @f() attributes {c = #amp.loss_scaling<growth_interval = 2.5>}

// -----

// expected-error @+1 {{expected '='}}
func.func private @f() attributes {c = #amp.loss_scaling<hysteresis 2>}

// -----

// expected-error @+1 {{loss_scaling: 'init_scale' must be a normal f32 value (scales are kept in f32 and 1/scale must be finite), got 1.000000e-40}}
func.func private @f() attributes {c = #amp.loss_scaling<init_scale = 1.0e-40>}

// -----

// expected-error @+1 {{loss_scaling: 'max_scale' must be a normal f32 value (scales are kept in f32 and 1/scale must be finite), got 1.000000e+39}}
func.func private @f() attributes {c = #amp.loss_scaling<max_scale = 1.0e39>}
