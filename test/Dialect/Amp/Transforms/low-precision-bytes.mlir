// The report's low-precision bytes against the ideal of the level the
// module was rewritten with (its amp.applied marker), here on hand-written
// results of O2, so that each rule shows.
// RUN: amp-opt %s -split-input-file --amp-report="format=json" -o /dev/null 2>&1 | FileCheck %s

// An elementwise op that stores f32 while rounding to f16 in its body (f32
// storage emulation): its 16 elements read and 16 written count as missed.
// The first add reaches the ideal (3 x 16 elements), and so do the second
// add's two operands; its result is returned (exempt). 160 of 224 B.
// Moved: the adds' 80 f16 elements, the generic's 32 f32 ones, and the
// conversion's 16 x (4 + 2) B.
// CHECK-LABEL: "bytes_moved": 416
// CHECK-DAG: "ideal_fraction": 0.714
// CHECK-DAG: "ideal_low_precision_bytes": 224
// CHECK-DAG: "ideal_reached_bytes": 160
// CHECK-DAG: "low_precision_bytes": 160
#id = affine_map<(d0) -> (d0)>
module attributes {amp.applied = "O2:f16"} {
  func.func @emulated(%x: tensor<16xf16>, %y: tensor<16xf32>) -> tensor<16xf16> {
    %a = arith.addf %x, %x : tensor<16xf16>
    %e = tensor.empty() : tensor<16xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%y : tensor<16xf32>) outs(%e : tensor<16xf32>) {
    ^bb0(%b: f32, %o: f32):
      %t = arith.truncf %b : f32 to f16
      %w = arith.extf %t : f16 to f32
      linalg.yield %w : f32
    } -> tensor<16xf32>
    %n = arith.truncf %r : tensor<16xf32> to tensor<16xf16>
    %s = arith.addf %a, %n : tensor<16xf16>
    return %s : tensor<16xf16>
  }
}

// -----

// Exempt from the ideal: the f32 accumulator of a matmul (its init), a
// sum's f32 result, and the value returned. The matmul reads 2 x 32 f16
// elements and its epilogue writes 16 f16 ones; the sum reads them.
// CHECK-LABEL: "bytes_moved"
// CHECK-DAG: "epilogue_casts": 1
// CHECK-DAG: "ideal_fraction": 1
// CHECK-DAG: "ideal_low_precision_bytes": 192
// CHECK-DAG: "ideal_reached_bytes": 192
module attributes {amp.applied = "O2:f16"} {
  func.func @exempt(%x: tensor<4x8xf16>, %w: tensor<8x4xf16>) -> tensor<f32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x4xf16>)
                        outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    %n = arith.truncf %mm : tensor<4x4xf32> to tensor<4x4xf16>
    %e0 = tensor.empty() : tensor<f32>
    %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %sum = linalg.reduce ins(%n : tensor<4x4xf16>) outs(%init : tensor<f32>) dimensions = [0, 1]
      (%in: f16, %a: f32) {
        %v = arith.extf %in : f16 to f32
        %s = arith.addf %v, %a : f32
        linalg.yield %s : f32
      }
    return %sum : tensor<f32>
  }
}

// -----

// O1's ideal is autocast's: the gray tanh follows the matmul's low result,
// the black exp stays f32, and the gray add after it follows its f32 input.
// Low in the ideal: the matmul's 64 + 16 elements and tanh's 2 x 16.
// CHECK-LABEL: "bytes_moved"
// CHECK-DAG: "ideal_fraction": 1
// CHECK-DAG: "ideal_low_precision_bytes": 224
module attributes {amp.applied = "O1:f16"} {
  func.func @autocast(%x: tensor<4x8xf16>, %w: tensor<8x4xf16>) -> tensor<4x4xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x4xf16>)
                        outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    %n = arith.truncf %mm : tensor<4x4xf32> to tensor<4x4xf16>
    %h = math.tanh %n : tensor<4x4xf16>
    %wide = arith.extf %h : tensor<4x4xf16> to tensor<4x4xf32>
    %ex = math.exp %wide : tensor<4x4xf32>
    %add = arith.addf %ex, %ex : tensor<4x4xf32>
    return %add : tensor<4x4xf32>
  }
}
