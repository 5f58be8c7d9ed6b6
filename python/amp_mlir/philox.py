"""The random numbers of imported training steps: Philox4x32-10, a
counter-based generator (Salmon et al., "Parallel random numbers: as easy
as 1, 2, 3", SC'11; the generator of cuRAND's Philox and of Inductor's
dropout), written as tensor operations.

A counter-based generator draws number i of a stream as a function of
(key, counter), with no sequential state: the numbers of a step are a
function of the step's state, so a step is reproducible (the same state
draws the same masks), resumable (the state is saved with the others) and
parallel (every element is independent: one elementwise kernel on a GPU).

from_torch_training replaces the random ops of the traced step (dropout
and the ops PyTorch makes it of: native_dropout, bernoulli, rand) by these
functions of one more state value, the buffer RNG_BUFFER: an int64 pair
(seed, offset) that the step returns with its offset plus one. Element e
of the k-th draw of a step (k counts the random ops in the order the
forward pass calls them) is word 0 of

    philox4x32_10(counter = (e, k, offset mod 2^32, offset div 2^32),
                  key = (seed mod 2^32, seed div 2^32)),

whose upper 24 bits make a float32 uniform in [0, 1): u = (x >> 8) / 2^24.
bernoulli(p) is u < p; dropout with probability p keeps an element where
u < 1 - p and scales it by 1 / (1 - p), as PyTorch's.

The arithmetic is int64 tensors holding 32-bit words: the 32 x 32-bit
products of the rounds are split at 16 bits so that no intermediate value
exceeds 2^49 (no signed overflow, in PyTorch or in the compiled step).
`same_random_numbers` makes eager PyTorch draw the numbers the compiled
step draws, to compare the two step for step.
"""

import contextlib

# The name of the generator's state among a step's amp.buffer arguments
# and results (not a module path: no module buffer has this name).
RNG_BUFFER = "amp:rng"

_M0, _M1 = 0xD2511F53, 0xCD9E8D57      # the round multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85      # the key schedule's increments
_MASK = 0xFFFFFFFF
ROUNDS = 10


def _shift(torch, x, bits):
    """x >> bits for non-negative int64 tensors (the Tensor form, which
    torch-mlir lowers)."""
    return torch.bitwise_right_shift(
        x, torch.tensor(bits, dtype=torch.int64, device=x.device))


def _mulhilo(torch, a, multiplier):
    """(high, low) 32-bit words of a * multiplier, for a < 2^32 (int64)
    and a 32-bit constant, from two products under 2^48."""
    upper = a * (multiplier >> 16)
    lower = a * (multiplier & 0xFFFF)
    high = _shift(torch, upper + _shift(torch, lower, 16), 16)
    low = ((upper & 0xFFFF) * 0x10000 + lower) & _MASK
    return high, low


def philox4x32(torch, counter, key, rounds=ROUNDS):
    """Philox4x32-R: counter four int64 tensors (or ints) of 32-bit words,
    key two; returns the four output words (broadcast together)."""
    c = [torch.as_tensor(v, dtype=torch.int64) for v in counter]
    k0, k1 = (torch.as_tensor(v, dtype=torch.int64) for v in key)
    for index in range(rounds):
        if index:
            k0 = (k0 + _W0) & _MASK
            k1 = (k1 + _W1) & _MASK
        high0, low0 = _mulhilo(torch, c[0], _M0)
        high1, low1 = _mulhilo(torch, c[2], _M1)
        c = [torch.bitwise_xor(torch.bitwise_xor(high1, c[1]), k0), low1,
             torch.bitwise_xor(torch.bitwise_xor(high0, c[3]), k1), low0]
    return c


def uniform(torch, state, stream, shape, device=None):
    """float32 uniforms in [0, 1) of `shape`: draw `stream` of the step
    whose generator state is `state` (an int64 tensor [seed, offset])."""
    numel = 1
    for size in shape:
        numel *= size
    if isinstance(numel, int) and numel >= 2 ** 32:
        raise ValueError(f"a random draw of {numel} elements: the Philox "
                         f"counter numbers at most 2^32 per draw")
    element = torch.arange(numel, dtype=torch.int64,
                           device=device).reshape(shape)
    seed, offset = state[0], state[1]
    words = philox4x32(torch, (element, stream, offset & _MASK,
                               _shift(torch, offset, 32) & _MASK),
                       (seed & _MASK, _shift(torch, seed, 32) & _MASK))
    return _shift(torch, words[0], 8).to(torch.float32) * 2.0 ** -24


