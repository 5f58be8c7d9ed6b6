// --lower-to-gpu: 2-D convolutions in both layouts become cuDNN calls with
// their strides and dilations; libraries=false keeps them as generated
// kernels. PTX only (format=isa): needs no CUDA toolkit.
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa" --split-input-file \
// RUN: | FileCheck %s
// RUN: amp-opt %s --amp-o2 --lower-to-gpu="format=isa libraries=false" \
// RUN:     --split-input-file \
// RUN: | FileCheck %s --check-prefix=KERNELS

// Both functions executed in the GPU simulator against --target=cpu, as
// cuDNN calls (the simulator checks their arguments and operand ranges) and
// as generated kernels, in fp32 (O0) and O2 f16.
// RUN: rm -rf %t.d && mkdir -p %t.d
// DEFINE: %{cmp} = %python %S/../../amp-run/Inputs/compare-npy.py
// DEFINE: %{sim} = FileCheck %s --check-prefix=SIM
// DEFINE: %{ok} = FileCheck %s --check-prefix=CMP
// RUN: amp-run %s --entry nchw --level=O0 --target=cpu --outputs %t.d/a.cpu.npy
// RUN: amp-run %s --entry nchw --level=O0 --target=gpu-sim --outputs %t.d/a.sim.npy | %{sim}
// RUN: %{cmp} 1e-5 %t.d/a.sim.npy %t.d/a.cpu.npy | %{ok}
// RUN: amp-run %s --entry nchw --level=O2 --target=cpu --outputs %t.d/b.cpu.npy
// RUN: amp-run %s --entry nchw --level=O2 --target=gpu-sim --outputs %t.d/b.sim.npy | %{sim}
// RUN: %{cmp} 1e-3 %t.d/b.sim.npy %t.d/b.cpu.npy | %{ok}
// RUN: amp-run %s --entry nchw --level=O0 --gpu-options=libraries=false --target=gpu-sim --outputs %t.d/c.sim.npy | %{sim}
// RUN: %{cmp} 1e-5 %t.d/c.sim.npy %t.d/a.cpu.npy | %{ok}
// RUN: amp-run %s --entry nchw --level=O2 --gpu-options=libraries=false --target=gpu-sim --outputs %t.d/d.sim.npy | %{sim}
// RUN: %{cmp} 1e-3 %t.d/d.sim.npy %t.d/b.cpu.npy | %{ok}
// RUN: amp-run %s --entry nhwc --level=O0 --target=cpu --outputs %t.d/e.cpu.npy
// RUN: amp-run %s --entry nhwc --level=O0 --target=gpu-sim --outputs %t.d/e.sim.npy | %{sim}
// RUN: %{cmp} 1e-5 %t.d/e.sim.npy %t.d/e.cpu.npy | %{ok}
// RUN: amp-run %s --entry nhwc --level=O2 --target=cpu --outputs %t.d/f.cpu.npy
// RUN: amp-run %s --entry nhwc --level=O2 --target=gpu-sim --outputs %t.d/f.sim.npy | %{sim}
// RUN: %{cmp} 1e-3 %t.d/f.sim.npy %t.d/f.cpu.npy | %{ok}
// RUN: amp-run %s --entry nhwc --level=O2 --gpu-options=libraries=false --target=gpu-sim --outputs %t.d/g.sim.npy | %{sim}
// RUN: %{cmp} 1e-3 %t.d/g.sim.npy %t.d/f.cpu.npy | %{ok}
// A dynamic batch (a frontend's import) is a cuDNN call too, its batch read
// at run time (an empty one makes no call: GpuSimTest's
// AConvolutionOfAnEmptyDynamicBatchDoesNothing).
// RUN: amp-run %s --entry dynamic --level=O0 --target=cpu --dynamic-size=3 --outputs %t.d/h.cpu.npy
// RUN: amp-run %s --entry dynamic --level=O0 --target=gpu-sim --dynamic-size=3 --outputs %t.d/h.sim.npy | FileCheck %s --check-prefix=SIMCALL
// RUN: %{cmp} 1e-5 %t.d/h.sim.npy %t.d/h.cpu.npy | %{ok}
// RUN: amp-run %s --entry dynamic --level=O2 --target=cpu --dynamic-size=3 --outputs %t.d/i.cpu.npy
// RUN: amp-run %s --entry dynamic --level=O2 --target=gpu-sim --dynamic-size=3 --outputs %t.d/i.sim.npy | FileCheck %s --check-prefix=SIMCALL
// RUN: %{cmp} 1e-3 %t.d/i.sim.npy %t.d/i.cpu.npy | %{ok}
// SIMCALL: gpu-sim: {{[0-9]+}} kernel launches ({{[0-9]+}} threads), 1 library calls,
// SIM: gpu-sim: {{[0-9]+}} kernel launches ({{[0-9]+}} threads), {{[01]}} library calls, [[N:[0-9]+]] device allocations, [[N]] frees, 0 live
// CMP: output 0: rel L2 {{.*}} ok

// CHECK-LABEL: llvm.func @nchw
// Layout 0 (NCHW/FCHW), n=1 c=3 h=18 w=18 f=8 kh=3 kw=3 oh=8 ow=8, no
// padding, strides 2x2, dilations 1x1, f16 operands, f32 result.
// CHECK-DAG: %[[C18:.*]] = llvm.mlir.constant(18 : i64) : i64
// CHECK-DAG: %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: llvm.call @ampGpuConv2d({{.*}}) : (i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i32, !llvm.ptr, i32, !llvm.ptr, i32, f32) -> ()
// KERNELS-LABEL: llvm.func @nchw
// KERNELS-NOT: ampGpuConv2d
// KERNELS: gpu.launch_func
func.func @nchw(%x: tensor<1x3x18x18xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

// CHECK-LABEL: llvm.func @nhwc
// Layout 1 (NHWC/HWCF) with dilation 2.
// CHECK: %[[L1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @ampGpuConv2d(%[[L1]],
// KERNELS-LABEL: llvm.func @nhwc
// KERNELS-NOT: ampGpuConv2d
func.func @nhwc(%x: tensor<2x12x12x4xf32>, %w: tensor<3x3x4x16xf32>) -> tensor<2x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  %y = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<2x12x12x4xf32>, tensor<3x3x4x16xf32>) outs(%init : tensor<2x8x8x16xf32>) -> tensor<2x8x8x16xf32>
  return %y : tensor<2x8x8x16xf32>
}

// -----

// CHECK-LABEL: llvm.func @dynamic
// The batch, read from the output's descriptor at run time; the input's
// padding read in place (padTop = padLeft = 1).
// CHECK: %[[PAD:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: llvm.call @ampGpuConv2d(
// CHECK-NOT: gpu.launch_func @dynamic
// KERNELS-LABEL: llvm.func @dynamic
// KERNELS-NOT: ampGpuConv2d
func.func @dynamic(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x8x8xf32>
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
  %e = tensor.empty(%n) : tensor<?x4x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%padded, %w : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %y : tensor<?x4x8x8xf32>
}
