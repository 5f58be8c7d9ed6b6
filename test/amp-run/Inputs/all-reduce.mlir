// Each rank passes its x and h; every rank gets the reductions. The flags
// are x[0] > 5 on each rank, reduced with max (any rank) and min (every
// rank), returned as i32 (amp-run has no i1 tensors).
func.func @reduce(%x: tensor<4xf32>, %h: tensor<3xf16>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf16>,
        tensor<i32>, tensor<i32>) {
  %sum = amp.all_reduce sum %x : tensor<4xf32>
  %mean = amp.all_reduce mean %x : tensor<4xf32>
  %max = amp.all_reduce max %x : tensor<4xf32>
  %hmean = amp.all_reduce mean %h : tensor<3xf16>
  %c0 = arith.constant 0 : index
  %five = arith.constant 5.0 : f32
  %x0 = tensor.extract %x[%c0] : tensor<4xf32>
  %bit = arith.cmpf ogt, %x0, %five : f32
  %flag = tensor.from_elements %bit : tensor<i1>
  %any = amp.all_reduce max %flag : tensor<i1>
  %all = amp.all_reduce min %flag : tensor<i1>
  %any32 = arith.extui %any : tensor<i1> to tensor<i32>
  %all32 = arith.extui %all : tensor<i1> to tensor<i32>
  return %sum, %mean, %max, %hmean, %any32, %all32
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf16>,
        tensor<i32>, tensor<i32>
}
