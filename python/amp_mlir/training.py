"""from_torch_training(): the forward and backward of a PyTorch training step
as MLIR that amp-mlir's --amp-training pass takes.

    text = amp_mlir.from_torch_training(net, F.cross_entropy,
                                        {"kind": "adamw", "lr": 1e-3}, x, y)

The function it returns follows the convention of docs/frontends.md
("Training steps from PyTorch"):

    func.func @forward_backward(
        %p0: tensor<32x64xf32> {amp.param = "0.weight"}, ...,
        %x: tensor<64x64xf32> {amp.batch}, %y: tensor<64xi64> {amp.batch},
        %seed: tensor<f32> {amp.loss_seed})
        -> (tensor<f32> {amp.loss},
            tensor<32x64xf32> {amp.grad = "0.weight"}, ...)
        attributes {amp.optimizer = {kind = "adamw", lr = ..., ...}}

The gradients are d(loss)/d(param) times the seed: the backward pass starts
from `seed` instead of 1.0, so that the compiler can bind it to the loss
scale.

The route: torch.export does not capture autograd, so the step
(``torch.func.functional_call`` of the module and ``torch.func.vjp`` of the
loss) is traced by ``make_fx`` into a graph of aten ops, forward and backward
together; that graph is exported and imported like from_torch's modules
(torch.export, torch-mlir's FX importer and pipelines, MLIR 22 re-printing).
The backward ops that PyTorch decomposes to a scatter (which torch-mlir
lowers to tm_tensor.scatter), or that torch-mlir does not lower, are
decomposed here during the trace (_backward_decompositions): cross_entropy's
integer labels, embeddings, max and average pooling. Attention is traced
with the math backend, so that its backward is matmuls and softmax.
"""

import math
import numbers

from . import philox
from .frontends import (FrontendError, _decompositions, _dynamic_shapes,
                        _finish, _import_torch_mlir, lower_fx_import,
                        non_negative_scatter_dims)

# The optimizer kinds of the amp.optimizer attribute and their keys, in the
# order they are documented (MLIR prints a dictionary sorted by key).
OPTIMIZER_KEYS = {
    "sgd": ("lr", "weight_decay"),
    "momentum": ("lr", "momentum", "dampening", "nesterov", "weight_decay"),
    "adam": ("lr", "beta1", "beta2", "eps", "weight_decay"),
    "adamw": ("lr", "beta1", "beta2", "eps", "weight_decay"),
}

# torch.optim's defaults (PyTorch 2.14).
_DEFAULTS = {
    "sgd": {"lr": 1e-3, "momentum": 0.0, "dampening": 0.0,
            "nesterov": False, "weight_decay": 0.0},
    "adam": {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
             "weight_decay": 0.0},
    "adamw": {"lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
              "weight_decay": 1e-2},
}
_DEFAULTS["momentum"] = _DEFAULTS["sgd"]


def _float_setting(kind, name, value):
    if isinstance(value, (bool, str, bytes)):
        raise ValueError(f"optimizer {kind}: {name} must be a number, got "
                         f"{value!r}")
    if not isinstance(value, numbers.Real):
        try:  # a 0-d torch tensor or numpy scalar (a tensor lr)
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"optimizer {kind}: {name} must be a number, "
                             f"got {value!r}") from None
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"optimizer {kind}: {name} = {value} is not finite")
    return value


def optimizer_settings(optimizer):
    """The settings of the amp.optimizer attribute for `optimizer`, as a dict
    with "kind" first and every key of that kind (OPTIMIZER_KEYS), defaults
    filled in (PyTorch's), floats as float and nesterov as bool.

    optimizer: a dict {"kind": "sgd"|"momentum"|"adam"|"adamw", "lr": ...,
    ...} (keys: lr, momentum, dampening, nesterov, weight_decay, betas or
    beta1/beta2, eps); a torch.optim.SGD/Adam/AdamW with one parameter
    group; or one of amp_mlir.optim's SGD/Adam/AdamW. SGD with momentum > 0
    is kind "momentum". Raises ValueError for an unknown kind or key and for
    settings out of range (lr <= 0, a beta outside [0, 1), momentum or
    dampening outside [0, 1], negative eps or weight decay, nesterov without
    momentum or with dampening), TypeError for anything else."""
    settings = _optimizer_dict(optimizer)
    kind = settings.pop("kind", None)
    if not isinstance(kind, str) or kind.lower() not in OPTIMIZER_KEYS:
        raise ValueError(f"unknown optimizer kind {kind!r}; the kinds are "
                         f"{', '.join(OPTIMIZER_KEYS)}")
    kind = kind.lower()
    if "betas" in settings:
        betas = settings.pop("betas")
        try:
            beta1, beta2 = betas
        except (TypeError, ValueError):
            raise ValueError(f"optimizer {kind}: betas must be a pair, got "
                             f"{betas!r}") from None
        if "beta1" in settings or "beta2" in settings:
            raise ValueError(f"optimizer {kind}: give betas or beta1/beta2, "
                             f"not both")
        settings.update(beta1=beta1, beta2=beta2)
    defaults = _DEFAULTS[kind]
    unknown = sorted(set(settings) - set(defaults))
    if unknown:
        raise ValueError(f"optimizer {kind}: unknown setting"
                         f"{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(unknown)} (it takes "
                         f"{', '.join(defaults)})")
    values = dict(defaults)
    for name, value in settings.items():
        values[name] = bool(value) if name == "nesterov" else \
            _float_setting(kind, name, value)
    if values["lr"] <= 0:
        raise ValueError(f"optimizer {kind}: lr must be > 0, got "
                         f"{values['lr']}")
    for name in ("weight_decay", "eps"):
        if name in values and values[name] < 0:
            raise ValueError(f"optimizer {kind}: {name} must be >= 0, got "
                             f"{values[name]}")
    for name in ("beta1", "beta2"):
        if name in values and not 0 <= values[name] < 1:
            raise ValueError(f"optimizer {kind}: {name} must be in [0, 1), "
                             f"got {values[name]}")
    if kind in ("sgd", "momentum"):
        for name in ("momentum", "dampening"):
            if not 0 <= values[name] <= 1:
                raise ValueError(f"optimizer {kind}: {name} must be in "
                                 f"[0, 1], got {values[name]}")
        if kind == "sgd" and values["momentum"] > 0:
            kind = "momentum"
        if kind == "momentum" and values["momentum"] == 0:
            raise ValueError("optimizer momentum: momentum must be > 0 "
                             "(kind sgd is SGD without momentum)")
        if values["nesterov"] and (values["momentum"] == 0
                                   or values["dampening"] != 0):
            raise ValueError(f"optimizer {kind}: nesterov needs momentum > "
                             f"0 and dampening 0")
    result = {"kind": kind}
    result.update((name, values[name]) for name in OPTIMIZER_KEYS[kind])
    return result


