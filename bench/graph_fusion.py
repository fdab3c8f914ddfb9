#!/usr/bin/env python3
"""What graph fusion and layout planning win (issue 30, docs/graph.md): each model compiled three times
by texc from the same ONNX file: as its graph of fused kernels with layout planning (fused: chains
of convs in NCHW16c), the same graph without it (fused-nchw, --layout nchw: each conv packs its
NCHW input into blocks and back), and with --no-graph-fusion --layout nchw (separate: every layer
call and every own stage a kernel of its own, each conv packing its input into blocks and back: the
same layers as separate ops), all run by the same generated C driver (bench/e2e/texc_driver.py: the
weights loaded once, model_prepare once, warm-up for 100 ms, REPEAT timed calls, their median).

For each thread count, ROUNDS interleaved rounds (the order of the builds rotates), one process per
build and round. Reported per model and thread count: the kernel counts, each build's median over
rounds of the round medians, fused-nchw / fused (> 1: layout planning wins) and separate / fused
(> 1: fusion and layout planning win); the builds' outputs must agree (max difference relative to
the largest output <= 1e-4, else exit 1).

usage: bench/graph_fusion.py [--models resnet18,mobilenet_v2] [--threads 1,2] [--rounds 5]
                             [--repeat 20] [--clock wall|cpu] [--work bench/e2e/work]
                             [--texc build/tools/texc/texc] [--libtexrt build/runtime/libtexrt.a]
                             [--markdown F] [--mcpu CPU] [--tex]
--clock cpu: the driver times each call by the process's CPU time (E2E_CPU_CLOCK, as run_e2e.py
--clock cpu): steadier on a loaded machine at 1 thread; at 2 threads it sums the threads.
Models are exported by bench/e2e/export_models.py when WORK/MODEL.onnx is missing (Debian's
python3 with python3-torch and python3-torchvision).
"""
import argparse
import os
import re
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "e2e"))
import texc_driver  # noqa: E402
from run_e2e import last_json, run  # noqa: E402

# fused: the graph with layout planning (x86's default: chains of convs in NCHW16c, docs/graph.md
# "Layout planning"); fused-nchw: the same graph with every conv packing its NCHW input into blocks
# and writing NCHW back (--layout nchw: before layout planning); separate: no fusion, per-op layout
# transforms (the same layers compiled as separate ops).
BUILDS = {"fused": [], "fused-nchw": ["--layout", "nchw"], "separate": ["--no-graph-fusion", "--layout", "nchw"]}
# With --tex: also "fused-tex", the model imported on NCHW into a .tex of stdlib calls (`texc import
# --layout nchw`, as a user would write the network by hand) and compiled from that .tex, so that
# its layouts are planned by the front end's pass (frontend/LayoutPlan.h) instead of the importer.
TEX_BUILD = "fused-tex"


