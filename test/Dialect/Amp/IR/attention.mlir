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