def _optimizer_dict(optimizer):
    """A dict of settings with "kind" from a dict, a torch.optim optimizer
    or an amp_mlir.optim optimizer."""
    if isinstance(optimizer, dict):
        return dict(optimizer)
    import numpy as np

    from . import optim
    if isinstance(optimizer, optim.Optimizer):
        kind = {optim.SGD_KIND: "sgd", optim.MOMENTUM_KIND: "momentum",
                optim.ADAM_KIND: "adam",
                optim.ADAMW_KIND: "adamw"}[optimizer.kind]
        settings = dict(optimizer.settings, kind=kind)
        # The runtime keeps lr in float32: the value given unless it was
        # set since.
        if float(np.float32(settings["lr"])) != optimizer.lr:
            settings["lr"] = optimizer.lr
        if kind not in ("sgd", "momentum"):
            settings.pop("momentum", None)
        return settings
    torch_optim = _torch_optimizer_dict(optimizer)
    if torch_optim is not None:
        return torch_optim
    raise TypeError(f"the optimizer must be a dict with a 'kind', a "
                    f"torch.optim.SGD/Adam/AdamW or an amp_mlir.optim "
                    f"optimizer, got {type(optimizer).__name__}")


def _torch_optimizer_dict(optimizer):
    import sys
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(optimizer, torch.optim.Optimizer):
        return None
    name = type(optimizer).__name__
    if len(optimizer.param_groups) != 1:
        raise ValueError(f"torch.optim.{name} has "
                         f"{len(optimizer.param_groups)} parameter groups; "
                         f"from_torch_training takes one (one setting for "
                         f"every parameter)")
    group = optimizer.param_groups[0]
    for flag in ("amsgrad", "maximize", "differentiable"):
        if group.get(flag):
            raise ValueError(f"torch.optim.{name} with {flag}=True is not "
                             f"supported")
    # AdamW derives from Adam in recent PyTorch: test it first.
    if isinstance(optimizer, torch.optim.AdamW) or (
            isinstance(optimizer, torch.optim.Adam)
            and group.get("decoupled_weight_decay")):
        kind = "adamw"
    elif isinstance(optimizer, torch.optim.Adam):
        kind = "adam"
    elif isinstance(optimizer, torch.optim.SGD):
        return {"kind": "sgd", "lr": group["lr"],
                "momentum": group.get("momentum", 0.0),
                "dampening": group.get("dampening", 0.0),
                "nesterov": group.get("nesterov", False),
                "weight_decay": group.get("weight_decay", 0.0)}
    else:
        raise ValueError(f"torch.optim.{name} is not supported (SGD, Adam "
                         f"and AdamW are)")
    return {"kind": kind, "lr": group["lr"], "betas": group["betas"],
            "eps": group["eps"], "weight_decay": group["weight_decay"]}


