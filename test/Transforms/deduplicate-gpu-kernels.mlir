// RUN: amp-opt %s --amp-deduplicate-gpu-kernels --split-input-file | FileCheck %s

// Two launches of the same code: one module is left, and both launches
// launch it. A kernel that differs (here in a constant) stays.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: func.func @copies
// CHECK: gpu.launch_func @scale::@scale
// CHECK: gpu.launch_func @scale::@scale
// CHECK: gpu.launch_func @other::@other
// CHECK: gpu.module @scale
// CHECK-NOT: gpu.module @scale_0
// CHECK: gpu.module @other
module attributes {gpu.container_module} {
  func.func @copies(%a: memref<8xf32>, %b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @scale::@scale blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%a : memref<8xf32>)
    gpu.launch_func @scale_0::@scale_0 blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%b : memref<8xf32>)
    gpu.launch_func @other::@other blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%b : memref<8xf32>)
    return
  }
  gpu.module @scale {
    gpu.func @scale(%m: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<8xf32>
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %v, %c : f32
      memref.store %r, %m[%i] : memref<8xf32>
      gpu.return
    }
  }
  gpu.module @scale_0 {
    gpu.func @scale_0(%m: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<8xf32>
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %v, %c : f32
      memref.store %r, %m[%i] : memref<8xf32>
      gpu.return
    }
  }
  gpu.module @other {
    gpu.func @other(%m: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<8xf32>
      %c = arith.constant 3.0 : f32
      %r = arith.mulf %v, %c : f32
      memref.store %r, %m[%i] : memref<8xf32>
      gpu.return
    }
  }
}

// -----

// Same body, other attributes (the known block size): both stay. A module
// with more than one function is not outlining's form: it stays too.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.launch_func @a::@a
// CHECK: gpu.launch_func @b::@b
// CHECK: gpu.launch_func @c::@c
// CHECK: gpu.module @a
// CHECK: gpu.module @b
// CHECK: gpu.module @c
module attributes {gpu.container_module} {
  func.func @kept(%m: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @a::@a blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%m : memref<8xf32>)
    gpu.launch_func @b::@b blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%m : memref<8xf32>)
    gpu.launch_func @c::@c blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%m : memref<8xf32>)
    return
  }
  gpu.module @a {
    gpu.func @a(%m: memref<8xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<8xf32>
      memref.store %v, %m[%i] : memref<8xf32>
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @b(%m: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<8xf32>
      memref.store %v, %m[%i] : memref<8xf32>
      gpu.return
    }
  }
  gpu.module @c {
    gpu.func @c(%m: memref<8xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %m[%i] : memref<8xf32>
      memref.store %v, %m[%i] : memref<8xf32>
      gpu.return
    }
    func.func @helper() {
      return
    }
  }
}

// -----

// A module named elsewhere (here by an attribute) stays, though its
// launches go to the first copy.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.launch_func @k::@k
// CHECK: gpu.launch_func @k::@k
// CHECK: gpu.module @k
// CHECK: gpu.module @k_0
module attributes {gpu.container_module} {
  func.func @named(%m: memref<8xf32>) attributes {test.ref = @k_0} {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>)
    gpu.launch_func @k_0::@k_0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<8xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%m: memref<8xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @k_0 {
    gpu.func @k_0(%m: memref<8xf32>) kernel {
      gpu.return
    }
  }
}
