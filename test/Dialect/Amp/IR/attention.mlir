// RUN: amp-opt %s -split-input-file | amp-opt -split-input-file | FileCheck %s
// RUN: amp-opt %s -split-input-file -mlir-print-op-generic | amp-opt -split-input-file | FileCheck %s

// amp.attention round-trips on tensors (a result per destination) and on
// buffers (none), with and without bias, stats, causal and bshd, dynamic
// sizes included.
// CHECK-LABEL: func.func @tensors
// CHECK: %[[O:.*]] = amp.attention ins(%arg0, %arg1, %arg2 : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>) outs(%arg3 : tensor<2x4x64x16xf16>) scale = 2.500000e-01 -> tensor<2x4x64x16xf16>
// CHECK: %[[R:.*]]:2 = amp.attention ins(%arg0, %arg1, %arg2 : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>) bias(%arg4 : tensor<2x1x64x32xf16>) outs(%arg3, %arg5 : tensor<2x4x64x16xf16>, tensor<2x4x64xf32>) scale = 1.000000e+00 causal -> tensor<2x4x64x16xf16>, tensor<2x4x64xf32>
// CHECK: return %[[O]], %[[R]]#0, %[[R]]#1
func.func @tensors(%q: tensor<2x4x64x16xf16>, %k: tensor<2x4x32x16xf16>, %v: tensor<2x4x32x16xf16>,
                   %e: tensor<2x4x64x16xf16>, %mask: tensor<2x1x64x32xf16>, %s: tensor<2x4x64xf32>)
    -> (tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64xf32>) {
  %o = amp.attention ins(%q, %k, %v : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>)
      outs(%e : tensor<2x4x64x16xf16>) scale = 0.25 -> tensor<2x4x64x16xf16>
  %r:2 = amp.attention ins(%q, %k, %v : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>)
      bias(%mask : tensor<2x1x64x32xf16>) outs(%e, %s : tensor<2x4x64x16xf16>, tensor<2x4x64xf32>)
      scale = 1.0 causal -> tensor<2x4x64x16xf16>, tensor<2x4x64xf32>
  return %o, %r#0, %r#1 : tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64xf32>
}

// -----

// CHECK-LABEL: func.func @buffers
// CHECK: amp.attention ins(%arg0, %arg0, %arg0 : memref<?x64x4x16xbf16, strided<[?, 192, 16, 1], offset: ?>>, memref<?x64x4x16xbf16, strided<[?, 192, 16, 1], offset: ?>>, memref<?x64x4x16xbf16, strided<[?, 192, 16, 1], offset: ?>>) bias(%arg1 : memref<1x1x64x64xbf16>) outs(%arg2 : memref<?x64x4x16xbf16>) scale = 2.500000e-01 causal bshd{{$}}
func.func @buffers(%qkv: memref<?x64x4x16xbf16, strided<[?, 192, 16, 1], offset: ?>>,
                   %mask: memref<1x1x64x64xbf16>, %out: memref<?x64x4x16xbf16>) {
  amp.attention ins(%qkv, %qkv, %qkv : memref<?x64x4x16xbf16, strided<[?, 192, 16, 1], offset: ?>>,
                    memref<?x64x4x16xbf16, strided<[?, 192, 16, 1], offset: ?>>,
                    memref<?x64x4x16xbf16, strided<[?, 192, 16, 1], offset: ?>>)
      bias(%mask : memref<1x1x64x64xbf16>) outs(%out : memref<?x64x4x16xbf16>) scale = 0.25 causal bshd
  return
}

// -----

// amp.attention_backward round-trips on tensors (three results) and on
// buffers, with a bias, causal and bshd.
// CHECK-LABEL: func.func @backward_tensors
// CHECK: %[[G:.*]]:3 = amp.attention_backward ins(%arg0, %arg1, %arg1, %arg0, %arg0, %arg2 : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64xf32>) bias(%arg3 : tensor<1x1x64x32xf16>) outs(%arg0, %arg1, %arg1 : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>) scale = 2.500000e-01 causal -> tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>
// CHECK: return %[[G]]#0, %[[G]]#1, %[[G]]#2
func.func @backward_tensors(%q: tensor<2x4x64x16xf16>, %k: tensor<2x4x32x16xf16>, %s: tensor<2x4x64xf32>,
                            %mask: tensor<1x1x64x32xf16>)
    -> (tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>) {
  %g:3 = amp.attention_backward ins(%q, %k, %k, %q, %q, %s : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>,
                                    tensor<2x4x32x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64x16xf16>, tensor<2x4x64xf32>)
      bias(%mask : tensor<1x1x64x32xf16>)
      outs(%q, %k, %k : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>)
      scale = 0.25 causal -> tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>
  return %g#0, %g#1, %g#2 : tensor<2x4x64x16xf16>, tensor<2x4x32x16xf16>, tensor<2x4x32x16xf16>
}

// -----

// CHECK-LABEL: func.func @backward_buffers
// CHECK: amp.attention_backward ins(%arg0, %arg0, %arg0, %arg1, %arg1, %arg2 : memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x4x64xf32>) outs(%arg1, %arg1, %arg1 : memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>) scale = 1.000000e+00 bshd{{$}}
func.func @backward_buffers(%x: memref<?x64x4x16xbf16>, %y: memref<?x64x4x16xbf16>, %s: memref<?x4x64xf32>) {
  amp.attention_backward ins(%x, %x, %x, %y, %y, %s : memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>,
                             memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x4x64xf32>)
      outs(%y, %y, %y : memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>, memref<?x64x4x16xbf16>) scale = 1.0 bshd
  return
}