def _backward_decompositions(torch):
    """Decompositions of backward ops that PyTorch decomposes to scatters
    (which torch-mlir lowers to tm_tensor.scatter) or that torch-mlir does
    not lower, into ops that lower to upstream dialects:

    - nll_loss_backward, nll_loss2d_backward (cross_entropy with class
      indices): the labels compared with an iota, a one-hot mask;
    - embedding_dense_backward: the one-hot matrix of the indices (N x V)
      times the output gradient;
    - max_pool2d_with_indices: the windows' maxima and their indices
      as one elementwise expression over strided slices of the input
      (torch-mlir's lowering rewrites the indices once per offset);
    - max_pool2d_with_indices_backward: for each window that may contain
      an input position, its gradient where its saved index is that
      position (a gather), summed;
    - avg_pool2d_backward: for each kernel offset, the output gradient
      divided by the window's divisor, spread to the input positions by
      strided zero insertion and padding, and summed over the offsets;
    - convolution_backward of a 2-D convolution: the input gradient the
      transposed convolution of the output gradient, the weight gradient a
      convolution of the input by the output gradient (both with batch and
      channels swapped: stride and dilation swap too; with groups, each
      group's channels as the batch), cut to the kernel's size.
      torch-mlir's own decomposition makes the weight gradient of a
      strided convolution a grouped convolution over the batch, which no
      library call takes, and fails on grouped convolutions;
    - cumsum, as from_torch decomposes it (frontends._decompositions): OPT
      and other decoders take the cumsum of the attention mask for their
      positions, which torch-mlir would make a tm_tensor.scan;
    - gelu_backward with approximate="tanh", as ATen computes it (kBeta =
      sqrt(2/pi) in double; gelu itself is frontends._decompositions',
      with the same constant: torch-mlir's lowering of gelu multiplies by
      0.797724 instead of 0.7978846, a relative error of 2e-4 in the
      tanh's argument). The backward recomputes the tanh from the input,
      the one tensor autograd saves; its argument is written
      x (beta + beta kappa x^2) and the forward's cube as pow(x, 3), so
      that common subexpression elimination in the one graph of forward
      and backward shares (and stores) neither the tanh nor x^2."""
    aten = torch.ops.aten
    F = torch.nn.functional

    def convolution_backward(grad_output, input, weight, bias_sizes,
                             stride, padding, dilation, transposed,
                             output_padding, groups, output_mask):
        if transposed or input.dim() != 4:
            return NotImplemented  # PyTorch's decomposition
        kernel = weight.shape[2:]
        grad_input = grad_weight = grad_bias = None
        if output_mask[0]:
            # The rows and columns of the input that the strided windows
            # do not reach: the transposed convolution's output padding.
            extra = [input.shape[2 + i] - ((grad_output.shape[2 + i] - 1)
                                           * stride[i] - 2 * padding[i]
                                           + dilation[i] * (kernel[i] - 1)
                                           + 1) for i in range(2)]
            grad_input = aten.convolution(grad_output, weight, None, stride,
                                          padding, dilation, True, extra,
                                          groups)
        if output_mask[1]:
            # dW[f, c, i, j] = sum over n, y, x of dY[n, f, y, x] *
            # X[n, c, i * dilation - padding + y * stride, ...], with c a
            # channel of f's group. One convolution with the same groups:
            # its batch the group's input channels (c / groups), its input
            # channels the batch of each group, its filters dY's channels.
            n, c, h, w = input.shape
            f = grad_output.shape[1]
            if groups == 1:
                # Plain transposes: the form amp-raise-convolution-gradients
                # recognises (the general case below computes the same).
                x = input.transpose(0, 1)
                dy = grad_output.transpose(0, 1)
            else:
                x = input.reshape(-1, groups, c // groups, h, w).permute(
                    2, 1, 0, 3, 4).reshape(c // groups, -1, h, w)
                dy = grad_output.reshape(
                    -1, groups, f // groups, *grad_output.shape[2:]).permute(
                        1, 2, 0, 3, 4).reshape(f, -1, *grad_output.shape[2:])
            swapped = aten.convolution(x, dy, None, dilation, padding, stride,
                                       False, [0, 0], groups)
            grad_weight = swapped[:, :, :kernel[0], :kernel[1]].transpose(
                0, 1)
        if output_mask[2]:
            grad_bias = grad_output.sum([0, 2, 3])
        return grad_input, grad_weight, grad_bias

    def nll_loss_backward(grad_output, self, target, weight, reduction,
                          ignore_index, total_weight):
        channel_dim = 0 if self.dim() < 2 else 1
        if reduction == 1:  # mean
            grad_output = grad_output / total_weight
        target = target.unsqueeze(channel_dim)
        shape = [1] * self.dim()
        shape[channel_dim] = self.shape[channel_dim]
        classes = torch.arange(self.shape[channel_dim],
                               device=self.device).view(shape)
        hit = (classes == target) & (target != ignore_index)
        grad = torch.where(hit, -1.0, 0.0).to(self.dtype)
        if weight is not None:
            grad = grad * weight.view(shape)
        if reduction == 0 and self.dim() >= 2:  # none: one per sample
            grad_output = grad_output.unsqueeze(channel_dim)
        return grad * grad_output

    def embedding_dense_backward(grad_output, indices, num_weights,
                                 padding_idx, scale_grad_by_freq):
        flat = indices.reshape(-1, 1)
        rows = torch.arange(num_weights, device=indices.device).view(1, -1)
        one_hot = ((flat == rows) & (flat != padding_idx)).to(
            grad_output.dtype)
        grad = grad_output.reshape(flat.shape[0], -1)
        grad_weight = one_hot.t() @ grad
        if scale_grad_by_freq:
            counts = one_hot.sum(0).unsqueeze(1)
            grad_weight = grad_weight / torch.clamp(counts, min=1)
        return grad_weight

    def place(values, dim, stride, offset, size):
        """values along `dim` moved to positions o * stride + offset of a
        zero tensor of length `size` (the positions outside are dropped)."""
        dim %= values.dim()
        if stride > 1:
            zeros = torch.zeros_like(values)
            values = torch.stack([values] + [zeros] * (stride - 1),
                                 dim + 1)
            shape = list(values.shape[:dim]) + [
                values.shape[dim] * stride] + list(values.shape[dim + 2:])
            values = values.reshape(shape)
        if offset > 0:
            pad = [0, 0] * (values.dim() - dim - 1) + [offset, 0]
            values = F.pad(values, pad)
        elif offset < 0:
            values = values.narrow(dim, -offset,
                                   max(values.shape[dim] + offset, 0))
        length = values.shape[dim]
        if length < size:
            pad = [0, 0] * (values.dim() - dim - 1) + [0, size - length]
            values = F.pad(values, pad)
        elif length > size:
            values = values.narrow(dim, 0, size)
        return values

    def pool_backward(contribution, self, kernel, stride, padding,
                      dilation):
        """The sum over the kernel offsets (i, j) of contribution(i, j, rows,
        columns) placed at the input rows oh * sH - pH + i * dH and
        columns ow * sW - pW + j * dW."""
        kh, kw = kernel
        sh, sw = stride
        ph, pw = padding
        dh, dw = dilation
        height, width = self.shape[-2], self.shape[-1]
        grad = None
        for i in range(kh):
            for j in range(kw):
                part = contribution(i, j)
                part = place(part, -2, sh, i * dh - ph, height)
                part = place(part, -1, sw, j * dw - pw, width)
                grad = part if grad is None else grad + part
        return grad

    def pair(value, default=None):
        if isinstance(value, int):
            value = [value]
        value = list(value) if value else list(default or [])
        return value * 2 if len(value) == 1 else value

    def pool_settings(kernel_size, stride, padding, dilation):
        kernel = pair(kernel_size)
        return (kernel, pair(stride, kernel), pair(padding),
                pair(dilation, [1]))

    def max_pool2d_with_indices(self, kernel_size, stride=(), padding=0,
                                dilation=1, ceil_mode=False):
        """The maximum of each window and its index (h * W + w), as
        PyTorch's kernels choose it: the first in-bounds position, then
        each later one that is greater or NaN. One elementwise expression
        over the output, reading the input at each kernel offset through
        a strided slice: one loop nest (one kernel on the GPU) writes the
        values and the indices, where torch-mlir's lowering makes a
        pooling op and a reduction over the window that rewrites the
        indices once per offset."""
        if self.dim() != 4 or not self.is_floating_point():
            return NotImplemented  # torch-mlir's lowering
        kernel, stride, padding, dilation = pool_settings(
            kernel_size, stride, padding, dilation)
        size = self.shape[-2:]
        out = [(size[a] + 2 * padding[a] - dilation[a] * (kernel[a] - 1)
                - 1 + (stride[a] - 1 if ceil_mode else 0)) // stride[a] + 1
               for a in range(2)]
        for a in range(2):  # a last window must start inside the input
            if ceil_mode and (out[a] - 1) * stride[a] >= size[a] + \
                    padding[a]:
                out[a] -= 1
        # Padded so that every window's every offset is in the tensor; the
        # padding's values are never taken (`inside` below).
        extra = [max((out[a] - 1) * stride[a] + dilation[a] *
                     (kernel[a] - 1) + 1 - size[a] - padding[a], 0)
                 for a in range(2)]
        padded = F.pad(self, [padding[1], extra[1], padding[0], extra[0]])
        device = self.device
        values = torch.full_like(padded[..., :out[0], :out[1]],
                                 float("-inf"))
        indices = found = None
        for i in range(kernel[0]):
            rows = torch.arange(out[0], device=device) * stride[0] \
                - padding[0] + i * dilation[0]
            for j in range(kernel[1]):
                cols = torch.arange(out[1], device=device) * stride[1] \
                    - padding[1] + j * dilation[1]
                inside = ((rows >= 0) & (rows < size[0])).view(-1, 1) & \
                    ((cols >= 0) & (cols < size[1])).view(1, -1)
                position = rows.view(-1, 1) * size[1] + cols.view(1, -1)
                value = padded[..., i * dilation[0]::stride[0],
                               j * dilation[1]::stride[1]][
                                   ..., :out[0], :out[1]]
                if found is None:
                    take = inside
                    indices = torch.where(take, position, -1).expand(
                        value.shape)
                    found = inside
                else:
                    take = inside & (~found | (value > values) |
                                     torch.isnan(value))
                    indices = torch.where(take, position, indices)
                    found = found | inside
                values = torch.where(take, value, values)
        return values, indices

    def max_pool2d_with_indices_backward(grad_output, self, kernel_size,
                                         stride, padding, dilation,
                                         ceil_mode, indices):
        """A gather, not a scatter: every input position (h, w) reads the
        windows that may contain it (oh = (h + pH) // sH - t for t below
        dH * (kH - 1) // sH + 1, those in range; the same for columns:
        4 windows for a 3x3 window of stride 2, 1 for 2x2 of stride 2)
        and sums the gradients of those whose saved index is (h, w). On
        the flattened plane, so each read is one index_select: the sum is
        one elementwise expression over the input's gradient, which the
        lowering fuses into one loop nest (one kernel on the GPU)."""
        kernel, stride, padding, dilation = pool_settings(
            kernel_size, stride, padding, dilation)
        height, width = self.shape[-2], self.shape[-1]
        out_h, out_w = grad_output.shape[-2], grad_output.shape[-1]
        device = grad_output.device
        flat_grad = grad_output.flatten(-2)
        flat_indices = indices.flatten(-2)
        # Every index vector is computed from the flat position alone (no
        # 2-D tables): it fuses into the loop nest as index arithmetic.
        here = torch.arange(height * width, device=device)
        position = (torch.div(here, width, rounding_mode="floor"),
                    torch.remainder(here, width))

        def windows(axis, out):
            """Each input position's windows along `axis` that may contain
            it, first to last (clamped into range), and whether each is in
            range. In PyTorch's order, so that the sum below adds in the
            order of its kernels' accumulation (the output positions in
            order): fp32 gradients are the same to the bit."""
            last = torch.div(position[axis] + padding[axis], stride[axis],
                             rounding_mode="floor")
            count = dilation[axis] * (kernel[axis] - 1) // stride[axis] + 1
            return [(torch.clamp(last - t, 0, out - 1),
                     (last - t >= 0) & (last - t < out))
                    for t in reversed(range(count))]

        grad = None
        for rows, row_valid in windows(0, out_h):
            for cols, col_valid in windows(1, out_w):
                source = rows * out_w + cols
                hit = row_valid & col_valid & \
                    (flat_indices.index_select(-1, source) == here)
                part = torch.where(hit, flat_grad.index_select(-1, source),
                                   0.0)
                grad = part if grad is None else grad + part
        return grad.unflatten(-1, (height, width))

    def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding,
                            ceil_mode, count_include_pad, divisor_override):
        kernel, stride, padding, _ = pool_settings(kernel_size, stride,
                                                   padding, 1)
        height, width = self.shape[-2], self.shape[-1]
        out_h, out_w = grad_output.shape[-2], grad_output.shape[-1]
        # The divisor of every window, as PyTorch's kernel computes it.
        divisors = []
        for oh in range(out_h):
            row = []
            for ow in range(out_w):
                h0, w0 = oh * stride[0] - padding[0], \
                    ow * stride[1] - padding[1]
                h1 = min(h0 + kernel[0], height + padding[0])
                w1 = min(w0 + kernel[1], width + padding[1])
                size = (h1 - h0) * (w1 - w0)
                h0, w0 = max(h0, 0), max(w0, 0)
                h1, w1 = min(h1, height), min(w1, width)
                if divisor_override:
                    size = divisor_override
                elif not count_include_pad:
                    size = (h1 - h0) * (w1 - w0)
                row.append(1.0 / size)
            divisors.append(row)
        scaled = grad_output * torch.tensor(divisors, dtype=grad_output.dtype,
                                            device=grad_output.device)
        return pool_backward(lambda i, j: scaled, self, kernel, stride,
                             padding, [1, 1])

    beta, kappa = math.sqrt(2.0 / math.pi), 0.044715

    def gelu_backward(grad_output, x, approximate="none"):
        if approximate != "tanh":
            return NotImplemented
        # ATen's formula (GeluKernel.cpp): d/dx of 0.5 x (1 + tanh(inner)).
        x_sq = x * x
        tanh_inner = torch.tanh(x * (beta + (beta * kappa) * x_sq))
        left_derivative = 0.5 * (1.0 + tanh_inner)
        right_derivative = (0.5 * x) * (1.0 - tanh_inner * tanh_inner) * \
            (beta * (1.0 + 3.0 * kappa * x_sq))
        return grad_output * (left_derivative + right_derivative)

    return {aten.nll_loss_backward.default: nll_loss_backward,
            aten.gelu_backward.default: gelu_backward,
            aten.nll_loss2d_backward.default: nll_loss_backward,
            aten.embedding_dense_backward.default: embedding_dense_backward,
            aten.max_pool2d_with_indices.default: max_pool2d_with_indices,
            aten.max_pool2d_with_indices_backward.default:
                max_pool2d_with_indices_backward,
            aten.avg_pool2d_backward.default: avg_pool2d_backward,
            aten.convolution_backward.default: convolution_backward,
            **_decompositions(torch)}


