// RUN: amp-opt %s --amp-read-only-arguments --split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-read-only-arguments --one-shot-bufferize="bufferize-function-boundaries" --split-input-file | FileCheck %s --check-prefix=BUF

// Every tensor argument of a public function is marked read only; other
// arguments keep their attributes.
// CHECK-LABEL: func.func @public
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {bufferization.writable = false}, %{{.*}}: index, %{{.*}}: tensor<4xf32> {amp.param = "w", bufferization.writable = false})
func.func @public(%a: tensor<4xf32>, %i: index, %b: tensor<4xf32> {amp.param = "w"}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A private function and a declaration keep writable arguments: the
// private one's callers are in the module.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func private @declared(tensor<4xf32>)
func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @declared(tensor<4xf32>)

// -----

// What it is for: the update of an argument in place is written into a new
// buffer; the caller's is only read. (Without the pass, the store goes to
// the argument's buffer.)
// BUF-LABEL: func.func @update
// BUF-SAME: (%[[ARG:.*]]: memref<4xf32
// BUF: %[[NEW:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// BUF: memref.copy %[[ARG]], %[[NEW]]
// BUF: memref.store %{{.*}}, %[[NEW]][%{{.*}}]
// BUF: return %[[NEW]]
func.func @update(%a: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %0 = tensor.insert %v into %a[%c0] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An argument only overwritten (not read) gets a fresh buffer and no copy.
// BUF-LABEL: func.func @overwrite
// BUF: %[[NEW:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// BUF-NOT: memref.copy
// BUF: linalg.fill ins(%{{.*}} : f32) outs(%[[NEW]] : memref<4xf32>)
// BUF: return %[[NEW]]
func.func @overwrite(%a: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %0 = linalg.fill ins(%v : f32) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
