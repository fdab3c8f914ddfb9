#!/usr/bin/env python3
"""Random networks of stdlib calls through layout planning (frontend/LayoutPlan.h), each checked
against the reference interpreter at every element (`texc run --check full`).

Each network is a chain of layers drawn at random from what the plan treats differently:
convolutions (16, 32, 24, 40, 12 or 8 output channels: 24 and 40 are planned on blocks padded to
a multiple of 16 with zero lanes, 12 and 8 stay NCHW; 1x1 and 3x3, stride 1 or 2, padding 0
or 1), depthwise convolutions (3x3 or 5x5, stride 1 or 2, padding 0 to 2; dilation 2 or a
channel multiplier of 2 now and then, which stay NCHW), own elementwise stages (bias, ReLU, ReLU6,
a residual add of an earlier tensor of the same shape, a read at a shifted point that needs the
NCHW form), stdlib elementwise calls (relu, leaky_relu with an attribute), max pools, and
sometimes an intermediate as a second output. Input channels 3, 8, 16, 24 or 32; spatial sizes
that do not divide.

usage: random_layout_plan.py TEXC WORKDIR [--count N] [--seed S] [--target T]
Exits 1 when a network fails (its .tex is kept in WORKDIR), or when no network was planned, or
(with --want-padded) none had a padded tensor (24 or 40 channels) planned on blocks.
"""
import argparse
import os
import random
import subprocess
import sys


