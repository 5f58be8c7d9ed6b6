// amp-record-ranges and amp-apply-ranges name the function they range, or
// take the module's only public one; a function of several blocks cannot be
// ranged. Each is an error located at the module or function, and nothing
// changes.
// RUN: not amp-opt %s --amp-record-ranges 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: amp-opt %s --amp-record-ranges=function=second | FileCheck %s --check-prefix=NAMED
// RUN: not amp-opt %s --amp-record-ranges=function=nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amp-opt %s --amp-record-ranges=function=blocks 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: not amp-opt %s --amp-record-ranges=function=decl 2>&1 | FileCheck %s --check-prefix=DECL

// SEVERAL: error: amp-record-ranges: the module has several public functions ('@blocks', '@first', ...): name one with function=
// SEVERAL-NOT: func.func

// NAMED-LABEL: func.func @first(%{{.*}}: tensor<2xf32>) -> tensor<2xf32>
// NAMED-LABEL: func.func @second
// NAMED-SAME: -> (tensor<2xf32>, tensor<2xf32>)
// NAMED: tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xf32>

// UNKNOWN: error: amp-record-ranges: no function with a body named 'nope'
// DECL: error: amp-record-ranges: no function with a body named 'decl'

// BLOCKS: [[@LINE+1]]:3: error: amp-record-ranges: '@blocks' has 2 blocks; calibration supports functions of one block
  func.func @blocks(%x: tensor<2xf32>) -> tensor<2xf32> {
    cf.br ^bb1
  ^bb1:
    return %x : tensor<2xf32>
  }
  func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func @second(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = arith.addf %x, %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func private @decl(tensor<2xf32>) -> tensor<2xf32>
