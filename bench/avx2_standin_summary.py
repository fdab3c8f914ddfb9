#!/usr/bin/env python3
"""Summarizes bench/avx2_standin.sh's output: per variant and workload the median GFLOP/s over the
rounds, and for each texc variant the ratio to the best peer measured in the same round (median over
rounds) and its geomean over the workloads.

usage: bench/avx2_standin_summary.py OUT"""
import collections
import json
import math
import statistics
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rounds = collections.defaultdict(dict)  # (round, workload) -> variant -> GFLOP/s
    for line in open(sys.argv[1]):
        parts = line.split(' ', 3)
        if len(parts) < 4 or not parts[3].strip().startswith('{'):
            continue
        o = json.loads(parts[3])
        name = parts[1] if parts[1].startswith('texc') else parts[1] + ' ' + o['variant']
        if o.get('gflops'):
            rounds[(parts[0], parts[2])][name] = o['gflops']
    workloads, names = [], []
    for (r, w), v in rounds.items():
        if w not in workloads:
            workloads.append(w)
        for n in v:
            if n not in names:
                names.append(n)
    print('| | ' + ' | '.join(workloads) + ' |')
    print('|---|' + '---|' * len(workloads))
    for n in names:
        meds = [statistics.median([v[n] for (r, w), v in rounds.items() if w == wl and n in v] or [float('nan')])
                for wl in workloads]
        print(f'| {n} | ' + ' | '.join(f'{m:.1f}' for m in meds) + ' |')
    for t in [n for n in names if n.startswith('texc')]:
        ratios = []
        for wl in workloads:
            rs = [v[t] / max(x for n, x in v.items() if not n.startswith('texc'))
                  for (r, w), v in rounds.items() if w == wl and t in v and any(not n.startswith('texc') for n in v)]
            ratios.append(statistics.median(rs) if rs else float('nan'))
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f'| {t} / best peer, same round (median) | ' + ' | '.join(f'{x:.2f}' for x in ratios) +
              f' | geomean {geo:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
