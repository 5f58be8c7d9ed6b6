// RUN: amp-opt %s --amp-check-host-code --split-input-file -verify-diagnostics

func.func @host_load(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{amp: --lower-to-gpu left this access to a device buffer on the host, where it would fault}}
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}

// -----

func.func @unmapped_loop(%m: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{amp: --lower-to-gpu could not map this loop to a GPU kernel}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %m[%i] : memref<4xf32>
  }
  return
}

// -----

func.func @leftover_linalg(%m: memref<4xf32>) {
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{amp: --lower-to-gpu has no kernel for 'linalg.fill'}}
  linalg.fill ins(%f : f32) outs(%m : memref<4xf32>)
  return
}

// -----

// Accesses inside kernels and to host scratch (alloca) are fine.
func.func @ok(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    memref.store %f, %m[%c0] : memref<4xf32>
    gpu.terminator
  }
  %s = memref.alloca() : memref<1xf32>
  memref.store %f, %s[%c0] : memref<1xf32>
  %v = memref.load %s[%c0] : memref<1xf32>
  return %v : f32
}

// -----

// Launches over CUDA's limits (the mapping never makes them).
func.func @block_z(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  // expected-error @+1 {{amp: a launch with blockDim.z = 256, over CUDA's limit of 64}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c256) {
    gpu.terminator
  }
  return
}

// -----

func.func @threads(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{amp: a launch with 4096 threads per block, over CUDA's limit of 1024}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c64, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @grid_y(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %big = arith.constant 70000 : index
  // expected-error @+1 {{amp: a launch with gridDim.y = 70000, over CUDA's limit of 65535}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %big, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
