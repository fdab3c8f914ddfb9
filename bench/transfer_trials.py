#!/usr/bin/env python3
"""How few trials a re-tune on a new machine kind takes with another machine's records as its
prior (`texc tune --transfer`): for each workload, `texc tune` for --mcpu CPU from scratch and with
--transfer of the records of the other machines in bench/records/x86-t1.jsonl (those measured on
CPU itself left out), and the trials each needs to come within 5% of the best that CPU's own
records reach (bench/tune_workloads.py's full run).
    bench/transfer_trials.py --mcpu x86-64-v3 --workloads G3,G5,C6,C9
"""
import argparse, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def records(path):
    out = []
    for line in open(path):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--texc", default=os.path.join(ROOT, "build", "tools", "texc", "texc"))
    p.add_argument("--mcpu", default="x86-64-v3")
    p.add_argument("--workloads", default="G3,G5,C6,C9")
    p.add_argument("--trials", type=int, default=40)
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    every = records(os.path.join(ROOT, "bench", "records", "x86-t1.jsonl"))
    mine = f"({a.mcpu})"
    tmp = tempfile.mkdtemp()
    transfer = os.path.join(tmp, "others.jsonl")
    with open(transfer, "w") as f:
        for r in every:
            if not r.get("device", "").endswith(mine):
                f.write(json.dumps(r) + "\n")
    env = dict(os.environ, TEXC_NUM_THREADS="1")
    print(f"| workload | best of {a.mcpu}'s own records | trials to 95% from scratch | with --transfer | "
          f"best after {a.trials} from scratch | with --transfer |")
    print("|---|---|---|---|---|---|")
    for w in a.workloads.split(","):
        own = [r["gflops"] for r in every if r["op"] == w and r.get("device", "").endswith(mine) and r["status"] == "ok"]
        if not own:
            print(f"| {w} | no records of {a.mcpu} | | | | |")
            continue
        target = 0.95 * max(own)
        row = [w, f"{max(own):.1f}"]
        bests = []
        for variant in ("scratch", "transfer"):
            out = os.path.join(tmp, f"{w}-{variant}.jsonl")
            cmd = [a.texc, "tune", os.path.join(ROOT, "bench", "texc_workloads", f"{w}.tex"), "--target", "x86",
                   "--mcpu", a.mcpu, "--trials", str(a.trials), "--records", out, "--seed", str(a.seed)]
            if variant == "transfer":
                cmd += ["--transfer", transfer]
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            reached, best = None, 0.0
            for r in records(out):
                if r["status"] == "ok":
                    best = max(best, r["gflops"])
                    if reached is None and r["gflops"] >= target:
                        reached = r["trial"]
            row.append(str(reached) if reached else f"not in {a.trials}")
            bests.append(f"{best:.1f}")
        print("| " + " | ".join(row + bests) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
