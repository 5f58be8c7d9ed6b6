// The report's ideal follows the level's op table and the user's policy
// (lists, guards, pins, a policy file's categories), never what the
// decision pass chose: what the pass keeps in f32 on its own counts as
// missed.
// RUN: amp-opt %s -split-input-file --amp-o2="report=text report-file=-" -o /dev/null \
// RUN: | FileCheck %s --check-prefix=O2
// RUN: amp-opt %s -split-input-file -o /dev/null \
// RUN:     --amp-o2="custom-black-list=arith.addf report=text report-file=-" \
// RUN: | FileCheck %s --check-prefix=O2-BLACK
// RUN: amp-opt %s -split-input-file --amp-o1="report=text report-file=- placement=optimal" -o /dev/null \
// RUN: | FileCheck %s --check-prefix=O1
// RUN: amp-opt %s -split-input-file -o /dev/null \
// RUN:     --amp-o1="custom-white-list=math.exp report=text report-file=- placement=optimal" \
// RUN: | FileCheck %s --check-prefix=O1-WHITE
// RUN: echo '{"categories": {"math.exp": "gray"}}' > %t.json
// RUN: amp-opt %s -split-input-file -o /dev/null \
// RUN:     --amp-o1="policy-file=%t.json report=text report-file=- placement=optimal" \
// RUN: | FileCheck %s --check-prefix=O1-WHITE

// A -1e9 mask does not fit in f16: the pass keeps the add that reads it in
// f32 (with a warning). Apex O2 stores it in f16, so the add's three 4x4
// tensors (96 B) and the matmul's result, which the ideal's add reads low
// (32 B), are missed: 256 B of an ideal 384 B. (The ideal used to leave the
// add out, and the module scored 256 of 256 B.) Kept f32 by the user's black
// list instead, the add is f32 in the ideal too: 256 of 256 B.
// O2: low-precision bytes: 256 B of an ideal 384 B (66.7%)
// O2-BLACK: low-precision bytes: 256 B of an ideal 256 B (100.0%)
// At O1 autocast runs the add in f32 anyway: it reads an f32 constant.
// O1: low-precision bytes: 128 B of an ideal 128 B (100.0%)
// O1-WHITE: low-precision bytes: 128 B of an ideal 128 B (100.0%)
func.func @masked(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mask = arith.constant dense<-1.0e9> : tensor<4x4xf32>
  %s = arith.addf %mm, %mask : tensor<4x4xf32>
  %t = math.tanh %s : tensor<4x4xf32>
  %u = arith.mulf %t, %t : tensor<4x4xf32>
  return %u : tensor<4x4xf32>
}

// -----

// Guards: only the matmul may go low, and the ops outside the guard are f32
// in the ideal too (the guard is inlined before the report runs). The
// matmul's inputs (128 B) are all the ideal has: its result is read by an
// f32 tanh.
// O2: low-precision bytes: 128 B of an ideal 128 B (100.0%)
// O2-BLACK: low-precision bytes: 128 B of an ideal 128 B (100.0%)
// O1: low-precision bytes: 128 B of an ideal 128 B (100.0%)
// O1-WHITE: low-precision bytes: 128 B of an ideal 128 B (100.0%)
func.func @guarded(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %r = amp.fp16_guard -> tensor<4x4xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    amp.yield %mm : tensor<4x4xf32>
  }
  %t = math.tanh %r : tensor<4x4xf32>
  %u = arith.mulf %t, %t : tensor<4x4xf32>
  return %u : tensor<4x4xf32>
}

// -----

// O1 and the lists: by default exp is black, so autocast's ideal has the
// matmul's inputs only (128 B); placement also stores the mul and add low,
// 160 B more than the ideal. White-listed, or made gray by a policy file,
// exp is low in the ideal too, and so are the mul and the add after it:
// 384 B, all reached. (The ideal used to ignore both: 128 B, with 256 B
// more than the ideal.) At O2 the black list above keeps the add f32.
// O2: low-precision bytes: 384 B of an ideal 384 B (100.0%)
// O2-BLACK: low-precision bytes: 320 B of an ideal 320 B (100.0%)
// O1: low-precision bytes: 128 B of an ideal 128 B (100.0%; 160 B more than the ideal)
// O1-WHITE: low-precision bytes: 384 B of an ideal 384 B (100.0%)
func.func @lists(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = math.exp %mm : tensor<4x4xf32>
  %u = arith.mulf %t, %t : tensor<4x4xf32>
  %v = arith.addf %u, %u : tensor<4x4xf32>
  return %v : tensor<4x4xf32>
}