class Net:
    def __init__(self, rng):
        self.rng = rng
        self.inputs = []   # (name, shape)
        self.lines = []
        self.tensors = []  # (name, shape) of 4-D activations, in order
        self.count = 0

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def add_input(self, name, shape):
        self.inputs.append((name, shape))

    def conv(self, x, shape):
        rng = self.rng
        n, c, h, w = shape
        f = rng.choice([16, 32, 16, 12, 24, 40, 24, 8])
        k = rng.choice([3, 3, 1])
        pad = rng.choice([0, 1]) if k == 3 else 0
        stride = rng.choice([1, 1, 2])
        oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        if oh < 1 or ow < 1:
            return None
        wname = self.fresh("W")
        self.add_input(wname, [f, c, k, k])
        y = self.fresh("C")
        self.lines.append(f"{y} = conv2d({x}, {wname}, stride = {stride}, pad = {pad})")
        return y, [n, f, oh, ow]

    def depthwise(self, x, shape):
        rng = self.rng
        n, c, h, w = shape
        k = rng.choice([3, 3, 5])
        pad = rng.choice([0, 1, 1, 2])
        stride = rng.choice([1, 1, 2])
        dilation = rng.choice([1, 1, 1, 1, 2])
        multiplier = rng.choice([1, 1, 1, 1, 2])
        oh = (h + 2 * pad - dilation * (k - 1) - 1) // stride + 1
        ow = (w + 2 * pad - dilation * (k - 1) - 1) // stride + 1
        if oh < 1 or ow < 1:
            return None
        wname = self.fresh("W")
        self.add_input(wname, [c * multiplier, 1, k, k])
        y = self.fresh("D")
        extra = f", dilation = {dilation}" if dilation != 1 or rng.random() < 0.3 else ""
        self.lines.append(f"{y} = depthwise_conv2d({x}, {wname}, stride = {stride}, pad = {pad}{extra})")
        return y, [n, c * multiplier, oh, ow]

    def layer(self, x, shape):
        rng = self.rng
        kind = rng.choice(["conv", "conv", "conv", "depthwise", "depthwise", "bias_relu", "relu6", "residual",
                           "shifted", "relu", "leaky", "pool"])
        n, c, h, w = shape
        if kind == "conv":
            return self.conv(x, shape)
        if kind == "depthwise":
            return self.depthwise(x, shape)
        y = self.fresh("A")
        if kind == "bias_relu":
            b = self.fresh("B")
            self.add_input(b, [c])
            self.lines.append(f"{y}[n, c, i, j] = max({x}[n, c, i, j] + {b}[c], 0.0)")
        elif kind == "relu6":
            self.lines.append(f"{y}[n, c, i, j] = min(max({x}[n, c, i, j], 0.0), 6.0)")
        elif kind == "residual":
            same = [t for t, s in self.tensors if s == shape and t != x]
            if not same:
                return None
            r = rng.choice(same)
            self.lines.append(f"{y}[n, c, i, j] = {x}[n, c, i, j] * 0.5 + {r}[n, c, i, j]")
        elif kind == "shifted":
            self.lines.append(f"{y}[n, c, i, j] = {x}[n, c, i, j] + select(j > 0, {x}[n, c, i, j - 1], 0.0)")
        elif kind == "relu":
            self.lines.append(f"{y} = relu({x})")
        elif kind == "leaky":
            self.lines.append(f"{y} = leaky_relu({x}, alpha = {rng.choice(['0.1', '0.25'])})")
        elif kind == "pool":
            k = rng.choice([2, 3])
            stride = rng.choice([1, 2])
            pad = rng.choice([0, 1]) if k == 3 else 0
            oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
            if oh < 1 or ow < 1:
                return None
            self.lines.append(f"{y} = max_pool2d({x}, kernel = {k}, stride = {stride}, pad = {pad})")
            return y, [n, c, oh, ow]
        return y, shape

    def build(self, layers):
        rng = self.rng
        shape = [1, rng.choice([3, 16, 32, 8, 24]), rng.randint(5, 14), rng.randint(5, 14)]
        self.add_input("X", shape)
        first = self.conv("X", shape)  # every network starts with a convolution
        while first is None:
            first = self.conv("X", shape)
        x, shape = first
        self.tensors.append((x, shape))
        for _ in range(layers):
            out = self.layer(x, shape)
            if out is None:
                continue
            x, shape = out
            self.tensors.append((x, shape))
        outputs = [x]
        if rng.random() < 0.4 and len(self.tensors) > 2:
            middle = rng.choice(self.tensors[:-1])[0]
            if middle not in outputs:
                outputs.append(middle)
        params = ", ".join(f"{n}: f32[{', '.join(map(str, s))}]" for n, s in self.inputs)
        body = "\n".join("    " + line for line in self.lines)
        return ("import nn.conv2d\nimport nn.depthwise_conv2d\nimport nn.pool\nimport nn.activation\n\n"
                f"op random_net({params}) -> {', '.join(outputs)} {{\n  compute {{\n{body}\n  }}\n}}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("texc")
    ap.add_argument("workdir")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target", default="x86")
    ap.add_argument("--want-padded", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    failures, planned, depthwise_planned, padded_planned = 0, 0, 0, 0
    for i in range(args.count):
        rng = random.Random(args.seed * 1000 + i)
        net = Net(rng)
        text = net.build(rng.randint(3, 7))
        padded = [t for t, s in net.tensors if s[1] % 16 and s[1] > 16]
        path = os.path.join(args.workdir, f"random_net_{args.seed}_{i}.tex")
        with open(path, "w") as f:
            f.write(text)
        graph = subprocess.run([args.texc, path, "--target", args.target, "--emit", "graph", "-o", "-"],
                               capture_output=True, text=True)
        is_planned = "conv2d_nchwc" in graph.stdout
        planned += is_planned
        depthwise_planned += "depthwise_conv2d_nchwc" in graph.stdout
        is_padded = any(f"{t}_nchw16c" in graph.stdout for t in padded)
        padded_planned += is_padded
        run = subprocess.run([args.texc, "run", path, "--target", args.target, "--check", "full", "--repeat", "1"],
                             capture_output=True, text=True, timeout=600)
        ok = run.returncode == 0 and " PASS " in run.stdout
        print(f"{os.path.basename(path)}: {'PASS' if ok else 'FAIL'}{' (planned)' if is_planned else ''}"
              f"{' (padded)' if is_padded else ''}")
        if not ok:
            failures += 1
            print(run.stdout + run.stderr)
    print(f"{args.count - failures}/{args.count} passed, {planned} with layouts planned, "
          f"{depthwise_planned} with a depthwise convolution on blocks, {padded_planned} with padded blocks")
    if failures or planned == 0 or (args.want_padded and padded_planned == 0):
        sys.exit(1)


if __name__ == "__main__":
    main()
