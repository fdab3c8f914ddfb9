#!/usr/bin/env python3
"""End-to-end benchmark: texc on an imported ONNX model against ONNX Runtime (bench/e2e/README.md).

For each model (exported by export_models.py when WORK/MODEL.onnx is missing): `texc import` and
`texc MODEL.onnx --op model --target x86 -o WORK/MODEL` (the model imported in memory, docs/onnx.md:
MODEL.o, MODEL.h, MODEL.weights) are timed once, and a C program generated from the header
(texc_driver.py: the weights loaded through the C API, model_prepare once) is linked with
libtexrt.a. Then for each thread count ROUNDS interleaved rounds (the order of texc and ORT
alternates from round to round), each round one process per runtime:
  texc  the driver, TEXC_NUM_THREADS=T: warm-up calls for 100 ms, REPEAT timed calls of model(); the
        round's figure is their median (with --texc-run instead `texc run WORK/MODEL.onnx --threads
        T --repeat REPEAT --json`, which also checks the op against texc's reference interpreter,
        kernel by kernel for a network compiled as a graph (docs/graph.md): about 12 s for ResNet-18)
  ort   `node ort_bench.js` (onnxruntime-node, every graph optimization, T intra-op threads):
        warm-up runs for 100 ms, REPEAT timed session.run calls; the round's figure is their median
  torch-eager, torch-jit  `torch_bench.py` (PyTorch on the CPU, the model rebuilt with the same
        seeded weights; eager, or traced + frozen + optimize_for_inference), T threads, warm-up for
        100 ms, REPEAT timed calls; the round's figure is their median
The order of the runtimes rotates from round to round. Reported per model and thread count: the
median and the minimum over the rounds of the round figures, each peer's time over texc's (> 1:
texc faster), and the largest difference between texc's (and each PyTorch's) output and ORT's,
relative to the largest ORT output (above --tolerance, default 1e-4: exit 1). `texc import` of
each model is timed once.

usage: run_e2e.py [--models small_cnn,...] [--threads 1,2] [--rounds 5] [--repeat 20] [--clock wall|cpu]
                  [--work bench/e2e/work] [--texc build/tools/texc/texc] [--libtexrt build/runtime/libtexrt.a]
                  [--texc-run] [--peers ort,torch-eager,torch-jit] [--arm] [--json-out F] [--markdown F]
                  [--tolerance 1e-4] [--texc-flags FLAGS]
--arm: also compile each model for --target arm, link the same driver statically with
aarch64-linux-gnu-gcc against build/runtime/aarch64/libtexrt.a, run it once under qemu-aarch64
(correctness only: emulated times mean nothing) and compare its output with ORT's at 1 thread.
Needs python3 with numpy (and torch + torchvision to export: python3-torch, python3-torchvision),
node, and `npm install --ignore-scripts onnxruntime-node` in bench/e2e/ort/ (git-ignored).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import texc_driver

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(cmd, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError("%s failed (exit %d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def last_json(text):
    for line in reversed(text.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("no JSON line in:\n" + text)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="small_cnn")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--work", default=os.path.join(HERE, "work"))
    ap.add_argument("--texc", default=os.path.join(ROOT, "build", "tools", "texc", "texc"))
    ap.add_argument("--libtexrt", default=os.path.join(ROOT, "build", "runtime", "libtexrt.a"))
    ap.add_argument("--texc-run", action="store_true", help="time `texc run` (checked against the reference) instead")
    ap.add_argument("--peers", default="ort,torch-eager,torch-jit",
                    help="the runtimes texc is compared with (ort is always run: its output is the reference)")
    ap.add_argument("--arm", action="store_true", help="also check the model compiled for arm, under qemu-aarch64")
    ap.add_argument("--libtexrt-aarch64", default=os.path.join(ROOT, "build", "runtime", "aarch64", "libtexrt.a"))
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="cpu: every runtime times each call by their process's CPU time (E2E_CPU_CLOCK), not the wall clock")
    ap.add_argument("--json-out")
    ap.add_argument("--markdown")
    ap.add_argument("--texc-flags", default="",
                    help="more flags for texc's compile and run of each model (e.g. '--layout nchw': before layout planning)")
    ap.add_argument("--tolerance", type=float, default=1e-4,
                    help="the largest output difference (relative to the largest ORT output) accepted; exit 1 above it")
    args = ap.parse_args(argv)
    models = args.models.split(",")
    threads = [int(t) for t in args.threads.split(",")]
    peers = ["ort"] + [p for p in args.peers.split(",") if p and p != "ort"]
    for p in peers:
        if p not in ("ort", "torch-eager", "torch-jit"):
            ap.error("--peers: unknown runtime %r (ort, torch-eager, torch-jit)" % p)
    impls = ["texc"] + peers
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ, TEXC_STDLIB=os.path.join(ROOT, "stdlib"), NODE_PATH=os.path.join(HERE, "ort", "node_modules"))
    for k in list(env):  # nothing that overrides either runtime's threads
        if k.startswith(("OMP_", "ORT_", "TEXC_NUM_THREADS", "MKL_", "OPENBLAS_")):
            del env[k]
    if args.clock == "cpu":
        env["E2E_CPU_CLOCK"] = "1"
    missing = [m for m in models if not os.path.exists(os.path.join(args.work, m + ".onnx"))]
    if missing:
        run([sys.executable, os.path.join(HERE, "export_models.py"), args.work] + missing)

    results = []
    for m in models:
        onnx_path = os.path.join(args.work, m + ".onnx")
        x = np.load(os.path.join(args.work, m + ".x.npy"))
        inputs = os.path.join(args.work, m + ".in")
        os.makedirs(inputs, exist_ok=True)
        np.save(os.path.join(inputs, "model.x.npy"), x)
        x_bin = os.path.join(args.work, m + ".x.bin")
        x.tofile(x_bin)
        t0 = time.perf_counter()
        run([args.texc, "import", onnx_path, "-o", os.path.join(args.work, m + ".tex"), "--op", "model"], env)
        import_s = time.perf_counter() - t0
        stem = os.path.join(args.work, m)
        t0 = time.perf_counter()
        run([args.texc, onnx_path, "--op", "model", "--target", "x86", "-o", stem] + args.texc_flags.split(), env)
        compile_s = time.perf_counter() - t0
        texc_driver.write_driver(stem + ".h", "model", stem + ".driver.c")
        run(["cc", "-O2", "-I" + args.work, "-I" + ROOT, stem + ".driver.c", stem + ".o", args.libtexrt, "-lstdc++",
             "-lpthread", "-lm", "-ldl", "-o", stem + ".driver"])
        rounds = {(t, impl): [] for t in threads for impl in impls}
        outputs = {}
        for r in range(args.rounds):
            for t in threads:
                order = impls[r % len(impls):] + impls[:r % len(impls)]
                for impl in order:
                    out_dir = os.path.join(args.work, "%s.%s.t%d" % (m, impl, t))
                    os.makedirs(out_dir, exist_ok=True)
                    y_bin = os.path.join(out_dir, "y.bin")
                    if impl == "texc" and not args.texc_run:
                        res = last_json(run([stem + ".driver", stem + ".weights", x_bin, y_bin, str(args.repeat)],
                                            dict(env, TEXC_NUM_THREADS=str(t))))
                        outputs[(t, impl)] = np.fromfile(y_bin, np.float32)
                    elif impl == "texc":
                        res = last_json(run([args.texc, "run", onnx_path, "--op", "model", "--target", "x86", "--threads",
                                             str(t), "--repeat", str(args.repeat), "--json", "--inputs", inputs,
                                             "--save-io", out_dir] + args.texc_flags.split(), env))
                        if res["status"] != "pass":
                            raise RuntimeError("texc run of %s: %s" % (m, res["message"]))
                        outputs[(t, impl)] = np.load(os.path.join(out_dir, "model.y.npy")).reshape(-1)
                    elif impl == "ort":
                        res = last_json(run(["node", os.path.join(HERE, "ort_bench.js"), onnx_path, x_bin,
                                             ",".join(str(d) for d in x.shape), str(t), str(args.repeat), y_bin], env))
                        outputs[(t, impl)] = np.fromfile(y_bin, np.float32)
                    else:
                        res = last_json(run([sys.executable, os.path.join(HERE, "torch_bench.py"), m, impl[len("torch-"):],
                                             x_bin, str(t), str(args.repeat), y_bin], env))
                        outputs[(t, impl)] = np.fromfile(y_bin, np.float32)
                    rounds[(t, impl)].append(res["median_ms"])
                    print("%s round %d threads %d %-11s %.4f ms" % (m, r, t, impl, res["median_ms"]), flush=True)
        arm_diff = None
        if args.arm:
            arm_stem = stem + ".arm"
            run([args.texc, onnx_path, "--op", "model", "--target", "arm", "-o", arm_stem] + args.texc_flags.split(), env)
            texc_driver.write_driver(arm_stem + ".h", "model", arm_stem + ".driver.c")
            run(["aarch64-linux-gnu-gcc", "-static", "-O2", "-I" + args.work, "-I" + ROOT, arm_stem + ".driver.c",
                 arm_stem + ".o", args.libtexrt_aarch64, "-lstdc++", "-lpthread", "-lm", "-o", arm_stem + ".driver"])
            y_bin = arm_stem + ".y.bin"
            res = last_json(run(["qemu-aarch64", arm_stem + ".driver", arm_stem + ".weights", x_bin, y_bin, "1"],
                                dict(env, TEXC_NUM_THREADS="1")))
            want = outputs[(threads[0], "ort")]
            arm_diff = float(np.abs(np.fromfile(y_bin, np.float32) - want).max() / max(np.abs(want).max(), 1e-30))
            print("%s arm (qemu-aarch64, one call %.0f ms emulated): output difference from ORT %.1e" %
                  (m, res["median_ms"], arm_diff), flush=True)
        for t in threads:
            want = outputs[(t, "ort")]
            scale = max(np.abs(want).max(), 1e-30)
            diff = {impl: float(np.abs(outputs[(t, impl)] - want).max() / scale) for impl in impls if impl != "ort"}
            texc_ms = rounds[(t, "texc")]
            row = {"model": m, "threads": t, "import_s": import_s, "compile_s": compile_s,
                   "texc_timing": "texc run" if args.texc_run else "compiled driver", "clock": args.clock,
                   "rounds": args.rounds, "repeat": args.repeat,
                   "texc_median_ms": statistics.median(texc_ms), "texc_min_ms": min(texc_ms),
                   "max_rel_diff": diff["texc"], "texc_rounds_ms": texc_ms, "peers": {}}
            if arm_diff is not None:
                row["arm_max_rel_diff"] = arm_diff
            for p in peers:
                ms = rounds[(t, p)]
                row["peers"][p] = {"median_ms": statistics.median(ms), "min_ms": min(ms), "rounds_ms": ms,
                                   "speedup_median": statistics.median(ms) / statistics.median(texc_ms),
                                   "speedup_min": min(ms) / min(texc_ms), "max_rel_diff": diff.get(p, 0.0)}
            # the figures run_e2e.py has always reported: ORT's
            row.update({"ort_median_ms": row["peers"]["ort"]["median_ms"], "ort_min_ms": row["peers"]["ort"]["min_ms"],
                        "speedup_median": row["peers"]["ort"]["speedup_median"],
                        "speedup_min": row["peers"]["ort"]["speedup_min"], "ort_rounds_ms": rounds[(t, "ort")]})
            results.append(row)
    head = "| model | threads | texc import, compile | texc median / min (ms) |"
    rule = "|---|---|---|---|"
    for p in peers:
        head += " %s median / min (ms) | %s / texc (median, min) |" % (p, p)
        rule += "---|---|"
    lines = [head + " output difference |", rule + "---|"]
    for r in results:
        line = "| %s | %d | %.2f s, %.1f s | %.4g / %.4g |" % (
            r["model"], r["threads"], r["import_s"], r["compile_s"], r["texc_median_ms"], r["texc_min_ms"])
        for p in peers:
            f = r["peers"][p]
            line += " %.4g / %.4g | %.2fx, %.2fx |" % (f["median_ms"], f["min_ms"], f["speedup_median"], f["speedup_min"])
        diffs = ", ".join("%s %.1e" % (impl, d["max_rel_diff"]) for impl, d in [("texc", r)] + [
            (p, r["peers"][p]) for p in peers if p != "ort"])
        if "arm_max_rel_diff" in r:
            diffs += ", texc arm (qemu) %.1e" % r["arm_max_rel_diff"]
        lines.append(line + " %s |" % diffs)
    table = "\n".join(lines)
    print(table)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    bad = 0
    for r in results:
        checked = [("texc", r["max_rel_diff"])] + [(p, f["max_rel_diff"]) for p, f in r["peers"].items()]
        if "arm_max_rel_diff" in r:
            checked.append(("texc on arm", r["arm_max_rel_diff"]))
        for impl, d in checked:
            if not d <= args.tolerance:
                print("run_e2e: %s at %d threads: %s's output differs from ORT's by %.2g (> %g)" %
                      (r["model"], r["threads"], impl, d, args.tolerance), file=sys.stderr)
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
