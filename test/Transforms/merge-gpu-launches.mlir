// RUN: amp-opt %s --amp-merge-gpu-launches --split-input-file | FileCheck %s
// RUN: amp-opt %s --amp-merge-gpu-launches=max-bodies=2 --split-input-file | FileCheck %s --check-prefix=TWO
// RUN: not amp-opt %s --amp-merge-gpu-launches=max-bodies=1 --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: amp-merge-gpu-launches: max-bodies must be at least 2, not 1

// Two independent launches (a weight's f16 copy, of 4 blocks of 256
// threads, and another buffer's widening, 2 blocks of 128): one launch of
// 6 blocks of 256 threads, where the second was. Blocks below 4 run the
// first body, the others the second with their index less 4, in its own
// 128 threads; each body keeps its grid size (the last two arguments) and
// block size. The old kernels are gone; the new module is marked uneven.
// CHECK-LABEL: func.func @independent
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[X:.*]] = gpu.alloc () : memref<1024xf16>
// CHECK:         %[[Y:.*]] = gpu.alloc () : memref<256xf32>
// CHECK:         %[[GRID:.*]] = arith.addi %[[C4]], %[[C2]] : index
// CHECK:         %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch_func @independent_merged_kernel::@independent_merged_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[BLOCK]], %{{.*}}, %{{.*}}) args(%arg0 : memref<1024xf32>, %[[X]] : memref<1024xf16>, %arg1 : memref<256xf16>, %[[Y]] : memref<256xf32>, %[[C4]] : index, %[[C2]] : index)
// CHECK-NOT:     gpu.launch_func
// CHECK-NOT:   gpu.module @cast
// CHECK-NOT:   gpu.module @widen
// CHECK:       gpu.module @independent_merged_kernel attributes {amp.uneven_blocks = 2 : i32}
// CHECK:         gpu.func @independent_merged_kernel(%[[A:.*]]: memref<1024xf32>, %[[XA:.*]]: memref<1024xf16>, %[[B:.*]]: memref<256xf16>, %[[YA:.*]]: memref<256xf32>, %[[G1:.*]]: index, %[[G2:.*]]: index) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK:           %[[BID:.*]] = gpu.block_id x
// CHECK:           %[[FIRST:.*]] = arith.cmpi ult, %[[BID]], %[[G1]] : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             %[[C256:.*]] = arith.constant 256 : index
// CHECK:             arith.muli %[[BID]], %[[C256]] : index
// CHECK:             memref.load %[[A]]
// CHECK:             memref.store %{{.*}}, %[[XA]]
// CHECK:           } else {
// CHECK:             %[[BID2:.*]] = arith.subi %[[BID]], %[[G1]] : index
// CHECK:             %[[TID:.*]] = gpu.thread_id x
// CHECK:             %[[IN:.*]] = arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK:             scf.if %[[IN]] {
// CHECK:               arith.muli %[[BID2]], %{{.*}} : index
// CHECK:               arith.cmpi ult, %{{.*}}, %[[G2]] : index
// CHECK:               memref.load %[[B]]
// CHECK:               memref.store %{{.*}}, %[[YA]]
// CHECK:             }
// CHECK:           }
// CHECK:           gpu.return
module attributes {gpu.container_module} {
  func.func @independent(%a: memref<1024xf32>, %b: memref<256xf16>) -> (memref<1024xf16>, memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %x = gpu.alloc () : memref<1024xf16>
    gpu.launch_func @cast::@cast blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<1024xf32>, %x : memref<1024xf16>)
    %y = gpu.alloc () : memref<256xf32>
    gpu.launch_func @widen::@widen blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1) args(%b : memref<256xf16>, %y : memref<256xf32>)
    return %x, %y : memref<1024xf16>, memref<256xf32>
  }
  gpu.module @cast {
    gpu.func @cast(%a: memref<1024xf32>, %x: memref<1024xf16>) kernel {
      %bx = gpu.block_id x
      %sx = gpu.block_dim x
      %tx = gpu.thread_id x
      %i0 = arith.muli %bx, %sx : index
      %i = arith.addi %i0, %tx : index
      %v = memref.load %a[%i] : memref<1024xf32>
      %t = arith.truncf %v : f32 to f16
      memref.store %t, %x[%i] : memref<1024xf16>
      gpu.return
    }
  }
  gpu.module @widen {
    gpu.func @widen(%b: memref<256xf16>, %y: memref<256xf32>) kernel {
      %bx = gpu.block_id x
      %gx = gpu.grid_dim x
      %tx = gpu.thread_id x
      %c128 = arith.constant 128 : index
      %i0 = arith.muli %bx, %c128 : index
      %i = arith.addi %i0, %tx : index
      %last = arith.cmpi ult, %bx, %gx : index
      scf.if %last {
        %v = memref.load %b[%i] : memref<256xf16>
        %t = arith.extf %v : f16 to f32
        memref.store %t, %y[%i] : memref<256xf32>
      }
      gpu.return
    }
  }
}