def _norms_with_running_stats(torch, model):
    """(name, module) of the batch and instance norms that keep running
    statistics, in named_modules() order."""
    return [(name, module) for name, module in model.named_modules()
            if isinstance(module, (torch.nn.modules.batchnorm._BatchNorm,
                                   torch.nn.modules.instancenorm._InstanceNorm))
            and module.track_running_stats]


def _state_buffers(torch, model):
    """The buffers a training step updates, as (name, tensor) in
    named_buffers() order: the running statistics (running_mean,
    running_var, num_batches_tracked) of the norms that keep them."""
    owners = {id(module) for _, module in
              _norms_with_running_stats(torch, model)}
    state = []
    for prefix, module in model.named_modules():
        if id(module) not in owners:
            continue
        for name, buffer in module.named_buffers(recurse=False):
            if buffer is not None:
                state.append((f"{prefix}.{name}" if prefix else name,
                              buffer))
    order = {name: index for index, (name, _) in
             enumerate(model.named_buffers())}
    return sorted(state, key=lambda item: order[item[0]])


def buffers_of(model):
    """The buffers of a torch.nn.Module that from_torch_training carries as
    state (amp.buffer): the running statistics of its batch and instance
    norms, as {name: array} of their own dtype (float32 means and
    variances, an int64 num_batches_tracked), in named_buffers() order.
    Trainer(..., buffers=buffers_of(model)) starts from them."""
    import torch
    return {name: buffer.detach().cpu().numpy().copy()
            for name, buffer in _state_buffers(torch, model)}


