"""DistributedDataParallel over a model compiled with backend="amp_mlir":
2 processes with gloo on the CPU (issue 47, item 4).

Each rank trains the same model (an MLP of four 512-wide layers, 1.1 M
parameters) on its half of every batch for STEPS steps, in PyTorch's own
loop, with DDP's buckets at 1 MB so that Dynamo's DDPOptimizer splits the
graph at bucket boundaries (the backend then compiles each piece, forward
and backward). After every backward, the ranks' gradients are gathered
and must be identical; the loss (averaged over the ranks) is compared with
one process training on the whole batch in eager PyTorch:

- O0: within 1e-5 at every step (relative);
- O1 f16 (with GradScaler) and O1 bf16: within 1% at every step.

One PASS/FAIL line per level; "N passed, M failed" last; exit 1 on a
failure.
"""

import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

nn = torch.nn
F = nn.functional

STEPS = 8
WORLD = 2
BATCH = 16
BUCKET_MB = 1
LEVELS = [("O0", None, 1e-5), ("O1", "f16", 0.01), ("O1", "bf16", 0.01)]


class Net(nn.Module):
    # A user-defined module: Dynamo does not trace into DDP(nn.Sequential).
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 512)
        self.fc2 = nn.Linear(512, 512)
        self.fc3 = nn.Linear(512, 512)
        self.fc4 = nn.Linear(512, 512)
        self.out = nn.Linear(512, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = F.relu(self.fc3(x))
        return self.out(F.relu(self.fc4(x)))


def model():
    torch.manual_seed(0)
    return Net()


def batches():
    generator = torch.Generator().manual_seed(1)
    return [(torch.randn(BATCH, 32, generator=generator),
             torch.randint(0, 10, (BATCH,), generator=generator))
            for _ in range(STEPS)]


def worker(rank, port, level, dtype, queue):
    import amp_mlir.dynamo as dynamo
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    try:
        net = model()
        ddp = nn.parallel.DistributedDataParallel(net,
                                                  bucket_cap_mb=BUCKET_MB)
        step = torch.compile(ddp, backend="amp_mlir",
                             options={"level": level, "dtype": dtype or "f16"})
        optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
        scaler = torch.amp.GradScaler("cpu", enabled=dtype == "f16")
        losses, identical = [], []
        for x, y in batches():
            x, y = x.chunk(WORLD)[rank], y.chunk(WORLD)[rank]
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(step(x), y)
            scaler.scale(loss).backward()
            grads = torch.cat([p.grad.flatten() for p in net.parameters()])
            gathered = [torch.zeros_like(grads) for _ in range(WORLD)]
            dist.all_gather(gathered, grads)
            identical.append(all(torch.equal(gathered[0], g)
                                 for g in gathered))
            total = loss.detach().clone()
            dist.all_reduce(total)
            losses.append(float(total) / WORLD)
            scaler.step(optimizer)
            scaler.update()
        if rank == 0:
            queue.put((losses, identical, dynamo.compiled_graphs()))
    finally:
        dist.destroy_process_group()


def single_process(dtype):
    """The eager run on whole batches: fp32, or autocast in dtype."""
    net = model()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler("cpu", enabled=dtype == "f16")
    losses = []
    for x, y in batches():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", enabled=dtype is not None,
                            dtype={"f16": torch.float16,
                                   "bf16": torch.bfloat16}.get(dtype)):
            loss = F.cross_entropy(net(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(float(loss.detach()))
    return losses


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    passed = failed = 0
    context = mp.get_context("spawn")
    for level, dtype, bound in LEVELS:
        queue = context.Queue()
        mp.start_processes(worker, args=(free_port(), level, dtype, queue),
                           nprocs=WORLD, join=True, start_method="spawn")
        losses, identical, graphs = queue.get()
        reference = single_process(dtype)
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses, reference))
        kinds = [g["kind"] for g in graphs]
        types = sorted({str(g["low_precision_type"]) for g in graphs})
        ok = all(identical) and worst <= bound and \
            kinds.count("forward") >= 2 and kinds.count("backward") >= 2 \
            and types == [str(dtype)]
        label = f"{level}{' ' + dtype if dtype else ''}"
        print(f"{'PASS' if ok else 'FAIL'} DDP {WORLD} gloo processes "
              f"{label}: gradients identical on both ranks after "
              f"{sum(identical)} of {STEPS} steps; loss within {worst:.1e} "
              f"<= {bound:g} of one process on the whole batch"
              f"{' (autocast ' + dtype + ')' if dtype else ''}; DDP's "
              f"buckets split the graph: {kinds.count('forward')} forward "
              f"and {kinds.count('backward')} backward graphs in {types}",
              flush=True)
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