def kernel_count(texc, source, flags, env):
    report = run([texc, source, "--op", "model", "--target", "x86", "--emit", "graph", "-o", "-"] + flags, env)
    m = re.search(r"op model: (\d+) kernels", report)
    return int(m.group(1)) if m else 1


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="resnet18,mobilenet_v2")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--work", default=os.path.join(HERE, "e2e", "work"))
    ap.add_argument("--texc", default=os.path.join(ROOT, "build", "tools", "texc", "texc"))
    ap.add_argument("--libtexrt", default=os.path.join(ROOT, "build", "runtime", "libtexrt.a"))
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    ap.add_argument("--markdown")
    ap.add_argument("--mcpu", help="compile for this CPU (texc --mcpu; x86-64-v3: an AVX2 stand-in)")
    ap.add_argument("--tex", action="store_true",
                    help="also the fused-tex build: the model as a .tex of stdlib calls, planned by the front end")
    args = ap.parse_args(argv)
    builds = dict(BUILDS, **({TEX_BUILD: []} if args.tex else {}))
    models = args.models.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ, TEXC_STDLIB=os.path.join(ROOT, "stdlib"))
    for k in list(env):
        if k.startswith(("OMP_", "TEXC_NUM_THREADS", "E2E_CPU_CLOCK")):
            del env[k]
    if args.clock == "cpu":
        env["E2E_CPU_CLOCK"] = "1"
    missing = [m for m in models if not os.path.exists(os.path.join(args.work, m + ".onnx"))]
    if missing:
        run(["/usr/bin/python3", os.path.join(HERE, "e2e", "export_models.py"), args.work] + missing)

    lines = ["| model | threads | kernels fused / separate | fused median (ms) | fused-nchw median (ms) | separate median (ms) | fused-nchw / fused | separate / fused |"
             + (" fused-tex median (ms) | fused-tex / fused |" if args.tex else ""),
             "|---|---|---|---|---|---|---|---|" + ("---|---|" if args.tex else "")]
    bad = False
    for m in models:
        onnx_path = os.path.join(args.work, m + ".onnx")
        x_bin = os.path.join(args.work, m + ".x.bin")
        np.load(os.path.join(args.work, m + ".x.npy")).tofile(x_bin)
        drivers, kernels = {}, {}
        for build, flags in builds.items():
            stem = os.path.join(args.work, "%s.%s" % (m, build))
            flags = flags + (["--mcpu", args.mcpu] if args.mcpu else [])
            source = onnx_path
            if build == TEX_BUILD:
                source = stem + ".tex"  # its weights go to stem.weights, which the driver loads
                run([args.texc, "import", onnx_path, "-o", source, "--op", "model", "--layout", "nchw"], env)
            run([args.texc, source, "--op", "model", "--target", "x86", "-o", stem] + flags
                + (["--weights", stem + ".weights"] if build == TEX_BUILD else []), env)
            texc_driver.write_driver(stem + ".h", "model", stem + ".driver.c")
            run(["cc", "-O2", "-I" + args.work, "-I" + ROOT, stem + ".driver.c", stem + ".o", args.libtexrt,
                 "-lstdc++", "-lpthread", "-lm", "-ldl", "-o", stem + ".driver"])
            drivers[build] = stem
            kernels[build] = kernel_count(args.texc, source, flags + (["--weights", stem + ".weights"] if build == TEX_BUILD else []), env)
        for t in threads:
            times = {b: [] for b in builds}
            outputs = {}
            for r in range(args.rounds):
                names = list(builds)
                order = names[r % len(names):] + names[:r % len(names)]
                if r % 2:
                    order.reverse()
                for build in order:
                    stem = drivers[build]
                    y_bin = stem + ".y.bin"
                    res = last_json(run([stem + ".driver", stem + ".weights", x_bin, y_bin, str(args.repeat)],
                                        dict(env, TEXC_NUM_THREADS=str(t))))
                    outputs[build] = np.fromfile(y_bin, np.float32)
                    times[build].append(res["median_ms"])
                    print("%s threads %d round %d %-8s %.4f ms" % (m, t, r, build, res["median_ms"]), flush=True)
            fused, nchw, separate = (statistics.median(times[b]) for b in ("fused", "fused-nchw", "separate"))
            for other in [b for b in builds if b != "fused"]:
                diff = float(np.abs(outputs["fused"] - outputs[other]).max() / max(np.abs(outputs["fused"]).max(), 1e-30))
                if not diff <= 1e-4:
                    print("graph_fusion: %s: fused's and %s's outputs differ by %.2g" % (m, other, diff), file=sys.stderr)
                    bad = True
            line = "| %s | %d | %d / %d | %.3f | %.3f | %.3f | %.2fx | %.2fx |" % (
                m, t, kernels["fused"], kernels["separate"], fused, nchw, separate, nchw / fused, separate / fused)
            if args.tex:
                tex = statistics.median(times[TEX_BUILD])
                line += " %.3f | %.2fx |" % (tex, tex / fused)
            lines.append(line)
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
