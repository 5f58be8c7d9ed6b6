// torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dropout=0.0)
// on a 1x4x8 input, imported by amp_mlir.from_torch (torch 2.14.1,
// torch-mlir 20261001): two layer norms with f64 variances, and the
// f64 -inf test of scaled_dot_product_attention's decomposition.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map7 = affine_map<(d0, d1, d2) -> (d2)>
module {
  func.func @main(%arg0: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %cst_1 = arith.constant 0.000000e+00 : f64
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<1x2x4x4xf32>
    %cst_3 = arith.constant dense_resource<torch_tensor_8_torch.float32_5> : tensor<8xf32>
    %cst_4 = arith.constant dense_resource<torch_tensor_8_torch.float32_4> : tensor<8xf32>
    %cst_5 = arith.constant dense_resource<torch_tensor_8_torch.float32_3> : tensor<8xf32>
    %cst_6 = arith.constant dense_resource<torch_tensor_8_16_torch.float32> : tensor<8x16xf32>
    %cst_7 = arith.constant dense_resource<torch_tensor_16_torch.float32> : tensor<16xf32>
    %cst_8 = arith.constant dense_resource<torch_tensor_16_8_torch.float32> : tensor<16x8xf32>
    %cst_9 = arith.constant dense_resource<torch_tensor_8_torch.float32_2> : tensor<8xf32>
    %cst_10 = arith.constant dense_resource<torch_tensor_8_torch.float32_1> : tensor<8xf32>
    %cst_11 = arith.constant 1.000000e-05 : f64
    %cst_12 = arith.constant dense_resource<torch_tensor_8_torch.float32> : tensor<8xf32>
    %cst_13 = arith.constant dense_resource<torch_tensor_8_8_torch.float32> : tensor<8x8xf32>
    %cst_14 = arith.constant 0xFFF0000000000000 : f64
    %cst_15 = arith.constant 0.70710678118654757 : f64
    %cst_16 = arith.constant dense_resource<torch_tensor_24_torch.float32> : tensor<24xf32>
    %cst_17 = arith.constant dense_resource<torch_tensor_24_8_torch.float32> : tensor<24x8xf32>
    %cst_18 = arith.constant 8.000000e+00 : f64
    %cst_19 = arith.constant 8.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x1x8xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<1x4x8xf32>) outs(%0 : tensor<4x1x8xf32>) permutation = [1, 0, 2] 
    %collapsed = tensor.collapse_shape %transposed [[0], [1, 2]] : tensor<4x1x8xf32> into tensor<4x8xf32>
    %1 = tensor.empty() : tensor<8x24xf32>
    %transposed_20 = linalg.transpose ins(%cst_17 : tensor<24x8xf32>) outs(%1 : tensor<8x24xf32>) permutation = [1, 0] 
    %2 = tensor.empty() : tensor<4x24xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4x24xf32>) -> tensor<4x24xf32>
    %4 = linalg.matmul ins(%collapsed, %transposed_20 : tensor<4x8xf32>, tensor<8x24xf32>) outs(%3 : tensor<4x24xf32>) -> tensor<4x24xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %cst_16 : tensor<4x24xf32>, tensor<24xf32>) outs(%2 : tensor<4x24xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<4x24xf32>
    %expanded = tensor.expand_shape %5 [[0, 1], [2, 3, 4]] output_shape [1, 4, 1, 3, 8] : tensor<4x24xf32> into tensor<1x4x1x3x8xf32>
    %6 = tensor.empty() : tensor<3x4x1x1x8xf32>
    %transposed_21 = linalg.transpose ins(%expanded : tensor<1x4x1x3x8xf32>) outs(%6 : tensor<3x4x1x1x8xf32>) permutation = [3, 1, 2, 0, 4] 
    %collapsed_22 = tensor.collapse_shape %transposed_21 [[0], [1], [2, 3], [4]] : tensor<3x4x1x1x8xf32> into tensor<3x4x1x8xf32>
    %extracted_slice = tensor.extract_slice %collapsed_22[0, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<3x4x1x8xf32> to tensor<1x4x1x8xf32>
    %extracted_slice_23 = tensor.extract_slice %collapsed_22[1, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<3x4x1x8xf32> to tensor<1x4x1x8xf32>
    %extracted_slice_24 = tensor.extract_slice %collapsed_22[2, 0, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1] : tensor<3x4x1x8xf32> to tensor<1x4x1x8xf32>
    %collapsed_25 = tensor.collapse_shape %extracted_slice [[0, 1], [2, 3]] : tensor<1x4x1x8xf32> into tensor<4x8xf32>
    %expanded_26 = tensor.expand_shape %collapsed_25 [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
    %7 = tensor.empty() : tensor<2x4x4xf32>
    %transposed_27 = linalg.transpose ins(%expanded_26 : tensor<4x2x4xf32>) outs(%7 : tensor<2x4x4xf32>) permutation = [1, 0, 2] 
    %collapsed_28 = tensor.collapse_shape %extracted_slice_23 [[0, 1], [2, 3]] : tensor<1x4x1x8xf32> into tensor<4x8xf32>
    %expanded_29 = tensor.expand_shape %collapsed_28 [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
    %transposed_30 = linalg.transpose ins(%expanded_29 : tensor<4x2x4xf32>) outs(%7 : tensor<2x4x4xf32>) permutation = [1, 0, 2] 
    %collapsed_31 = tensor.collapse_shape %extracted_slice_24 [[0, 1], [2, 3]] : tensor<1x4x1x8xf32> into tensor<4x8xf32>
    %expanded_32 = tensor.expand_shape %collapsed_31 [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
    %transposed_33 = linalg.transpose ins(%expanded_32 : tensor<4x2x4xf32>) outs(%7 : tensor<2x4x4xf32>) permutation = [1, 0, 2] 
    %expanded_34 = tensor.expand_shape %transposed_27 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf32> into tensor<1x2x4x4xf32>
    %expanded_35 = tensor.expand_shape %transposed_30 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf32> into tensor<1x2x4x4xf32>
    %8 = tensor.empty() : tensor<1x2x4x4xf32>
    %9 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_34 : tensor<1x2x4x4xf32>) outs(%8 : tensor<1x2x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.truncf %cst_15 : f64 to f32
      %88 = arith.mulf %in, %87 : f32
      linalg.yield %88 : f32
    } -> tensor<1x2x4x4xf32>
    %transposed_36 = linalg.transpose ins(%expanded_35 : tensor<1x2x4x4xf32>) outs(%8 : tensor<1x2x4x4xf32>) permutation = [0, 1, 3, 2] 
    %10 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_36 : tensor<1x2x4x4xf32>) outs(%8 : tensor<1x2x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.truncf %cst_15 : f64 to f32
      %88 = arith.mulf %in, %87 : f32
      linalg.yield %88 : f32
    } -> tensor<1x2x4x4xf32>
    %collapsed_37 = tensor.collapse_shape %9 [[0, 1], [2], [3]] : tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
    %collapsed_38 = tensor.collapse_shape %10 [[0, 1], [2], [3]] : tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
    %11 = linalg.fill ins(%cst : f32) outs(%7 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %12 = linalg.batch_matmul ins(%collapsed_37, %collapsed_38 : tensor<2x4x4xf32>, tensor<2x4x4xf32>) outs(%11 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %expanded_39 = tensor.expand_shape %12 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf32> into tensor<1x2x4x4xf32>
    %13 = tensor.empty() : tensor<1x2x4xi64>
    %14 = linalg.fill ins(%c0_i64 : i64) outs(%13 : tensor<1x2x4xi64>) -> tensor<1x2x4xi64>
    %15 = tensor.empty() : tensor<1x2x4xf32>
    %16 = linalg.fill ins(%cst_0 : f32) outs(%15 : tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
    %17:2 = linalg.generic {indexing_maps = [#map2, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_39 : tensor<1x2x4x4xf32>) outs(%16, %14 : tensor<1x2x4xf32>, tensor<1x2x4xi64>) {
    ^bb0(%in: f32, %out: f32, %out_54: i64):
      %87 = linalg.index 3 : index
      %88 = arith.index_cast %87 : index to i64
      %89 = arith.maximumf %in, %out : f32
      %90 = arith.cmpf ogt, %in, %out : f32
      %91 = arith.select %90, %88, %out_54 : i64
      linalg.yield %89, %91 : f32, i64
    } -> (tensor<1x2x4xf32>, tensor<1x2x4xi64>)
    %expanded_40 = tensor.expand_shape %17#0 [[0], [1], [2, 3]] output_shape [1, 2, 4, 1] : tensor<1x2x4xf32> into tensor<1x2x4x1xf32>
    %18 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_39, %expanded_40 : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>) outs(%8 : tensor<1x2x4x4xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.subf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x2x4x4xf32>
    %19 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x2x4x4xf32>) outs(%8 : tensor<1x2x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = math.exp %in : f32
      linalg.yield %87 : f32
    } -> tensor<1x2x4x4xf32>
    %20 = tensor.empty() : tensor<1x2x4x1xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<1x2x4x1xf32>) -> tensor<1x2x4x1xf32>
    %22 = linalg.generic {indexing_maps = [#map2, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%19 : tensor<1x2x4x4xf32>) outs(%21 : tensor<1x2x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.addf %in, %out : f32
      linalg.yield %87 : f32
    } -> tensor<1x2x4x1xf32>
    %23 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %22 : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>) outs(%8 : tensor<1x2x4x4xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.divf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x2x4x4xf32>
    %24 = tensor.empty() : tensor<1x2x4x4xi1>
    %25 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_39 : tensor<1x2x4x4xf32>) outs(%24 : tensor<1x2x4x4xi1>) {
    ^bb0(%in: f32, %out: i1):
      %87 = arith.extf %in : f32 to f64
      %88 = arith.cmpf oeq, %87, %cst_14 : f64
      linalg.yield %88 : i1
    } -> tensor<1x2x4x4xi1>
    %26 = tensor.empty() : tensor<1x2x4x1xi1>
    %27 = linalg.fill ins(%true : i1) outs(%26 : tensor<1x2x4x1xi1>) -> tensor<1x2x4x1xi1>
    %28 = linalg.generic {indexing_maps = [#map2, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%25 : tensor<1x2x4x4xi1>) outs(%27 : tensor<1x2x4x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %87 = arith.andi %in, %out : i1
      linalg.yield %87 : i1
    } -> tensor<1x2x4x1xi1>
    %29 = linalg.generic {indexing_maps = [#map4, #map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28, %cst_2, %23 : tensor<1x2x4x1xi1>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) outs(%8 : tensor<1x2x4x4xf32>) {
    ^bb0(%in: i1, %in_54: f32, %in_55: f32, %out: f32):
      %87 = arith.select %in, %in_54, %in_55 : f32
      linalg.yield %87 : f32
    } -> tensor<1x2x4x4xf32>
    %collapsed_41 = tensor.collapse_shape %29 [[0, 1], [2], [3]] : tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
    %30 = linalg.batch_matmul ins(%collapsed_41, %transposed_33 : tensor<2x4x4xf32>, tensor<2x4x4xf32>) outs(%11 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %expanded_42 = tensor.expand_shape %30 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf32> into tensor<1x2x4x4xf32>
    %31 = tensor.empty() : tensor<4x1x2x4xf32>
    %transposed_43 = linalg.transpose ins(%expanded_42 : tensor<1x2x4x4xf32>) outs(%31 : tensor<4x1x2x4xf32>) permutation = [2, 0, 1, 3] 
    %collapsed_44 = tensor.collapse_shape %transposed_43 [[0], [1, 2, 3]] : tensor<4x1x2x4xf32> into tensor<4x8xf32>
    %32 = tensor.empty() : tensor<8x8xf32>
    %transposed_45 = linalg.transpose ins(%cst_13 : tensor<8x8xf32>) outs(%32 : tensor<8x8xf32>) permutation = [1, 0] 
    %33 = tensor.empty() : tensor<4x8xf32>
    %34 = linalg.fill ins(%cst : f32) outs(%33 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %35 = linalg.matmul ins(%collapsed_44, %transposed_45 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%34 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %36 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%35, %cst_12 : tensor<4x8xf32>, tensor<8xf32>) outs(%33 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<4x8xf32>
    %expanded_46 = tensor.expand_shape %36 [[0], [1, 2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
    %37 = tensor.empty() : tensor<1x4x8xf32>
    %transposed_47 = linalg.transpose ins(%expanded_46 : tensor<4x1x8xf32>) outs(%37 : tensor<1x4x8xf32>) permutation = [1, 0, 2] 
    %38 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %transposed_47 : tensor<1x4x8xf32>, tensor<1x4x8xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %39 = tensor.empty() : tensor<1x4x8xf64>
    %40 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%38 : tensor<1x4x8xf32>) outs(%39 : tensor<1x4x8xf64>) {
    ^bb0(%in: f32, %out: f64):
      %87 = arith.extf %in : f32 to f64
      linalg.yield %87 : f64
    } -> tensor<1x4x8xf64>
    %41 = tensor.empty() : tensor<1x4x1xf64>
    %42 = linalg.fill ins(%cst_1 : f64) outs(%41 : tensor<1x4x1xf64>) -> tensor<1x4x1xf64>
    %43 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%40 : tensor<1x4x8xf64>) outs(%42 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.addf %in, %out : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %44 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%43 : tensor<1x4x1xf64>) outs(%41 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.divf %in, %cst_18 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %45 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%40, %44 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%39 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_54: f64, %out: f64):
      %87 = arith.subf %in, %in_54 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x8xf64>
    %46 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%45, %45 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%39 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_54: f64, %out: f64):
      %87 = arith.mulf %in, %in_54 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x8xf64>
    %47 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%46 : tensor<1x4x8xf64>) outs(%42 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.addf %in, %out : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %48 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%47 : tensor<1x4x1xf64>) outs(%41 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.divf %in, %cst_18 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %49 = tensor.empty() : tensor<1x4x1xf32>
    %50 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%48 : tensor<1x4x1xf64>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %87 = arith.truncf %in : f64 to f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %51 = linalg.fill ins(%cst : f32) outs(%49 : tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
    %52 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%38 : tensor<1x4x8xf32>) outs(%51 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.addf %in, %out : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %53 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52 : tensor<1x4x1xf32>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.divf %in, %cst_19 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %54 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%50 : tensor<1x4x1xf32>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.truncf %cst_11 : f64 to f32
      %88 = arith.addf %in, %87 : f32
      linalg.yield %88 : f32
    } -> tensor<1x4x1xf32>
    %55 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%54 : tensor<1x4x1xf32>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = math.rsqrt %in : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %56 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%38, %53 : tensor<1x4x8xf32>, tensor<1x4x1xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.subf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %57 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%56, %55 : tensor<1x4x8xf32>, tensor<1x4x1xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.mulf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %58 = linalg.generic {indexing_maps = [#map5, #map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%57, %cst_10 : tensor<1x4x8xf32>, tensor<8xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.mulf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %59 = linalg.generic {indexing_maps = [#map5, #map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%58, %cst_9 : tensor<1x4x8xf32>, tensor<8xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %collapsed_48 = tensor.collapse_shape %59 [[0, 1], [2]] : tensor<1x4x8xf32> into tensor<4x8xf32>
    %60 = tensor.empty() : tensor<8x16xf32>
    %transposed_49 = linalg.transpose ins(%cst_8 : tensor<16x8xf32>) outs(%60 : tensor<8x16xf32>) permutation = [1, 0] 
    %61 = tensor.empty() : tensor<4x16xf32>
    %62 = linalg.fill ins(%cst : f32) outs(%61 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %63 = linalg.matmul ins(%collapsed_48, %transposed_49 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%62 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %64 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%63, %cst_7 : tensor<4x16xf32>, tensor<16xf32>) outs(%61 : tensor<4x16xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<4x16xf32>
    %expanded_50 = tensor.expand_shape %64 [[0, 1], [2]] output_shape [1, 4, 16] : tensor<4x16xf32> into tensor<1x4x16xf32>
    %65 = tensor.empty() : tensor<1x4x16xf32>
    %66 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_50 : tensor<1x4x16xf32>) outs(%65 : tensor<1x4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.cmpf ugt, %in, %cst : f32
      %88 = arith.select %87, %in, %cst : f32
      linalg.yield %88 : f32
    } -> tensor<1x4x16xf32>
    %collapsed_51 = tensor.collapse_shape %66 [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
    %67 = tensor.empty() : tensor<16x8xf32>
    %transposed_52 = linalg.transpose ins(%cst_6 : tensor<8x16xf32>) outs(%67 : tensor<16x8xf32>) permutation = [1, 0] 
    %68 = linalg.matmul ins(%collapsed_51, %transposed_52 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%34 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %69 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%68, %cst_5 : tensor<4x8xf32>, tensor<8xf32>) outs(%33 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<4x8xf32>
    %expanded_53 = tensor.expand_shape %69 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf32> into tensor<1x4x8xf32>
    %70 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%59, %expanded_53 : tensor<1x4x8xf32>, tensor<1x4x8xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %71 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%70 : tensor<1x4x8xf32>) outs(%39 : tensor<1x4x8xf64>) {
    ^bb0(%in: f32, %out: f64):
      %87 = arith.extf %in : f32 to f64
      linalg.yield %87 : f64
    } -> tensor<1x4x8xf64>
    %72 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%71 : tensor<1x4x8xf64>) outs(%42 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.addf %in, %out : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %73 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%72 : tensor<1x4x1xf64>) outs(%41 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.divf %in, %cst_18 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %74 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%71, %73 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%39 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_54: f64, %out: f64):
      %87 = arith.subf %in, %in_54 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x8xf64>
    %75 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%74, %74 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%39 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_54: f64, %out: f64):
      %87 = arith.mulf %in, %in_54 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x8xf64>
    %76 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%75 : tensor<1x4x8xf64>) outs(%42 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.addf %in, %out : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %77 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76 : tensor<1x4x1xf64>) outs(%41 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %87 = arith.divf %in, %cst_18 : f64
      linalg.yield %87 : f64
    } -> tensor<1x4x1xf64>
    %78 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%77 : tensor<1x4x1xf64>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %87 = arith.truncf %in : f64 to f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %79 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%70 : tensor<1x4x8xf32>) outs(%51 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.addf %in, %out : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %80 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%79 : tensor<1x4x1xf32>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.divf %in, %cst_19 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %81 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%78 : tensor<1x4x1xf32>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.truncf %cst_11 : f64 to f32
      %88 = arith.addf %in, %87 : f32
      linalg.yield %88 : f32
    } -> tensor<1x4x1xf32>
    %82 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%81 : tensor<1x4x1xf32>) outs(%49 : tensor<1x4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = math.rsqrt %in : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x1xf32>
    %83 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%70, %80 : tensor<1x4x8xf32>, tensor<1x4x1xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.subf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %84 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%83, %82 : tensor<1x4x8xf32>, tensor<1x4x1xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.mulf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %85 = linalg.generic {indexing_maps = [#map5, #map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%84, %cst_4 : tensor<1x4x8xf32>, tensor<8xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.mulf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    %86 = linalg.generic {indexing_maps = [#map5, #map7, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%85, %cst_3 : tensor<1x4x8xf32>, tensor<8xf32>) outs(%37 : tensor<1x4x8xf32>) {
    ^bb0(%in: f32, %in_54: f32, %out: f32):
      %87 = arith.addf %in, %in_54 : f32
      linalg.yield %87 : f32
    } -> tensor<1x4x8xf32>
    return %86 : tensor<1x4x8xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_8_torch.float32_5: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_torch.float32_4: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32_3: "0x04000000C48282BD4E9027BEE0A3B7BD1877413DF4C105BE88E6623DC8D16ABDB018F8BD",
      torch_tensor_8_16_torch.float32: "0x040000008C9EBABD5CE90F3ED67411BEB87920BDB25E593E403E293C400C35BE9420ABBDDCFA8ABD208F45BDB0FEC33CA2C16C3E204D5B3C8C101EBE00F0513C587FF53DFCF8FD3DE0F769BEB03C37BDB83E3EBE8876DABD6078B83D18CB35BEFC52BE3D8649593E3053863CF09E2ABE2071B7BDD89A5F3D462743BEEC5DFE3D246A68BE521776BEC0BE78BE68BB4FBD90242C3E724C72BEAEC8543ECCCFCCBDE8F4953D20CA3A3C10D766BEE84E543E6ED7093E80767E3E9655013E48FA28BE48A7553E20235C3C80CCF23DAC444DBEC84393BD545C7BBE906BC7BDA0E85C3D5C0049BE1035A33D2C6C093E18A70E3D0C492BBE5A7B46BEE4F59DBD20BFE03D7A847C3E1A35133EB09FE6BC0084B33DF0267BBE62A65ABE3CE7EE3D960011BE2C52F63DF8B734BE6499FDBD48DD52BE5A97053E60AED0BC9404453E686E1E3EDCA70D3E20B6033C944C9EBD68A65EBD1817083DA4CDFD3DDC5933BEEADA563EE0ADDEBC9A8356BEC4820ABE6A83623E741E6A3EAA206DBE6E8E343EF84B003EF887173E24B6583EA6F809BE5CADA13D0487D13DE84A97BDA857AB3D2C4F93BD60461E3E880E8EBD14DFBEBD40E5803D689AB53D1026FABD300AB53C745C143EF0C4CBBCA8D19B3DB8F976BDB074B33DE67139BE0E8916BE74F101BE4C446B3E64C589BD00F032BACC0FF8BDF08F7F3E0E077A3E601241BE10884FBED40B42BE00089EBA",
      torch_tensor_16_torch.float32: "0x04000000B3154CBE59254BBE794A8BBE2B0C733E3AB1803E81D124BDB88151BE2CE98B3E0C85673E594BD73C65EE2ABE8D5DA63E660D143E846B89BE2140AD3E1A76893E",
      torch_tensor_16_8_torch.float32: "0x04000000DE51033E0AD0F1BD9257CABD04EAD53DDECD943EF8DEC43D034C2BBEAA2F2ABEEF25ABBE7A6F9C3D762B4BBE7864A1BE4ABB9E3EAA1C6BBE8BBE24BD8871CF3D0A8B383CF59B73BE655292BE8E49903ECCD06B3D972D963E79BDF2BDE947D53D4A94A5BD5CCD80BC5F7F5CBE35E2F43DB7EDE43DA5FCEEBBB8D8A2BDE22B5FBEAF5D7A3E52C186BE9350143E3B79F3BD0DAC2EBEB113823D42103CBEB8D4A63DE7318E3DAB6786BE9B1D713DED331A3E5E4E0F3EB44A36BDBD6594BE2A3D5FBD457AFB3D811904BE4C6C093EAD1A713E000A3DBED280643BDFB3153EA901E33CDDEEF13C0ED3343DD54E8EBEAA9DE33C6BB37A3E771EA33EDFC9543EA00E423DC313293EDB1F30BE350296BE8FA99BBE2F96B43E7BD1653EDB407ABE1CA50D3E2FB3883E1AF3B43E4A489E3ED43E8C3E5E00A6BDE11BFEBD2FA0943E0CE14A3E05DE59BE50BDA23E0EEC2E3E315C453ED2EA62BED6BCCF3D96D5FDBDCE708D3E784A82BD39F20C3EA99C803D33091A3EB90FF6BD0A85303E9DDF7CBE5789A33DD2F374BE1695B2BE5E5E91BECBE88E3E36E0433ECFD5A93EB804913E93A8A1BE031177BE20FF69BD9E1E6BBEFC657B3E1EDA88BEA2A330BE98E1AEBEBD8B4DBE63E2943E1E36943E9994813E1CC58B3EBFF5A03ECF68B9BD3A4C1F3E9046A13ED389EF3DF3F5B43EAAC63B3E8C0F613EE06BFDBD53B72D3E0767263D16ECACBD",
      torch_tensor_8_torch.float32_2: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_torch.float32_1: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F",
      torch_tensor_8_torch.float32: "0x040000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_8_8_torch.float32: "0x0400000022792DBB9C36423EB1FC94BE1D3885BED6700BBEAB2AC23D578AE5BB40878F3EDE8300BD9799BF3D5DD3DABD1B548EBDC2EFACBE90C56FBE9F3D15BE4C94563C6B200F3E403B593EDE7075BE86A71DBEA77F033EF750963EE70395BD7A75873E1E6B69BD353C193DA1E8A33E20EDA7BEC5EA63BEAC4FB7BD661F0DBE9E669C3E85AA6ABE86A826BE53EF7CBE2089A9BE2D5653BE979A9B3E5E8C213E5F782F3E4952983C7B9C39BE6E01753D4D04A9BE68CC82BE4CA43ABE876C643E5D45543EF68F20BEF20251BCB38B673E12F5B33ECBAF0F3EA6A2433DF2BD723E522B55BE70ED863D65588CBE8AEC7ABEF2053BBE10D0233EFD98113E5B7456BEB8BFDA3D",
      torch_tensor_24_torch.float32: "0x04000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      torch_tensor_24_8_torch.float32: "0x0400000037432E3E04B1B73E59EDC03EE69EC33EF37CB03DE5C9C0BEE428233DC2B28ABED79DCEBE23FBC43EDB92A83E8927DDBE6EFCA53D5C6495BD3AEF91BDC1F84ABE9E832A3EAF5083BE668C223EC73B603EE4B59E3E48CB253E416DDBBE56D18FBE16665D3E4C9CB93D53F2ACBE3D527FBE0491D03E1963953EF25541BE5332DFBD8131D3BECA08FFBB7EF4A6BEFF02ABBE9773C3BC6F26853D789635BEA58D833E26EA86BE8D2AC93EC5EE973E3BF5BABE8EB6DCBD8F0FA03CF462813D1A54D23D31012E3EF27AD43C9D5958BE7AD0513EFAAAD4BE916783BEB9FEDDBD0EFD57BE2C1E1BBE51B6B5BE4FA3BCBDB58FBD3D7D6E90BEC60AB6BCB7B49E3E1E5436BDDB2B453C1D0219BD4D79B33D9AF78C3EC101D23E22CB8C3EC37CD23E694500BDFE28C7BE4D3552BE59F5963E98F537BB91645CBEABE4A9BE127BCFBE651EBBBEAEE0B3BD7D2A733E13B96F3E24D1D5BE464B8A3EFB7BADBE137BBBBDE1C933BE2AD0AABD611EAEBDDAF1C6BE256DBFBE7FC48ABD847EB73B826D49BEC307273E928BC7BEB864EFBC30F8C23E81DC34BEB332C83EAF94203EEE13C8BE45458C3E7BAA4CBD64F045BEFF48B13E1F28B3BE74513E3D96ABB9BD10529E3E548CF73DF80E553EAA971C3E6041D5BD4080BABD6FB3B6BEA341703EE506B03EC1B1973E56629CBEDE349E3C21499CBE621674BEF12F81BE0D88173E8D1D84BE20C81ABCCA39953C1FEA8E3EE196A7BE943398BEEFBB80BE4F2D9B3E7A631FBEE900BB3EAE56203E2096603DF53E53BB544EAFBD95875E3D937FCABD456547BB344D623DB56AADBE0A6768BEEE05B33E03ECB3BEBBB6FEBC1351DB3EA02C203EC6DD483C2D21C0BE2DA75B3E18EA9DBED1BBFBBD06C514BE4C5383BDF2339B3BA5DCB63EA96A5D3DCC93C63E419E873ED5298CBE74DE463E7BB89CBE1BED3BBE5C6A023EA968123ED353A63E36BD0EBE6BB7353A7D46643E2168D6BE5F49A03EAD54B7BE328FC33BC7C596BD888769BED36B6A3D7754B73EAE9D01BE9B9F83BE07FD23BE75BDDBBE7D26483E8AF354BE75F393BE3D727FBE3AF07E3ECCD06A3E5929AA3E"
    }
  }
#-}


