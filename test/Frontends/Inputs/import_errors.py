"""Models from_torch refuses, each with the exception naming the op."""

import torch

import amp_mlir


class Apply(torch.nn.Module):
    def __init__(self, function):
        super().__init__()
        self.function = function

    def forward(self, x):
        return self.function(x)


CASES = [
    # Left in torch-mlir's TMTensor dialect, which upstream MLIR lacks.
    ("sort", lambda x: torch.sort(x, dim=-1).values),
    ("scatter", lambda x: x.scatter(1, torch.tensor([[0], [1], [2], [3]]),
                                    1.0)),
    # Along dimension -1: torch-mlir 20261001 crashes the process on it
    # unless the dimension is counted from the front (frontends.py,
    # non_negative_scatter_dims).
    ("scatter-last", lambda x: torch.zeros(4, 8).scatter(
        -1, torch.zeros(4, 8, dtype=torch.long), x)),
    # Not lowered by torch-mlir at all.
    ("histc", lambda x: torch.histc(x)),
    ("erfinv", lambda x: torch.erfinv(x)),
]

x = torch.randn(4, 8)
for name, function in CASES:
    try:
        amp_mlir.from_torch(Apply(function), x)
        print(f"{name}: imported")
    except amp_mlir.UnsupportedOpError as error:
        print(f"{name}: {type(error).__name__} {error.ops}: "
              f"{str(error).splitlines()[0]}")

# Misuse is reported at the call.
for arguments, keywords in [((x,), {"dynamic_dims": [[0], [1]]}),
                            ((torch.randn(1, 8),), {"dynamic_dims": 0}),
                            ((x,), {"dynamic_dims": 2})]:
    try:
        amp_mlir.from_torch(Apply(torch.relu), *arguments, **keywords)
    except ValueError as error:
        print(f"ValueError: {error}")
try:
    amp_mlir.from_torch(lambda v: v, x)
except TypeError as error:
    print(f"TypeError: {error}")
