// dtype=fp8 at O2 (and O1): the level in bf16, then the contractions'
// operands in FP8 with per-tensor scaling (amp-float8-contractions; current
// scaling: these functions carry no state for delayed scaling),
// each quantized from the f32 value the level narrowed (rounded once), and
// the module marked "O2:fp8". The split stages give the same; fp8-format,
// fp8-min-size apply; bad values are errors at the module
// (dtype-fp8-training.mlir: training steps).
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=FP8 split-stages=true" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-o1="dtype=float8" | FileCheck %s --check-prefix=O1
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-format=e5m2" | FileCheck %s --check-prefix=E5M2
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-min-size=1000000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-min-size=1000000" 2>/dev/null | FileCheck %s --check-prefix=SMALLIR
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 custom-black-list=linalg.conv_2d_nchw_fchw explain=true" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=BLACK
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 explain=true split-stages=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// The report counts after the FP8 stage: its quantizations and the f8
// bytes they write; the recipe's scales are not model ops (the last case's
// f32 product, read by a bf16 op, is low in the ideal). Decisions say why.
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 report=text" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 report=json report-file=%t.json" -o /dev/null
// RUN: %python -c "import json,sys; r=json.load(open(sys.argv[1])); assert (r['fp8_quantizations'], r['fp8_bytes'], r['float_ops'], r['ideal_fraction']) == (2, 256, 4, 0.9375), r; d=[e for e in r['decisions'] if e['reason'].startswith('FP8 stage: ')]; assert [(e['op'], e['precision']) for e in d] == [('amp.scaled_matmul', 'f8E4M3FN')], d; assert d[0]['location'].endswith('dtype-fp8.mlir:202:8'), d" %t.json
// RUN: amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-min-size=1000000 report=json report-file=%t.small.json" -o /dev/null 2>/dev/null
// RUN: %python -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['fp8_quantizations'] == 0, r; d=[e for e in r['decisions'] if e['reason'].startswith('FP8 stage: ')]; assert [(e['op'], e['precision'], e['reason']) for e in d] == [('linalg.matmul', 'bf16', 'FP8 stage: kept out of FP8: 1024 multiply-adds, below min-size 1000000')], d" %t.small.json
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-margin=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MARGIN
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-margin=31 split-stages=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MARGIN31
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-format=e3m4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-min-size=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MINSIZE
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=bf16 fp8-margin=2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTFP8
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-amax-history-len=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HISTORY
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-scaling=static" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCALING
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-amax-compute=mean" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPUTE
// RUN: not amp-opt %s -split-input-file --amp-o2="dtype=fp8 fp8-scaling=current fp8-amax-history-len=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CURRENT

// MARGIN: dtype-fp8.mlir:[[@LINE+12]]:1: error: amp: fp8-margin must be in [0, 30], got -1
// MARGIN31: error: amp: fp8-margin must be in [0, 30], got 31
// FORMAT: dtype-fp8.mlir:[[@LINE+10]]:1: error: amp: fp8-format must be e4m3, hybrid or e5m2, got 'e3m4'
// MINSIZE: error: amp: fp8-min-size must be at least 0, got -1
// NOTFP8: error: amp: fp8-margin applies to dtype=fp8, not dtype=bf16
// HISTORY: dtype-fp8.mlir:[[@LINE+7]]:1: error: amp: fp8-amax-history-len must be in [1, 65536], got 0
// SCALING: error: amp: fp8-scaling must be delayed or current, got 'static'
// COMPUTE: error: amp: fp8-amax-compute must be max or most_recent, got 'mean'
// CURRENT: error: amp: fp8-amax-history-len applies to fp8-scaling=delayed, not current

