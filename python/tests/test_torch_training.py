"""amp_mlir.from_torch_training: the signature and attributes of the
imported step, its loss and gradients against PyTorch's autograd at O0 (seed
1 and 1024), and its errors.

The tests that trace need torch and torch-mlir: under pytest they are
skipped without them (python/tests runs with Debian's Python), and
test/Frontends/torch-training.test runs this file as a script with the
frontend environment's Python, which has no pytest."""

import contextlib
import importlib.util
import re
import subprocess

import numpy as np

try:
    import pytest
except ImportError:  # run as a script by test/Frontends/torch-training.test
    pytest = None

import amp_mlir
from amp_mlir import _paths
from amp_mlir.training import optimizer_settings

HAVE_TORCH = (importlib.util.find_spec("torch") is not None
              and importlib.util.find_spec("torch_mlir") is not None)


class Skipped(Exception):
    pass


def skip(reason):
    if pytest is not None:
        pytest.skip(reason)
    raise Skipped(reason)


def needs_torch():
    if not HAVE_TORCH:
        skip("needs torch and torch-mlir (the frontend environment)")
    import torch
    return torch


@contextlib.contextmanager
def raises(error_type, match):
    try:
        yield
    except error_type as error:
        assert re.search(match, str(error)), f"{error!r} does not match " \
                                             f"{match!r}"
    else:
        raise AssertionError(f"no {error_type.__name__} raised")


_KNOWS_TRAINING = []


def needs_training_attributes():
    """amp-opt must accept the amp.* attributes of the convention (the amp
    dialect of --amp-training's build)."""
    if not _KNOWS_TRAINING:
        probe = ('func.func @f(%s: tensor<f32> {amp.loss_seed}) -> '
                 '(tensor<f32> {amp.loss}) attributes {amp.optimizer = '
                 '{kind = "sgd", lr = 1.0 : f64}} { return %s : tensor<f32> }')
        result = subprocess.run([str(_paths.tool("amp-opt")), "-"],
                                input=probe, capture_output=True, text=True)
        _KNOWS_TRAINING.append(result.returncode == 0)
    if not _KNOWS_TRAINING[0]:
        skip("this amp-opt predates the training attributes (--amp-training)")


# --- optimizer settings (no torch needed) -----------------------------------

def test_optimizer_defaults_are_pytorchs():
    assert optimizer_settings({"kind": "adamw"}) == {
        "kind": "adamw", "lr": 1e-3, "beta1": 0.9, "beta2": 0.999,
        "eps": 1e-8, "weight_decay": 1e-2}
    assert optimizer_settings({"kind": "Adam", "lr": 0.01,
                               "betas": (0.8, 0.99)}) == {
        "kind": "adam", "lr": 0.01, "beta1": 0.8, "beta2": 0.99,
        "eps": 1e-8, "weight_decay": 0.0}
    assert optimizer_settings({"kind": "sgd", "lr": 0.1}) == {
        "kind": "sgd", "lr": 0.1, "weight_decay": 0.0}
    # SGD with momentum is kind "momentum", with every momentum key.
    assert optimizer_settings({"kind": "sgd", "lr": 0.1, "momentum": 0.9,
                               "nesterov": True}) == {
        "kind": "momentum", "lr": 0.1, "momentum": 0.9, "dampening": 0.0,
        "nesterov": True, "weight_decay": 0.0}


def test_optimizer_from_runtime_optimizer():
    w = np.zeros(4, np.float32)
    sgd = amp_mlir.optim.SGD([w], lr=0.5, momentum=0.9, weight_decay=1e-4)
    assert optimizer_settings(sgd) == {
        "kind": "momentum", "lr": 0.5, "momentum": 0.9, "dampening": 0.0,
        "nesterov": False, "weight_decay": 1e-4}
    adamw = amp_mlir.optim.AdamW([w], lr=1e-3)
    assert optimizer_settings(adamw) == {
        "kind": "adamw", "lr": 1e-3, "beta1": 0.9, "beta2": 0.999,
        "eps": 1e-8, "weight_decay": 1e-2}
    adamw.lr = 0.5  # a schedule changed it
    assert optimizer_settings(adamw)["lr"] == 0.5


