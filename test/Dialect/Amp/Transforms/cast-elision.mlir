// --amp-cast-elision: every rewrite, and the cases where it must not fire.
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect --amp-cast-elision -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect --amp-cast-elision="allow-excess-precision=true" -verify-diagnostics | FileCheck %s --check-prefix=EXCESS
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect --amp-cast-elision | amp-opt -split-input-file -allow-unregistered-dialect --amp-cast-elision | FileCheck %s

// Lossy AMP round trip: stays, unless excess precision is allowed.
// CHECK-LABEL: func.func @lossy_pair
// CHECK: amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: amp.cast %{{.*}} : tensor<4xf16> to tensor<4xf32>
// EXCESS-LABEL: func.func @lossy_pair
// EXCESS-SAME: (%[[X:.*]]: tensor<4xf32>)
// EXCESS-NOT: amp.cast
// EXCESS: return %[[X]]
func.func @lossy_pair(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = amp.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Exact round trips and identities fold.
// CHECK-LABEL: func.func @exact_pair
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @exact_pair(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xf16>
  %2 = amp.cast %1 : tensor<4xf16> to tensor<4xf16>
  return %2 : tensor<4xf16>
}

// -----

// A user's truncf of AMP's exact widening is the source; an AMP cast of a
// user's exact widening back to its source is the source. (The user's now
// unused extf is the user's: this pass leaves it.)
// CHECK-LABEL: func.func @user_and_amp_exact
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[Y:.*]]: tensor<4xbf16>)
// CHECK-NOT: amp.cast
// CHECK-NOT: arith.truncf
// CHECK: return %[[X]], %[[Y]]
func.func @user_and_amp_exact(%x: tensor<4xf16>, %y: tensor<4xbf16>)
    -> (tensor<4xf16>, tensor<4xbf16>) {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = arith.truncf %0 : tensor<4xf32> to tensor<4xf16>
  %2 = arith.extf %y : tensor<4xbf16> to tensor<4xf32>
  %3 = amp.cast %2 : tensor<4xf32> to tensor<4xbf16>
  return %1, %3 : tensor<4xf16>, tensor<4xbf16>
}

// -----

// User casts keep their rounding: a user's lossy pair, and a user truncf
// of AMP's lossy cast, stay.
// CHECK-LABEL: func.func @user_casts_stay
// CHECK: arith.truncf %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: arith.extf %{{.*}} : tensor<4xf16> to tensor<4xf32>
// CHECK: amp.cast %{{.*}} : tensor<4xf32> to tensor<4xbf16>
// CHECK: arith.truncf %{{.*}} : tensor<4xf32> to tensor<4xf16>
func.func @user_casts_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = arith.truncf %x : tensor<4xf32> to tensor<4xf16>
  %1 = arith.extf %0 : tensor<4xf16> to tensor<4xf32>
  %2 = amp.cast %1 : tensor<4xf32> to tensor<4xbf16>
  %3 = amp.cast %2 : tensor<4xbf16> to tensor<4xf32>
  %4 = arith.truncf %3 : tensor<4xf32> to tensor<4xf16>
  return %1, %4 : tensor<4xf32>, tensor<4xf16>
}

// -----

// Constants fold with round to nearest even; an overflow stays, with a
// warning.
// CHECK-LABEL: func.func @constants
// CHECK-DAG: arith.constant dense<9.997550e-02> : tensor<4xf16>
// CHECK-DAG: %[[BIG:.*]] = arith.constant dense<1.000000e+05> : tensor<4xf32>
// CHECK-DAG: amp.cast %[[BIG]] : tensor<4xf32> to tensor<4xf16>
func.func @constants() -> (tensor<4xf16>, tensor<4xf16>) {
  %c = arith.constant dense<0.1> : tensor<4xf32>
  %0 = amp.cast %c : tensor<4xf32> to tensor<4xf16>
  %big = arith.constant dense<100000.0> : tensor<4xf32>
  // expected-warning @+1 {{amp: constant does not fit in 'f16' (it would overflow to infinity); the conversion stays}}
  %1 = amp.cast %big : tensor<4xf32> to tensor<4xf16>
  return %0, %1 : tensor<4xf16>, tensor<4xf16>
}

// -----

// One cast per (value, type), right after the value; casts of
// loop-invariant values leave the loop.
// CHECK-LABEL: func.func @share_and_hoist
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %{{.*}}: index)
// CHECK-NEXT: %[[C:.*]] = amp.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NOT: amp.cast
// CHECK: scf.for
// CHECK: "test.use"(%[[C]])
// CHECK: "test.use"(%[[C]])
func.func @share_and_hoist(%x: tensor<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
    "test.use"(%0) : (tensor<4xf16>) -> ()
  }
  %1 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  "test.use"(%1) : (tensor<4xf16>) -> ()
  return
}

// -----

