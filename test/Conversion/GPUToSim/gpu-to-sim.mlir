// RUN: amp-opt %s -split-input-file -amp-gpu-to-sim -verify-diagnostics | FileCheck %s

// A launch becomes ampSimLaunchKernelWithSizes with the kernel's name, its
// packed entry, the grid and block, the parameter array (slots in the entry
// block) and the byte size of each parameter (a global, for a CUDA graph's
// capture to keep their values); the kernel moves to the host module with its special registers,
// barrier and shuffle as simulator calls and its global loads and stores
// checked. The gpu.module goes away.

// CHECK-LABEL: llvm.func @host
// CHECK:         %[[ARRAY:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK:         llvm.br
// CHECK:         llvm.store %{{.*}}, %[[SLOT]]
// CHECK:         %[[NAME:.*]] = llvm.mlir.addressof @kernels__k.name
// CHECK:         %[[ENTRY:.*]] = llvm.mlir.addressof @kernels.k.packed
// CHECK:         %[[COUNT:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         %[[SIZES:.*]] = llvm.mlir.addressof @kernels__k.name.param_sizes
// CHECK:         llvm.call @ampSimLaunchKernelWithSizes(%[[NAME]], %[[ENTRY]], %{{.*}}, %[[ARRAY]], %{{.*}}, %[[COUNT]], %[[SIZES]])
// CHECK-NOT:     gpu.launch_func
// CHECK-NOT:   gpu.module
// CHECK-LABEL: llvm.func internal @kernels.k(%{{.*}}: !llvm.ptr)
// CHECK-NOT:     nvvm.
// CHECK:         llvm.call @ampSimSpecialRegister
// CHECK:         llvm.call @ampSimBarrier()
// CHECK:         %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK:         llvm.call @ampSimShuffle(%{{.*}}, %{{.*}}, %[[BITS]], %{{.*}}, %{{.*}})
// CHECK:         %[[CHECKED:.*]] = llvm.call @ampSimCheckAccess(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i32) -> !llvm.ptr
// CHECK:         llvm.store %{{.*}}, %[[CHECKED]] : f32, !llvm.ptr
// CHECK-NEXT:    llvm.mlir.addressof @kernels.scratch
// CHECK-NEXT:    %[[SHARED:.*]] = llvm.getelementptr
// CHECK-NEXT:    llvm.load %[[SHARED]] : !llvm.ptr<3> -> f32
// CHECK-LABEL: llvm.func internal @kernels.k.packed(%{{.*}}: !llvm.ptr)
// CHECK:         llvm.call @kernels.k(
// CHECK:       llvm.mlir.global internal constant @kernels__k.name.param_sizes(dense<8> : tensor<1xi32>)
module attributes {gpu.container_module} {
  llvm.func @host(%buffer: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %c32 = llvm.mlir.constant(32 : i64) : i64
    llvm.br ^bb1
  ^bb1:
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) : i64 args(%buffer : !llvm.ptr)
    llvm.return
  }
  gpu.module @kernels {
    llvm.mlir.global internal @scratch() {addr_space = 3 : i32} : !llvm.array<32 x f32>
    llvm.func @k(%out: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      nvvm.barrier0
      %v = llvm.sitofp %tid : i32 to f32
      %mask = llvm.mlir.constant(-1 : i32) : i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %clamp = llvm.mlir.constant(31 : i32) : i32
      %s = nvvm.shfl.sync bfly %mask, %v, %one, %clamp : f32 -> f32
      %p = llvm.getelementptr %out[%tid] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      llvm.store %s, %p : f32, !llvm.ptr
      // Shared memory is not a device allocation: not checked.
      %shared = llvm.mlir.addressof @scratch : !llvm.ptr<3>
      %q = llvm.getelementptr %shared[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<32 x f32>
      %l = llvm.load %q : !llvm.ptr<3> -> f32
      llvm.return
    }
  }
}

// -----

// Declarations of libdevice functions are shared by the modules that use
// them; the simulator defines them.

