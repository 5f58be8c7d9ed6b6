#!/usr/bin/env python3
"""Trains an MLP classifier with mixed precision through amp-mlir's compiled
training step: PyTorch gives the model, the loss and the optimizer settings;
amp_mlir.from_torch_training imports the forward and backward pass, and the
compiler adds the loss scaling, the fp32 master weights, the optimizer update
and the step skip (amp-training). Nothing of AMP is written by hand here.

    train.py --level O2 --dataset digits --steps 200 --seed 0
    train.py --level O2 --dataset digits --steps 200 --inject-inf-at 50
    train.py --level O2 --dataset digits --steps 200 --ranks 2 --inject-rank 1

--level: fp32 (O0), O1 or O2 (float16, dynamic loss scaling), bf16 (O2 in
bfloat16, no loss scaling), fp8 (O2 in bfloat16 with the matmuls' operands
in FP8: E4M3 forward, E5M2 gradients, delayed scaling). --dataset: any scikit-learn bundled loader
load_<NAME> with class labels (digits, breast_cancer, iris, wine); nothing
is downloaded. --ranks R runs R data-parallel processes under mpirun, each
on its shard of every batch; gradients and found_inf are all-reduced, so an
overflow on one rank skips the step on all. --save/--resume keep and load
the whole state (parameters, optimizer, scaler, step count): a resumed run
continues bit for bit.

The last line (from every rank) is `final_loss=<value> skipped=<count>`:
the mean cross-entropy of the final fp32 parameters over the whole dataset
(evaluated in fp32 by PyTorch, the same yardstick for every level) and the
number of skipped steps.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))

LEVELS = {"fp32": ("O0", None), "O1": ("O1", "float16"),
          "O2": ("O2", "float16"), "bf16": ("O2", "bfloat16"),
          "fp8": ("O2", "fp8")}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--level", choices=sorted(LEVELS), default="O2")
    p.add_argument("--dataset", default="digits")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=64,
                   help="global batch size (split over the ranks)")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--optimizer", choices=["sgd", "momentum", "adam",
                                           "adamw"], default="adam")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--scaler", default=None,
                   help="loss-scaler preset (default: pytorch for float16)")
    p.add_argument("--inject-inf-at", type=int, default=None, metavar="K",
                   help="put +Inf into the batch of step K (0-based)")
    p.add_argument("--inject-rank", type=int, default=0, metavar="Q",
                   help="with --ranks: the rank whose shard gets the Inf")
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--target", default="cpu", choices=["cpu", "gpu-sim"])
    p.add_argument("--save", metavar="FILE",
                   help="save the state at the end (%%r: the rank)")
    p.add_argument("--resume", metavar="FILE",
                   help="load a saved state and go on to --steps (%%r: the "
                        "rank)")
    p.add_argument("--json", metavar="FILE",
                   help="per-step loss, scale and skip flags (rank 0)")
    args = p.parse_args(argv)
    if args.steps < 0 or args.batch < 1 or args.ranks < 1:
        p.error("--steps, --batch and --ranks must be positive")
    if args.batch % args.ranks:
        p.error(f"--batch {args.batch} is not divisible by --ranks "
                f"{args.ranks}")
    if not 0 <= args.inject_rank < args.ranks:
        p.error(f"--inject-rank must be in [0, {args.ranks})")
    return args


def load_dataset(name):
    """(features, labels) of sklearn.datasets.load_<name>, standardised."""
    import sklearn.datasets
    loader = getattr(sklearn.datasets, f"load_{name}", None)
    if loader is None:
        raise SystemExit(f"train.py: error: scikit-learn has no bundled "
                         f"dataset load_{name}")
    data = loader()
    x = np.asarray(data.data, dtype=np.float64)
    y = np.asarray(data.target)
    if not np.issubdtype(y.dtype, np.integer) or y.ndim != 1:
        raise SystemExit(f"train.py: error: load_{name} is not a "
                         f"classification dataset (its targets are "
                         f"{y.dtype}{list(y.shape)})")
    std = x.std(axis=0)
    x = (x - x.mean(axis=0)) / np.where(std > 0, std, 1.0)
    return x.astype(np.float32), y.astype(np.int64)


def batch_indices(step, count, batch, seed):
    """The rows of global step `step`: epochs of a seeded permutation, so
    the batches depend only on (seed, step), not on where a run started."""
    per_epoch = count // batch
    epoch, index = divmod(step, per_epoch)
    order = np.random.default_rng([seed, epoch]).permutation(count)
    return order[index * batch:(index + 1) * batch]


def relaunch_under_mpi(args):
    """Runs this script again under mpirun with --ranks processes."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise SystemExit("train.py: error: --ranks needs mpirun (Debian: "
                         "openmpi-bin; scripts/install-deps.sh installs it)")
    command = [mpirun, "-n", str(args.ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    command += [sys.executable, str(Path(__file__).resolve()), *sys.argv[1:]]
    return subprocess.call(command)


def main(argv=None):
    args = parse_args(argv)
    under_mpi = "OMPI_COMM_WORLD_SIZE" in os.environ or \
        "PMI_SIZE" in os.environ
    if args.ranks > 1 and not under_mpi:
        return relaunch_under_mpi(args)

    import torch
    import amp_mlir

    rank, size = amp_mlir.rank(), amp_mlir.world_size()
    if size != args.ranks:
        raise SystemExit(f"train.py: error: --ranks {args.ranks} but the "
                         f"process group has {size} processes")
    x, y = load_dataset(args.dataset)
    classes = int(y.max()) + 1
    shard = args.batch // args.ranks

    torch.manual_seed(args.seed)
    model = torch.nn.Sequential(torch.nn.Linear(x.shape[1], args.hidden),
                                torch.nn.ReLU(),
                                torch.nn.Linear(args.hidden, classes))
    loss_fn = torch.nn.functional.cross_entropy
    optimizer = {"kind": args.optimizer, "lr": args.lr}
    if args.optimizer == "momentum":
        optimizer["momentum"] = 0.9
    forward_backward = amp_mlir.from_torch_training(
        model, loss_fn, optimizer, torch.zeros(shard, x.shape[1]),
        torch.zeros(shard, dtype=torch.int64))
    level, dtype = LEVELS[args.level]
    trainer = amp_mlir.Trainer(forward_backward,
                               amp_mlir.parameters_of(model), level=level,
                               dtype=dtype, target=args.target,
                               scaler=args.scaler,
                               data_parallel=args.ranks > 1)
    if args.resume:
        trainer.load(args.resume.replace("%r", str(rank)))

    history = []
    while trainer.steps < args.steps:
        step = trainer.steps
        rows = batch_indices(step, len(x), args.batch, args.seed)
        rows = rows[rank * shard:(rank + 1) * shard]
        xb, yb = x[rows].copy(), y[rows].copy()
        if step == args.inject_inf_at and rank == args.inject_rank:
            xb[0, 0] = np.inf
        loss, skipped = trainer.step(xb, yb)
        history.append({"step": step, "loss": loss, "skipped": skipped,
                        "scale": trainer.scale})

    if args.save:
        trainer.save(args.save.replace("%r", str(rank)))
    if args.json and rank == 0:
        with open(args.json, "w") as f:
            json.dump({"level": args.level, "dataset": args.dataset,
                       "ranks": args.ranks, "steps": history}, f)

    # The final fp32 parameters, evaluated by PyTorch in fp32.
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(torch.from_numpy(trainer.params[name]))
        final = float(loss_fn(model(torch.from_numpy(x)),
                              torch.from_numpy(y)))
    # One write(2) of the whole line: with --ranks the ranks share mpirun's
    # stdout, and print() may split a line into several writes that the
    # other rank's line can land between (scripts read the last line).
    line = f"final_loss={final!r} skipped={trainer.skipped}\n"
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # an in-process stream
        fd = None
    if fd is None:
        sys.stdout.write(line)
    else:
        sys.stdout.flush()
        os.write(fd, line.encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
