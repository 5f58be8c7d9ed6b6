#!/usr/bin/env python3
"""Generate realistic AMP benchmark graphs as MLIR.

    generate.py transformer --dialect linalg --blocks N > model.mlir
    generate.py resnet --blocks N > model.mlir
    generate.py transformer --dialect tosa --blocks N > model.mlir

* transformer: N blocks of attention (Q/K/V projections, scores, softmax,
  weighted sum, output projection), residual adds, layer norms (reductions
  and a normalization generic with rsqrt) and an MLP with a tanh-GELU;
* resnet: N blocks of conv 3x3 (with padding), batch norm, ReLU, conv,
  batch norm, residual add, ReLU, and 3x3 max pooling (stride 1);
* the TOSA transformer has the MLP and softmax parts of a block in TOSA.

Weights are splat constants, so the IR stays small per op while the op
count grows linearly with N.
"""

import argparse
import sys


class Writer:
    def __init__(self):
        self.lines = []
        self.n = 0

    def fresh(self, prefix="v"):
        self.n += 1
        return f"%{prefix}{self.n}"

    def emit(self, text):
        self.lines.append("  " + text)

    def elementwise_generic(self, maps, ins, in_types, out_type, args, body):
        """An all-parallel linalg.generic writing into a new tensor.empty of
        `out_type`; `body` lines end with the linalg.yield. Returns the
        result."""
        empty = self.fresh("e")
        self.emit(f"{empty} = tensor.empty() : {out_type}")
        out = self.fresh()
        rank = out_type.count("x")
        iterators = ", ".join(['"parallel"'] * rank)
        self.emit(f"{out} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                  f"iterator_types = [{iterators}]}} "
                  f"ins({', '.join(ins)} : {', '.join(in_types)}) "
                  f"outs({empty} : {out_type}) {{")
        self.emit(f"^bb0({args}):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"}} -> {out_type}")
        return out


# tanh-GELU of %a into %r (f32), shared with bench/gpu/models.py.
GELU_BODY = [
    "%half = arith.constant 0.5 : f32",
    "%one = arith.constant 1.0 : f32",
    "%k = arith.constant 0.7978845608 : f32",
    "%c3 = arith.constant 0.044715 : f32",
    "%x2 = arith.mulf %a, %a : f32",
    "%x3 = arith.mulf %x2, %a : f32",
    "%t3 = arith.mulf %x3, %c3 : f32",
    "%in = arith.addf %a, %t3 : f32",
    "%s = arith.mulf %in, %k : f32",
    "%th = math.tanh %s : f32",
    "%p = arith.addf %th, %one : f32",
    "%h = arith.mulf %a, %half : f32",
    "%r = arith.mulf %h, %p : f32",
]