// CHECK-LABEL: llvm.func @host2
// CHECK:       llvm.func @__nv_expf(f32) -> f32
// CHECK-NOT:   llvm.func @__nv_expf
// CHECK-LABEL: llvm.func internal @a.k
// CHECK:         llvm.call @__nv_expf
// CHECK-LABEL: llvm.func internal @b.k
// CHECK:         llvm.call @__nv_expf
module attributes {gpu.container_module} {
  llvm.func @host2() {
    llvm.return
  }
  gpu.module @a {
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @k(%x: f32) attributes {gpu.kernel} {
      %e = llvm.call @__nv_expf(%x) : (f32) -> f32
      llvm.return
    }
  }
  gpu.module @b {
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @k(%x: f32) attributes {gpu.kernel} {
      %e = llvm.call @__nv_expf(%x) : (f32) -> f32
      llvm.return
    }
  }
}

// -----

// An NVVM op the simulator does not model.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @k() attributes {gpu.kernel} {
      // expected-error @below {{amp-gpu-to-sim: kernel '@kernels.k': the GPU simulator does not model 'nvvm.read.ptx.sreg.clock'}}
      %c = nvvm.read.ptx.sreg.clock : i32
      llvm.return
    }
  }
}

// -----

// Dynamic shared memory is not modelled.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{the simulator does not model dynamic shared memory ('@dyn' in gpu.module '@kernels')}}
    llvm.mlir.global external @dyn() {addr_space = 3 : i32} : !llvm.array<0 x i8>
  }
}

// -----

// amp-precise-gpu-math's correctly rounded sqrt is the host's sqrt; other
// NVVM intrinsics are refused.
// CHECK-LABEL: llvm.func internal @kernels.k
// CHECK: llvm.intr.sqrt(%{{.*}}) : (f32) -> f32
// CHECK-NOT: llvm.nvvm
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @k(%x: f32) attributes {gpu.kernel} {
      %r = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%x) : (f32) -> f32
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @k(%x: f32) attributes {gpu.kernel} {
      // expected-error @below {{kernel '@kernels.k': the GPU simulator does not model the intrinsic 'llvm.nvvm.rsqrt.approx.f'}}
      %r = llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.f"(%x) : (f32) -> f32
      llvm.return
    }
  }
}

// -----

// FLOPs for the roofline estimate: each block that computes on floats
// starts with ampSimCountFlops of its count, 1 per element for fadd, fmul,
// fdiv, maxnum and libdevice calls, 2 for fma; conversions, comparisons,
// negations and integer arithmetic count 0, and a block without FLOPs gets
// no call. The loop body's count is added each time it runs.
// CHECK-LABEL: llvm.func internal @kernels.k(
// CHECK-NEXT:    %[[ENTRY:.*]] = llvm.mlir.constant(7 : i64) : i64
// CHECK-NEXT:    llvm.call @ampSimCountFlops(%[[ENTRY]]) : (i64) -> ()
// CHECK:       ^bb1(
// CHECK-NOT:     ampSimCountFlops
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[BODY:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:    llvm.call @ampSimCountFlops(%[[BODY]]) : (i64) -> ()
// CHECK:       ^bb3:
// CHECK-NOT:     ampSimCountFlops
// CHECK:         llvm.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @k(%x: f32, %v: vector<4xf32>, %n: i64) attributes {gpu.kernel} {
      %a = llvm.fadd %x, %x : f32
      %b = llvm.fmul %v, %v : vector<4xf32>
      %e = llvm.call @__nv_expf(%a) : (f32) -> f32
      %m = llvm.intr.maxnum(%e, %x) : (f32, f32) -> f32
      %t = llvm.fptrunc %m : f32 to f16
      %c = llvm.fcmp "olt" %m, %x : f32
      %g = llvm.fneg %m : f32
      %zero = llvm.mlir.constant(0 : i64) : i64
      llvm.br ^bb1(%zero : i64)
    ^bb1(%i: i64):
      %more = llvm.icmp "slt" %i, %n : i64
      llvm.cond_br %more, ^bb2, ^bb3
    ^bb2:
      %f = llvm.intr.fma(%x, %x, %x) : (f32, f32, f32) -> f32
      %one = llvm.mlir.constant(1 : i64) : i64
      %next = llvm.add %i, %one : i64
      llvm.br ^bb1(%next : i64)
    ^bb3:
      llvm.return
    }
  }
}

// -----