def test_bad_optimizer_settings():
    for spec, message in [
            ({"kind": "sgd", "lr": 0.0}, "lr must be > 0"),
            ({"kind": "sgd", "lr": -1}, "lr must be > 0"),
            ({"kind": "lamb", "lr": 0.1}, "unknown optimizer kind 'lamb'"),
            ({"lr": 0.1}, "unknown optimizer kind None"),
            ({"kind": "adam", "betas": (0.9, 1.0)},
             r"beta2 must be in \[0, 1\)"),
            ({"kind": "adamw", "beta1": -0.1}, r"beta1 must be in \[0, 1\)"),
            ({"kind": "adam", "eps": -1.0}, "eps must be >= 0"),
            ({"kind": "sgd", "lr": 0.1, "betas": (0.9, 0.99)},
             "unknown settings beta1, beta2"),
            ({"kind": "sgd", "lr": float("nan")}, "lr = nan is not finite"),
            ({"kind": "sgd", "lr": 0.1, "nesterov": True},
             "nesterov needs momentum > 0"),
            ({"kind": "momentum", "lr": 0.1}, "momentum must be > 0"),
            ({"kind": "sgd", "lr": 0.1, "momentum": 1.5},
             r"momentum must be in \[0, 1\]"),
            ({"kind": "adam", "lr": "fast"}, "lr must be a number")]:
        with raises(ValueError, message):
            optimizer_settings(spec)
    with raises(TypeError, "the optimizer must be a dict"):
        optimizer_settings("adam")


# --- the import (torch) ------------------------------------------------------

def _mlp(torch, outputs=4):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(),
                               torch.nn.Linear(8, outputs))


def _check_step(torch, function, model, loss_fn, batch, num_inputs=1):
    """The compiled step's loss and gradients against torch.autograd, for
    seeds 1 and 1024 (the gradients scale with the seed, the loss not)."""
    params = [p for p in model.parameters() if p.requires_grad]
    loss = loss_fn(model(*batch[:num_inputs]), *batch[num_inputs:])
    unseeded = None
    for seed in (1.0, 1024.0):
        results = function(*[p.detach().numpy() for p in params],
                           *[b.numpy() for b in batch],
                           np.array(seed, np.float32))
        grads = torch.autograd.grad(loss, params, retain_graph=True,
                                    grad_outputs=torch.tensor(seed))
        assert len(results) == 1 + len(params)
        np.testing.assert_allclose(results[0], loss.item(), rtol=1e-5)
        worst = 0.0
        for got, want in zip(results[1:], grads):
            want = want.numpy()
            # 1e-5 relative to the gradient's largest element.
            assert got.shape == want.shape
            error = np.abs(got - want).max() / np.abs(want).max()
            assert error <= 1e-5, (seed, error)
            worst = max(worst, error)
        if pytest is None:
            print(f"  seed {seed:g}: loss rel error "
                  f"{abs(results[0] - loss.item()) / abs(loss.item()):.1e}, "
                  f"gradients max rel error {worst:.1e}")
        if unseeded is None:
            unseeded = results
        else:
            # A power-of-two seed scales every gradient exactly; the loss
            # does not change.
            assert results[0] == unseeded[0]
            for got, base in zip(results[1:], unseeded[1:]):
                np.testing.assert_array_equal(got, base * np.float32(seed))


def test_signature_and_attributes():
    torch = needs_torch()
    needs_training_attributes()
    model = _mlp(torch)
    model[0].bias.requires_grad_(False)  # frozen: a constant, no gradient
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=2e-3)
    x, y = torch.randn(6, 16), torch.randint(0, 4, (6,))
    model.eval()
    text = amp_mlir.from_torch_training(
        model, torch.nn.functional.cross_entropy, optimizer, x, y,
        dynamic_dims=0)
    assert not model.training  # the flag is restored
    header = next(line.strip() for line in text.splitlines()
                  if "func.func" in line)
    assert header == (
        'func.func @forward_backward('
        '%arg0: tensor<8x16xf32> {amp.param = "0.weight"}, '
        '%arg1: tensor<4x8xf32> {amp.param = "2.weight"}, '
        '%arg2: tensor<4xf32> {amp.param = "2.bias"}, '
        '%arg3: tensor<?x16xf32> {amp.batch}, '
        '%arg4: tensor<?xi64> {amp.batch}, '
        '%arg5: tensor<f32> {amp.loss_seed}) -> ('
        'tensor<f32> {amp.loss}, '
        'tensor<8x16xf32> {amp.grad = "0.weight"}, '
        'tensor<4x8xf32> {amp.grad = "2.weight"}, '
        'tensor<4xf32> {amp.grad = "2.bias"}) '
        'attributes {amp.optimizer = {beta1 = 9.000000e-01 : f64, '
        'beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, '
        'kind = "adamw", lr = 2.000000e-03 : f64, '
        'weight_decay = 1.000000e-02 : f64}} {'), header
    # Compiled as it is (the amp.* attributes do not get in the way).
    function = amp_mlir.compile(text, level="O0").forward_backward
    _check_step(torch, function, model, torch.nn.functional.cross_entropy,
                (x, y))


