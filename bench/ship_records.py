#!/usr/bin/env python3
"""Write the records texc ships (stdlib/records/x86.jsonl) from the benchmark's tuning records
(bench/records/x86-t1.jsonl, written by bench/tune_workloads.py): texc compile and run use them,
without --records, for ops of their shapes on a machine of their kind (docs/tuning.md, "Shipped
records").
    bench/ship_records.py            # rewrite stdlib/records/x86.jsonl
Kept: the "ok" records of machines the record names (its "machine", or an LLVM CPU in its device,
"x86 / AMD EPYC (znver5)"); per workload and machine the BEST configurations by the median of
their measurements, with every measurement of each; only configurations whose parallel knobs
(*_PAR) are on, since the records were measured at 1 thread and users run on every core (a
parallel loop costs little at 1 thread; a serial one loses every other core). The cost model's
feature vectors are left out (they teach `texc tune --transfer`, which reads bench/records).
"""
import argparse, json, os, statistics, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def names_machine(r):
    if isinstance(r.get("machine"), dict) and r["machine"].get("cpu"):
        return True
    d = r.get("device", "")
    return d.startswith("x86 / ") and d.endswith(")") and " (" in d


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--input", default=os.path.join(ROOT, "bench", "records", "x86-t1.jsonl"))
    p.add_argument("--output", default=os.path.join(ROOT, "stdlib", "records", "x86.jsonl"))
    p.add_argument("--best", type=int, default=3, help="configurations kept per workload and machine")
    a = p.parse_args()
    groups = {}  # (op, shapes, device) -> config key -> records
    for line in open(a.input):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("status") != "ok" or r.get("target") != "x86" or not names_machine(r):
            continue
        if not r.get("median_ms", 0) > 0:
            continue
        if any(k.endswith("_PAR") and v == 0 for k, v in r["knobs"].items()):
            continue
        r.pop("features", None)
        workload = (r["op"], json.dumps(r["shapes"], sort_keys=True), r["device"])
        config = json.dumps(r["knobs"], sort_keys=True)
        groups.setdefault(workload, {}).setdefault(config, []).append(r)
    out = []
    for workload in sorted(groups):
        configs = groups[workload]
        ranked = sorted(configs.values(), key=lambda rs: statistics.median(x["median_ms"] for x in rs))
        for rs in ranked[:a.best]:
            out += rs
    tmp = a.output + ".part"
    with open(tmp, "w") as f:
        for r in out:
            f.write(json.dumps(r) + "\n")
    os.replace(tmp, a.output)
    print(f"{a.output}: {len(out)} records of {len(groups)} workload/machine pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