def linalg_transformer(blocks, seq=16, dim=32):
    w = Writer()
    t = lambda r, c: f"tensor<{r}x{c}xf32>"
    hidden = 4 * dim
    head = [
        "#id2 = affine_map<(i, j) -> (i, j)>",
        "#row = affine_map<(i, j) -> (i)>",
        "#col = affine_map<(i, j) -> (j)>",
        f"func.func @transformer(%x: {t(seq, dim)}) -> {t(seq, dim)} {{",
    ]
    w.emit("%zero = arith.constant 0.0 : f32")
    consts = {}

    def const(r, c, value):
        key = (r, c, value)
        if key not in consts:
            name = w.fresh("w")
            w.emit(f"{name} = arith.constant dense<{value}> : {t(r, c)}")
            consts[key] = name
        return consts[key]

    def zeros(r, c):
        e = w.fresh("e")
        w.emit(f"{e} = tensor.empty() : {t(r, c)}")
        f = w.fresh("z")
        w.emit(f"{f} = linalg.fill ins(%zero : f32) outs({e} : {t(r, c)}) -> {t(r, c)}")
        return f

    def matmul(a, b, m, k, n):
        out = w.fresh()
        w.emit(f"{out} = linalg.matmul ins({a}, {b} : {t(m, k)}, {t(k, n)}) "
               f"outs({zeros(m, n)} : {t(m, n)}) -> {t(m, n)}")
        return out

    def layernorm(x):
        # mean and variance by reductions, then a norm-like generic.
        e = w.fresh("e")
        w.emit(f"{e} = tensor.empty() : tensor<{seq}xf32>")
        z = w.fresh("z")
        w.emit(f"{z} = linalg.fill ins(%zero : f32) outs({e} : tensor<{seq}xf32>) -> tensor<{seq}xf32>")
        s = w.fresh()
        w.emit(f"{s} = linalg.reduce ins({x} : {t(seq, dim)}) outs({z} : tensor<{seq}xf32>) dimensions = [1]")
        w.emit("  (%in: f32, %acc: f32) {")
        w.emit("    %r = arith.addf %in, %acc : f32")
        w.emit("    linalg.yield %r : f32")
        w.emit("  }")
        sq = w.fresh()
        w.emit(f"{sq} = arith.mulf {x}, {x} : {t(seq, dim)}")
        s2 = w.fresh()
        w.emit(f"{s2} = linalg.reduce ins({sq} : {t(seq, dim)}) outs({z} : tensor<{seq}xf32>) dimensions = [1]")
        w.emit("  (%in: f32, %acc: f32) {")
        w.emit("    %r = arith.addf %in, %acc : f32")
        w.emit("    linalg.yield %r : f32")
        w.emit("  }")
        return w.elementwise_generic(
            ["#id2", "#row", "#row", "#id2"], [x, s, s2],
            [t(seq, dim), f"tensor<{seq}xf32>", f"tensor<{seq}xf32>"],
            t(seq, dim), "%a: f32, %sum: f32, %sumsq: f32, %o: f32", [
                f"%n = arith.constant {1.0 / dim} : f32",
                "%eps = arith.constant 1.0e-5 : f32",
                "%mean = arith.mulf %sum, %n : f32",
                "%msq = arith.mulf %sumsq, %n : f32",
                "%m2 = arith.mulf %mean, %mean : f32",
                "%var = arith.subf %msq, %m2 : f32",
                "%ve = arith.addf %var, %eps : f32",
                "%inv = math.rsqrt %ve : f32",
                "%c = arith.subf %a, %mean : f32",
                "%r = arith.mulf %c, %inv : f32",
                "linalg.yield %r : f32"])

    def gelu(x, r, c):
        return w.elementwise_generic(
            ["#id2", "#id2"], [x], [t(r, c)], t(r, c), "%a: f32, %o: f32",
            GELU_BODY + ["linalg.yield %r : f32"])

    x = "%x"
    for b in range(blocks):
        q = matmul(x, const(dim, dim, 0.01), seq, dim, dim)
        k = matmul(x, const(dim, dim, 0.02), seq, dim, dim)
        v = matmul(x, const(dim, dim, 0.03), seq, dim, dim)
        kt = w.fresh()
        e = w.fresh("e")
        w.emit(f"{e} = tensor.empty() : {t(dim, seq)}")
        w.emit(f"{kt} = linalg.transpose ins({k} : {t(seq, dim)}) outs({e} : {t(dim, seq)}) permutation = [1, 0]")
        scores = matmul(q, kt, seq, dim, seq)
        pe = w.fresh("e")
        w.emit(f"{pe} = tensor.empty() : {t(seq, seq)}")
        probs = w.fresh()
        w.emit(f"{probs} = linalg.softmax dimension(1) ins({scores} : {t(seq, seq)}) outs({pe} : {t(seq, seq)}) -> {t(seq, seq)}")
        att = matmul(probs, v, seq, seq, dim)
        proj = matmul(att, const(dim, dim, 0.04), seq, dim, dim)
        r1 = w.fresh()
        w.emit(f"{r1} = arith.addf {proj}, {x} : {t(seq, dim)}")
        n1 = layernorm(r1)
        h = matmul(n1, const(dim, hidden, 0.05), seq, dim, hidden)
        g = gelu(h, seq, hidden)
        m = matmul(g, const(hidden, dim, 0.06), seq, hidden, dim)
        r2 = w.fresh()
        w.emit(f"{r2} = arith.addf {m}, {n1} : {t(seq, dim)}")
        x = layernorm(r2)
    w.emit(f"return {x} : {t(seq, dim)}")
    return "\n".join(head + w.lines + ["}"]) + "\n"