// libdevice's __nv_powif takes an int: declared with an i64 exponent (what
// convert-gpu-to-nvvm made of torch-mlir's `x ** 3` before
// amp-gpu-integer-powers), the GPU reads the exponent from a register the
// call never set, while the simulator's host function would get the i64's
// low half. Refused, not simulated.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{amp-gpu-to-sim: '@__nv_powif' is declared '!llvm.func<f32 (f32, i64)>', but libdevice's is '!llvm.func<f32 (f32, i32)>': on the GPU the call would pass its exponent where the function does not read it}}
    llvm.func @__nv_powif(f32, i64) -> f32
    llvm.func @k(%x: f32, %n: i64) attributes {gpu.kernel} {
      %p = llvm.call @__nv_powif(%x, %n) : (f32, i64) -> f32
      llvm.return
    }
  }
}

// -----

// With libdevice's types, simulated.
// CHECK: llvm.call @__nv_powi(%{{.*}}, %{{.*}}) : (f64, i32) -> f64
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @__nv_powi(f64, i32) -> f64
    llvm.func @k(%x: f64, %n: i32) attributes {gpu.kernel} {
      %p = llvm.call @__nv_powi(%x, %n) : (f64, i32) -> f64
      llvm.return
    }
  }
}

// -----

// Each parameter's size is its type's: a pointer, an i32, an f16, an i1 and
// an i64 (a launch without parameters passes none and a null array).
// CHECK-LABEL: llvm.func @sizes
// CHECK:         %[[COUNT:.*]] = llvm.mlir.constant(5 : i32) : i32
// CHECK:         llvm.call @ampSimLaunchKernelWithSizes({{.*}}, %[[COUNT]], %{{.*}})
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         llvm.call @ampSimLaunchKernelWithSizes({{.*}}, %[[NULL]])
// CHECK:       llvm.mlir.global internal constant @m__k.name.param_sizes(dense<[8, 4, 2, 1, 8]> : tensor<5xi32>)
module attributes {gpu.container_module} {
  llvm.func @sizes(%p: !llvm.ptr, %i: i32, %h: f16, %b: i1, %l: i64) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr, %i : i32, %h : f16, %b : i1, %l : i64)
    gpu.launch_func @m::@e blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64
    llvm.return
  }
  gpu.module @m {
    llvm.func @k(%p: !llvm.ptr, %i: i32, %h: f16, %b: i1, %l: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
    llvm.func @e() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A kernel of merged launches (amp-merge-gpu-launches: its gpu.module is
// marked amp.uneven_blocks with its number of bodies, whose grid sizes are
// its last parameters) is launched by ampSimLaunchKernelInSegments with
// AMP_SIM_KERNEL_UNEVEN (2) and the indices of those parameters (here 1
// and 2 of 3): the count-only mode counts each body's blocks as a kernel.
// CHECK-LABEL: llvm.func @merged
// CHECK:         %[[FLAGS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK:         %[[BODIES:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK:         %[[SEGMENTS:.*]] = llvm.mlir.addressof @merged_kernel__merged_kernel.name.segments
// CHECK:         llvm.call @ampSimLaunchKernelInSegments(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FLAGS]], %{{.*}}, %{{.*}}, %[[BODIES]], %[[SEGMENTS]])
// CHECK:       llvm.mlir.global internal constant @merged_kernel__merged_kernel.name.segments(dense<[1, 2]> : tensor<2xi32>)
module attributes {gpu.container_module} {
  llvm.func @merged(%buffer: !llvm.ptr) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %c32 = llvm.mlir.constant(32 : i64) : i64
    %c2 = llvm.mlir.constant(2 : i64) : i64
    gpu.launch_func @merged_kernel::@merged_kernel blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) : i64 args(%buffer : !llvm.ptr, %c1 : i64, %c1 : i64)
    llvm.return
  }
  gpu.module @merged_kernel attributes {amp.uneven_blocks = 2 : i32} {
    llvm.func @merged_kernel(%out: !llvm.ptr, %blocksA: i64, %blocksB: i64) attributes {gpu.kernel, nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %v = llvm.sitofp %tid : i32 to f32
      %p = llvm.getelementptr %out[%tid] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      llvm.store %v, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