def test_mlp_cross_entropy_matches_torch():
    torch = needs_torch()
    model = _mlp(torch)
    model[2].bias.requires_grad_(False)  # frozen: a constant, no gradient
    x, y = torch.randn(6, 16), torch.randint(0, 4, (6,))
    text = amp_mlir.from_torch_training(
        model, torch.nn.functional.cross_entropy, {"kind": "sgd", "lr": 0.1},
        x, y, dynamic_dims=0, annotate=False)
    # cross_entropy's integer labels need no tm_tensor.scatter.
    assert "tm_tensor" not in text and "amp." not in text
    function = amp_mlir.compile(text, level="O0").forward_backward
    assert function.signature == (
        "@forward_backward(tensor<8x16xf32>, tensor<8xf32>, tensor<4x8xf32>, "
        "tensor<?x16xf32>, tensor<?xi64>, tensor<f32>) -> "
        "(tensor<f32>, tensor<8x16xf32>, tensor<8xf32>, tensor<4x8xf32>)")
    for batch in (6, 3):  # the batch is dynamic
        _check_step(torch, function, model, torch.nn.functional.cross_entropy,
                    (torch.randn(batch, 16), torch.randint(0, 4, (batch,))))


def test_mlp_mse_matches_torch():
    torch = needs_torch()
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.Tanh(),
                                torch.nn.Linear(8, 3))
    batch = (torch.randn(5, 16), torch.randn(5, 3))
    text = amp_mlir.from_torch_training(
        model, torch.nn.MSELoss(), {"kind": "adam"}, *batch, annotate=False)
    _check_step(torch, amp_mlir.compile(text, level="O0").forward_backward,
                model, torch.nn.MSELoss(), batch)


def test_cnn_matches_torch():
    torch = needs_torch()
    nn = torch.nn
    torch.manual_seed(1)
    # Max and average pooling's backward ops are decomposed by amp_mlir
    # (PyTorch's decomposition is a scatter, torch-mlir has none).
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(),
                          nn.MaxPool2d(3, stride=2, padding=1),
                          nn.Conv2d(4, 4, 3, padding=1), nn.GroupNorm(2, 4),
                          nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(),
                          nn.Linear(4 * 2 * 2, 5))
    batch = (torch.randn(2, 3, 8, 8), torch.randint(0, 5, (2,)))
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    text = amp_mlir.from_torch_training(model, loss_fn, {"kind": "sgd"},
                                        *batch, annotate=False)
    _check_step(torch, amp_mlir.compile(text, level="O0").forward_backward,
                model, loss_fn, batch)


def test_max_pool_decompositions_are_pytorchs_kernels():
    """amp_mlir's decompositions of max pooling, run eagerly, give what
    PyTorch's own kernels give, to the bit: the values and indices of the
    forward (ties after a ReLU take the first position in the window) and
    the input gradient (its sum adds in the order PyTorch's kernel
    accumulates)."""
    torch = needs_torch()
    from amp_mlir.training import _backward_decompositions
    aten = torch.ops.aten
    table = _backward_decompositions(torch)
    forward = table[aten.max_pool2d_with_indices.default]
    backward = table[aten.max_pool2d_with_indices_backward.default]
    torch.manual_seed(0)
    # shape, kernel, stride, padding, dilation, ceil_mode
    for shape, kernel, stride, padding, dilation, ceil_mode in [
            ((2, 8, 20, 20), [3, 3], [2, 2], [1, 1], [1, 1], False),
            ((1, 3, 9, 10), [3, 2], [2, 1], [1, 0], [1, 1], False),
            ((2, 2, 11, 11), [3, 3], [1, 1], [1, 1], [2, 2], False),
            ((1, 4, 8, 8), [3, 3], [2, 2], [0, 0], [1, 1], True)]:
        x = torch.randn(*shape).relu()
        settings = (kernel, stride, padding, dilation, ceil_mode)
        values, indices = aten.max_pool2d_with_indices(x, *settings)
        got_values, got_indices = forward(x, *settings)
        assert torch.equal(got_values, values), shape
        assert torch.equal(got_indices, indices), shape
        grad = torch.randn_like(values)
        want = aten.max_pool2d_with_indices_backward(grad, x, *settings,
                                                     indices)
        assert torch.equal(backward(grad, x, *settings, indices), want), \
            shape


