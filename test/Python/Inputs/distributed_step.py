"""Run by distributed-mpi.test as `mpirun -n 2 python3 distributed_step.py`:
a module with amp.all_reduce compiled with amp_mlir.compile, called with
rank-dependent inputs; every rank prints what it got."""
import sys

import numpy as np

import amp_mlir

MODULE = """
func.func @step(%g: tensor<3xf32>, %h: tensor<2xf16>, %x: tensor<f32>)
    -> (tensor<3xf32>, tensor<2xf16>, tensor<i32>) {
  %0 = amp.all_reduce mean %g : tensor<3xf32>
  %1 = amp.all_reduce sum %h : tensor<2xf16>
  %c0 = arith.constant 0.0 : f32
  %v = tensor.extract %x[] : tensor<f32>
  %bit = arith.cmpf ogt, %v, %c0 : f32
  %flag = tensor.from_elements %bit : tensor<i1>
  %any = amp.all_reduce max %flag : tensor<i1>
  %any32 = arith.extui %any : tensor<i1> to tensor<i32>
  return %0, %1, %any32 : tensor<3xf32>, tensor<2xf16>, tensor<i32>
}
"""

target = sys.argv[1] if len(sys.argv) > 1 else "cpu"
rank, size = amp_mlir.rank(), amp_mlir.world_size()
m = amp_mlir.compile(MODULE, level="O2", target=target)
g = np.array([1, 2, 3], np.float32) * (rank + 1)
h = np.array([0.5, -1], np.float16) * (rank + 1)
x = np.array(1.0 if rank == 1 else -1.0, np.float32)
mean, total, any_positive = m.step(g, h, x)
# Python's own all_reduce on the same group.
ranks = amp_mlir.distributed.all_reduce(np.array([rank], np.int32), "sum")
print(f"rank {rank}/{size} {target}: mean {mean.tolist()} sum "
      f"{total.tolist()} any {int(any_positive)} ranks {int(ranks[0])}",
      flush=True)
