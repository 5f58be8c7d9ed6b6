// What stops amp.all_reduce_in_place from becoming a runtime call: a symbol
// of the module that takes the runtime function's name (then the driver's
// own error follows).
// RUN: amp-opt %s -split-input-file -verify-diagnostics \
// RUN:   -amp-to-library-calls

func.func private @ampAllReduce(%x: i32)

func.func @clash(%g: memref<4xf32>) {
  // expected-error @+2 {{failed to legalize operation 'amp.all_reduce_in_place'}}
  // expected-error @+1 {{'amp.all_reduce_in_place' op cannot declare the runtime function @ampAllReduce: the module defines another symbol of that name}}
  amp.all_reduce_in_place sum %g : memref<4xf32>
  return
}

// -----

llvm.func @ampAllReduce(i64)

func.func @wrong_signature(%g: memref<4xf32>) {
  // expected-error @+2 {{failed to legalize operation 'amp.all_reduce_in_place'}}
  // expected-error @+1 {{'amp.all_reduce_in_place' op cannot declare the runtime function @ampAllReduce: the module defines another symbol of that name}}
  amp.all_reduce_in_place mean %g : memref<4xf32>
  return
}
