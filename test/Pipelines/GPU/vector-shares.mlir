// Vectorised kernels larger than their grid, and element counts that are
// no multiple of the vector length. With sm-count=1 and block-size=64 a
// grid has at most 2048 / 64 = 32 blocks of 64 threads. @big (1001 x 37
// f32: 37037 elements, 9259 groups of 4 and a tail of 1) is then 29 blocks
// (1856 threads), each taking a share of 320 groups (ceil(9259 / 32)
// rounded up to a multiple of 64) in steps of 64 x 4 groups (one whole
// step and a partial one; the last block's share is 299 groups), and the
// tail; at the default sm-count (132 for sm_90) one group per thread, 145
// blocks of 64 threads, and the tail. @rows (a
// dynamic batch of 3-element rows: 5 x 3 = 15 elements, 3 groups and 3
// left; 1 x 3: no whole group) is the groups of the flat order and a tail.
// In the simulator (which checks the alignment of every access) the
// results are the CPU's, bit for bit, with 4 vectors per thread (the
// default), 1, and 16.
// RUN: rm -rf %t && mkdir -p %t
// RUN: amp-run %s --entry big --level=O0 --target=cpu --outputs %t/big.cpu.npy
// RUN: amp-run %s --entry big --level=O0 --target=gpu-sim --gpu-options="sm-count=1 block-size=64" --outputs %t/big.4.npy | FileCheck %s --check-prefix=CAPPED
// RUN: amp-run %s --entry big --level=O0 --target=gpu-sim --gpu-options="sm-count=1 block-size=64 vectors-per-thread=1" --outputs %t/big.1.npy | FileCheck %s --check-prefix=CAPPED
// RUN: amp-run %s --entry big --level=O0 --target=gpu-sim --gpu-options="sm-count=1 block-size=64 vectors-per-thread=16" --outputs %t/big.16.npy | FileCheck %s --check-prefix=CAPPED
// RUN: amp-run %s --entry big --level=O0 --target=gpu-sim --gpu-options="block-size=64" --outputs %t/big.npy | FileCheck %s --check-prefix=UNCAPPED
// RUN: amp-run %s --entry rows --level=O0 --target=cpu --dynamic-size=5 --outputs %t/rows5.cpu.npy
// RUN: amp-run %s --entry rows --level=O0 --target=gpu-sim --dynamic-size=5 --gpu-options="sm-count=1 block-size=64" --outputs %t/rows5.sim.npy
// RUN: amp-run %s --entry rows --level=O0 --target=cpu --dynamic-size=1 --outputs %t/rows1.cpu.npy
// RUN: amp-run %s --entry rows --level=O0 --target=gpu-sim --dynamic-size=1 --outputs %t/rows1.sim.npy
// RUN: %python %S/../../amp-run/Inputs/compare-npy.py 0 %t/big.4.npy,%t/big.1.npy,%t/big.16.npy,%t/big.npy,%t/rows5.sim.npy,%t/rows1.sim.npy %t/big.cpu.npy,%t/big.cpu.npy,%t/big.cpu.npy,%t/big.cpu.npy,%t/rows5.cpu.npy,%t/rows1.cpu.npy | FileCheck %s --check-prefix=CMP
// CAPPED: gpu-sim: 1 kernel launches (1856 threads)
// UNCAPPED: gpu-sim: 1 kernel launches (9280 threads)
// CMP-COUNT-6: rel L2 0.000e+00 ok
func.func @big(%x: tensor<1001x37xf32>, %y: tensor<1001x37xf32>, %s: tensor<f32>) -> tensor<1001x37xf32> {
  %e = tensor.empty() : tensor<1001x37xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y, %s : tensor<1001x37xf32>, tensor<1001x37xf32>, tensor<f32>) outs(%e : tensor<1001x37xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %zero = arith.constant 0.0 : f32
    %t = arith.maximumf %m, %zero : f32
    %v = arith.addf %t, %c : f32
    linalg.yield %v : f32
  } -> tensor<1001x37xf32>
  return %r : tensor<1001x37xf32>
}

func.func @rows(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x3xf32>) outs(%e : tensor<?x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %a : f32
    linalg.yield %v : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
