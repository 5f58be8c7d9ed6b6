// --amp-o1/--amp-o2="graph-file=..." write the precision graph of the
// result (after the casts are materialized), in one pass or split stages
// alike; its title is the report's summary line.
// RUN: amp-opt %amp_src_root/examples/tosa_mlp_classifier.mlir --amp-o2="graph-file=%t.one.dot report=text report-file=%t.report" > %t.one
// RUN: amp-opt %amp_src_root/examples/tosa_mlp_classifier.mlir --amp-o2="graph-file=%t.split.dot split-stages=true" > %t.split
// RUN: diff %t.one %t.split
// RUN: diff %t.one.dot %t.split.dot
// RUN: FileCheck %s --input-file=%t.one.dot --check-prefix=O2
// RUN: FileCheck %s --input-file=%t.report --check-prefix=REPORT
// The graph does not change the output.
// RUN: amp-opt %amp_src_root/examples/tosa_mlp_classifier.mlir --amp-o2 | diff - %t.one
// RUN: amp-opt %s --amp-o1="dtype=bf16 graph-file=-" -o /dev/null | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-o1="dtype=bf16 graph-file=- split-stages=true" -o /dev/null | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-o1="keep-amp-casts=true graph-file=-" -o /dev/null | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %s --amp-o2=split-stages=true --mlir-timing --mlir-timing-display=tree -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOGRAPH
// RUN: amp-opt %s --amp-o2="graph-file=%t.dot split-stages=true" --mlir-timing --mlir-timing-display=tree -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: FileCheck %s --input-file=%t.dot --check-prefix=TITLE

// REPORT: amp-o2: 14/17 float ops in f16, 6 casts, 1.5 KiB converted per call; 4 narrowings in epilogues
// REPORT-NEXT: low-precision bytes: 5.6 KiB of an ideal 5.6 KiB (100.0%)
// O2: >amp-o2: 14/17 float ops in f16, 6 casts, 1.5 KiB converted per call; 4 narrowings in epilogues</FONT>
// O2: [[X:n[0-9]+]] [label="%arg0\n1x8x16xf32", shape=ellipse
// O2: [[CX:n[0-9]+]] [label="tosa.cast\nf32 -> f16\n1x8x16, 768 B", shape=hexagon
// O2: [[MM:n[0-9]+]] [label="tosa.matmul\n1x8x32xf32", fillcolor="#fdae6b"];
// The matmul's narrowing is written by its epilogue: no bytes of its own.
// O2: [[EPI:n[0-9]+]] [label="tosa.cast\nf32 -> f16\n1x8x32, in the epilogue", shape=hexagon
// O2: [[ADD:n[0-9]+]] [label="tosa.add\n1x8x32xf16", fillcolor="#fdae6b"];
// At O2 the sum of the softmax stays f32, with a conversion before it and
// its narrowing after it in its epilogue.
// O2: [[TO32:n[0-9]+]] [label="tosa.cast\nf16 -> f32\n1x8x4, 192 B", shape=hexagon
// O2: [[SUM:n[0-9]+]] [label="tosa.reduce_sum\n1x8x1xf32", fillcolor="#9ecae1"];
// O2: [[TO16:n[0-9]+]] [label="tosa.cast\nf32 -> f16\n1x8x1, in the epilogue", shape=hexagon
// O2-DAG: [[X]] -> [[CX]] [color="#3182bd"];
// O2-DAG: [[CX]] -> [[MM]] [color="#e6550d"];
// O2-DAG: [[MM]] -> [[EPI]] [color="#3182bd"];
// O2-DAG: [[TO32]] -> [[SUM]] [color="#3182bd"];
// O2-DAG: [[SUM]] -> [[TO16]] [color="#3182bd"];

// BF16: >amp-o1: 1/3 float ops in bf16, 2 casts, 384 B converted per call</FONT>
// BF16: [[X:n[0-9]+]] [label="%arg0\n4x8xf32"
// BF16: [[TX:n[0-9]+]] [label="arith.truncf\nf32 -> bf16\n4x8, 192 B", shape=hexagon, {{.*}}fillcolor="#9ecae1:#a1d99b"
// BF16: [[MM:n[0-9]+]] [label="linalg.matmul\n4x4xf32", fillcolor="#a1d99b"];
// BF16: [[EXP:n[0-9]+]] [label="math.exp\n4x4xf32", fillcolor="#9ecae1"];
// BF16-DAG: [[X]] -> [[TX]] [color="#3182bd"];
// BF16-DAG: [[TX]] -> [[MM]] [color="#31a354"];
// BF16-DAG: [[MM]] -> [[EXP]] [color="#3182bd"];

// KEEP: label="amp.cast\nf32 -> f16\n4x8, 192 B", shape=hexagon
// KEEP-NOT: arith.truncf

// NOGRAPH: AmpMaterializeCastsPass
// NOGRAPH-NOT: AmpPrecisionGraphPass
// SPLIT: AmpMaterializeCastsPass
// SPLIT-NEXT: AmpPrecisionGraphPass
// TITLE: amp-o2: 2/3 float ops in f16

func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                      outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ex = math.exp %mm : tensor<4x4xf32>
  return %ex : tensor<4x4xf32>
}
