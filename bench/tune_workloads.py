#!/usr/bin/env python3
"""Tune the stdlib's x86 templates on the benchmark workloads (bench/texc_workloads/) with
`texc tune`, appending to one records file per thread count: bench/records/x86-t<T>.jsonl.

    bench/tune_workloads.py                       # every workload, 1 thread
    bench/tune_workloads.py --workloads G6,D1 --threads 2 --cpus 0,1
    bench/tune_workloads.py --mcpu x86-64-v3      # the AVX2 machine kind, on a host with AVX-512
    bench/tune_workloads.py --summary             # a markdown table of the records: trials, best, knobs

Re-running resumes: `texc tune` counts the records already in the file that were measured on this
CPU and measures only what is missing (another CPU's records only teach its cost model). Then the
5 best configurations of each workload are measured a second time (`--remeasure 5`).
bench_texc's `tuned` variant (bench/run_bench.py's "texc tuned" columns) reads from these files
the best valid configuration of each workload, by the median of its measurements (as
`texc run --records` picks it), not by one lucky figure.
"""
import argparse, json, os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# trials and early stopping per kind: the spaces have 1920 (matmul), 216 (conv2d: nn.conv2d_blocked) and 120
# (depthwise) points.
BUDGET = {"G": (100, 50), "C": (80, 40), "D": (60, 30)}


def names(spec):
    every = [f"G{i}" for i in range(1, 7)] + [f"C{i}" for i in range(1, 13)] + [f"D{i}" for i in range(1, 10)]
    if spec == "all":
        return every
    out = []
    for part in spec.split(","):
        if part == "gemm":
            out += [w for w in every if w[0] == "G"]
        elif part == "conv":
            out += [w for w in every if w[0] == "C"]
        elif part == "dwconv":
            out += [w for w in every if w[0] == "D"]
        else:
            out.append(part)
    return out


def summary(path, workloads):
    """Per workload and device: records, failed ones, the best GFLOP/s (texc's FLOP count) and its knobs."""
    by = {}
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        by.setdefault(r["op"], {}).setdefault(r.get("device", ""), []).append(r)
    print("| workload | device | records | not ok | best GFLOP/s (trial) | its knobs |")
    print("|---|---|---|---|---|---|")
    for w in workloads:
        for device, rs in sorted(by.get(w, {}).items()):
            ok = [r for r in rs if r["status"] == "ok"]
            cpu = device.split(" / ", 1)[-1]
            if not ok:
                print(f"| {w} | {cpu} | {len(rs)} | {len(rs)} | | |")
                continue
            best = max(ok, key=lambda r: r["gflops"])
            knobs = " ".join(f"{k}={v}" for k, v in best["knobs"].items())
            print(f"| {w} | {cpu} | {len(rs)} | {len(rs) - len(ok)} | {best['gflops']:.1f} ({best['trial']}) | {knobs} |")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--texc", default=os.path.join(ROOT, "build", "tools", "texc", "texc"))
    p.add_argument("--workloads", default="all", help="comma list of names or gemm,conv,dwconv")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--cpus", default="", help="pin the tuner to these CPUs (taskset -c)")
    p.add_argument("--mcpu", default="", help="tune for this LLVM CPU (texc tune --mcpu), e.g. x86-64-v3: the AVX2 "
                   "machine kind on a host that has more; the records name it")
    p.add_argument("--trials-scale", type=float, default=1.0)
    p.add_argument("--remeasure", type=int, default=5,
                   help="then measure the N best configurations a second time (texc tune --remeasure; 0: no)")
    p.add_argument("--summary", action="store_true", help="only print the records' table")
    a = p.parse_args()
    records = os.path.join(ROOT, "bench", "records", f"x86-t{a.threads}.jsonl")
    if a.summary:
        return summary(records, names(a.workloads))
    env = dict(os.environ, TEXC_NUM_THREADS=str(a.threads))
    for w in names(a.workloads):
        trials, early = BUDGET[w[0]]
        cmd = [a.texc, "tune", os.path.join(ROOT, "bench", "texc_workloads", f"{w}.tex"), "--target", "x86",
               "--trials", str(int(trials * a.trials_scale)), "--early-stopping", str(early),
               "--records", records, "--seed", "1"]
        if a.remeasure > 0:
            cmd += ["--remeasure", str(a.remeasure)]
        if a.mcpu:
            cmd += ["--mcpu", a.mcpu]
        if a.cpus:
            cmd = ["taskset", "-c", a.cpus] + cmd
        t0 = time.time()
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        print(f"{w}: {r.stdout.strip()}  [{time.time() - t0:.0f} s, exit {r.returncode}]", flush=True)
        if r.returncode != 0:
            return r.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
