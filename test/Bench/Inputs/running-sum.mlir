// A running sum in place: each element reads the one before, a loop that is
// neither parallel nor a reduction, so the GPU lowering runs it on one
// thread.
func.func @scan(%x: tensor<8192xf32>) -> tensor<8192xf32> {
  %c1 = arith.constant 1 : index
  %n = arith.constant 8192 : index
  %r = scf.for %i = %c1 to %n step %c1 iter_args(%out = %x) -> (tensor<8192xf32>) {
    %im1 = arith.subi %i, %c1 : index
    %p = tensor.extract %out[%im1] : tensor<8192xf32>
    %v = tensor.extract %out[%i] : tensor<8192xf32>
    %s = arith.addf %p, %v : f32
    %o = tensor.insert %s into %out[%i] : tensor<8192xf32>
    scf.yield %o : tensor<8192xf32>
  }
  return %r : tensor<8192xf32>
}
