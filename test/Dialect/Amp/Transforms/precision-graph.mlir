// amp-precision-graph: the data flow as Graphviz DOT, nodes filled by the
// precision their op computes in (as amp-report decides it), conversions as
// red hexagons labelled with their types, shape and bytes per call.
// RUN: amp-opt %s -split-input-file --amp-precision-graph="output=- title=t" -o /dev/null | FileCheck %s
// The pass does not change the IR.
// RUN: amp-opt %s -split-input-file > %t.before
// RUN: amp-opt %s -split-input-file --amp-precision-graph="output=%t.dot" > %t.after
// RUN: diff %t.before %t.after
// Without output, the graph goes to stderr; function= draws one function.
// RUN: amp-opt %s --amp-precision-graph="function=two" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUNC

// The label comes first: the title (the report's summary line) and the
// legend.
// CHECK-LABEL: digraph amp_precision_graph {
// CHECK-NEXT: label=<
// CHECK: <FONT POINT-SIZE="14">t: 2/3 float ops in low precision, 3 casts, 384 B converted per call (+1 casts of dynamic size)</FONT>
// CHECK: <TD BGCOLOR="#9ecae1">fp32 op</TD>
// CHECK: <TD BGCOLOR="#fdae6b">f16 op</TD>
// CHECK: <TD BGCOLOR="#a1d99b">bf16 op</TD>
// CHECK: <TD BGCOLOR="#cbc9e2">other float op</TD>
// CHECK: <TD BGCOLOR="#e0e0e0">not a float op</TD>
// CHECK: <TD BORDER="2" COLOR="#d62728" BGCOLOR="#9ecae1:#fdae6b" GRADIENTANGLE="270">conversion (hexagon):<BR/>source -&gt; target, bytes per call</TD>
// CHECK: <TD>ellipse: function argument</TD>
// CHECK: </TABLE>>;
// CHECK: label="func @mixed"
// Arguments are ellipses filled by their element type.
// CHECK: [[A:n[0-9]+]] [label="%arg0\n4x8xf32", shape=ellipse, style=filled, fillcolor="#9ecae1"];
// CHECK: [[H:n[0-9]+]] [label="%arg1\n4x8xf16", shape=ellipse, style=filled, fillcolor="#fdae6b"];
// CHECK: [[B:n[0-9]+]] [label="%arg2\n4x8xbf16", shape=ellipse, style=filled, fillcolor="#a1d99b"];
// CHECK: [[D:n[0-9]+]] [label="%arg3\n?xf32", shape=ellipse
// One colour per precision.
// CHECK: [[EXP:n[0-9]+]] [label="math.exp\n4x8xf32", fillcolor="#9ecae1"];
// CHECK: [[ADD:n[0-9]+]] [label="arith.addf\n4x8xf16", fillcolor="#fdae6b"];
// CHECK: [[MUL:n[0-9]+]] [label="arith.mulf\n4x8xbf16", fillcolor="#a1d99b"];
// Conversions: 32 elements x (4 + 2) bytes; dynamic sizes say '?'.
// CHECK: [[CAST:n[0-9]+]] [label="amp.cast\nf32 -> f16\n4x8, 192 B", shape=hexagon, style=filled, penwidth=3, color="#d62728", fillcolor="#9ecae1:#fdae6b", gradientangle=270];
// CHECK: [[EXT:n[0-9]+]] [label="arith.extf\nbf16 -> f32\n4x8, 192 B", shape=hexagon, {{.*}}fillcolor="#a1d99b:#9ecae1"
// CHECK: [[TRUNC:n[0-9]+]] [label="arith.truncf\nf32 -> f16\n?, ? B", shape=hexagon
// Not float ops: grey.
// CHECK: [[EMPTY:n[0-9]+]] [label="tensor.empty\n4x8xf32", fillcolor="#e0e0e0", fontcolor="#404040"];
// CHECK: [[RET:n[0-9]+]] [label="func.return", fillcolor="#e0e0e0"
// Edges go from producer to user (once per pair), coloured by the value's
// element type.
// CHECK-DAG: [[A]] -> [[EXP]] [color="#3182bd"];
// CHECK-DAG: [[H]] -> [[ADD]] [color="#e6550d"];
// CHECK-DAG: [[B]] -> [[MUL]] [color="#31a354"];
// CHECK-DAG: [[EXP]] -> [[CAST]] [color="#3182bd"];
// CHECK-DAG: [[MUL]] -> [[EXT]] [color="#31a354"];
// CHECK-DAG: [[D]] -> [[TRUNC]] [color="#3182bd"];
// CHECK-DAG: [[CAST]] -> [[RET]] [color="#e6550d"];
// CHECK-DAG: [[EXT]] -> [[RET]] [color="#3182bd"];
// CHECK-DAG: [[TRUNC]] -> [[RET]] [color="#e6550d"];
// CHECK-DAG: [[EMPTY]] -> [[RET]] [color="#3182bd"];
// CHECK-NOT: [[H]] -> [[ADD]]
// CHECK: }
func.func @mixed(%a: tensor<4x8xf32>, %h: tensor<4x8xf16>,
                 %b: tensor<4x8xbf16>, %d: tensor<?xf32>)
    -> (tensor<4x8xf16>, tensor<4x8xf32>, tensor<?xf16>, tensor<4x8xf32>) {
  %0 = math.exp %a : tensor<4x8xf32>
  %1 = arith.addf %h, %h : tensor<4x8xf16>
  %2 = arith.mulf %b, %b : tensor<4x8xbf16>
  %3 = amp.cast %0 : tensor<4x8xf32> to tensor<4x8xf16>
  %4 = arith.extf %2 : tensor<4x8xbf16> to tensor<4x8xf32>
  %5 = arith.truncf %d : tensor<?xf32> to tensor<?xf16>
  %e = tensor.empty() : tensor<4x8xf32>
  return %3, %4, %5, %e : tensor<4x8xf16>, tensor<4x8xf32>, tensor<?xf16>, tensor<4x8xf32>
}

