// Every verifier rule of amp.all_reduce_in_place, one case each.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @f64(%a: memref<4xf64>) {
  // expected-error @+1 {{'amp.all_reduce_in_place' op expects a buffer of f32, f16, bf16, i32 or i1 elements, got 'memref<4xf64>'}}
  amp.all_reduce_in_place sum %a : memref<4xf64>
  return
}

// -----

func.func @sum_i1(%a: memref<i1>) {
  // expected-error @+1 {{'amp.all_reduce_in_place' op cannot 'sum' i1 values: use 'max' for a logical or, 'min' for a logical and}}
  amp.all_reduce_in_place sum %a : memref<i1>
  return
}

// -----

func.func @mean_i32(%a: memref<3xi32>) {
  // expected-error @+1 {{'amp.all_reduce_in_place' op cannot 'mean' i32 values (an integer division): use 'sum' and divide}}
  amp.all_reduce_in_place mean %a : memref<3xi32>
  return
}

// -----

func.func @strided(%a: memref<4x8xf32>) {
  %s = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  // expected-error @+1 {{'amp.all_reduce_in_place' op expects a buffer of the identity layout (the runtime reduces its elements as one contiguous array), got 'memref<4x4xf32, strided<[8, 1]>>'}}
  amp.all_reduce_in_place sum %s : memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

func.func @tensor(%a: tensor<4xf32>) {
  // expected-error @+1 {{'amp.all_reduce_in_place' op operand #0 must be memref of any type values, but got 'tensor<4xf32>'}}
  "amp.all_reduce_in_place"(%a) <{kind = 0 : i32}> : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @unranked(%a: memref<*xf32>) {
  // expected-error @+1 {{'amp.all_reduce_in_place' op operand #0 must be memref of any type values, but got 'memref<*xf32>'}}
  "amp.all_reduce_in_place"(%a) <{kind = 0 : i32}> : (memref<*xf32>) -> ()
  return
}