def _refuse_stateful_modules(torch, model):
    """Modules whose training mode updates state that is not carried: the
    step would not be a function of parameters, buffers and batch."""
    for name, module in _norms_with_running_stats(torch, model):
        if module.momentum is None:
            raise FrontendError(
                f"from_torch_training: {name or 'the model'} "
                f"({type(module).__name__}) has momentum=None: its running "
                f"statistics are a cumulative average, whose factor "
                f"1/num_batches_tracked the traced step cannot compute; "
                f"give it a momentum (0.1 is PyTorch's default)")


# aten ops that draw random numbers (their overload packets' names).
_RANDOM_OPS = frozenset([
    "bernoulli", "bernoulli_", "native_dropout", "rand", "rand_like",
    "randn", "randn_like", "randint", "randint_like", "randperm",
    "normal", "normal_", "uniform", "uniform_", "multinomial",
    "exponential_", "geometric_", "cauchy_", "log_normal_", "random_",
])


def _check_traced_graph(torch, gm):
    """Refuses random ops and in-place updates of module state (buffers)
    that the traced step contains."""
    random, mutated = set(), set()
    for node in gm.graph.nodes:
        if node.op != "call_function" or not isinstance(
                node.target, torch._ops.OpOverload):
            continue
        packet = node.target.overloadpacket.__name__
        if packet in _RANDOM_OPS:
            random.add(f"aten.{packet}")
        elif node.target._schema.is_mutable and any(
                isinstance(a, torch.fx.Node) and a.op == "get_attr"
                for a in node.args):
            mutated.add(f"aten.{packet}")
    if random:
        raise FrontendError(f"from_torch_training: the training step draws "
                            f"random numbers ({', '.join(sorted(random))}), "
                            f"which the imported step does not support "
                            f"(it draws dropout, bernoulli and rand from "
                            f"its Philox generator, amp_mlir.philox)")
    if mutated:
        raise FrontendError(f"from_torch_training: the training step updates "
                            f"module state in place "
                            f"({', '.join(sorted(mutated))} on a buffer), "
                            f"which the imported step does not support")