// Side-effecting users keep their (converted) operands.
// CHECK-LABEL: func.func @side_effects
// CHECK: %[[C:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: call @sink(%[[C]])
func.func private @sink(tensor<4xf16>)
func.func @side_effects(%x: tensor<4xf32>) {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  func.call @sink(%0) : (tensor<4xf16>) -> ()
  return
}

// -----

// Casts move across data movement to the smaller side: before a broadcast,
// after a slice.
// CHECK-LABEL: func.func @motion
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<64xf32>)
// CHECK: %[[XL:.*]] = amp.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK: linalg.broadcast ins(%[[XL]] : tensor<4xf16>) outs(%{{.*}} : tensor<8x4xf16>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[Y]][0] [8] [1] : tensor<64xf32> to tensor<8xf32>
// CHECK: amp.cast %[[S]] : tensor<8xf32> to tensor<8xf16>
func.func @motion(%x: tensor<4xf32>, %y: tensor<64xf32>)
    -> (tensor<8x4xf16>, tensor<8xf16>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %b = linalg.broadcast ins(%x : tensor<4xf32>) outs(%e : tensor<8x4xf32>)
      dimensions = [0]
  %0 = amp.cast %b : tensor<8x4xf32> to tensor<8x4xf16>
  %1 = amp.cast %y : tensor<64xf32> to tensor<64xf16>
  %s = tensor.extract_slice %1[0] [8] [1] : tensor<64xf16> to tensor<8xf16>
  return %0, %s : tensor<8x4xf16>, tensor<8xf16>
}

// -----

// A transpose with as many elements on both sides stays put (nothing to
// gain), unless the move brings two conversions together.
// CHECK-LABEL: func.func @no_churn
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8xf32>)
// CHECK: amp.cast %{{.*}} : tensor<8x4xf32> to tensor<8x4xf16>
func.func @no_churn(%x: tensor<4x8xf32>) -> tensor<8x4xf16> {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>)
      permutation = [1, 0]
  %0 = amp.cast %t : tensor<8x4xf32> to tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

// Casts next to an elementwise generic are fused into its body.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @fusion
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NOT: amp.cast
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf16>) outs(%{{.*}} : tensor<4xf16>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:   %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:   %[[T:.*]] = math.tanh %[[W]] : f32
// CHECK-NEXT:   %[[N:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK-NEXT:   linalg.yield %[[N]] : f16
// CHECK-NOT: amp.cast
func.func @fusion(%x: tensor<4xf16>) -> tensor<4xf16> {
  %w = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %n = amp.cast %g : tensor<4xf32> to tensor<4xf16>
  return %n : tensor<4xf16>
}

// -----

// Not fused: a generic whose result has another user.
#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @no_fusion
// CHECK: amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
func.func @no_fusion(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf16>) {
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %n = amp.cast %g : tensor<4xf32> to tensor<4xf16>
  return %g, %n : tensor<4xf32>, tensor<4xf16>
}

// -----

// Low-precision storage: a narrowing is not fused into the generic that
// reads it (the generic would read the f32 tensor and keep in memory what
// was decided f16); a widening is (the generic reads the f16 tensor).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @narrowing_stays_before_reader
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<8xf16>)
// CHECK:       %[[XL:.*]] = amp.cast %[[X]] : tensor<8xf32> to tensor<8xf16>
// CHECK:       linalg.generic {{.*}} ins(%[[XL]], %[[Y]] : tensor<8xf16>, tensor<8xf16>)
func.func @narrowing_stays_before_reader(%x: tensor<8xf32>, %y: tensor<8xf16>) -> tensor<8xf16> {
  %xl = amp.cast %x : tensor<8xf32> to tensor<8xf16>
  %e = tensor.empty() : tensor<8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%xl, %y : tensor<8xf16>, tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  return %r : tensor<8xf16>
}

// -----

// A widening of a low generic's result for an f32 op is not fused into the
// generic (it would write f32); for a function result it is (the result is
// read in f32 anyway, and the generic writes it once).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @widening_for_an_f32_op
// CHECK:       %[[G:.*]] = linalg.generic
// CHECK:       } -> tensor<8xf16>
// CHECK:       %[[W:.*]] = amp.cast %[[G]] : tensor<8xf16> to tensor<8xf32>
// CHECK:       "test.f32_op"(%[[W]])
func.func @widening_for_an_f32_op(%x: tensor<8xf16>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.mulf %a, %a : f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  %w = amp.cast %r : tensor<8xf16> to tensor<8xf32>
  %u = "test.f32_op"(%w) : (tensor<8xf32>) -> tensor<8xf32>
  return %u : tensor<8xf32>
}

// CHECK-LABEL: func.func @widening_for_the_return
// CHECK:       %[[G:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xf32>)
// CHECK:         arith.extf
// CHECK:       } -> tensor<8xf32>
// CHECK:       return %[[G]]
func.func @widening_for_the_return(%x: tensor<8xf16>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.mulf %a, %a : f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  %w = amp.cast %r : tensor<8xf16> to tensor<8xf32>
  return %w : tensor<8xf32>
}
