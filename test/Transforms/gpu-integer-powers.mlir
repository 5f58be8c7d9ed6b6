// RUN: amp-opt %s --pass-pipeline="builtin.module(gpu.module(amp-gpu-integer-powers))" | FileCheck %s

// math.fpowi in GPU kernels gets libdevice's i32 exponent: convert-gpu-to-nvvm
// would otherwise declare __nv_powif(f32, i64) for torch-mlir's `x ** 3`,
// and libdevice's __nv_powif(float, int) does not read an i64 (the GPU kit
// of d63d663: every GPT-2 row 7% off on an H200).

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @constants
  gpu.func @constants(%x: f32, %d: f64, %h: f16, %v: vector<4xf32>, %out: memref<8xf32>) kernel {
    %c3_i64 = arith.constant 3 : i64
    %cm2_i64 = arith.constant -2 : i64
    %big = arith.constant 4294967298 : i64
    %bigodd = arith.constant -4294967297 : i64
    %c5_i16 = arith.constant 5 : i16
    %splat = arith.constant dense<3> : vector<4xi64>
    // CHECK: %[[C3:.*]] = arith.constant 3 : i32
    // CHECK: math.fpowi %{{.*}}, %[[C3]] : f32, i32
    %p3 = math.fpowi %x, %c3_i64 : f32, i64
    // CHECK: %[[CM2:.*]] = arith.constant -2 : i32
    // CHECK: math.fpowi %{{.*}}, %[[CM2]] : f64, i32
    %pm2 = math.fpowi %d, %cm2_i64 : f64, i64
    // Past i32: the nearest of the same parity (2^32 + 2: even).
    // CHECK: %[[BIG:.*]] = arith.constant 2147483646 : i32
    // CHECK: math.fpowi %{{.*}}, %[[BIG]] : f32, i32
    %pbig = math.fpowi %x, %big : f32, i64
    // CHECK: %[[BIGODD:.*]] = arith.constant -2147483647 : i32
    // CHECK: math.fpowi %{{.*}}, %[[BIGODD]] : f32, i32
    %pbigodd = math.fpowi %x, %bigodd : f32, i64
    // CHECK: %[[C5:.*]] = arith.constant 5 : i32
    // CHECK: math.fpowi %{{.*}}, %[[C5]] : f16, i32
    %p5 = math.fpowi %h, %c5_i16 : f16, i16
    // CHECK: %[[SPLAT:.*]] = arith.constant dense<3> : vector<4xi32>
    // CHECK: math.fpowi %{{.*}}, %[[SPLAT]] : vector<4xf32>, vector<4xi32>
    %pv = math.fpowi %v, %splat : vector<4xf32>, vector<4xi64>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @variables
  gpu.func @variables(%x: f32, %n: i64, %m: i32, %k: i16) kernel {
    // An i64: clamped to i32, its parity kept.
    // CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i64
    // CHECK: %[[MAX1:.*]] = arith.constant 2147483646 : i64
    // CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i64
    // CHECK: %[[MIN1:.*]] = arith.constant -2147483647 : i64
    // CHECK: %[[ODD:.*]] = arith.trunci %[[N:.*]] : i64 to i1
    // CHECK: %[[ABOVE:.*]] = arith.cmpi sgt, %[[N]], %[[MAX]] : i64
    // CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[N]], %[[MIN]] : i64
    // CHECK: %[[HIGH:.*]] = arith.select %[[ODD]], %[[MAX]], %[[MAX1]] : i64
    // CHECK: %[[LOW:.*]] = arith.select %[[ODD]], %[[MIN1]], %[[MIN]] : i64
    // CHECK: %[[IN:.*]] = arith.select %[[BELOW]], %[[LOW]], %[[N]] : i64
    // CHECK: %[[CL:.*]] = arith.select %[[ABOVE]], %[[HIGH]], %[[IN]] : i64
    // CHECK: %[[N32:.*]] = arith.trunci %[[CL]] : i64 to i32
    // CHECK: math.fpowi %[[X:.*]], %[[N32]] : f32, i32
    %p = math.fpowi %x, %n : f32, i64
    // An i32: libdevice's own type, left as it is.
    // CHECK: math.fpowi %[[X]], %[[M:.*]] : f32, i32
    %pm = math.fpowi %x, %m : f32, i32
    // A narrower one: sign-extended.
    // CHECK: %[[K32:.*]] = arith.extsi %[[K:.*]] : i16 to i32
    // CHECK: math.fpowi %[[X]], %[[K32]] : f32, i32
    %pk = math.fpowi %x, %k : f32, i16
    // CHECK-NOT: i64
    gpu.return
  }
}