// -----

// A chain of three: one launch (of 1 + 1 + 1 blocks), its kernel's
// arguments the three kernels' own, then the three bodies' grid sizes (a
// merged kernel's sizes stay last when it is merged again). With
// max-bodies=2 the first two are merged and the third is left alone.
// CHECK-LABEL: func.func @three
// CHECK:         gpu.launch_func @{{.*}}merged_kernel{{.*}}::@{{.*}}merged_kernel {{.*}} args(%arg0 : memref<8xf32>, %{{.*}} : memref<8xf32>, %arg1 : memref<8xf32>, %{{.*}} : memref<8xf32>, %{{.*}} : memref<8xf32>, %c1 : index, %c1 : index, %c1 : index)
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.module @three_merged_kernel{{.*}} attributes {amp.uneven_blocks = 3 : i32}
// CHECK:         gpu.func @three_merged_kernel({{.*}}, %[[G1:.*]]: index, %[[G2:.*]]: index, %[[G3:.*]]: index)
// CHECK:           %[[FIRST2:.*]] = arith.addi %[[G1]], %[[G2]] : index
// CHECK:           arith.cmpi ult, %{{.*}}, %[[FIRST2]] : index
// CHECK:           arith.cmpi ult, %{{.*}}, %[[G1]] : index
// TWO-LABEL:   func.func @three
// TWO:           gpu.launch_func @{{.*}}merged_kernel{{.*}}::@{{.*}}merged_kernel
// TWO-NEXT:      gpu.launch_func @fill::@fill
// TWO-NOT:       gpu.launch_func
module attributes {gpu.container_module} {
  func.func @three(%a: memref<8xf32>, %b: memref<8xf32>, %c: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = gpu.alloc () : memref<8xf32>
    %y = gpu.alloc () : memref<8xf32>
    %z = gpu.alloc () : memref<8xf32>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%a : memref<8xf32>, %x : memref<8xf32>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%b : memref<8xf32>, %y : memref<8xf32>)
    gpu.launch_func @fill::@fill blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%z : memref<8xf32>)
    gpu.dealloc %x : memref<8xf32>
    gpu.dealloc %y : memref<8xf32>
    gpu.dealloc %z : memref<8xf32>
    return
  }
  gpu.module @copy {
    gpu.func @copy(%a: memref<8xf32>, %x: memref<8xf32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<8xf32>
      memref.store %v, %x[%tx] : memref<8xf32>
      gpu.return
    }
  }
  gpu.module @fill {
    gpu.func @fill(%z: memref<8xf32>) kernel {
      %tx = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %z[%tx] : memref<8xf32>
      gpu.return
    }
  }
}

// -----