def linalg_resnet(blocks, channels=8, size=8):
    w = Writer()
    c, s = channels, size
    act = f"tensor<1x{c}x{s}x{s}xf32>"
    padded = f"tensor<1x{c}x{s + 2}x{s + 2}xf32>"
    head = [
        "#act = affine_map<(n, c, h, w) -> (n, c, h, w)>",
        "#chan = affine_map<(n, c, h, w) -> (c)>",
        f"func.func @resnet(%x: {act}) -> {act} {{",
    ]
    w.emit("%zero = arith.constant 0.0 : f32")
    w.emit("%ninf = arith.constant 0xFF800000 : f32")
    w.emit(f"%filter = arith.constant dense<0.05> : tensor<{c}x{c}x3x3xf32>")
    w.emit(f"%mean = arith.constant dense<0.1> : tensor<{c}xf32>")
    w.emit(f"%var = arith.constant dense<1.5> : tensor<{c}xf32>")
    w.emit(f"%gamma = arith.constant dense<1.0> : tensor<{c}xf32>")
    w.emit(f"%beta = arith.constant dense<0.0> : tensor<{c}xf32>")
    w.emit("%window = tensor.empty() : tensor<3x3xf32>")

    def pad(x, value):
        out = w.fresh()
        w.emit(f"{out} = tensor.pad {x} low[0, 0, 1, 1] high[0, 0, 1, 1] {{")
        w.emit("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        w.emit(f"  tensor.yield {value} : f32")
        w.emit(f"}} : {act} to {padded}")
        return out

    def conv(x):
        p = pad(x, "%zero")
        e = w.fresh("e")
        w.emit(f"{e} = tensor.empty() : {act}")
        z = w.fresh("z")
        w.emit(f"{z} = linalg.fill ins(%zero : f32) outs({e} : {act}) -> {act}")
        out = w.fresh()
        w.emit(f"{out} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} "
               f"ins({p}, %filter : {padded}, tensor<{c}x{c}x3x3xf32>) outs({z} : {act}) -> {act}")
        return out

    def batchnorm(x):
        chan = f"tensor<{c}xf32>"
        return w.elementwise_generic(
            ["#act", "#chan", "#chan", "#chan", "#chan", "#act"],
            [x, "%mean", "%var", "%gamma", "%beta"], [act] + [chan] * 4, act,
            "%a: f32, %m: f32, %v: f32, %g: f32, %b: f32, %o: f32", [
                "%eps = arith.constant 1.0e-5 : f32",
                "%d = arith.subf %a, %m : f32",
                "%ve = arith.addf %v, %eps : f32",
                "%inv = math.rsqrt %ve : f32",
                "%n = arith.mulf %d, %inv : f32",
                "%sc = arith.mulf %n, %g : f32",
                "%r = arith.addf %sc, %b : f32",
                "linalg.yield %r : f32"])

    def relu(x):
        return w.elementwise_generic(
            ["#act", "#act"], [x], [act], act, "%a: f32, %o: f32", [
                "%r = arith.maximumf %a, %zero : f32",
                "linalg.yield %r : f32"])

    x = "%x"
    for b in range(blocks):
        y = relu(batchnorm(conv(x)))
        y = batchnorm(conv(y))
        r = w.fresh()
        w.emit(f"{r} = arith.addf {y}, {x} : {act}")
        y = relu(r)
        p = pad(y, "%ninf")
        e = w.fresh("e")
        w.emit(f"{e} = tensor.empty() : {act}")
        f = w.fresh("z")
        w.emit(f"{f} = linalg.fill ins(%ninf : f32) outs({e} : {act}) -> {act}")
        x = w.fresh()
        w.emit(f"{x} = linalg.pooling_nchw_max {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} "
               f"ins({p}, %window : {padded}, tensor<3x3xf32>) outs({f} : {act}) -> {act}")
    w.emit(f"return {x} : {act}")
    return "\n".join(head + w.lines + ["}"]) + "\n"


def tosa_transformer(blocks, seq=16, dim=32):
    w = Writer()
    t = lambda *d: "tensor<" + "x".join(str(x) for x in d) + "xf32>"
    hidden = 4 * dim
    head = [f"func.func @transformer(%x: {t(1, seq, dim)}) -> {t(1, seq, dim)} {{"]
    w.emit('%zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>')
    w.emit('%shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
    w.emit(f'%w1 = "tosa.const"() <{{values = dense<0.01> : {t(1, dim, hidden)}}}> : () -> {t(1, dim, hidden)}')
    w.emit(f'%b1 = "tosa.const"() <{{values = dense<0.02> : {t(1, 1, hidden)}}}> : () -> {t(1, 1, hidden)}')
    w.emit(f'%w2 = "tosa.const"() <{{values = dense<0.03> : {t(1, hidden, dim)}}}> : () -> {t(1, hidden, dim)}')
    w.emit(f'%half = "tosa.const"() <{{values = dense<0.5> : {t(1, 1, 1)}}}> : () -> {t(1, 1, 1)}')
    w.emit(f'%one = "tosa.const"() <{{values = dense<1.0> : {t(1, 1, 1)}}}> : () -> {t(1, 1, 1)}')
    x = "%x"
    for b in range(blocks):
        h, hb, th, p1, g, m, r, mx, sh, ex, sm, rc, y = (w.fresh() for _ in range(13))
        w.emit(f"{h} = tosa.matmul {x}, %w1, %zp, %zp : ({t(1, seq, dim)}, {t(1, dim, hidden)}, tensor<1xf32>, tensor<1xf32>) -> {t(1, seq, hidden)}")
        w.emit(f"{hb} = tosa.add {h}, %b1 : ({t(1, seq, hidden)}, {t(1, 1, hidden)}) -> {t(1, seq, hidden)}")
        w.emit(f"{th} = tosa.tanh {hb} : ({t(1, seq, hidden)}) -> {t(1, seq, hidden)}")
        w.emit(f"{p1} = tosa.add {th}, %one : ({t(1, seq, hidden)}, {t(1, 1, 1)}) -> {t(1, seq, hidden)}")
        w.emit(f"{g} = tosa.mul {hb}, {p1}, %shift : ({t(1, seq, hidden)}, {t(1, seq, hidden)}, tensor<1xi8>) -> {t(1, seq, hidden)}")
        w.emit(f"{m} = tosa.matmul {g}, %w2, %zp, %zp : ({t(1, seq, hidden)}, {t(1, hidden, dim)}, tensor<1xf32>, tensor<1xf32>) -> {t(1, seq, dim)}")
        w.emit(f"{r} = tosa.add {m}, {x} : ({t(1, seq, dim)}, {t(1, seq, dim)}) -> {t(1, seq, dim)}")
        # softmax over the features
        w.emit(f"{mx} = tosa.reduce_max {r} {{axis = 2 : i32}} : ({t(1, seq, dim)}) -> {t(1, seq, 1)}")
        w.emit(f"{sh} = tosa.sub {r}, {mx} : ({t(1, seq, dim)}, {t(1, seq, 1)}) -> {t(1, seq, dim)}")
        w.emit(f"{ex} = tosa.exp {sh} : ({t(1, seq, dim)}) -> {t(1, seq, dim)}")
        w.emit(f"{sm} = tosa.reduce_sum {ex} {{axis = 2 : i32}} : ({t(1, seq, dim)}) -> {t(1, seq, 1)}")
        w.emit(f"{rc} = tosa.reciprocal {sm} : ({t(1, seq, 1)}) -> {t(1, seq, 1)}")
        w.emit(f"{y} = tosa.mul {ex}, {rc}, %shift : ({t(1, seq, dim)}, {t(1, seq, 1)}, tensor<1xi8>) -> {t(1, seq, dim)}")
        x = y
    w.emit(f"return {x} : {t(1, seq, dim)}")
    return "\n".join(head + w.lines + ["}"]) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=["transformer", "resnet"])
    parser.add_argument("--dialect", choices=["linalg", "tosa"], default="linalg")
    parser.add_argument("--blocks", type=int, default=1)
    args = parser.parse_args()
    if args.model == "resnet" and args.dialect == "tosa":
        sys.exit("generate.py: resnet is generated in linalg only")
    if args.dialect == "tosa":
        sys.stdout.write(tosa_transformer(args.blocks))
    elif args.model == "transformer":
        sys.stdout.write(linalg_transformer(args.blocks))
    else:
        sys.stdout.write(linalg_resnet(args.blocks))


if __name__ == "__main__":
    main()