def test_tanh_gelu_decompositions_are_atens():
    """The tanh GELU's decompositions, run eagerly, give ATen's gelu and
    gelu_backward (approximate="tanh") to f32's rounding (torch-mlir's own
    lowering multiplies by 0.797724 for sqrt(2/pi): 2e-4 off); the exact
    GELU is left to torch-mlir (NotImplemented)."""
    torch = needs_torch()
    from amp_mlir.training import _backward_decompositions
    aten = torch.ops.aten
    table = _backward_decompositions(torch)
    gelu, backward = (table[aten.gelu.default],
                      table[aten.gelu_backward.default])
    torch.manual_seed(0)
    x = torch.randn(4096, dtype=torch.float64) * 4
    grad = torch.randn_like(x)
    torch.testing.assert_close(gelu(x, approximate="tanh"),
                               aten.gelu(x, approximate="tanh"),
                               rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(
        backward(grad, x, approximate="tanh"),
        aten.gelu_backward(grad, x, approximate="tanh"), rtol=1e-12,
        atol=1e-12)
    assert gelu(x) is NotImplemented
    assert backward(grad, x) is NotImplemented


def test_tanh_gelu_imports_as_aten_computes_it():
    """from_torch of F.gelu(approximate="tanh") (an inference import)
    multiplies by sqrt(2/pi), not torch-mlir's 0.797724, and matches
    PyTorch's output at O0 to f32's rounding; the exact GELU stays
    torch-mlir's (erf)."""
    torch = needs_torch()
    F = torch.nn.functional

    class Gelus(torch.nn.Module):
        def forward(self, x):
            return F.gelu(x, approximate="tanh"), F.gelu(x)

    torch.manual_seed(0)
    x = torch.randn(64, 32) * 3
    text = amp_mlir.from_torch(Gelus(), x)
    constants = re.findall(r"arith\.constant (0\.79[0-9e+-]*) : f", text)
    assert constants and all(c.startswith("0.797884") for c in constants), \
        constants
    assert "math.erf" in text
    got = amp_mlir.compile(text, level="O0").main(x.numpy())
    for result, want in zip(got, Gelus()(x)):
        want = want.numpy()
        error = np.abs(result - want).max() / np.abs(want).max()
        assert error <= 1e-6, error


def test_tanh_gelu_modules_train_as_one_op():
    """transformers' GELU modules that compute the tanh form as a formula
    (GPT-2's gelu_new) are traced as F.gelu(approximate="tanh"): the step
    matches PyTorch's autograd of the formula, its tanh is computed from
    sqrt(2/pi) (not torch-mlir's 0.797724), no tanh of the forward is
    shared with the backward (each computes its own), and the modules'
    own forward is back afterwards."""
    torch = needs_torch()
    needs_training_attributes()
    try:
        from transformers.activations import NewGELUActivation
    except ImportError:
        skip("needs transformers (the frontend environment)")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), NewGELUActivation(),
                                torch.nn.Linear(32, 4))
    x, y = torch.randn(8, 16), torch.randn(8, 4)
    text = amp_mlir.from_torch_training(
        model, torch.nn.functional.mse_loss, {"kind": "sgd", "lr": 0.1}, x,
        y)
    assert "forward" not in vars(model[1])
    constants = re.findall(r"arith\.constant (0\.79[0-9e+-]*) : f", text)
    assert constants and all(c.startswith("0.797884") for c in constants), \
        constants
    # One tanh in the forward, one in the backward, neither shared.
    tanhs = re.findall(r"(%\S+) = math\.tanh", text)
    assert len(tanhs) == 2, tanhs
    _check_step(torch, amp_mlir.compile(text, level="O0").forward_backward,
                model, torch.nn.functional.mse_loss, [x, y])


def test_max_pool_gradients_match_torch():
    """Max pooling with indices and its input gradient (amp_mlir's
    decompositions: elementwise over strided slices of the input, and a
    gather of the output gradient from the windows that may contain each
    input position; no pooling op, no zero insertion) match PyTorch's
    autograd for overlapping windows (an input the maximum of several),
    padding, dilation, ceil_mode, non-square windows and strides, with a
    static and a dynamic batch, and for ties (the index is PyTorch's: the
    first in the window)."""
    torch = needs_torch()
    nn = torch.nn
    # kernel, stride, padding, dilation, ceil_mode, input height
    cases = [(3, 2, 1, 1, False, 9), (2, 2, 0, 1, False, 8),
             (3, 1, 1, 1, False, 7), (3, 2, 1, 2, False, 10),
             ((3, 2), (2, 1), (1, 0), 1, False, 9), (3, 2, 0, 1, True, 8)]
    for kernel, stride, padding, dilation, ceil_mode, height in cases:
        torch.manual_seed(0)
        pool = nn.MaxPool2d(kernel, stride, padding, dilation,
                            ceil_mode=ceil_mode)
        model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), pool,
                              nn.Tanh(), nn.Flatten())
        x = torch.randn(2, 3, height, height + 1)
        model.append(nn.Linear(model(x).shape[1], 3))
        batch = (x, torch.randint(0, 3, (2,)))
        for dynamic_dims in (None, 0):
            text = amp_mlir.from_torch_training(
                model, torch.nn.functional.cross_entropy, {"kind": "sgd"},
                *batch, annotate=False, dynamic_dims=dynamic_dims)
            assert "tensor.insert_slice" not in text, kernel
            assert "linalg.pooling" not in text, kernel
            _check_step(torch,
                        amp_mlir.compile(text, level="O0").forward_backward,
                        model, torch.nn.functional.cross_entropy, batch)
    # Ties whose choice shows in the gradients: every pooled value is 0.5,
    # each position's from one of two channels (one-hot inputs, equal
    # weights), so the weight that gets a window's gradient is the channel
    # of its first position, in PyTorch's choice.
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 1, 1, bias=False)
    with torch.no_grad():
        conv.weight.fill_(0.5)
    model = nn.Sequential(conv, nn.MaxPool2d(3, 2, 1), nn.Flatten(),
                          nn.Linear(16, 3))
    channel = torch.randint(0, 2, (2, 1, 8, 8))
    x = torch.cat([channel == 0, channel == 1], 1).float()
    batch = (x, torch.randint(0, 3, (2,)))
    text = amp_mlir.from_torch_training(
        model, torch.nn.functional.cross_entropy, {"kind": "sgd"}, *batch,
        annotate=False)
    _check_step(torch, amp_mlir.compile(text, level="O0").forward_backward,
                model, torch.nn.functional.cross_entropy, batch)


