// Elementwise kernels load and store 16 bytes per access: ld.global.v4 in
// the PTX; the simulator checks the alignment each access states; the
// result in the simulator is the CPU's, bit for bit.
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" | FileCheck %s --check-prefix=PTX
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa vector-bytes=0" | FileCheck %s --check-prefix=SCALAR
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="simulate=true" | FileCheck %s --check-prefix=SIM
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-run %s --entry add --level=O2 --target=cpu --outputs %t/cpu.npy
// RUN: amp-run %s --entry add --level=O2 --target=gpu-sim --outputs %t/sim.npy | FileCheck %s --check-prefix=STATS
// RUN: %python %S/../../amp-run/Inputs/compare-npy.py 0 %t/sim.npy %t/cpu.npy | FileCheck %s --check-prefix=CMP

// The O2 add of f32 arguments: one fused kernel (truncations, the add in
// f16, the extension), 8192 elements in 2048 threads of 16-byte accesses.
// PTX: ld.global.v4.b32
// PTX: ld.global.v4.b32
// PTX: st.global.v4.b32
// SCALAR-NOT: .v4.
// SCALAR: ld.global.b32
// The checks carry the alignment (16 << 8) with the store bit.
// SIM-DAG: %[[STORE:.*]] = llvm.mlir.constant(4097 : i32) : i32
// SIM-DAG: %[[LOAD:.*]] = llvm.mlir.constant(4096 : i32) : i32
// SIM: %[[P:.*]] = llvm.call @ampSimCheckAccess(%{{.*}}, %{{.*}}, %[[LOAD]])
// SIM-NEXT: llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// SIM: %[[Q:.*]] = llvm.call @ampSimCheckAccess(%{{.*}}, %{{.*}}, %[[STORE]])
// SIM-NEXT: llvm.store %{{.*}}, %[[Q]] {alignment = 16 : i64} : vector<4xf32>
// STATS: gpu-sim: 1 kernel launches (2048 threads)
// CMP: output 0: rel L2 0.000e+00 ok
func.func @add(%a: tensor<4x8x256xf32>, %b: tensor<4x8x256xf32>) -> tensor<4x8x256xf32> {
  %e = tensor.empty() : tensor<4x8x256xf32>
  %r = linalg.add ins(%a, %b : tensor<4x8x256xf32>, tensor<4x8x256xf32>)
                  outs(%e : tensor<4x8x256xf32>) -> tensor<4x8x256xf32>
  return %r : tensor<4x8x256xf32>
}