def _set_attributes(ir, operation, func_name, names, buffer_names,
                    batch_count, settings):
    """The amp.* argument, result and function attributes of @func_name."""
    func = None
    for op in operation.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and ir.StringAttr(
                op.operation.attributes["sym_name"]).value == func_name:
            func = op.operation
    if func is None:
        raise FrontendError(f"from_torch_training: no function @{func_name} "
                            f"in torch-mlir's output")
    context = operation.context
    with context, ir.Location.unknown():
        unit = ir.UnitAttr.get()
        string = ir.StringAttr.get
        args = [ir.DictAttr.get({"amp.param": string(n)}) for n in names]
        buffers = [ir.DictAttr.get({"amp.buffer": string(n)})
                   for n in buffer_names]
        args += buffers
        args += [ir.DictAttr.get({"amp.batch": unit})] * batch_count
        args.append(ir.DictAttr.get({"amp.loss_seed": unit}))
        results = [ir.DictAttr.get({"amp.loss": unit})]
        results += [ir.DictAttr.get({"amp.grad": string(n)}) for n in names]
        results += buffers
        f64 = ir.F64Type.get()
        entries = {}
        for key, value in settings.items():
            if isinstance(value, bool):
                entries[key] = ir.BoolAttr.get(value)
            elif isinstance(value, str):
                entries[key] = string(value)
            else:
                entries[key] = ir.FloatAttr.get(f64, value)
        function_type = ir.TypeAttr(func.attributes["function_type"]).value
        function_type = ir.FunctionType(function_type)
        if (len(function_type.inputs) != len(args)
                or len(function_type.results) != len(results)):
            raise FrontendError(
                f"from_torch_training: torch-mlir's @{func_name} has "
                f"{len(function_type.inputs)} arguments and "
                f"{len(function_type.results)} results, expected "
                f"{len(args)} and {len(results)}")
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(args)
        func.attributes["res_attrs"] = ir.ArrayAttr.get(results)
        func.attributes["amp.optimizer"] = ir.DictAttr.get(entries)


