#!/usr/bin/env python3
"""Per-kernel profile of an imported model: texc's kernels against ONNX Runtime's nodes (issue 31).

texc compiles an imported network to a graph of kernels `model_k0`, `model_k1`, ... (docs/graph.md)
that the header declares. This script compiles WORK/MODEL.onnx (`texc MODEL.onnx --op model --target
x86 -o WORK/MODEL.prof`), generates a C program from the header (texc_driver.write_profile_driver:
the weights loaded, model_prepare once, every kernel's inputs and outputs in buffers of their own,
named as in the header) that runs the kernels in order, REPEAT passes after 100 ms of warm-up,
timing each kernel in each pass (the median: each kernel finds the caches as the earlier ones left
them, as in the entry), then the whole entry `model` (REPEAT calls, the median). Then ONNX Runtime runs the model with `enableProfiling` (ort_profile.js:
every graph optimization, the same threads, REPEAT runs) and its per-node kernel times (the median
over the runs) are read from its profile. The two lists are printed side by side, a texc kernel
against the ORT node whose output has the same number of elements, in order (ORT's layout nodes,
ReorderInput/ReorderOutput, and texc's kernels without such a partner are listed alone).

usage: profile_kernels.py MODEL [--work bench/e2e/work] [--threads 1] [--repeat 50]
                          [--texc build/tools/texc/texc] [--libtexrt build/runtime/libtexrt.a]
                          [--knobs K=V,...] [--mcpu CPU] [--no-ort] [--json-out F]
MODEL is a name in WORK (WORK/MODEL.onnx, WORK/MODEL.x.npy, as export_models.py writes them).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

import numpy as np

import texc_driver

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd, env=None, cwd=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def kernel_info(header):
    """{kernel: (kind and anchor, elements of its last output)} from the header's comments and macros."""
    info = {}
    for m in re.finditer(r"^// Kernel (\w+) of op '\w+' \(([^)]*)\)", header, re.M):
        info[m.group(1)] = m.group(2)
    return info


def ort_profile(onnx_path, shape, threads, repeat, work, env):
    """[(node name, op type, output elements, median µs)] in execution order."""
    prefix = os.path.join(work, "ort_profile")
    for f in glob.glob(prefix + "*.json"):
        os.remove(f)
    run(["node", os.path.join(HERE, "ort_profile.js"), onnx_path, ",".join(str(d) for d in shape), str(threads),
         str(repeat), prefix], env)
    events = json.load(open(glob.glob(prefix + "*.json")[0]))
    times = collections.OrderedDict()
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        name = e["name"][:-len("_kernel_time")]
        shapes = e["args"].get("output_type_shape") or [{}]
        dims = list(shapes[0].values())[0] if shapes[0] else []
        times.setdefault(name, [e["args"].get("op_name"), int(np.prod(dims)) if dims else 0, []])[2].append(e["dur"])
    return [(n, op, el, sorted(d)[len(d) // 2]) for n, (op, el, d) in times.items()]


def pair_by_output(texc, ort):
    """The two lists aligned in order, a texc kernel against an ORT node with as many output elements
    (the longest such pairing: a longest common subsequence); unpaired entries stand alone."""
    n, m = len(texc), len(ort)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            same = texc[i]["out_elements"] == ort[j][2]
            best[i][j] = max(best[i + 1][j], best[i][j + 1], best[i + 1][j + 1] + 1 if same else 0)
    rows, i, j = [], 0, 0
    while i < n or j < m:
        if i < n and j < m and texc[i]["out_elements"] == ort[j][2] and best[i][j] == best[i + 1][j + 1] + 1:
            rows.append((texc[i], ort[j]))
            i, j = i + 1, j + 1
        elif j < m and (i == n or best[i][j + 1] >= best[i + 1][j]):
            rows.append((None, ort[j]))
            j += 1
        else:
            rows.append((texc[i], None))
            i += 1
    return rows


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--texc", default=os.path.join(ROOT, "build", "tools", "texc", "texc"))
    ap.add_argument("--libtexrt", default=os.path.join(ROOT, "build", "runtime", "libtexrt.a"))
    ap.add_argument("--knobs", default="", help="K=V,... passed to texc as --knob K=V")
    ap.add_argument("--mcpu", help="passed to texc as --mcpu")
    ap.add_argument("--no-ort", action="store_true")
    ap.add_argument("--json-out")
    args = ap.parse_args(argv)
    env = dict(os.environ, TEXC_STDLIB=os.path.join(ROOT, "stdlib"), NODE_PATH=os.path.join(HERE, "ort", "node_modules"))
    for k in list(env):
        if k.startswith(("OMP_", "ORT_", "TEXC_NUM_THREADS", "MKL_", "OPENBLAS_")):
            del env[k]
    onnx_path = os.path.join(args.work, args.model + ".onnx")
    x = np.load(os.path.join(args.work, args.model + ".x.npy"))
    x_bin = os.path.join(args.work, args.model + ".x.bin")
    x.tofile(x_bin)
    stem = os.path.join(args.work, args.model + ".prof")
    cmd = [args.texc, onnx_path, "--op", "model", "--target", "x86", "-o", stem]
    for kv in filter(None, args.knobs.split(",")):
        cmd += ["--knob", kv]
    if args.mcpu:
        cmd += ["--mcpu", args.mcpu]
    run(cmd, env)
    header = open(stem + ".h").read()
    kernels = texc_driver.write_profile_driver(stem + ".h", "model", stem + ".driver.c")
    run(["cc", "-O2", "-I" + args.work, "-I" + ROOT, stem + ".driver.c", stem + ".o", args.libtexrt, "-lstdc++",
         "-lpthread", "-lm", "-ldl", "-o", stem + ".driver"])
    out = run([stem + ".driver", stem + ".weights", x_bin, str(args.repeat)], dict(env, TEXC_NUM_THREADS=str(args.threads)))
    texc = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    entry = [t for t in texc if t["kernel"] == "model"][0]
    texc = [t for t in texc if t["kernel"] != "model"]
    info = kernel_info(header)
    ort = [] if args.no_ort else ort_profile(onnx_path, x.shape, args.threads, args.repeat, args.work, env)

    rows = pair_by_output(texc, ort)
    print("| texc kernel | kind, anchor | output | texc µs | ORT node | ORT µs | ORT / texc |")
    print("|---|---|---|---|---|---|---|")
    for t, o in rows:
        tk = "%s | %s | %s | %.1f" % (t["kernel"], info.get(t["kernel"], ""), t["out_shape"], t["median_ms"] * 1e3) if t else " | | | "
        ok = "%s (%s) | %d" % (o[0], o[1], o[3]) if o else " | "
        ratio = "%.2f" % (o[3] / (t["median_ms"] * 1e3)) if t and o else ""
        print("| %s | %s | %s |" % (tk, ok, ratio))
    ksum = sum(t["median_ms"] for t in texc)
    osum = sum(o[3] for o in ort) / 1e3
    print("\ntexc: kernels %.3f ms (sum of medians), entry model() %.3f ms (median); ORT: nodes %.3f ms (sum of medians)"
          % (ksum, entry["median_ms"], osum))
    if args.json_out:
        json.dump({"texc": texc, "entry": entry, "ort": ort}, open(args.json_out, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
