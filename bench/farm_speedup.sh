#!/usr/bin/env bash
# bench/farm_speedup.sh — the measurement farm's speed-up (docs/tuning.md, "A measurement farm"):
# the same tuning task (same file, shapes, seed, trial budget, --tuner random, so the same
# candidates) measured by 1 worker, then by 2 workers (each pinned to a core of its own with
# TEXC_NUM_THREADS=1), through a redis-server this script starts on a free port and stops; then
# the same task tuned locally (no farm, pinned to core 0). Prints the trials per minute of each,
# the ratio 2 workers / 1 worker, the tuner's own CPU time, the best configuration of each run, the
# per-configuration ratio of the farm's GFLOP/s to local tuning's (measurement noise), and the
# machine's load (uptime) before and after. ROUNDS > 1 alternates 1w/2w runs to even out drift.
#
# WAIT_S=S (environment) makes each worker wait S seconds with each job in hand besides measuring it
# (texc worker's test hook TEXC_FARM_TEST_DELAY_S), standing in for a measurement that waits on a
# device rather than a core: it shows the farm's own parallelism where the CPUs are busy elsewhere.
# COMPILE_ON=tuner (environment) tunes with --compile-on tuner: the tuner compiles each candidate and
# the workers only link, run, check and time the shipped objects (compare the workers' CPU time).
#
# usage: bench/farm_speedup.sh [TEXC] [TRIALS] [ROUNDS] [FILE -D ...]
#   default: build/tools/texc/texc, 64 trials, 1 round, examples/04_knobs.tex at 128^3 (no invalid
#   configuration, so every batch of 8 is 8 jobs; each trial 60-100 ms of a worker, uniform enough
#   that a batch splits evenly over 2 workers; the tuner itself spends about 1 ms a trial)
set -u
texc=$(realpath "${1:-build/tools/texc/texc}")
trials=${2:-64}
rounds=${3:-1}
shift $(($# < 3 ? $# : 3))
task=("$@")
[ ${#task[@]} -eq 0 ] && task=("$(dirname "$0")/../examples/04_knobs.tex" -D M=128 -D N=128 -D K=128)
command -v redis-server > /dev/null || { echo "no redis-server (Debian: apt-get install redis-server)"; exit 2; }
work=$(mktemp -d)
export TMPDIR=$work
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2> /dev/null; done
  sleep 0.3
  [ -f "$work/redis.pid" ] && kill "$(cat "$work/redis.pid")" 2> /dev/null
  sleep 0.2
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --daemonize yes \
  --pidfile "$work/redis.pid" --logfile "$work/redis.log"
for _ in $(seq 50); do [ "$(redis-cli -p "$port" ping 2> /dev/null)" = PONG ] && break; sleep 0.1; done
broker=redis://127.0.0.1:$port
cores=$(nproc)
pin() {  # pin CORE: the command prefix that runs on that core alone (nothing without taskset or with 1 core)
  if command -v taskset > /dev/null && [ "$cores" -ge 2 ]; then echo "taskset -c $1"; fi
}
tune=(tune "${task[@]}" --target x86 --trials "$trials" --tuner random --seed 11)

echo "task: texc ${tune[*]}${WAIT_S:+ (each worker also waits $WAIT_S s a job)}${COMPILE_ON:+ (--compile-on $COMPILE_ON)}"
echo "load before: $(uptime)"
# run_farm WORKERS KIND: tunes through WORKERS workers of device kind KIND; prints "wall_s tuner_cpu_s"
run_farm() {
  local n=$1 kind=$2 wp=()
  for i in $(seq 0 $((n - 1))); do
    $(pin $((i % cores))) env TEXC_NUM_THREADS=1 TEXC_FARM_TEST_DELAY_S="${WAIT_S:-0}" "$texc" worker --broker "$broker" --device "$kind" --target x86 \
      --name "w$i" 2> "$work/$kind-w$i.log" &
    wp+=($!)
    pids+=($!)
  done
  for _ in $(seq 100); do [ "$(redis-cli -p "$port" exists "texc:device:$kind")" = 1 ] && break; sleep 0.1; done
  /usr/bin/time -f "%e %U %S" -o "$work/$kind.time" "$texc" "${tune[@]}" --records "$work/$kind.jsonl" \
    --broker "$broker" --device "$kind" ${COMPILE_ON:+--compile-on "$COMPILE_ON"} > /dev/null 2> "$work/$kind.err" ||
    { echo "tune failed: $(tail -3 "$work/$kind.err")"; exit 1; }
  # the workers' CPU time, their measuring children's included (utime stime cutime cstime of /proc/PID/stat)
  local ticks=0
  for p in "${wp[@]}"; do
    ticks=$((ticks + $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$p/stat")))
  done
  for p in "${wp[@]}"; do kill -TERM "$p"; wait "$p"; done
  awk -v t=$ticks -v hz="$(getconf CLK_TCK)" '{ printf "%s %.2f %.2f\n", $1, $2 + $3, t / hz }' "$work/$kind.time"
}
results=()
for r in $(seq 1 "$rounds"); do
  for n in 1 2; do
    read -r wall cpu wcpu < <(run_farm $n "speedup-r$r-${n}w")
    echo "round $r, $n worker(s): $trials trials in $wall s = $(python3 -c "print(round($trials * 60 / $wall, 1))") trials/min" \
      "(the tuner's own CPU time: $cpu s; the workers': $wcpu s, $(python3 -c "print(round($wcpu / $wall, 2))") cores busy on average)"
    results+=("$n $wall")
  done
done
/usr/bin/time -f "%e %U %S" -o "$work/local.time" $(pin 0) env TEXC_NUM_THREADS=1 "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1
read -r lwall luser lsys < "$work/local.time"
echo "local tuning (no farm, core 0): $trials trials in $lwall s = $(python3 -c "print(round($trials * 60 / $lwall, 1))") trials/min" \
  "(CPU time $(python3 -c "print(round($luser + $lsys, 2))") s)"
echo "load after: $(uptime)"
python3 - "$work" "$rounds" "${results[@]}" << 'EOF'
import json, statistics, sys, glob, os
work, rounds, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
walls = {1: [], 2: []}
for r in runs:
    n, wall = r.split()
    walls[int(n)].append(float(wall))
print(f"speed-up, 2 workers / 1 worker (trials per minute): {sum(walls[1]) / sum(walls[2]):.2f}x "
      f"(1 worker {sum(walls[1]):.1f} s, 2 workers {sum(walls[2]):.1f} s over {rounds} round(s))")
def records(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        out[json.dumps(r["knobs"], sort_keys=True)] = r
    return out
local = records(os.path.join(work, "local.jsonl"))
def best(recs):
    ok = [r for r in recs.values() if r["status"] == "ok"]
    b = max(ok, key=lambda r: r["gflops"])
    return f'{b["gflops"]:.1f} GFLOP/s {json.dumps(b["knobs"], sort_keys=True)}'
print(f"local tuning's best: {best(local)}")
for path in sorted(glob.glob(os.path.join(work, "speedup-*.jsonl"))):
    farm = records(path)
    same = sorted(farm) == sorted(local)
    ratios = [farm[k]["gflops"] / local[k]["gflops"] for k in farm
              if k in local and farm[k]["status"] == "ok" and local[k]["status"] == "ok" and local[k]["gflops"] > 0]
    q = statistics.quantiles(ratios, n=4) if len(ratios) >= 4 else [min(ratios), statistics.median(ratios), max(ratios)]
    print(f"{os.path.basename(path)[:-6]}: best {best(farm)}; same configurations as local: {same}; "
          f"farm/local GFLOP/s per configuration: median {statistics.median(ratios):.2f}, "
          f"quartiles {q[0]:.2f}-{q[2]:.2f}, range {min(ratios):.2f}-{max(ratios):.2f} ({len(ratios)} ok)")
EOF