def from_torch_training(model, loss_fn, optimizer, *example_batch,
                        func_name="forward_backward", dynamic_dims=None,
                        num_inputs=1, annotate=True):
    """Imports the forward and backward of a training step of a
    torch.nn.Module as MLIR text (the convention of docs/frontends.md,
    "Training steps from PyTorch").

    model: the nn.Module, traced in training mode (its flag is restored
    afterwards). Every parameter with requires_grad becomes an argument
    `{amp.param = "<name>"}`, in named_parameters() order. The running
    statistics of batch and instance norms (buffers_of(model)) become
    arguments and results `{amp.buffer = "<name>"}` after them: state of
    the step. Frozen parameters and other buffers are constants.
    loss_fn: called as loss_fn(model(*inputs), *targets), returning a
    scalar (0-d) float32 loss: torch.nn.functional.cross_entropy, an
    nn.MSELoss(), ...
    optimizer: the update the compiler applies, recorded as the function
    attribute amp.optimizer: a dict {"kind": "sgd"|"momentum"|"adam"|
    "adamw", "lr": ..., ...}, a torch.optim.SGD/Adam/AdamW (one parameter
    group) or an amp_mlir.optim optimizer; see optimizer_settings.
    example_batch: tensors of the batch, `{amp.batch}` arguments in this
    order. The first num_inputs (default 1) are the model's inputs, the
    rest the loss function's targets.
    dynamic_dims: as from_torch's, for the batch tensors (0: the batch
    dimension of each is dynamic, one symbol). The parameters and the seed
    are static.
    annotate: False leaves the amp.* attributes out: the same function,
    unmarked, for tools that do not know the convention (amp_mlir.compile
    of the plain forward and backward, an amp-opt older than
    --amp-training).

    Returns MLIR text in upstream dialects printed by MLIR 22: one function
    `func_name` (params..., buffers..., batch..., seed: tensor<f32>
    {amp.loss_seed}) -> (loss: tensor<f32> {amp.loss}, one gradient per
    parameter {amp.grad = "<name>"}, the buffers' new values), where the
    gradients are d(loss)/d(param) * seed.

    A step that draws random numbers (dropout, bernoulli, rand) draws them
    from a Philox generator (amp_mlir.philox) whose state, an int64
    (seed, offset) pair, is one more buffer, `{amp.buffer = "amp:rng"}`,
    after the model's: the step returns it with the offset plus one.
    Trainer(..., seed=) starts it.

    Raises ValueError for bad optimizer settings or arguments (checked
    before anything is traced), FrontendError for a model whose step is not
    a function of parameters, buffers and batch (other random ops, updates
    of other buffers, a norm with momentum=None) and for tracing or import
    failures, UnsupportedOpError naming the ops that do not lower,
    ImportError when torch or torch-mlir is not installed.
    """
    torch, fx, ir, PassManager = _import_torch_mlir()
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"from_torch_training takes a torch.nn.Module, got "
                        f"{type(model).__name__}")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable, got "
                        f"{type(loss_fn).__name__}")
    settings = optimizer_settings(optimizer)
    if not example_batch:
        raise ValueError("from_torch_training needs an example batch (the "
                         "model's inputs, then the loss function's targets)")
    for index, value in enumerate(example_batch):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"example_batch[{index}] is a "
                            f"{type(value).__name__}, not a torch.Tensor")
    if not isinstance(num_inputs, int) or not \
            1 <= num_inputs <= len(example_batch):
        raise ValueError(f"num_inputs must be between 1 and "
                         f"{len(example_batch)} (the batch has "
                         f"{len(example_batch)} tensors), got {num_inputs!r}")
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if not named:
        raise ValueError(f"{type(model).__name__} has no parameter with "
                         f"requires_grad")
    for name, param in named:
        if param.dtype != torch.float32:
            raise ValueError(f"parameter {name} is {param.dtype}; "
                             f"from_torch_training takes float32 parameters "
                             f"(amp-mlir keeps fp32 masters)")
    batch_shapes = _dynamic_shapes(torch, example_batch, dynamic_dims)
    names = [n for n, _ in named]
    params = [p.detach() for _, p in named]
    seed = torch.tensor(1.0, dtype=torch.float32)
    training = model.training
    model.train()
    try:
        _refuse_stateful_modules(torch, model)
        state = _state_buffers(torch, model)
        buffer_names = [n for n, _ in state]
        buffers = [b.detach().clone() for _, b in state]
        # On fake tensors: the step is traced, not run (GPT-2 124M's at
        # 8x1024 tokens would take 22 GB).
        with _tanh_gelu_as_one_op(torch, model):
            gm, draws = _trace_step(torch, model, loss_fn, (names, params),
                                    (buffer_names, buffers), num_inputs,
                                    example_batch, seed,
                                    "symbolic" if batch_shapes and any(
                                        spec is not None
                                        for spec in batch_shapes)
                                    else "fake")
        if draws:
            # The generator's state is one more buffer, after the model's.
            buffer_names.append(philox.RNG_BUFFER)
            buffers.append(torch.zeros(2, dtype=torch.int64))
        _check_traced_graph(torch, gm)
        non_negative_scatter_dims(gm)
        _persist_constants(gm)
    finally:
        model.train(training)
    dynamic_shapes = None
    if batch_shapes is not None:
        dynamic_shapes = ((None,) * (len(params) + len(buffers))
                          + tuple(batch_shapes) + (None,))
    try:
        imported = fx.export_and_import(
            gm, *params, *buffers, *example_batch, seed, output_type="raw",
            dynamic_shapes=dynamic_shapes, func_name=func_name)
    except Exception as error:
        raise FrontendError(
            f"torch.export or torch-mlir's FX importer failed on the "
            f"training step of {type(model).__name__}: "
            f"{type(error).__name__}: {str(error)[:4000]}") from error
    lower_fx_import(PassManager, imported.operation)
    if annotate:
        _set_attributes(ir, imported.operation, func_name, names,
                        buffer_names, len(example_batch), settings)
    try:
        return _finish(imported.operation,
                       f"<{type(model).__name__} training>")
    except FrontendError as error:
        if annotate and "unknown amp dialect" in str(error):
            raise FrontendError(
                f"this amp-opt does not know the training attributes "
                f"(amp.param, amp.buffer, amp.batch, amp.loss_seed, "
                f"amp.loss, amp.grad, amp.optimizer): it predates "
                f"--amp-training or model buffers; use a newer "
                f"build, or annotate=False\n{error}") from None
        raise


# transformers' modules that write GELU's tanh approximation,
# 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as a formula of tensor
# ops (class name: whether the instance computes the formula, from its
# attributes); GELUTanh computes it with F.gelu unless asked for the
# Python form.
_TANH_GELU_FORMULAS = {
    "NewGELUActivation": lambda module: True,     # GPT-2's gelu_new
    "FastGELUActivation": lambda module: True,    # gelu_fast
    "GELUTanh": lambda module: getattr(module, "act", None) ==
    getattr(module, "_gelu_tanh_python", object()),
}


