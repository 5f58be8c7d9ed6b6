"""MLIR generators of the GPU benchmark (bench/gpu/run.py), at any shape.

Every generator returns (text, args): the module text, and one Arg per
argument of the entry function in order (name, shape, element type and how
run.py fills it). Weights are function arguments, not constants:
`--lower-to-gpu` copies constants from host globals to the device on every
call, which a benchmark must not time.

* gemm: C = A B with a zero-filled f32 init (linalg.matmul). With f32
  arguments, O2 converts A and B on the device and calls cuBLAS with 16-bit
  operands; with f16/bf16 arguments (run at O0) the function is the cuBLAS
  call alone.
* chain: bias add + tanh-GELU + scale over rows x cols, three generics that
  --lower-to-gpu fuses into one kernel.
* mlp: Linear+bias+GELU layers, then a last Linear+bias.
* transformer: post-LN blocks like bench/generate.py's, with multi-head
  attention (batched matmuls over batch*heads, softmax over keys, scaled by
  1/sqrt(head dim)), layer norms with gamma/beta, a tanh-GELU MLP of width
  4*dim and residuals.
"""

import math
import os
import sys


class Arg:
    """An entry argument: `init` is 'uniform' (U[-scale, scale)), 'ones'
    (1 + U[-scale, scale)) for layer-norm gains."""

    def __init__(self, name, shape, dtype="f32", init="uniform", scale=1.0):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype
        self.init, self.scale = init, scale

    def type(self):
        return tensor(self.shape, self.dtype)