def test_convolution_gradients_match_torch():
    """The input and weight gradients of 2-D convolutions with strides,
    padding, dilation, rows the windows do not reach and non-square
    kernels are convolutions (amp_mlir's decomposition of
    convolution_backward), not torch-mlir's grouped convolutions over the
    batch, and match PyTorch's autograd."""
    torch = needs_torch()
    nn = torch.nn
    # kernel, stride, padding, dilation, input height
    cases = [(3, 2, 1, 1, 9), (1, 2, 0, 1, 8), (3, 1, 2, 2, 8),
             ((3, 1), (2, 1), (1, 0), 1, 7), (3, 2, 0, 2, 16)]
    for kernel, stride, padding, dilation, height in cases:
        torch.manual_seed(0)
        model = nn.Sequential(
            nn.Conv2d(3, 5, kernel, stride, padding, dilation), nn.Tanh(),
            nn.Conv2d(5, 4, kernel, stride, padding, dilation),
            nn.Flatten())
        x = torch.randn(2, 3, height, height + 1)
        model.append(nn.Linear(model(x).shape[1], 3))
        batch = (x, torch.randint(0, 3, (2,)))
        text = amp_mlir.from_torch_training(
            model, torch.nn.functional.cross_entropy, {"kind": "sgd"},
            *batch, annotate=False)
        # Two forward convolutions, two weight gradients and the second
        # convolution's input gradient.
        assert text.count("linalg.conv_2d_nchw_fchw") == 5, kernel
        assert "conv_2d_ngchw" not in text
        _check_step(torch, amp_mlir.compile(text, level="O0").forward_backward,
                    model, torch.nn.functional.cross_entropy, batch)


def test_grouped_convolution_gradients_match_torch():
    """Grouped and depthwise convolutions (a depthwise 3x3, a strided
    convolution of 4 groups, a depthwise one with a channel multiplier of
    2, dilated): their gradients are grouped convolutions of the same
    groups (amp_mlir's decomposition; torch-mlir's own fails to lower),
    which match PyTorch's autograd, with a static and a dynamic batch."""
    torch = needs_torch()
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.Tanh(),
        nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=4), nn.Tanh(),
        nn.Conv2d(16, 32, 3, padding=2, dilation=2, groups=16),
        nn.Flatten(), nn.Linear(32 * 5 * 5, 3))
    batch = (torch.randn(3, 8, 9, 9), torch.randint(0, 3, (3,)))
    for dynamic_dims in (None, 0):
        text = amp_mlir.from_torch_training(
            model, torch.nn.functional.cross_entropy, {"kind": "sgd"},
            *batch, annotate=False, dynamic_dims=dynamic_dims)
        # Three forward convolutions, three weight gradients and two input
        # gradients, all grouped (the first a depthwise form).
        convolutions = re.findall(r"= linalg\.(\w*conv\w*)", text)
        assert len(convolutions) == 8, convolutions
        assert "conv_2d_nchw_fchw" not in convolutions
        _check_step(torch,
                    amp_mlir.compile(text, level="O0").forward_backward,
                    model, torch.nn.functional.cross_entropy, batch)


