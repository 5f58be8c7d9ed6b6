// Fused epilogues do not change numerics: at O2, with every contraction
// computed tile by tile inside its epilogue (tiles of 8, so 20x12 has partial
// tiles), the printed results are identical to those of the unfused
// pipeline, and a dot product of 4096 ones still accumulates in f32.
// RUN: amp-opt %s --amp-o2 --lower-to-cpu="fuse-epilogues=false libraries=false" \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%amp_runtime \
// RUN: | grep -v base@ > %t.unfused
// RUN: amp-opt %s --amp-o2 --lower-to-cpu="epilogue-tile-size=8 libraries=false" \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%amp_runtime \
// RUN: | grep -v base@ > %t.fused
// RUN: diff %t.unfused %t.fused
// RUN: FileCheck %s < %t.fused
// The fused form really is tiled: 8x8 f32 accumulators, no whole one.
// RUN: amp-opt %s --amp-o2 --lower-to-cpu="epilogue-tile-size=8 libraries=false" \
// RUN:     --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=IR

// IR-LABEL: func.func @mlp
// IR-NOT: memref<20x12xf32>)
// IR: scf.for
// IR: linalg.fill ins(%{{.*}} : f32) outs(%[[T:.*]] : memref<?x?xf32>)
// IR-NEXT: linalg.matmul {{.*}} outs(%[[T]] : memref<?x?xf32>)
// IR-LABEL: func.func @conv
// IR-NOT: memref<1x5x7x7xf32>)
// IR: scf.for
// IR: linalg.fill ins(%{{.*}} : f32) outs(%[[C:.*]] : memref<1x1x7x7xf32>)
// IR-NEXT: linalg.conv_2d_nchw_fchw {{.*}} outs(%[[C]] : memref<1x1x7x7xf32>)

func.func private @printMemrefF32(tensor<*xf32>)

// Values k/8 for small integers k: exact in f16, so the inputs are the same
// in both runs whatever precision AMP picks for this generic.
func.func @ramp(%a: index, %b: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%a, %b) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %c11 = arith.constant 11 : index
    %c5 = arith.constant 5 : index
    %s = arith.addi %i, %j : index
    %t = arith.muli %i, %c7 : index
    %u = arith.muli %j, %c3 : index
    %v = arith.addi %t, %u : index
    %w = arith.remui %v, %c11 : index
    %k = arith.index_cast %w : index to i32
    %f = arith.sitofp %k : i32 to f32
    %eighth = arith.constant 0.125 : f32
    %m = arith.mulf %f, %eighth : f32
    %off = arith.constant 0.625 : f32
    %r = arith.subf %m, %off : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// A dense layer: matmul, bias, tanh.
func.func @mlp(%x: tensor<20x40xf32>, %w: tensor<40x12xf32>, %b: tensor<12xf32>) -> tensor<20x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20x12xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<20x12xf32>) -> tensor<20x12xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<20x40xf32>, tensor<40x12xf32>) outs(%init : tensor<20x12xf32>) -> tensor<20x12xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<20x12xf32>, tensor<12xf32>) outs(%e : tensor<20x12xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<20x12xf32>
  return %r : tensor<20x12xf32>
}

// A convolution and a ReLU.
func.func @conv(%x: tensor<1x3x9x9xf32>, %w: tensor<5x3x3x3xf32>) -> tensor<1x5x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x7x7xf32>) -> tensor<1x5x7x7xf32>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x3x9x9xf32>, tensor<5x3x3x3xf32>) outs(%init : tensor<1x5x7x7xf32>) -> tensor<1x5x7x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<1x5x7x7xf32>) outs(%e : tensor<1x5x7x7xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x5x7x7xf32>
  return %r : tensor<1x5x7x7xf32>
}

// 4096 ones, doubled: 8192 (an f16 accumulator would stop at 2048).
func.func @dot(%a: tensor<1x4096xf32>, %b: tensor<4096x1xf32>) -> tensor<1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<1x4096xf32>, tensor<4096x1xf32>) outs(%init : tensor<1x1xf32>) -> tensor<1x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1x1xf32>) outs(%e : tensor<1x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c12 = arith.constant 12 : index
  %c20 = arith.constant 20 : index
  %c27 = arith.constant 27 : index
  %c40 = arith.constant 40 : index
  %c81 = arith.constant 81 : index
  %x0 = call @ramp(%c20, %c40) : (index, index) -> tensor<?x?xf32>
  %w0 = call @ramp(%c40, %c12) : (index, index) -> tensor<?x?xf32>
  %b0 = call @ramp(%c1, %c12) : (index, index) -> tensor<?x?xf32>
  %x = tensor.cast %x0 : tensor<?x?xf32> to tensor<20x40xf32>
  %w = tensor.cast %w0 : tensor<?x?xf32> to tensor<40x12xf32>
  %b1 = tensor.cast %b0 : tensor<?x?xf32> to tensor<1x12xf32>
  %b = tensor.collapse_shape %b1 [[0, 1]] : tensor<1x12xf32> into tensor<12xf32>
  %y = call @mlp(%x, %w, %b) : (tensor<20x40xf32>, tensor<40x12xf32>, tensor<12xf32>) -> tensor<20x12xf32>
  %yu = tensor.cast %y : tensor<20x12xf32> to tensor<*xf32>
  call @printMemrefF32(%yu) : (tensor<*xf32>) -> ()

  %i0 = call @ramp(%c3, %c81) : (index, index) -> tensor<?x?xf32>
  %k0 = call @ramp(%c5, %c27) : (index, index) -> tensor<?x?xf32>
  %i1 = tensor.cast %i0 : tensor<?x?xf32> to tensor<3x81xf32>
  %k1 = tensor.cast %k0 : tensor<?x?xf32> to tensor<5x27xf32>
  %i = tensor.expand_shape %i1 [[0, 1], [2, 3]] output_shape [1, 3, 9, 9] : tensor<3x81xf32> into tensor<1x3x9x9xf32>
  %k = tensor.expand_shape %k1 [[0], [1, 2, 3]] output_shape [5, 3, 3, 3] : tensor<5x27xf32> into tensor<5x3x3x3xf32>
  %z = call @conv(%i, %k) : (tensor<1x3x9x9xf32>, tensor<5x3x3x3xf32>) -> tensor<1x5x7x7xf32>
  %zu = tensor.cast %z : tensor<1x5x7x7xf32> to tensor<*xf32>
  call @printMemrefF32(%zu) : (tensor<*xf32>) -> ()

  %one = arith.constant 1.0 : f32
  %ea = tensor.empty() : tensor<1x4096xf32>
  %a = linalg.fill ins(%one : f32) outs(%ea : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %eb = tensor.empty() : tensor<4096x1xf32>
  %bb = linalg.fill ins(%one : f32) outs(%eb : tensor<4096x1xf32>) -> tensor<4096x1xf32>
  %d = call @dot(%a, %bb) : (tensor<1x4096xf32>, tensor<4096x1xf32>) -> tensor<1x1xf32>
  %du = tensor.cast %d : tensor<1x1xf32> to tensor<*xf32>
  call @printMemrefF32(%du) : (tensor<*xf32>) -> ()
  return
}

// CHECK: [0.{{[0-9]+}},
// CHECK: [8192]