// CHECK-LABEL: module attributes {amp.applied = "O2:fp8", amp.rounding = "once"}
// CHECK-LABEL: func.func @linear
module {
func.func @linear(%x: tensor<64x128xf32>, %w: tensor<128x96xf32>, %b: tensor<96xf32>) -> tensor<64x96xf32> {
  // CHECK-SAME: (%[[X:.*]]: tensor<64x128xf32>, %[[W:.*]]: tensor<128x96xf32>
  // CHECK-DAG: amp.amax %[[X]] : tensor<64x128xf32> -> tensor<f32>
  // CHECK-DAG: amp.quantize %[[X]] by %{{.*}} : tensor<64x128xf32>, tensor<f32> -> tensor<64x128xf8E4M3FN>
  // CHECK-DAG: amp.amax %[[W]] : tensor<128x96xf32> -> tensor<f32>
  // CHECK-DAG: amp.quantize %[[W]] by %{{.*}} : tensor<128x96xf32>, tensor<f32> -> tensor<128x96xf8E4M3FN>
  // CHECK: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>) scale(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<64x96xf32>)
  // The rest of the level is bf16.
  // CHECK: arith.truncf %{{.*}} : f32 to bf16
  // CHECK: return
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<64x96xf32>, tensor<96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
}
// 64x128 and 128x96 operands, one byte each. The scaled matmul writes its
// destination without reading it (no zero fill), and its result, only
// narrowed to bf16, is stored low (its epilogue's narrowing), in the ideal
// too, as a bf16 matmul's is.
// REPORT: amp-o2: 3/3 float ops in low precision, 3 casts, 100.6 KiB converted per call; 1 narrowing in epilogues; 2 FP8 quantizations writing 20.0 KiB
// REPORT-NEXT: low-precision bytes: 112.2 KiB of an ideal 112.2 KiB (100.0%)
// REPORT-NEXT: op                  bf16 f8E4M3FN
// REPORT-NEXT: amp.scaled_matmul      0        1
// REPORT-NEXT: linalg.generic         1        0
// REPORT-NEXT: linalg.transpose       0        1
// O1: module attributes {amp.applied = "O1:fp8"
// O1: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>)
// E5M2: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<64x128xf8E5M2>, tensor<96x128xf8E5M2>)
// SMALL: remark: amp: contraction kept out of FP8: 786432 multiply-adds, below min-size 1000000
// EXPLAIN: dtype-fp8.mlir:[[@LINE-23]]:{{[0-9]+}}: remark: amp: contraction in FP8: operands 'f8E4M3FN' x 'f8E4M3FN' with per-tensor current scaling (fp8_max / amax / 2^0; delayed scaling needs a training step's state), f32 accumulation

// -----

// One tensor read as both operands: quantized once per operand, its
// narrowing gone once.
// CHECK-LABEL: func.func @square
// CHECK-NOT: arith.truncf %arg0
// CHECK: amp.quantize %arg0
// CHECK: amp.quantize %arg0
// CHECK: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xf8E4M3FN>, tensor<8x8xf8E4M3FN>)
func.func @square(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%x, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// A convolution: its padded input is quantized from the f32 argument and
// padded in FP8 (zeros stay zeros; the CPU call folds the padding), its
// weight from the f32 constant. On the black list it stays f32 and out of
// FP8, as the level decided.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x10x10xf32>)
// CHECK: %[[W:.*]] = arith.constant dense<2.500000e-01> : tensor<16x8x3x3xf32>
// CHECK: %[[QX:.*]] = amp.quantize %[[X]] by %{{.*}} -> tensor<1x8x10x10xf8E4M3FN>
// CHECK: %[[QW:.*]] = amp.quantize %[[W]] by %{{.*}} -> tensor<16x8x3x3xf8E4M3FN>
// CHECK: %[[P:.*]] = tensor.pad %[[QX]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %{{.*}} : f8E4M3FN
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[P]], %[[QW]] : tensor<1x8x12x12xf8E4M3FN>, tensor<16x8x3x3xf8E4M3FN>)
// BLACK: remark: amp: contraction kept out of FP8: the level keeps it in f32 (a pin or the black list)
// BLACK-LABEL: func.func @conv
// BLACK-NOT: amp.quantize
// BLACK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x12x12xf32>, tensor<16x8x3x3xf32>)
func.func @conv(%x: tensor<1x8x10x10xf32>) -> tensor<1x16x10x10xf32> {
  %w = arith.constant dense<0.25> : tensor<16x8x3x3xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x8x10x10xf32> to tensor<1x8x12x12xf32>
  %e = tensor.empty() : tensor<1x16x10x10xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p, %w : tensor<1x8x12x12xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  return %c : tensor<1x16x10x10xf32>
}

// -----

