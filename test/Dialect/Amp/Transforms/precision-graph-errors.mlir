// amp-precision-graph: an output file that cannot be opened and an unknown
// function are errors (the pass fails, exit status 1, nothing printed).
// RUN: amp-opt %s --amp-precision-graph="output=%t.missing/graph.dot" -verify-diagnostics -o /dev/null
// RUN: not amp-opt %s --amp-precision-graph="output=%t.missing/graph.dot" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: not amp-opt %s --amp-o2="graph-file=%t.missing/graph.dot" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: not amp-opt %s --amp-o2="graph-file=%t.missing/graph.dot split-stages=true" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: not amp-opt %s --amp-precision-graph="function=nope output=-" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=FUNC

// OPEN: error: amp-precision-graph: cannot open output file '{{.*}}.missing/graph.dot':
// OPEN-NOT: func.func
// FUNC: error: amp-precision-graph: no function named 'nope' with a body
// FUNC-NOT: digraph

// expected-error @+1 {{amp-precision-graph: cannot open output file}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = math.exp %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
