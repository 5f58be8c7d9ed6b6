"""The training step of save_training_step.py's MLP (Linear-ReLU-Linear,
AdamW) from from_torch_training, 20 steps through Trainer on the CPU and in
the GPU simulator from the same weights and batches at argv[1] (level) and
argv[2] (dtype, or 'none'): the simulator's step runs the first layer as
cuBLASLt's RELU_AUX_BIAS and its gradient's GEMM as DRELU (at O0 and O2;
torch-training-relu-epilogues.test), the CPU's its loops. Prints the
largest relative difference of the step losses and of the final
parameters (their L2 norms)."""
import sys
import warnings

import numpy as np
import torch

import amp_mlir

warnings.simplefilter("ignore", amp_mlir.AmpRemark)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(),
                          torch.nn.Linear(32, 10))
optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.01)
x, y = torch.randn(64, 64), torch.randint(0, 10, (64,))
step = amp_mlir.from_torch_training(
    net, torch.nn.functional.cross_entropy, optimizer, x, y)
initial = {n: p.detach().numpy().copy() for n, p in net.named_parameters()}
rng = np.random.default_rng(1)
batches = [(rng.standard_normal((64, 64)).astype(np.float32),
            rng.integers(0, 10, 64).astype(np.int64)) for _ in range(20)]
level, dtype = sys.argv[1], None if sys.argv[2] == "none" else sys.argv[2]
runs = {}
for target in ("cpu", "gpu-sim"):
    trainer = amp_mlir.Trainer(step, initial, level=level, dtype=dtype,
                               target=target)
    runs[target] = ([trainer.step(*batch)[0] for batch in batches],
                    dict(trainer.params))
(cpu_losses, cpu_params), (sim_losses, sim_params) = runs["cpu"], runs["gpu-sim"]
losses = max(abs(a - b) / abs(a) for a, b in zip(cpu_losses, sim_losses))
params = max(float(np.linalg.norm(sim_params[n] - cpu_params[n]) /
                   np.linalg.norm(cpu_params[n])) for n in cpu_params)
print(f"{level} {sys.argv[2]}: losses {losses:.1e} params {params:.1e} "
      f"loss {cpu_losses[0]:.3f} -> {cpu_losses[-1]:.3f}")