// A weight broadcast over the batch by a copy (torch-mlir's batched
// linear): quantized once, from the f32 constant, before the broadcast.
// CHECK-LABEL: func.func @broadcast_weight
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<16x8xf32>
// CHECK: %[[QW:.*]] = amp.quantize %[[W]] by %{{.*}} : tensor<16x8xf32>, tensor<f32> -> tensor<16x8xf8E4M3FN>
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[QW]] : tensor<16x8xf8E4M3FN>) outs(%{{.*}} : tensor<4x16x8xf8E4M3FN>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f8E4M3FN, %{{.*}}: f8E4M3FN):
// CHECK-NEXT: linalg.yield %[[IN]] : f8E4M3FN
// CHECK: amp.scaled_matmul ins(%{{.*}}, %{{.*}} : tensor<4x2x16xf8E4M3FN>, tensor<4x8x16xf8E4M3FN>)
func.func @broadcast_weight(%x: tensor<4x2x16xf32>) -> tensor<4x2x8xf32> {
  %w = arith.constant dense<0.5> : tensor<16x8xf32>
  %z = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<4x16x8xf32>
  %wb = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<16x8xf32>) outs(%eb : tensor<4x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x16x8xf32>
  %e = tensor.empty() : tensor<4x2x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
  %m = linalg.batch_matmul ins(%x, %wb : tensor<4x2x16xf32>, tensor<4x16x8xf32>) outs(%f : tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
  return %m : tensor<4x2x8xf32>
}

// -----

// A frontend's linear layer: the weight is an f32 constant in (out, in)
// layout, transposed for the matmul, and the input is flattened through a
// transpose and a reshape. Both are quantized from their f32 values (the
// level keeps the constant f32 for it, amp.fp8_source), then moved in FP8;
// the constant's other reader gets it in bf16, folded at compile time.
// CHECK-LABEL: func.func @frontend_linear
// CHECK-SAME: (%[[X:.*]]: tensor<4x2x16xf32>)
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<8x16xf32>
// CHECK-DAG: %[[WB:.*]] = arith.constant dense<{{.*}}> : tensor<8x16xbf16>
// CHECK: %[[QX:.*]] = amp.quantize %[[X]] by %{{.*}} : tensor<4x2x16xf32>, tensor<f32> -> tensor<4x2x16xf8E4M3FN>
// CHECK: %[[QW:.*]] = amp.quantize %[[W]] by %{{.*}} : tensor<8x16xf32>, tensor<f32> -> tensor<8x16xf8E4M3FN>
// CHECK: %[[TX:.*]] = linalg.transpose ins(%[[QX]] : tensor<4x2x16xf8E4M3FN>) outs(%{{.*}} : tensor<2x4x16xf8E4M3FN>) permutation = [1, 0, 2]
// CHECK: %[[CX:.*]] = tensor.collapse_shape %[[TX]] {{\[}}[0, 1], [2]] : tensor<2x4x16xf8E4M3FN> into tensor<8x16xf8E4M3FN>
// CHECK: amp.scaled_matmul ins(%[[CX]], %[[QW]] : tensor<8x16xf8E4M3FN>, tensor<8x16xf8E4M3FN>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[WB]] : tensor<8x8xbf16>, tensor<8x16xbf16>)
// CHECK-NOT: amp.fp8_source
// Kept out of FP8 (min-size): the weight is a bf16 constant again.
// SMALLIR-LABEL: func.func @frontend_linear
// SMALLIR-NOT: amp.fp8_source
// SMALLIR-NOT: arith.constant dense<{{.*}}> : tensor<8x16xf32>
// SMALLIR: arith.constant dense<{{.*}}> : tensor<8x16xbf16>
// SMALLIR-NOT: amp.fp8_source
// SMALLIR-NOT: arith.truncf %cst
// SMALLIR: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x8xbf16>)
func.func @frontend_linear(%x: tensor<4x2x16xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>) {
  %w = arith.constant dense<[[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6],
                             [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.7]]> : tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<2x4x16xf32>
  %xt = linalg.transpose ins(%x : tensor<4x2x16xf32>) outs(%et : tensor<2x4x16xf32>) permutation = [1, 0, 2]
  %xf = tensor.collapse_shape %xt [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  %ew = tensor.empty() : tensor<16x8xf32>
  %wt = linalg.transpose ins(%w : tensor<8x16xf32>) outs(%ew : tensor<16x8xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%xf, %wt : tensor<8x16xf32>, tensor<16x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  // The weight's other reader (scaled by the first column of the product).
  %eo = tensor.empty() : tensor<8x16xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %w : tensor<8x8xf32>, tensor<8x16xf32>) outs(%eo : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %m, %o : tensor<8x8xf32>, tensor<8x16xf32>
}