def test_batch_norm_running_statistics():
    """Batch norm in training mode: its running statistics are arguments
    and results {amp.buffer} after the parameters, and one step computes
    PyTorch's new statistics and step count, with a dynamic batch."""
    torch = needs_torch()
    needs_training_attributes()
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(2)
    model = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1, bias=False),
                          nn.BatchNorm2d(4, momentum=0.25), nn.ReLU(),
                          nn.Flatten(), nn.Linear(4 * 4 * 4, 8, bias=False),
                          nn.BatchNorm1d(8, affine=False), nn.Linear(8, 3))
    with torch.no_grad():  # statistics that are not the defaults
        model[1].running_mean.uniform_(-1, 1)
        model[1].running_var.uniform_(0.5, 2)
        model[1].num_batches_tracked.fill_(7)
    buffers = amp_mlir.buffers_of(model)
    assert list(buffers) == [
        "1.running_mean", "1.running_var", "1.num_batches_tracked",
        "5.running_mean", "5.running_var", "5.num_batches_tracked"]
    assert buffers["1.running_var"].dtype == np.float32
    assert buffers["1.num_batches_tracked"].dtype == np.int64
    assert buffers["1.num_batches_tracked"] == 7
    x, y = torch.randn(6, 2, 4, 4), torch.randint(0, 3, (6,))
    model.eval()
    text = amp_mlir.from_torch_training(model, F.cross_entropy,
                                        {"kind": "sgd"}, x, y,
                                        dynamic_dims=0)
    assert not model.training
    header = next(line.strip() for line in text.splitlines()
                  if "func.func" in line)
    params = [n for n, p in model.named_parameters()]
    # (A bias before a batch norm has a zero gradient.)
    assert params == ["0.weight", "1.weight", "1.bias", "4.weight",
                      "6.weight", "6.bias"]
    kinds = {"running_mean": "tensor<{}xf32>", "running_var":
             "tensor<{}xf32>", "num_batches_tracked": "tensor<i64>"}
    declared = [kinds[n.split(".")[1]].format(n[0] == "1" and 4 or 8)
                + f' {{amp.buffer = "{n}"}}' for n in buffers]
    arguments = header[header.index("(") + 1:header.index(") -> (")]
    results = header[header.index(") -> (") + 6:header.index(") attributes")]
    argument_list = [a.split(": ", 1)[1] for a in arguments.split(", %")]
    assert argument_list[len(params):len(params) + 6] == declared, header
    assert argument_list[len(params) + 6] == "tensor<?x2x4x4xf32> {amp.batch}"
    result_list = re.split(r", (?=tensor)", results)
    assert result_list[1 + len(params):] == declared, header
    # One step at O0 against PyTorch, for two batch sizes.
    function = amp_mlir.compile(text, level="O0").forward_backward
    for batch in (6, 3):
        x, y = torch.randn(batch, 2, 4, 4), torch.randint(0, 3, (batch,))
        reference = __import__("copy").deepcopy(model).train()
        loss = F.cross_entropy(reference(x), y)
        grads = torch.autograd.grad(loss, list(reference.parameters()))
        outputs = function(*[p.detach().numpy() for p in model.parameters()],
                           *buffers.values(), x.numpy(), y.numpy(),
                           np.array(1.0, np.float32))
        assert len(outputs) == 1 + len(params) + len(buffers)
        np.testing.assert_allclose(outputs[0], loss.item(), rtol=1e-5)
        for name, got, want in zip(params, outputs[1:1 + len(params)],
                                   grads):
            error = np.abs(got - want.numpy()).max() / \
                np.abs(want.numpy()).max()
            assert error <= 1e-5, (batch, name, error)
        new = dict(zip(buffers, outputs[1 + len(params):]))
        for name, value in reference.named_buffers():
            got, want = new[name], value.numpy()
            assert got.dtype == want.dtype and got.shape == want.shape, name
            # The unbiased variance of the batch (n / (n - 1)), as PyTorch.
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                       err_msg=name)
        assert new["1.num_batches_tracked"] == 8
        assert new["5.num_batches_tracked"] == 1


def test_embedding_matches_torch():
    torch = needs_torch()
    nn = torch.nn
    torch.manual_seed(2)
    # The embedding's backward (a scatter in PyTorch) is a one-hot matmul.
    model = nn.Sequential(nn.Embedding(10, 8, padding_idx=0), nn.Flatten(),
                          nn.Linear(8 * 3, 4))
    batch = (torch.tensor([[0, 1, 2], [3, 0, 9], [9, 9, 4], [5, 6, 7]]),
             torch.randint(0, 4, (4,)))
    loss_fn = torch.nn.functional.cross_entropy
    text = amp_mlir.from_torch_training(model, loss_fn, {"kind": "sgd"},
                                        *batch, annotate=False)
    assert "tm_tensor" not in text
    _check_step(torch, amp_mlir.compile(text, level="O0").forward_backward,
                model, loss_fn, batch)


def test_attention_matches_torch():
    torch = needs_torch()
    nn = torch.nn
    torch.manual_seed(3)
    # Attention is traced with the math backend: no fused backward op.
    model = nn.Sequential(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
        nn.Flatten(), nn.Linear(8 * 3, 2))
    batch = (torch.randn(2, 3, 8), torch.randn(2, 2))
    loss_fn = torch.nn.functional.mse_loss
    text = amp_mlir.from_torch_training(model, loss_fn, {"kind": "sgd"},
                                        *batch, annotate=False)
    _check_step(torch, amp_mlir.compile(text, level="O0").forward_backward,
                model, loss_fn, batch)


