// What stops amp.all_reduce from bufferizing: a symbol of the module that
// takes the runtime function's name (then the driver's own error follows).
// RUN: amp-opt %s -split-input-file -verify-diagnostics \
// RUN:   -one-shot-bufferize="bufferize-function-boundaries"

func.func private @ampAllReduce(%x: i32)

func.func @clash(%g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{failed to bufferize op}}
  // expected-error @+1 {{'amp.all_reduce' op cannot declare the runtime function @ampAllReduce: the module defines another symbol of that name}}
  %0 = amp.all_reduce sum %g : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

llvm.func @ampAllReduce(i64)

func.func @wrong_signature(%g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{failed to bufferize op}}
  // expected-error @+1 {{'amp.all_reduce' op cannot declare the runtime function @ampAllReduce: the module defines another symbol of that name}}
  %0 = amp.all_reduce mean %g : tensor<4xf32>
  return %0 : tensor<4xf32>
}
