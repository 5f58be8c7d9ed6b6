// Every verifier rule of amp.all_reduce, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @f64(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'amp.all_reduce' op expects a tensor of f32, f16, bf16, i32 or i1 elements, got 'tensor<4xf64>'}}
  %0 = amp.all_reduce sum %a : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @i64(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'amp.all_reduce' op expects a tensor of f32, f16, bf16, i32 or i1 elements, got 'tensor<4xi64>'}}
  %0 = amp.all_reduce max %a : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @sum_i1(%a: tensor<i1>) -> tensor<i1> {
  // expected-error @+1 {{'amp.all_reduce' op cannot 'sum' i1 values: use 'max' for a logical or, 'min' for a logical and}}
  %0 = amp.all_reduce sum %a : tensor<i1>
  return %0 : tensor<i1>
}

// -----

func.func @mean_i1(%a: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+1 {{'amp.all_reduce' op cannot 'mean' i1 values: use 'max' for a logical or, 'min' for a logical and}}
  %0 = amp.all_reduce mean %a : tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @mean_i32(%a: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{'amp.all_reduce' op cannot 'mean' i32 values (an integer division): use 'sum' and divide}}
  %0 = amp.all_reduce mean %a : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @scalar(%a: f32) -> f32 {
  // expected-error @+1 {{'amp.all_reduce' op operand #0 must be ranked tensor of any type values, but got 'f32'}}
  %0 = "amp.all_reduce"(%a) <{kind = 0 : i32}> : (f32) -> f32
  return %0 : f32
}

// -----

func.func @scalar_custom_syntax(%a: f32) -> f32 {
  // expected-error @+1 {{custom op 'amp.all_reduce' invalid kind of type specified: expected builtin.tensor, but found 'f32'}}
  %0 = amp.all_reduce sum %a : f32
  return %0 : f32
}

// -----

func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'amp.all_reduce' op operand #0 must be ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = "amp.all_reduce"(%a) <{kind = 0 : i32}> : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @result_type(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'amp.all_reduce' op failed to verify that all of {input, result} have same type}}
  %0 = "amp.all_reduce"(%a) <{kind = 0 : i32}> : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @unknown_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'amp.all_reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, mean, max, min]}}
  %0 = amp.all_reduce prod %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @kind_out_of_range(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{invalid properties {kind = 7 : i32} for op amp.all_reduce: Invalid attribute `kind` in property conversion: 7 : i32}}
  %0 = "amp.all_reduce"(%a) <{kind = 7 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
