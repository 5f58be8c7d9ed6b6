// explain=true: a remark per decided op with its precision and reason.
// report=text|json: the summary and per-op table.
// RUN: amp-opt %s --amp-o1="explain=true placement=greedy" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: amp-opt %s --amp-o1="report=text placement=greedy" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: amp-opt %s --amp-o1="report=text explain=true placement=optimal" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIMAL
// RUN: amp-opt %s --amp-o2="report=json report-file=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// The JSON report's decisions: what explain=true says, per op, in program
// order (the pipeline's; amp-report alone has none).
// RUN: amp-opt %s --amp-o1="report=json report-file=%t.o1.json placement=optimal" -o /dev/null
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1]))['decisions']; assert [(e['op'], e['precision'], e['reason']) for e in d] == [('linalg.fill', None, 'not decided: a constant fill, re-created in the type each user needs'), ('linalg.matmul', 'f16', 'white list'), ('arith.addf', 'f32', 'placed by min-cut: fewest bytes moved'), ('math.exp', 'f32', 'black list'), ('math.tanh', 'f32', 'pinned by amp.precision')], d; assert d[1]['location'].endswith('explain-report.mlir:58:9'), d" %t.o1.json
// RUN: amp-opt %s --amp-report="format=json" -o /dev/null 2>&1 | not grep decisions
// RUN: %python -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['float_ops'] == 5 and r['low_precision_ops'] == 3 and r['ops']['linalg.matmul'] == {'f16': 1} and r['ops']['math.tanh'] == {'f32': 1}, r" %t.json


// Casts: x, w and b narrowed, the add widened for exp (the conversions
// inside linalg bodies are fused, hence free). The matmul's result is only
// narrowed: its epilogue writes f16, no cast of its own.
// Low-precision bytes: the matmul reads 2x32 f16 elements and (through its
// epilogue) writes 16, and the add reads 2x16 and writes 16. Autocast's
// ideal has only the matmul's inputs low: the add reads an f32 argument, so
// autocast runs it in f32, and the matmul's result is then read in f32 only.
// TEXT: amp-o1: 2/5 float ops in f16, 4 casts, 576 B converted per call; 1 narrowing in epilogues
// TEXT-NEXT:   low-precision bytes: 128 B of an ideal 128 B (100.0%; 128 B more than the ideal)
// TEXT-NEXT:   op               f32    f16
// TEXT-NEXT:   arith.addf         0      1
// TEXT-NEXT:   linalg.fill        1      0
// TEXT-NEXT:   linalg.matmul      0      1
// TEXT-NEXT:   math.exp           1      0
// TEXT-NEXT:   math.tanh          1      0

// Optimal placement keeps the add in f32: going low would cost converting
// %b and converting the add's result back for exp (192 B), more than the
// add saves by reading and writing f16 (96 B).
// OPTIMAL: remark: amp: f32 (placed by min-cut: fewest bytes moved)
// OPTIMAL: amp-o1: 1/5 float ops in f16, 2 casts, 384 B converted per call

// At O2 the pinned tanh and the matmul's accumulator fill stay f32.
// JSON-DAG: "title": "amp-o2"
// JSON-DAG: "float_ops": 5
// JSON-DAG: "low_precision_ops": 3
// JSON-DAG: "low_precision_type": "f16"
// JSON-DAG: "casts": 4
// JSON-DAG: "epilogue_casts": 1
// Every tensor but the f32 accumulator, tanh's pinned input and the
// returned result is f16: 2x32 + 16 + 3x16 + 2x16 elements.
// JSON-DAG: "low_precision_bytes": 320
// JSON-DAG: "ideal_low_precision_bytes": 320
// JSON-DAG: "ideal_fraction": 1

func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4x4xf32>)
    -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  // EXPLAIN: explain-report.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: not decided: a constant fill, re-created in the type each user needs
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  // EXPLAIN: explain-report.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f16 (white list)
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                      outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  // EXPLAIN: explain-report.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f16 (follows its operands (1 in f16, 1 in f32))
  %add = arith.addf %mm, %b : tensor<4x4xf32>
  // EXPLAIN: explain-report.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f32 (black list)
  %ex = math.exp %add : tensor<4x4xf32>
  // EXPLAIN: explain-report.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: amp: f32 (pinned by amp.precision)
  %t = math.tanh %ex {amp.precision = "f32"} : tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}