// Dependent launches stay apart: the second reads what the first wrote
// (through a view of it), the third writes what the second reads, and two
// arguments may be one buffer (the fourth writes an argument the third
// reads). A free between two launches of the buffer the first reads keeps
// them apart; an unknown call between them too.
// CHECK-LABEL: func.func @dependent
// TWO-LABEL:   func.func @dependent
// CHECK:         gpu.launch_func @copy::@copy
// CHECK-NEXT:    memref.subview
// CHECK-NEXT:    memref.cast
// CHECK-NEXT:    memref.cast
// CHECK-NEXT:    memref.cast
// CHECK-NEXT:    gpu.launch_func @copy::@copy
// CHECK-NEXT:    gpu.launch_func @copy::@copy
// CHECK-NEXT:    gpu.launch_func @copy::@copy
// CHECK-NEXT:    gpu.dealloc
// CHECK-NEXT:    gpu.launch_func @copy::@copy
// CHECK-NEXT:    call @opaque
// CHECK-NEXT:    gpu.launch_func @copy::@copy
// CHECK-NOT:   gpu.module @{{.*}}merged_kernel
module attributes {gpu.container_module} {
  func.func private @opaque()
  func.func @dependent(%a: memref<8xf32>, %b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = gpu.alloc () : memref<16xf32>
    %y = gpu.alloc () : memref<8xf32>
    %x0 = memref.subview %x[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
    %xv = memref.cast %x0 : memref<8xf32, strided<[1]>> to memref<8xf32, strided<[?], offset: ?>>
    %av = memref.cast %a : memref<8xf32> to memref<8xf32, strided<[?], offset: ?>>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%av : memref<8xf32, strided<[?], offset: ?>>, %xv : memref<8xf32, strided<[?], offset: ?>>)
    %x8 = memref.subview %x[8] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 8>>
    %xw = memref.cast %x8 : memref<8xf32, strided<[1], offset: 8>> to memref<8xf32, strided<[?], offset: ?>>
    %yv = memref.cast %y : memref<8xf32> to memref<8xf32, strided<[?], offset: ?>>
    %bv = memref.cast %b : memref<8xf32> to memref<8xf32, strided<[?], offset: ?>>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%xw : memref<8xf32, strided<[?], offset: ?>>, %yv : memref<8xf32, strided<[?], offset: ?>>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%av : memref<8xf32, strided<[?], offset: ?>>, %xv : memref<8xf32, strided<[?], offset: ?>>)
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%yv : memref<8xf32, strided<[?], offset: ?>>, %bv : memref<8xf32, strided<[?], offset: ?>>)
    gpu.dealloc %y : memref<8xf32>
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%av : memref<8xf32, strided<[?], offset: ?>>, %xw : memref<8xf32, strided<[?], offset: ?>>)
    func.call @opaque() : () -> ()
    gpu.launch_func @copy::@copy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%av : memref<8xf32, strided<[?], offset: ?>>, %xv : memref<8xf32, strided<[?], offset: ?>>)
    return
  }
  gpu.module @copy {
    gpu.func @copy(%a: memref<8xf32, strided<[?], offset: ?>>, %x: memref<8xf32, strided<[?], offset: ?>>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<8xf32, strided<[?], offset: ?>>
      memref.store %v, %x[%tx] : memref<8xf32, strided<[?], offset: ?>>
      gpu.return
    }
  }
}

// -----

// A kernel that synchronises its block (a barrier) is not merged with one
// of a larger block (its barrier would be in a branch some of the block's
// threads skip); two kernels of 64 and 32 threads without barriers are
// merged (the second's threads beyond 32 skip it). A 2-D grid is left
// alone.
// CHECK-LABEL: func.func @synchronising
// CHECK:         gpu.launch_func @sync::@sync
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    arith.constant 64 : index
// CHECK-NEXT:    gpu.launch_func @{{.*}}merged_kernel{{.*}}::@{{.*}}merged_kernel
// CHECK-NEXT:    gpu.launch_func @narrow::@narrow blocks in (%{{.*}}, %c2, %{{.*}})
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @synchronising_merged_kernel
// CHECK:         scf.if
// CHECK-NOT:       arith.cmpi ult
// CHECK:           memref.store
// CHECK:         } else {
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK:           arith.cmpi ult, %[[TID]], %c32
module attributes {gpu.container_module} {
  func.func @synchronising(%a: memref<64xf32>, %b: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %x = gpu.alloc () : memref<64xf32>
    %y = gpu.alloc () : memref<64xf32>
    %z = gpu.alloc () : memref<64xf32>
    gpu.launch_func @sync::@sync blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<64xf32>)
    gpu.launch_func @wide::@wide blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%y : memref<64xf32>)
    gpu.launch_func @narrow::@narrow blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%x : memref<64xf32>)
    gpu.launch_func @narrow::@narrow blocks in (%c1, %c2, %c1) threads in (%c32, %c1, %c1) args(%z : memref<64xf32>)
    return
  }
  gpu.module @sync {
    gpu.func @sync(%a: memref<64xf32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<64xf32>
      gpu.barrier
      memref.store %v, %a[%tx] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @narrow {
    gpu.func @narrow(%x: memref<64xf32>) kernel {
      %tx = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %x[%tx] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @wide {
    gpu.func @wide(%x: memref<64xf32>) kernel {
      %tx = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %x[%tx] : memref<64xf32>
      gpu.return
    }
  }
}