def test_torch_optimizers():
    torch = needs_torch()
    model = _mlp(torch)
    sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9,
                          dampening=0.1, weight_decay=5e-4)
    assert optimizer_settings(sgd) == {
        "kind": "momentum", "lr": 0.1, "momentum": 0.9, "dampening": 0.1,
        "nesterov": False, "weight_decay": 5e-4}
    assert optimizer_settings(torch.optim.SGD(model.parameters())) == {
        "kind": "sgd", "lr": 1e-3, "weight_decay": 0.0}
    assert optimizer_settings(torch.optim.Adam(model.parameters()))[
        "kind"] == "adam"
    assert optimizer_settings(torch.optim.AdamW(
        model.parameters(), betas=(0.8, 0.9))) == {
        "kind": "adamw", "lr": 1e-3, "beta1": 0.8, "beta2": 0.9,
        "eps": 1e-8, "weight_decay": 1e-2}
    groups = torch.optim.SGD([{"params": model[0].parameters()},
                              {"params": model[2].parameters(), "lr": 0.5}],
                             lr=0.1)
    with raises(ValueError, "has 2 parameter groups"):
        optimizer_settings(groups)
    with raises(ValueError, "amsgrad=True is not supported"):
        optimizer_settings(torch.optim.Adam(model.parameters(),
                                            amsgrad=True))
    with raises(ValueError, "RMSprop is not supported"):
        optimizer_settings(torch.optim.RMSprop(model.parameters()))


