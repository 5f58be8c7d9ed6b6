// The DOT of amp-precision-graph renders with Graphviz: the SVG carries the
// node texts (op, types, conversion bytes) and the precision colours.
// REQUIRES: graphviz
// RUN: amp-opt %s --amp-o2="graph-file=%t.dot" -o /dev/null
// RUN: dot -Tsvg %t.dot -o %t.svg
// RUN: FileCheck %s --input-file=%t.svg

// CHECK: <svg
// CHECK: amp&#45;o2: 1/3 float ops in f16, 2 casts, 384 B converted per call</text>
// CHECK-DAG: >fp32 op</text>
// CHECK-DAG: >source &#45;&gt; target, bytes per call</text>
// CHECK-DAG: >func @f</text>
// CHECK-DAG: >linalg.matmul</text>
// CHECK-DAG: >arith.truncf</text>
// CHECK-DAG: >f32 &#45;&gt; f16</text>
// CHECK-DAG: >4x8, 192 B</text>
// CHECK-DAG: >math.tanh</text>
// CHECK-DAG: <path fill="#fdae6b" stroke="black"
// CHECK-DAG: <path fill="#9ecae1" stroke="black"
// CHECK-DAG: stroke="#d62728" stroke-width="3"

func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                      outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = math.tanh %mm {amp.precision = "f32"} : tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}