def tensor(shape, dtype="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{dtype}>"


def ident(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({dims})>"


def last(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> (d{rank - 1})>"


def rows(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(f'd{i}' for i in range(rank - 1))})>"


sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from generate import GELU_BODY  # noqa: E402  (bench/generate.py)


class Builder:
    def __init__(self):
        self.lines = []
        self.n = 0

    def fresh(self, prefix="v"):
        self.n += 1
        return f"%{prefix}{self.n}"

    def emit(self, text):
        self.lines.append("  " + text)

    def empty(self, shape, dtype="f32"):
        e = self.fresh("e")
        self.emit(f"{e} = tensor.empty() : {tensor(shape, dtype)}")
        return e

    def zeros(self, shape):
        e = self.empty(shape)
        z = self.fresh("z")
        t = tensor(shape)
        self.emit(f"{z} = linalg.fill ins(%zero : f32) outs({e} : {t}) -> {t}")
        return z

    def generic(self, maps, ins, in_types, out_shape, args, body):
        """All-parallel generic into a new tensor of `out_shape` (f32);
        `body` ends before the yield of %r."""
        out_t = tensor(out_shape)
        e = self.empty(out_shape)
        out = self.fresh()
        iters = ", ".join(['"parallel"'] * len(out_shape))
        self.emit(f"{out} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                  f"iterator_types = [{iters}]}} ins({', '.join(ins)} : "
                  f"{', '.join(in_types)}) outs({e} : {out_t}) {{")
        self.emit(f"^bb0({args}):")
        for line in body + ["linalg.yield %r : f32"]:
            self.emit("  " + line)
        self.emit(f"}} -> {out_t}")
        return out

    def matmul(self, a, b, m, k, n, a_dtype="f32"):
        out = self.fresh()
        z = self.zeros((m, n))
        self.emit(f"{out} = linalg.matmul ins({a}, {b} : {tensor((m, k), a_dtype)}, "
                  f"{tensor((k, n), a_dtype)}) outs({z} : {tensor((m, n))}) -> "
                  f"{tensor((m, n))}")
        return out

    def add(self, a, b, shape):
        r = len(shape)
        return self.generic([ident(r)] * 3, [a, b], [tensor(shape)] * 2, shape,
                            "%a: f32, %b: f32, %o: f32",
                            ["%r = arith.addf %a, %b : f32"])

    def layernorm(self, x, gamma, beta, shape):
        """Mean and mean of squares by reductions over the last dimension,
        then one normalization generic with gain and bias."""
        r = len(shape)
        red = shape[:-1]
        stats = []
        src = x
        for square in (False, True):
            if square:
                src = self.generic([ident(r)] * 2, [x], [tensor(shape)], shape,
                                   "%a: f32, %o: f32",
                                   ["%r = arith.mulf %a, %a : f32"])
            z = self.zeros(red)
            s = self.fresh()
            self.emit(f"{s} = linalg.reduce ins({src} : {tensor(shape)}) "
                      f"outs({z} : {tensor(red)}) dimensions = [{r - 1}]")
            self.emit("  (%in: f32, %acc: f32) {")
            self.emit("    %sum = arith.addf %in, %acc : f32")
            self.emit("    linalg.yield %sum : f32")
            self.emit("  }")
            stats.append(s)
        return self.generic(
            [ident(r), rows(r), rows(r), last(r), last(r), ident(r)],
            [x, stats[0], stats[1], gamma, beta],
            [tensor(shape), tensor(red), tensor(red), tensor(shape[-1:]),
             tensor(shape[-1:])], shape,
            "%a: f32, %sum: f32, %sumsq: f32, %g: f32, %b: f32, %o: f32", [
                f"%n = arith.constant {1.0 / shape[-1]!r} : f32",
                "%eps = arith.constant 1.0e-5 : f32",
                "%mean = arith.mulf %sum, %n : f32",
                "%msq = arith.mulf %sumsq, %n : f32",
                "%m2 = arith.mulf %mean, %mean : f32",
                "%var = arith.subf %msq, %m2 : f32",
                "%ve = arith.addf %var, %eps : f32",
                "%inv = math.rsqrt %ve : f32",
                "%c = arith.subf %a, %mean : f32",
                "%y = arith.mulf %c, %inv : f32",
                "%yg = arith.mulf %y, %g : f32",
                "%r = arith.addf %yg, %b : f32"])

    def module(self, name, args, result, result_type):
        sig = ", ".join(f"%{a.name}: {a.type()}" for a in args)
        body = [f"func.func @{name}({sig}) -> {result_type} {{",
                "  %zero = arith.constant 0.0 : f32"]
        body += self.lines
        body += [f"  return {result} : {result_type}", "}"]
        return "\n".join(body) + "\n"


def gemm(m, n, k, dtype="f32"):
    """C[m, n] (f32) = A[m, k] B[k, n], A and B of `dtype`."""
    b = Builder()
    args = [Arg("lhs", (m, k), dtype), Arg("rhs", (k, n), dtype)]
    c = b.matmul("%lhs", "%rhs", m, k, n, dtype)
    return b.module("gemm", args, c, tensor((m, n))), args


def chain(rows_, cols):
    """y = 1.25 * gelu_tanh(x + bias), x: rows x cols, bias: cols."""
    b = Builder()
    shape = (rows_, cols)
    args = [Arg("x", shape), Arg("bias", (cols,), scale=0.1)]
    t = b.generic([ident(2), last(2), ident(2)], ["%x", "%bias"],
                  [tensor(shape), tensor((cols,))], shape,
                  "%a: f32, %c: f32, %o: f32", ["%r = arith.addf %a, %c : f32"])
    g = b.generic([ident(2)] * 2, [t], [tensor(shape)], shape,
                  "%a: f32, %o: f32", GELU_BODY)
    s = b.generic([ident(2)] * 2, [g], [tensor(shape)], shape,
                  "%a: f32, %o: f32", ["%sc = arith.constant 1.25 : f32",
                                       "%r = arith.mulf %a, %sc : f32"])
    return b.module("chain", args, s, tensor(shape)), args


def mlp(tokens, dims):
    """dims = [in, h1, ..., out]: Linear+bias+GELU for every layer but the
    last, which is Linear+bias."""
    b = Builder()
    args = [Arg("x", (tokens, dims[0]))]
    x = "%x"
    for i in range(len(dims) - 1):
        fan_in, fan_out = dims[i], dims[i + 1]
        args.append(Arg(f"w{i}", (fan_in, fan_out), scale=math.sqrt(3.0 / fan_in)))
        args.append(Arg(f"b{i}", (fan_out,), scale=0.1))
        h = b.matmul(x, f"%w{i}", tokens, fan_in, fan_out)
        act = i < len(dims) - 2
        r = 2
        x = b.generic([ident(r), last(r), ident(r)], [h, f"%b{i}"],
                      [tensor((tokens, fan_out)), tensor((fan_out,))],
                      (tokens, fan_out), "%in0: f32, %bb: f32, %o: f32",
                      (["%a = arith.addf %in0, %bb : f32"] + GELU_BODY) if act
                      else ["%r = arith.addf %in0, %bb : f32"])
    return b.module("mlp", args, x, tensor((tokens, dims[-1]))), args


def transformer(batch, seq, dim, heads, blocks):
    """`blocks` post-LN transformer blocks on x: (batch*seq) x dim."""
    assert dim % heads == 0
    b = Builder()
    T, D, H, Dh, S, B = batch * seq, dim, heads, dim // heads, seq, batch
    F = 4 * dim
    args = [Arg("x", (T, D))]
    wscale = lambda fan_in: math.sqrt(3.0 / fan_in)
    x = "%x"
    td = (T, D)

    def heads_of(v):
        """[T, D] -> [B*H, S, Dh] (copy through a transpose)."""
        e4 = b.fresh()
        b.emit(f"{e4} = tensor.expand_shape {v} [[0, 1], [2, 3]] output_shape "
               f"[{B}, {S}, {H}, {Dh}] : {tensor(td)} into {tensor((B, S, H, Dh))}")
        t4 = b.fresh()
        e = b.empty((B, H, S, Dh))
        b.emit(f"{t4} = linalg.transpose ins({e4} : {tensor((B, S, H, Dh))}) "
               f"outs({e} : {tensor((B, H, S, Dh))}) permutation = [0, 2, 1, 3]")
        c = b.fresh()
        b.emit(f"{c} = tensor.collapse_shape {t4} [[0, 1], [2], [3]] : "
               f"{tensor((B, H, S, Dh))} into {tensor((B * H, S, Dh))}")
        return c

    def merge_heads(v):
        """[B*H, S, Dh] -> [T, D]."""
        e4 = b.fresh()
        b.emit(f"{e4} = tensor.expand_shape {v} [[0, 1], [2], [3]] output_shape "
               f"[{B}, {H}, {S}, {Dh}] : {tensor((B * H, S, Dh))} into "
               f"{tensor((B, H, S, Dh))}")
        t4 = b.fresh()
        e = b.empty((B, S, H, Dh))
        b.emit(f"{t4} = linalg.transpose ins({e4} : {tensor((B, H, S, Dh))}) "
               f"outs({e} : {tensor((B, S, H, Dh))}) permutation = [0, 2, 1, 3]")
        c = b.fresh()
        b.emit(f"{c} = tensor.collapse_shape {t4} [[0, 1], [2, 3]] : "
               f"{tensor((B, S, H, Dh))} into {tensor(td)}")
        return c

    for i in range(blocks):
        for w in ("wq", "wk", "wv", "wo"):
            args.append(Arg(f"{w}{i}", (D, D), scale=wscale(D)))
        args += [Arg(f"g1_{i}", (D,), init="ones", scale=0.1),
                 Arg(f"be1_{i}", (D,), scale=0.1),
                 Arg(f"w1_{i}", (D, F), scale=wscale(D)),
                 Arg(f"b1_{i}", (F,), scale=0.1),
                 Arg(f"w2_{i}", (F, D), scale=wscale(F)),
                 Arg(f"b2_{i}", (D,), scale=0.1),
                 Arg(f"g2_{i}", (D,), init="ones", scale=0.1),
                 Arg(f"be2_{i}", (D,), scale=0.1)]
        q = heads_of(b.matmul(x, f"%wq{i}", T, D, D))
        k = heads_of(b.matmul(x, f"%wk{i}", T, D, D))
        v = heads_of(b.matmul(x, f"%wv{i}", T, D, D))
        sc = b.fresh()
        z = b.zeros((B * H, S, S))
        maps = ("[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, "
                "affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, "
                "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]")
        b.emit(f"{sc} = linalg.batch_matmul indexing_maps = {maps} "
               f"ins({q}, {k} : {tensor((B * H, S, Dh))}, {tensor((B * H, S, Dh))}) "
               f"outs({z} : {tensor((B * H, S, S))}) -> {tensor((B * H, S, S))}")
        scaled = b.generic([ident(3)] * 2, [sc], [tensor((B * H, S, S))],
                           (B * H, S, S), "%a: f32, %o: f32",
                           [f"%c = arith.constant {1.0 / math.sqrt(Dh)!r} : f32",
                            "%r = arith.mulf %a, %c : f32"])
        probs = b.fresh()
        e = b.empty((B * H, S, S))
        b.emit(f"{probs} = linalg.softmax dimension(2) ins({scaled} : "
               f"{tensor((B * H, S, S))}) outs({e} : {tensor((B * H, S, S))}) -> "
               f"{tensor((B * H, S, S))}")
        att = b.fresh()
        z = b.zeros((B * H, S, Dh))
        b.emit(f"{att} = linalg.batch_matmul ins({probs}, {v} : "
               f"{tensor((B * H, S, S))}, {tensor((B * H, S, Dh))}) outs({z} : "
               f"{tensor((B * H, S, Dh))}) -> {tensor((B * H, S, Dh))}")
        proj = b.matmul(merge_heads(att), f"%wo{i}", T, D, D)
        n1 = b.layernorm(b.add(proj, x, td), f"%g1_{i}", f"%be1_{i}", td)
        h = b.matmul(n1, f"%w1_{i}", T, D, F)
        g = b.generic([ident(2), last(2), ident(2)], [h, f"%b1_{i}"],
                      [tensor((T, F)), tensor((F,))], (T, F),
                      "%in0: f32, %bb: f32, %o: f32",
                      ["%a = arith.addf %in0, %bb : f32"] + GELU_BODY)
        m = b.matmul(g, f"%w2_{i}", T, F, D)
        mb = b.generic([ident(2), last(2), ident(2), ident(2)],
                       [m, f"%b2_{i}", n1], [tensor(td), tensor((D,)), tensor(td)],
                       td, "%a: f32, %bb: f32, %res: f32, %o: f32",
                       ["%s = arith.addf %a, %bb : f32",
                        "%r = arith.addf %s, %res : f32"])
        x = b.layernorm(mb, f"%g2_{i}", f"%be2_{i}", td)
    return b.module("transformer", args, x, tensor(td)), args


# Reference forward passes -------------------------------------------------
# The same computation as the generated modules, written once for NumPy
# arrays and PyTorch tensors: `ops` is NumpyOps() or TorchOps(torch). run.py
# uses the PyTorch one for the eager baseline; the NumPy one checks the
# generators against amp-run on the CPU (bench/gpu/run.py --self-check).


class NumpyOps:
    """The generated modules' formulas, in NumPy."""

    def __init__(self):
        import numpy
        self.np = numpy

    def gelu(self, a):
        return gelu_formula(self, a)

    def layernorm(self, a, g, b):
        return layernorm_formula(self, a, g, b)

    def tanh(self, x):
        return self.np.tanh(x)

    def rsqrt(self, x):
        return 1.0 / self.np.sqrt(x)

    def permute(self, x, perm):
        return x.transpose(perm)

    def sum_last(self, x):
        return x.sum(axis=-1, keepdims=True)

    def softmax(self, x):
        e = self.np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


class TorchOps:
    """PyTorch as a user writes it: F.gelu(approximate="tanh") and
    F.layer_norm (one kernel each) instead of the formulas."""

    def __init__(self, torch):
        import torch.nn.functional as F
        self.torch, self.F = torch, F

    def gelu(self, a):
        return self.F.gelu(a, approximate="tanh")

    def layernorm(self, a, g, b):
        return self.F.layer_norm(a, a.shape[-1:], g, b, 1.0e-5)

    def tanh(self, x):
        return self.torch.tanh(x)

    def rsqrt(self, x):
        return self.torch.rsqrt(x)

    def permute(self, x, perm):
        return x.permute(*perm)

    def sum_last(self, x):
        return x.sum(dim=-1, keepdim=True)

    def softmax(self, x):
        return self.torch.softmax(x, dim=-1)


def gelu_formula(ops, a):
    return 0.5 * a * (1.0 + ops.tanh(0.7978845608 * (a + 0.044715 * (a * a * a))))


def layernorm_formula(ops, a, g, b):
    n = 1.0 / a.shape[-1]
    mean = ops.sum_last(a) * n
    msq = ops.sum_last(a * a) * n
    return (a - mean) * ops.rsqrt(msq - mean * mean + 1.0e-5) * g + b


def chain_forward(ops, x, bias):
    return 1.25 * ops.gelu(x + bias)


def mlp_forward(ops, x, *params):
    layers = len(params) // 2
    for i in range(layers):
        x = x @ params[2 * i] + params[2 * i + 1]
        if i < layers - 1:
            x = ops.gelu(x)
    return x


def transformer_forward(ops, x, *params, batch, seq, heads):
    T, D = x.shape
    B, S, H, Dh = batch, seq, heads, D // heads

    def split(v):  # [T, D] -> [B*H, S, Dh]
        return ops.permute(v.reshape(B, S, H, Dh), (0, 2, 1, 3)).reshape(B * H, S, Dh)

    def merge(v):  # [B*H, S, Dh] -> [T, D]
        return ops.permute(v.reshape(B, H, S, Dh), (0, 2, 1, 3)).reshape(T, D)

    per_block = 12
    for i in range(len(params) // per_block):
        wq, wk, wv, wo, g1, be1, w1, b1, w2, b2, g2, be2 = \
            params[i * per_block:(i + 1) * per_block]
        q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
        scores = (q @ ops.permute(k, (0, 2, 1))) * (1.0 / math.sqrt(Dh))
        att = merge(ops.softmax(scores) @ v)
        n1 = ops.layernorm(att @ wo + x, g1, be1)
        m = ops.gelu(n1 @ w1 + b1) @ w2
        x = ops.layernorm(m + b2 + n1, g2, be2)
    return x
