#!/usr/bin/env python3
"""Compare tuners on one .tex template: runs `texc tune` for every tuner and seed into its own
records file and reports, per tuner, the trials each run needed to reach 95% of the best
throughput any run found (the issue's measure), and the best each reached.

usage: tools/tune_compare.py TEXC FILE.tex --trials N [--seeds 3] [--tuners xgb,ga,random]
                             [--target x86] [--out DIR] [-- extra texc tune flags]
A tuner written xgb:reg runs xgb with --objective reg (xgb is xgb:rank). Existing records files in
DIR are resumed, so an interrupted comparison goes on where it stopped.
"""
import argparse, json, os, subprocess, sys


def best_curve(path):
    best, curve = 0.0, []
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("status") == "ok":
            best = max(best, r["gflops"])
        curve.append(best)
    return curve


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    p = argparse.ArgumentParser()
    p.add_argument("texc")
    p.add_argument("tex")
    p.add_argument("--trials", type=int, required=True)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--tuners", default="xgb,ga,random")
    p.add_argument("--target", default="x86")
    p.add_argument("--out", default="tune_compare")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    runs = {}
    for tuner in a.tuners.split(","):
        name, _, objective = tuner.partition(":")
        for seed in range(a.seeds):
            path = os.path.join(a.out, f"{tuner.replace(':', '-')}.seed{seed}.jsonl")
            cmd = [a.texc, "tune", a.tex, "--target", a.target, "--trials", str(a.trials), "--records", path,
                   "--tuner", name, "--seed", str(seed)] + (["--objective", objective] if objective else []) + extra
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            runs.setdefault(tuner, []).append(best_curve(path))
    overall = max(max(c) if c else 0 for cs in runs.values() for c in cs)
    print(f"{os.path.basename(a.tex)} on {a.target}: best {overall:.2f} GFLOP/s over all runs; "
          f"trials to reach 95% of it (budget {a.trials}; '>' = not reached)")
    print(f"{'tuner':12} {'per seed':30} {'mean':>8} {'best reached (GFLOP/s)':>24}")
    for tuner, curves in runs.items():
        needed = []
        for c in curves:
            hit = next((i + 1 for i, v in enumerate(c) if v >= 0.95 * overall), None)
            needed.append(hit)
        shown = " ".join(str(n) if n else f">{a.trials}" for n in needed)
        mean = sum(n if n else a.trials for n in needed) / len(needed)
        reached = " ".join(f"{max(c) if c else 0:.1f}" for c in curves)
        print(f"{tuner:12} {shown:30} {mean:8.1f} {reached:>24}")


if __name__ == "__main__":
    main()
