// RUN: amp-opt %s --pass-pipeline="builtin.module(gpu.module(amp-precise-gpu-math))" | FileCheck %s

// CHECK-LABEL: gpu.func @kernel
gpu.module @kernels {
  gpu.func @kernel(%x: f32, %h: f16, %b: bf16, %d: f64, %out: memref<8xf32>, %out16: memref<8xf16>, %outb: memref<8xbf16>, %out64: memref<8xf64>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // f32 sqrt: the correctly rounded intrinsic.
    // CHECK: %[[S:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[X:.*]]) : (f32) -> f32
    // CHECK: memref.store %[[S]]
    %s = math.sqrt %x : f32
    memref.store %s, %out[%c0] : memref<8xf32>
    // rsqrt: 1 / sqrt.rn (div.rn.f32 after lowering).
    // CHECK: %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[X]]) : (f32) -> f32
    // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
    // CHECK: %[[Q:.*]] = arith.divf %[[ONE]], %[[R]] : f32
    // CHECK: memref.store %[[Q]]
    %r = math.rsqrt %x : f32
    memref.store %r, %out[%c1] : memref<8xf32>
    // f16 and bf16: widened, rooted, narrowed.
    // CHECK: %[[HW:.*]] = arith.extf %{{.*}} : f16 to f32
    // CHECK: %[[HS:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[HW]])
    // CHECK: arith.truncf %[[HS]] : f32 to f16
    %hs = math.sqrt %h : f16
    memref.store %hs, %out16[%c0] : memref<8xf16>
    // CHECK: %[[BW:.*]] = arith.extf %{{.*}} : bf16 to f32
    // CHECK: %[[BS:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[BW]])
    // CHECK: arith.truncf %[[BS]] : f32 to bf16
    %bs = math.sqrt %b : bf16
    memref.store %bs, %outb[%c0] : memref<8xbf16>
    // afn asks for the approximation: left to libdevice. f64 is exact there.
    // CHECK: math.sqrt %{{.*}} fastmath<afn> : f32
    // CHECK: math.sqrt %{{.*}} : f64
    // CHECK-NOT: math.rsqrt
    %a = math.sqrt %x fastmath<afn> : f32
    memref.store %a, %out[%c2] : memref<8xf32>
    %ds = math.sqrt %d : f64
    memref.store %ds, %out64[%c0] : memref<8xf64>
    gpu.return
  }
}

// A vector (a vectorised elementwise kernel's): each element rooted so.
// CHECK-LABEL: gpu.func @vector
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2xf16>
// CHECK: %[[E0:.*]] = vector.extract %[[V:.*]][0] : f16 from vector<2xf16>
// CHECK: %[[W0:.*]] = arith.extf %[[E0]] : f16 to f32
// CHECK: %[[S0:.*]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[W0]]) : (f32) -> f32
// CHECK: %[[D0:.*]] = arith.divf %{{.*}}, %[[S0]] : f32
// CHECK: %[[N0:.*]] = arith.truncf %[[D0]] : f32 to f16
// CHECK: %[[I0:.*]] = vector.insert %[[N0]], %[[ZERO]] [0] : f16 into vector<2xf16>
// CHECK: %[[E1:.*]] = vector.extract %[[V]][1] : f16 from vector<2xf16>
// CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"
// CHECK: %[[I1:.*]] = vector.insert %{{.*}}, %[[I0]] [1] : f16 into vector<2xf16>
// CHECK: vector.store %[[I1]]
// CHECK-NOT: math.rsqrt
gpu.module @vectors {
  gpu.func @vector(%v: vector<2xf16>, %out: memref<8xf16>) kernel {
    %c0 = arith.constant 0 : index
    %r = math.rsqrt %v : vector<2xf16>
    vector.store %r, %out[%c0] : memref<8xf16>, vector<2xf16>
    gpu.return
  }
}