class _tanh_gelu_as_one_op:
    """While the step is traced, the modules of transformers that compute
    GELU's tanh approximation as a formula (_TANH_GELU_FORMULAS) call
    F.gelu(x, approximate="tanh"): the same function, one aten op. Its
    derivative then recomputes the tanh from x (gelu_backward), where
    autograd of the formula saves the tanh of every activation for the
    backward: a tensor of the MLP's hidden size per layer, written by the
    forward and read by the backward (GPT-2 124M at 8 x 1024 tokens: 50 MB
    a layer in 16 bits). One op also gives the compiler the GELU whole
    (its GEMM epilogue, round-once). Each instance's own forward is
    restored afterwards."""

    def __init__(self, torch, model):
        self.torch, self.model, self.patched = torch, model, []

    def __enter__(self):
        gelu = self.torch.nn.functional.gelu
        for module in self.model.modules():
            cls = type(module)
            test = _TANH_GELU_FORMULAS.get(cls.__name__)
            if (test is None or not cls.__module__.startswith("transformers")
                    or "forward" in vars(module) or not test(module)):
                continue
            module.forward = lambda input: gelu(input, approximate="tanh")
            self.patched.append(module)
        return self

    def __exit__(self, *exc):
        for module in self.patched:
            del module.forward
        return False


def _persist_constants(gm):
    """make_fx keeps the real tensors the step reads (a rotary embedding's
    inv_freq, a non-persistent buffer of Llama's) as non-persistent
    buffers of its graph module; torch.export lists those as constants,
    where torch-mlir's FX importer does not look for buffers. Registered
    persistent, they are imported as the literals they are."""
    saved = gm.state_dict(keep_vars=True)
    for name, buffer in list(gm.named_buffers(recurse=False)):
        if name not in saved:
            gm.register_buffer(name, buffer, persistent=True)


def _trace_step(torch, model, loss_fn, parameters, state, num_inputs,
                example_batch, seed, tracing_mode):
    """make_fx's graph of (params..., buffers..., [rng,] batch..., seed)
    -> (loss, grads..., new buffers..., [new rng]), and how many random
    ops it draws from rng (the generator's state, philox.RNG_BUFFER: there
    only where the step draws). parameters and state are (names, tensors)
    pairs."""
    from torch.fx.experimental.proxy_tensor import make_fx
    names, params = parameters
    buffer_names, buffers = state
    count, buffer_count = len(params), len(buffers)
    stream = philox.Stream()
    table = {**_backward_decompositions(torch),
             **stream.replacements(torch)}

    def step(*args):
        params = args[:count]
        buffers = args[count:count + buffer_count]
        stream.state = args[count + buffer_count]
        batch, seed = args[count + buffer_count + 1:-1], args[-1]

        def loss_of(*params):
            # The forward pass updates the running statistics in place:
            # copies of the buffer arguments, returned as the new values.
            state = [buffer.clone() for buffer in buffers]
            output = torch.func.functional_call(
                model, {**dict(zip(names, params)),
                        **dict(zip(buffer_names, state))},
                tuple(batch[:num_inputs]))
            loss = loss_fn(output, *batch[num_inputs:])
            if not isinstance(loss, torch.Tensor) or loss.dim() != 0 or \
                    loss.dtype != torch.float32:
                raise ValueError(
                    "loss_fn must return a 0-d float32 tensor, got "
                    + (f"a {loss.dtype} tensor of shape {tuple(loss.shape)}"
                       if isinstance(loss, torch.Tensor)
                       else type(loss).__name__))
            return loss, state

        loss, vjp, state = torch.func.vjp(loss_of, *params, has_aux=True)
        if stream.draws:
            # The next step's state: the same seed, the next offset.
            state = [*state, stream.state + torch.tensor(
                [0, 1], dtype=torch.int64)]
        return (loss, *vjp(seed), *state)

    try:
        # Symbolic tracing runs on fake tensors: frozen parameters and
        # buffers are real ones, constants of the graph. Attention is
        # traced with the math backend: its backward is then made of
        # matmuls and softmax, not a fused op torch-mlir does not lower.
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with sdpa_kernel([SDPBackend.MATH]), stream.function_mode(torch):
            gm = make_fx(step, decomposition_table=table,
                         tracing_mode=tracing_mode,
                         _allow_non_fake_inputs=True)(
                             *params, *buffers,
                             torch.zeros(2, dtype=torch.int64),
                             *example_batch, seed)
    except ValueError:
        raise
    except Exception as error:
        raise FrontendError(
            f"tracing the training step of {type(model).__name__} "
            f"(torch.func.vjp under make_fx) failed: "
            f"{type(error).__name__}: {str(error)[:4000]}"
            f"{_data_dependence_hint(error)}") from error
    if not stream.draws:
        # No random op: the generator's state is no argument.
        rng = [node for node in gm.graph.nodes
               if node.op == "placeholder"][count + buffer_count]
        gm.graph.erase_node(rng)
        gm.recompile()
    return gm, stream.draws


def _data_dependence_hint(error):
    """What to do when the model reads a tensor's value in Python (an
    `if` on a tensor, .item()), which tracing cannot follow."""
    text = str(error)
    if "_local_scalar_dense" not in text and \
            "data-dependent" not in text:
        return ""
    return ("\nThe model reads the value of a tensor in Python (an `if` "
            "on a tensor, .item()), which a traced step cannot do. "
            "Hugging Face decoders do so without an attention mask (they "
            "look for packed sequences in the positions): call them with "
            "attention_mask=torch.ones_like(input_ids).")
