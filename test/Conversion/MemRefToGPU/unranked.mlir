// RUN: amp-opt %s --pass-pipeline="builtin.module(amp-memref-to-gpu)" --split-input-file --verify-diagnostics

// A clone of an unranked buffer (what bufferization makes of a function
// returning its own tensor<*xf32> argument) has no size to allocate on the
// device: a located error, and nothing rewritten, never an abort.
func.func @returns_its_argument(%x: memref<*xf32>) -> memref<*xf32> {
  // expected-error @+1 {{'bufferization.clone' op of an unranked buffer 'memref<*xf32>' cannot be put on the GPU}}
  %c = bufferization.clone %x : memref<*xf32> to memref<*xf32>
  return %c : memref<*xf32>
}

// -----

// The other buffers of the module are not rewritten either when one clone
// is refused (the pass fails before it changes anything).
func.func @ranked_then_unranked(%x: memref<4xf32>, %y: memref<*xf32>) -> (memref<4xf32>, memref<*xf32>) {
  %t = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  // expected-error @+1 {{give the function's arguments and results ranked tensor types}}
  %c = bufferization.clone %y : memref<*xf32> to memref<*xf32>
  return %t, %c : memref<4xf32>, memref<*xf32>
}