def test_philox_known_answers():
    """Random123's known-answer vectors of Philox4x32-10 (kat_vectors)."""
    torch = needs_torch()
    from amp_mlir import philox
    vectors = [
        ((0, 0, 0, 0), (0, 0),
         (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
        ((0xffffffff,) * 4, (0xffffffff,) * 2,
         (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
        ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344),
         (0xa4093822, 0x299f31d0),
         (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
    ]
    for counter, key, expected in vectors:
        words = philox.philox4x32(torch, counter, key)
        assert tuple(int(w) for w in words) == expected, (counter, words)
    # A draw of 2^20 uniforms: in [0, 1), mean 1/2 and a quarter below
    # 1/4 within 4 standard deviations (fixed numbers: no flakiness).
    u = philox.uniform(torch, torch.tensor([3, 7]), 0, (1024, 1024))
    assert u.dtype == torch.float32 and 0 <= float(u.min()) and \
        float(u.max()) < 1
    sigma = (1 / 12 / u.numel()) ** 0.5
    assert abs(float(u.mean()) - 0.5) < 4 * sigma
    quarter = float((u < 0.25).float().mean())
    assert abs(quarter - 0.25) < 4 * (0.25 * 0.75 / u.numel()) ** 0.5
    # Another stream, offset or seed draws other numbers.
    for state, stream in (([3, 7], 1), ([3, 8], 0), ([4, 7], 0)):
        other = philox.uniform(torch, torch.tensor(state), stream, (1024,))
        assert float((other != u.reshape(-1)[:1024]).float().mean()) > 0.99


def test_dropout_step_matches_torch():
    """A step with dropout (and a bernoulli mask) draws from the generator
    state it takes, an amp:rng buffer, and returns the next one; PyTorch
    under same_random_numbers draws the same masks: loss and gradients as
    autograd's."""
    torch = needs_torch()
    needs_training_attributes()
    from amp_mlir import philox
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = nn.Linear(16, 32)
            self.drop = nn.Dropout(0.5)
            self.second = nn.Linear(32, 4)

        def forward(self, x):
            hidden = self.drop(F.relu(self.first(x)))
            keep = torch.bernoulli(torch.full_like(hidden, 0.75))
            return self.second(hidden * keep)

    torch.manual_seed(0)
    model = Net()
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    text = amp_mlir.from_torch_training(model, F.cross_entropy,
                                        {"kind": "sgd"}, x, y)
    assert re.search(r'tensor<2xi64> \{amp\.buffer = "amp:rng"\}', text)
    assert text.count('{amp.buffer = "amp:rng"}') == 2  # argument, result
    plain = amp_mlir.from_torch_training(model, F.cross_entropy,
                                         {"kind": "sgd"}, x, y,
                                         annotate=False)
    function = amp_mlir.compile(plain, level="O0").forward_backward
    params = [p for p in model.parameters()]
    losses = set()
    for state in ([0, 0], [0, 1], [9, 0]):
        results = function(*[p.detach().numpy() for p in params],
                           np.array(state, np.int64), x.numpy(), y.numpy(),
                           np.array(1.0, np.float32))
        loss, grads, after = results[0], results[1:-1], results[-1]
        assert after.tolist() == [state[0], state[1] + 1]
        with philox.same_random_numbers(*state) as stream:
            want = F.cross_entropy(model(x), y)
        assert stream.draws == 2  # the dropout's and the bernoulli's
        np.testing.assert_allclose(loss, want.item(), rtol=1e-5)
        for got, expected in zip(grads, torch.autograd.grad(want, params)):
            expected = expected.numpy()
            assert np.abs(got - expected).max() <= \
                1e-5 * np.abs(expected).max()
        losses.add(float(loss))
    assert len(losses) == 3  # each state draws other masks
    # A dynamic batch (PyTorch's own dropout kernel cannot be traced on
    # symbolic shapes: the step draws F.dropout's mask itself), run at 5.
    dynamic = amp_mlir.from_torch_training(model, F.cross_entropy,
                                           {"kind": "sgd"}, x, y,
                                           dynamic_dims=0, annotate=False)
    function = amp_mlir.compile(dynamic, level="O0").forward_backward
    x5, y5 = torch.randn(5, 16), torch.randint(0, 4, (5,))
    results = function(*[p.detach().numpy() for p in params],
                       np.array([4, 2], np.int64), x5.numpy(), y5.numpy(),
                       np.array(1.0, np.float32))
    with philox.same_random_numbers(4, 2):
        want = F.cross_entropy(model(x5), y5)
    np.testing.assert_allclose(results[0], want.item(), rtol=1e-5)
    assert results[-1].tolist() == [4, 3]
    # Trainer starts the generator at (seed, 0) and steps its offset.
    trainer = amp_mlir.Trainer(text, amp_mlir.parameters_of(model),
                               level="O0", seed=9)
    trainer.step(x.numpy(), y.numpy())
    assert trainer.buffers[philox.RNG_BUFFER].tolist() == [9, 1]
    with raises(ValueError, r"seed must be an integer in \[0, 2\^63\)"):
        amp_mlir.Trainer(text, amp_mlir.parameters_of(model), level="O0",
                         seed=-1)


def test_errors():
    torch = needs_torch()
    nn, F = torch.nn, torch.nn.functional
    x, y = torch.randn(4, 16), torch.randint(0, 4, (4,))
    model = _mlp(torch)
    # Bad settings are refused at the call, before any tracing.
    with raises(ValueError, "lr must be > 0"):
        amp_mlir.from_torch_training(model, F.cross_entropy,
                                     {"kind": "sgd", "lr": 0}, x, y)
    # A cumulative average of the running statistics (momentum=None).
    batchnorm = nn.Sequential(nn.Linear(16, 8),
                              nn.BatchNorm1d(8, momentum=None),
                              nn.Linear(8, 4))
    batchnorm.eval()
    with raises(amp_mlir.FrontendError, r"1 \(BatchNorm1d\) has "
                                        r"momentum=None"):
        amp_mlir.from_torch_training(batchnorm, F.cross_entropy,
                                     {"kind": "sgd"}, x, y)
    assert not batchnorm.training

    class Counter(nn.Module):  # a buffer its own code updates in place
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(16, 4)
            self.register_buffer("calls", torch.zeros(()))

        def forward(self, x):
            self.calls.add_(1)
            return self.linear(x)

    with raises(amp_mlir.FrontendError, r"in-place operation|updates "
                                        r"module state in place"):
        amp_mlir.from_torch_training(Counter(), F.cross_entropy,
                                     {"kind": "sgd"}, x, y)

    class Noisy(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(16, 4)

        def forward(self, x):
            return self.linear(x + torch.randn_like(x))

    with raises(amp_mlir.FrontendError, r"draws random numbers "
                                        r"\(aten.randn_like\), which .* "
                                        r"\(it draws dropout, bernoulli and "
                                        r"rand from its Philox generator"):
        amp_mlir.from_torch_training(Noisy(), F.cross_entropy,
                                     {"kind": "sgd"}, x, y)
    with raises(ValueError, "loss_fn must return a 0-d float32 tensor, got "
                            r"a torch.float32 tensor of shape \(4,\)"):
        amp_mlir.from_torch_training(
            model, lambda out, t: F.cross_entropy(out, t, reduction="none"),
            {"kind": "sgd"}, x, y)
    with raises(ValueError, "num_inputs must be between 1 and 2"):
        amp_mlir.from_torch_training(model, F.cross_entropy,
                                     {"kind": "sgd"}, x, y, num_inputs=3)
    with raises(TypeError, "takes a torch.nn.Module, got function"):
        amp_mlir.from_torch_training(F.relu, F.cross_entropy,
                                     {"kind": "sgd"}, x, y)

    class Branchy(nn.Module):  # an `if` on a tensor's value
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(16, 4)

        def forward(self, x):
            y = self.linear(x)
            return y if (y > 0).all() else -y

    # The tracer's message, then what to do (Hugging Face decoders read
    # their positions this way unless given an attention mask).
    with raises(amp_mlir.FrontendError,
                r"(?s)data-dependent.*reads the value of a tensor in "
                r"Python.*attention_mask=torch.ones_like\(input_ids\)"):
        amp_mlir.from_torch_training(Branchy(), F.cross_entropy,
                                     {"kind": "sgd"}, x, y)


if __name__ == "__main__":
    import sys
    import traceback
    passed = skipped = failed = 0
    for name, test in list(globals().items()):
        if not name.startswith("test_") or not callable(test):
            continue
        try:
            test()
        except Skipped as reason:
            skipped += 1
            print(f"SKIP {name}: {reason}")
        except Exception:
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc(file=sys.stdout)
        else:
            passed += 1
            print(f"PASS {name}")
    print(f"{passed} passed, {skipped} skipped, {failed} failed")
    sys.exit(1 if failed else 0)
