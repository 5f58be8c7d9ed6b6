// amp-precision-graph: past max-nodes the graph stops, says so in its
// title, and the pass warns at the first op left out.
// RUN: amp-opt %s --amp-precision-graph="output=- max-nodes=3" -verify-diagnostics -o /dev/null | FileCheck %s
// max-nodes=0: no limit.
// RUN: amp-opt %s --amp-precision-graph="output=- max-nodes=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL

// The totals count every op, drawn or not.
// CHECK: <FONT POINT-SIZE="14">amp: 0/3 float ops in f16/bf16, 0 casts, 0 B converted per call</FONT>
// CHECK-NEXT: <FONT POINT-SIZE="14">(first 3 of 5 nodes; raise max-nodes to see all)</FONT>
// CHECK: [[ARG:n[0-9]+]] [label="%arg0\n4xf32"
// CHECK: [[EXP:n[0-9]+]] [label="math.exp\n4xf32"
// CHECK: [[LOG:n[0-9]+]] [label="math.log\n4xf32"
// CHECK-NOT: math.tanh
// CHECK-NOT: func.return
// CHECK: [[ARG]] -> [[EXP]]
// CHECK: [[EXP]] -> [[LOG]]
// CHECK-NOT: ->
// CHECK: }

// ALL-NOT: warning: amp-precision-graph
// ALL: <FONT POINT-SIZE="14">amp: 0/3 float ops in f16/bf16, 0 casts, 0 B converted per call</FONT>
// ALL-NOT: first 3
// ALL: math.tanh
// ALL: func.return

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %x : tensor<4xf32>
  %1 = math.log %0 : tensor<4xf32>
  // expected-warning @+1 {{amp-precision-graph: the graph stops here: 2 of 5 nodes left out (max-nodes=3)}}
  %2 = math.tanh %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
