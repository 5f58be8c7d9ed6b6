// amp-opt parses the upstream dialects the AMP pipelines use and registers
// the passes and pipelines they need.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt --help | FileCheck %s --check-prefix=HELP

// HELP-DAG: --amp-inline-guards
// HELP-DAG: --canonicalize
// HELP-DAG: --cse
// HELP-DAG: --one-shot-bufferize
// HELP-DAG: --tosa-to-linalg
// HELP-DAG: --tosa-validate
// HELP-DAG: --linalg-fuse-elementwise-ops
// HELP-DAG: --convert-linalg-to-parallel-loops
// HELP-DAG: --gpu-kernel-outlining
// HELP-DAG: --gpu-lower-to-nvvm-pipeline
// HELP-DAG: --convert-to-llvm
// HELP-DAG: --arith-emulate-unsupported-floats

// CHECK-LABEL: func.func @upstream
// CHECK: tosa.add
// CHECK: linalg.matmul
// CHECK: math.tanh
// CHECK: scf.for
// CHECK: affine.apply
// CHECK: vector.broadcast
// CHECK: bufferization.to_tensor
// CHECK: memref.alloc
// CHECK: tensor.extract_slice
// CHECK: cf.br
func.func @upstream(%t: tensor<4x4xf32>, %m: memref<4xf32>, %i: index)
    -> tensor<4x4xf32> {
  %0 = tosa.add %t, %t : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%0, %0 : tensor<4x4xf32>, tensor<4x4xf32>)
                     outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = math.tanh %1 : tensor<4x4xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %c4 step %c1 {
    %k = affine.apply affine_map<(d0) -> (d0 + 1)>(%j)
  }
  %f = arith.constant 1.0 : f32
  %v = vector.broadcast %f : f32 to vector<4xf32>
  %tt = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  %a = memref.alloc() : memref<4xf32>
  %s = tensor.extract_slice %2[0, 0] [2, 2] [1, 1]
      : tensor<4x4xf32> to tensor<2x2xf32>
  cf.br ^bb1
^bb1:
  return %2 : tensor<4x4xf32>
}

// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @k
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.mlir.constant
gpu.module @kernels {
  gpu.func @k(%arg: memref<4xf32>) kernel {
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %c = llvm.mlir.constant(1 : i32) : i32
    gpu.return
  }
}