class Stream:
    """The draws of one step: `state` is the generator's state (a tensor,
    or a proxy of one while tracing), `draws` the number of random ops
    replaced so far (the next draw's stream)."""

    def __init__(self, state=None):
        self.state = state
        self.draws = 0

    def _uniform(self, torch, like_shape, device):
        stream = self.draws
        self.draws += 1
        return uniform(torch, self.state, stream, like_shape, device)

    def replacements(self, torch):
        """{aten overload: function}: the random ops this stream replaces
        (the decomposition table of the traced step; the dispatch of
        same_random_numbers)."""
        aten = torch.ops.aten

        def bernoulli_mask(self_, p):
            u = self._uniform(torch, self_.shape, self_.device)
            return (u < p).to(self_.dtype)

        def native_dropout(input, p, train):
            if not train or p == 0:
                return input.clone(), torch.ones_like(input,
                                                      dtype=torch.bool)
            return self._drop(torch, input, p)

        def native_dropout_backward(grad_output, mask, scale):
            return grad_output * mask.to(grad_output.dtype) * scale

        def bernoulli_p(self_, p=0.5, generator=None):
            return bernoulli_mask(self_, p)

        def bernoulli_tensor(self_, generator=None):
            return bernoulli_mask(self_, self_)

        def bernoulli_inplace(self_, p=0.5, generator=None):
            return self_.copy_(bernoulli_mask(self_, p))

        def rand_like(self_, dtype=None, layout=None, device=None,
                      pin_memory=None, memory_format=None):
            u = self._uniform(torch, self_.shape, device or self_.device)
            return u.to(dtype or self_.dtype)

        def rand(size, generator=None, dtype=None, layout=None, device=None,
                 pin_memory=None):
            u = self._uniform(torch, list(size), device)
            return u.to(dtype or torch.get_default_dtype())

        return {aten.native_dropout.default: native_dropout,
                aten.native_dropout_backward.default:
                    native_dropout_backward,
                aten.bernoulli.p: bernoulli_p,
                aten.bernoulli.default: bernoulli_tensor,
                aten.bernoulli_.float: bernoulli_inplace,
                aten.bernoulli_.Tensor: bernoulli_inplace,
                aten.rand_like.default: rand_like,
                aten.rand.default: rand,
                aten.rand.generator: rand}

    def _drop(self, torch, input, p):
        """Dropout of `input` with probability p > 0 from the next draw:
        (output, the kept elements' mask), as aten.native_dropout."""
        keep = self._uniform(torch, input.shape, input.device) < 1 - p
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
        return input * keep.to(input.dtype) * scale, keep

    def function_mode(self, torch):
        """A TorchFunctionMode that draws torch.nn.functional.dropout's mask
        from this stream, above autograd: PyTorch's own dropout is a
        composite whose CPU kernel calls numel(), which a symbolic batch
        cannot answer, and which then draws with bernoulli_ (the same
        numbers, rounded in another order)."""
        from torch.overrides import TorchFunctionMode
        F = torch.nn.functional
        stream = self

        class DropoutMode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                if func is not F.dropout:
                    return func(*args, **kwargs)
                return stream._dropout(torch, *args, **kwargs)

        return DropoutMode()

    def _dropout(self, torch, input, p=0.5, training=True, inplace=False):
        """torch.nn.functional.dropout with this stream's mask."""
        if p < 0.0 or p > 1.0:
            raise ValueError(f"dropout probability has to be between 0 and "
                             f"1, but got {p}")
        if not training or p == 0:
            return input
        output, _ = self._drop(torch, input, p)
        return input.copy_(output) if inplace else output


@contextlib.contextmanager
def same_random_numbers(seed, offset):
    """Within the block, eager PyTorch's dropout, bernoulli and rand draw
    what the step imported by from_torch_training draws with the generator
    state (seed, offset): the state of its RNG_BUFFER before the step
    (Trainer(..., seed=seed): offset is the number of steps taken). For
    one forward pass (and its backward) of a training step:

        with amp_mlir.philox.same_random_numbers(0, step):
            loss = loss_fn(model(x), y)
        loss.backward()
    """
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    stream = Stream(torch.tensor([seed, offset], dtype=torch.int64))
    table = stream.replacements(torch)

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            replacement = table.get(func)
            if replacement is None:
                return func(*args, **(kwargs or {}))
            return replacement(*args, **(kwargs or {}))

    with Mode(), stream.function_mode(torch):
        yield stream
