#!/usr/bin/env python3
"""Compare tuners on one .tex template: runs `texc tune` for every tuner and seed into its own
records file and reports, per tuner, the trials each run needed to reach 95% of the best
throughput any run found (the issue's measure), and the best each reached.

usage: tools/tune_compare.py TEXC FILE.tex --trials N [--seeds 3] [--tuners xgb,ga,random]
                             [--target x86] [--out DIR] [-- extra texc tune flags]
A tuner written xgb:reg runs xgb with --objective reg; xgb+transfer runs xgb warm-started with
the records given by --transfer (repeatable: records of other shapes or ops, `texc tune
--transfer`); random@600 gives that tuner its own budget of 600 trials (a baseline that does not reach the mark within --trials then gets a count
instead of a lower bound). Existing records files in
DIR are resumed, so an interrupted comparison goes on where it stopped.

Two readings of the same runs are printed:
- as measured: a run's best-so-far is the GFLOP/s of its own measurements;
- pooled: a configuration's throughput is the median of every measurement of it in any run (a
  configuration several runs found is measured several times), and a run's best-so-far is the
  pooled throughput of the configurations it measured. One lucky measurement then neither sets the
  95% mark for every run nor lets a run reach it by luck: on a machine with 10-20% measurement
  noise this is the fairer count of trials.
`--markdown` prints the tables as markdown rows for docs/tuning.md.
"""
import argparse, json, os, statistics, subprocess, sys


def read_runs(path):
    """(index, GFLOP/s or 0 for a failed or invalid candidate) per record, in file order."""
    out = []
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        out.append((r.get("index"), r["gflops"] if r.get("status") == "ok" else 0.0))
    return out


def running_best(values):
    best, curve = 0.0, []
    for v in values:
        best = max(best, v)
        curve.append(best)
    return curve


def pooled_values(runs):
    """index -> median GFLOP/s of every successful measurement of it in any run."""
    seen = {}
    for rs in runs.values():
        for recs in rs:
            for index, g in recs:
                if g > 0:
                    seen.setdefault(index, []).append(g)
    return {i: statistics.median(v) for i, v in seen.items()}


def report(title, curves, budgets, markdown):
    overall = max(max(c) if c else 0 for cs in curves.values() for c in cs)
    shown_budgets = ", ".join(f"{t} {b}" for t, b in budgets.items())
    print(f"\n{title}: best {overall:.2f} GFLOP/s; trials to reach 95% of it (budgets: {shown_budgets}; '>' = not reached)")
    if markdown:
        print("| tuner | trials to 95% per seed | mean (unreached = budget) | best reached (GFLOP/s) |")
        print("|---|---|---|---|")
    else:
        print(f"{'tuner':12} {'per seed':30} {'mean':>8} {'best reached (GFLOP/s)':>24}")
    means = {}
    for tuner, cs in curves.items():
        trials = budgets[tuner]
        needed = [next((i + 1 for i, v in enumerate(c) if v >= 0.95 * overall), None) for c in cs]
        shown = " ".join(str(n) if n else f">{trials}" for n in needed)
        mean = sum(n if n else trials for n in needed) / len(needed)
        means[tuner] = mean
        reached = " ".join(f"{max(c) if c else 0:.1f}" for c in cs)
        if markdown:
            print(f"| {tuner} | {shown} | {mean:.1f} | {reached} |")
        else:
            print(f"{tuner:12} {shown:30} {mean:8.1f} {reached:>24}")
    return means


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
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--transfer", action="append", default=[],
                   help="records file for the tuners written NAME+transfer (repeatable)")
    p.add_argument("--no-run", action="store_true", help="only read the records files already in --out")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    runs = {}
    budgets = {}
    for spec in a.tuners.split(","):
        tuner, _, budget = spec.partition("@")
        budgets[tuner] = int(budget) if budget else a.trials
    for tuner, trials in budgets.items():
        name, _, objective = tuner.partition(":")
        name, plus, _ = name.partition("+")
        transfer = [f for path in a.transfer for f in ("--transfer", path)] if plus else []
        for seed in range(a.seeds):
            path = os.path.join(a.out, f"{tuner.replace(':', '-')}.seed{seed}.jsonl")
            cmd = [a.texc, "tune", a.tex, "--target", a.target, "--trials", str(trials), "--records", path,
                   "--tuner", name, "--seed", str(seed)] + (["--objective", objective] if objective else []) + transfer + extra
            if not a.no_run:
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if os.path.exists(path):
                runs.setdefault(tuner, []).append(read_runs(path)[:trials])
    name = f"{os.path.basename(a.tex)} on {a.target}"
    measured = report(f"{name}, as measured", {t: [running_best(g for _, g in recs) for recs in rs] for t, rs in runs.items()},
           budgets, a.markdown)
    pooled = pooled_values(runs)
    means = report(f"{name}, pooled medians", {t: [running_best(pooled.get(i, 0.0) for i, _ in recs) for recs in rs]
                                                for t, rs in runs.items()}, budgets, a.markdown)
    for reading, ms in (("as measured", measured), ("pooled", means)):
        for t, m in ms.items():
            if t != "random" and "random" in ms and m > 0:
                print(f"random / {t} ({reading}): {ms['random'] / m:.2f}x the trials")


if __name__ == "__main__":
    main()