// -----

// Ops with regions and no AMP model are boxes holding their body; uses of
// their block arguments come from their node. The body of a linalg op is
// part of it (not drawn), but what it captures flows into it. A call names
// its callee. Every function is drawn, each in its own box.
// CHECK-LABEL: digraph amp_precision_graph {
// CHECK: <FONT POINT-SIZE="14">t: 2/2 float ops in f16, 0 casts, 0 B converted per call</FONT>
// CHECK: label="func @one"
// CHECK: [[X:n[0-9]+]] [label="%arg0\n8xf16"
// CHECK: [[S:n[0-9]+]] [label="%arg1\nf16"
// CHECK: [[C0:n[0-9]+]] [label="arith.constant\nindex"
// CHECK: [[C1:n[0-9]+]] [label="arith.constant\nindex"
// CHECK: [[C4:n[0-9]+]] [label="arith.constant\nindex"
// CHECK: subgraph cluster_{{[0-9]+}} {
// CHECK-NEXT: label="scf.for"; style="dashed,rounded"
// CHECK-NEXT: [[FOR:n[0-9]+]] [label="scf.for\n8xf16", fillcolor="#e0e0e0"
// CHECK-NEXT: [[NEG:n[0-9]+]] [label="arith.negf\n8xf16", fillcolor="#fdae6b"];
// CHECK-NEXT: [[YIELD:n[0-9]+]] [label="scf.yield", fillcolor="#e0e0e0"
// CHECK-NEXT: }
// CHECK-NEXT: [[GEN:n[0-9]+]] [label="linalg.generic\n8xf16", fillcolor="#fdae6b"];
// CHECK-NOT: arith.mulf
// CHECK: [[CALL:n[0-9]+]] [label="func.call @two\n8xf16", fillcolor="#e0e0e0"
// CHECK: label="func @two"
// CHECK-DAG: [[X]] -> [[FOR]] [color="#e6550d"];
// CHECK-DAG: [[C4]] -> [[FOR]] [color="#737373"];
// CHECK-DAG: [[FOR]] -> [[NEG]] [color="#e6550d"];
// CHECK-DAG: [[NEG]] -> [[YIELD]] [color="#e6550d"];
// CHECK-DAG: [[FOR]] -> [[GEN]] [color="#e6550d"];
// CHECK-DAG: [[S]] -> [[GEN]] [color="#e6550d"];
// CHECK-DAG: [[GEN]] -> [[CALL]] [color="#e6550d"];

// FUNC: digraph amp_precision_graph {
// FUNC-NOT: label="func @one"
// FUNC: label="func @two"
// FUNC-NOT: label="func @one"
// FUNC: }
func.func @one(%x: tensor<8xf16>, %s: f16) -> tensor<8xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<8xf16> {
    %n = arith.negf %acc : tensor<8xf16>
    scf.yield %n : tensor<8xf16>
  }
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%r : tensor<8xf16>) outs(%x : tensor<8xf16>) {
  ^bb0(%in: f16, %out: f16):
    %m = arith.mulf %in, %s : f16
    linalg.yield %m : f16
  } -> tensor<8xf16>
  %c = func.call @two(%g) : (tensor<8xf16>) -> tensor<8xf16>
  return %c : tensor<8xf16>
}

func.func @two(%x: tensor<8xf16>) -> tensor<8xf16> {
  return %x : tensor<8xf16>
}

func.func private @declared(tensor<8xf16>) -> tensor<8xf16>
