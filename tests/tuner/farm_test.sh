#!/usr/bin/env bash
# The measurement farm end to end (texc worker, texc tune --broker; docs/tuning.md) against a real
# redis-server that this script starts on 127.0.0.1 on a free port (no persistence, a temporary
# folder) and stops. Skipped (exit 77) without redis-server / redis-cli.
#   same     2 workers give the same configurations as local tuning of the same seed and trials,
#            the same device in the records, one record per configuration; the progress line of
#            each batch says the farm's state of the kind
#   kill     a worker killed (SIGKILL) with a job in hand: its job is reclaimed by another worker
#            after the visibility timeout; nothing lost, nothing measured into two records
#   reject   malformed, oversized and other-kind jobs are rejected, acknowledged and counted; a
#            worker never reads another kind's stream; SIGTERM stops a worker cleanly
#   restart  the broker (append-only file on) shut down and restarted mid-tune: the tuner and the
#            worker reconnect, nothing is lost, nothing is measured into two records
#   auth     a broker with a password: workers and the tuner read it from --password-file; a
#            wrong one exits 2 saying the broker refused; a password in the URL is refused (exit 1);
#            rediss:// (TLS) is refused saying how to reach a TLS broker (exit 1)
#   imports  an op whose files come through -I, a quoted import and the standard library, measured
#            by workers in another folder with an empty standard library of their own: the job
#            ships the files (paths relative to their common folder), the records are local
#            tuning's; an import by an absolute path is refused by the tuner (exit 1)
#   status   texc farm status (--json and text) through a worker killed with a job in hand and the
#            worker that reclaims it: workers alive, jobs queued and in flight, done, reclaimed,
#            results in the last minute; a kind with a stream and no worker; exit 2 without a broker
#   compiled texc tune --compile-on tuner: each job ships its candidate as an x86 object, which 2
#            workers only link, run, check and time: the same configurations and statuses as local
#            tuning; a worker refuses an artefact of another kind or for a CPU it is not, and a job
#            whose object takes it past --max-job-bytes; one arm task through an arm worker (qemu);
#            --compile-on tuner for interp is refused
#   network  a network (examples/10_network.tex, a graph of 6 kernels and 6 tasks) tuned through 2
#            workers: each job names its kernel and task (version 3), the records carry their task
#            and are local tuning's (tasks, configurations, statuses), texc run --records uses them
#            and passes; the same with --compile-on tuner (each kernel shipped as an object); a
#            worker whose graph makes the kernel another task stores an error, not a measurement
#   compilefail  --compile-on tuner where some candidates' compile crashes on the tuner's side
#            (TEXC_TUNE_TEST_FAULT=compile-crash@...): each is an "error" record saying so, published
#            as no job, and the farm measures the others as local tuning does
#   cuda     texc tune --target cuda --compile-on tuner through a cuda worker on the recording
#            stand-in for libcuda (tests/e2e/fake_libcuda.c: no GPU here, it computes nothing, so
#            every record is "wrong", as local tuning's through it): each job ships its candidate's
#            PTX for the architecture the worker's device registered, with its launch; the worker
#            loads exactly that PTX and launches it with that grid and block, compiling nothing;
#            ptxas (when installed) assembles every shipped PTX; PTX for a newer architecture than
#            the worker's device is refused. What runs the PTX on a GPU is not run here.
#   vdla     texc tune --target vdla --compile-on tuner through 2 vdla workers: each job ships its
#            candidate's VDLA program (a .vdla file) for the tuner's configuration; the workers
#            simulate it, compiling nothing: local tuning's configurations, statuses and cycles; a
#            program for another configuration, or bytes that are not a program, are refused
# usage: farm_test.sh TEXC EXAMPLES_04_KNOBS.tex SMALL_MATMUL.tex same|kill|reject|restart|auth|imports|status|compiled|network|compilefail|cuda|vdla [FAKE_LIBCUDA_DIR]
set -u
texc=$1
knobs_tex=$2
small_tex=$3
part=$4
command -v redis-server > /dev/null && command -v redis-cli > /dev/null || { echo "SKIP: no redis-server"; exit 77; }
work=$(mktemp -d)
export TMPDIR=$work  # the workers' folders of job sources, even of a worker killed with SIGKILL
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2> /dev/null; done
  sleep 0.3
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null; done
  [ -f "$work/redis.pid" ] && kill "$(cat "$work/redis.pid")" 2> /dev/null
  sleep 0.2
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
failures=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failures=$((failures + 1)); }
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
auth=()
if [ "$part" = auth ]; then
  echo "s3cret-$RANDOM" > "$work/password"
  echo "wrong" > "$work/wrong"
  auth=(--requirepass "$(cat "$work/password")")
fi
appendonly=no
[ "$part" = restart ] && appendonly=yes
start_redis() {
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly $appendonly --appendfsync always --dir "$work" \
    --daemonize yes --pidfile "$work/redis.pid" --logfile "$work/redis.log" "${auth[@]}" ||
    { echo "FAIL: redis-server did not start"; exit 1; }
}
start_redis
rcli() { if [ "$part" = auth ]; then REDISCLI_AUTH=$(cat "$work/password") redis-cli -p "$port" "$@"; else redis-cli -p "$port" "$@"; fi; }
for _ in $(seq 50); do [ "$(rcli ping 2> /dev/null)" = PONG ] && break; sleep 0.1; done
broker=redis://127.0.0.1:$port

# start_worker NAME KIND [ENV=VALUE...] -- [worker flags]: a worker in the background, its log in $work/NAME.log
start_worker() {
  local name=$1 kind=$2
  shift 2
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  env "${envs[@]}" "$texc" worker --broker "$broker" --device "$kind" --target x86 --name "$name" "$@" \
    2> "$work/$name.log" &
  pids+=($!)
  eval "pid_$name=$!"
}

# configurations FILE: the sorted knob settings of its records, one a line
configurations() {
  python3 -c '
import json, sys
for k in sorted(json.dumps(json.loads(l)["knobs"], sort_keys=True) for l in open(sys.argv[1])): print(k)' "$1"
}
no_duplicates() { [ -z "$(configurations "$1" | uniq -d)" ]; }
# statuses FILE: the sorted (knob settings, status) of its records
statuses() {
  python3 -c '
import json, sys
for k in sorted(json.dumps([json.loads(l)["knobs"], json.loads(l)["status"]], sort_keys=True) for l in open(sys.argv[1])): print(k)' "$1"
}
devices() { python3 -c 'import json, sys; print(*sorted({json.loads(l)["device"] for l in open(sys.argv[1])}))' "$1"; }
# A worker deletes a job from the stream once done: to see what was published, `monitor` records
# the broker's commands from now on into $work/monitor.txt, and `published_jobs KIND` prints the
# job of each XADD to KIND's stream, one JSON a line.
monitor() {
  rcli monitor > "$work/monitor.txt" &
  pids+=($!)
  sleep 0.3
}
published_jobs() {
  python3 -c '
import codecs, re, sys
for line in open(sys.argv[1], encoding="latin-1"):
    args = [codecs.decode(a, "unicode_escape").encode("latin-1").decode("utf-8")
            for a in re.findall(r"\"((?:[^\"\\]|\\.)*)\"", line)]
    if len(args) >= 7 and args[0] == "XADD" and args[1] == "texc:jobs:" + sys.argv[2] and args[5] == "job":
        print(args[6])' "$work/monitor.txt" "$1"
}

case $part in
same)
  tune=(tune "$knobs_tex" --target x86 -D M=64 -D N=64 -D K=64 --trials 20 --tuner random --seed 7)
  "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1 || bad "local tuning"
  start_worker w1 x86-test
  start_worker w2 x86-test
  # both alive before the first batch, whose progress line counts them (a loaded machine starts them late)
  for _ in $(seq 300); do [ "$(rcli zcard texc:alive:x86-test)" = 2 ] && break; sleep 0.1; done
  if "$texc" "${tune[@]}" --records "$work/farm.jsonl" --broker "$broker" --device x86-test > "$work/tune.out" 2> "$work/tune.err"; then
    ok "texc tune --broker exits 0"
  else
    bad "texc tune --broker: $(cat "$work/tune.err")"
  fi
  check "20 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 20 ]
  check "the same configurations as local tuning" diff <(configurations "$work/local.jsonl") <(configurations "$work/farm.jsonl")
  check "no configuration twice" no_duplicates "$work/farm.jsonl"
  check "the same device as local tuning" [ "$(devices "$work/local.jsonl")" = "$(devices "$work/farm.jsonl")" ]
  check "both workers measured" [ "$(rcli get texc:done:x86-test)" -ge 2 ]
  check "the alive set: the 2 workers" [ "$(rcli zrange texc:alive:x86-test 0 -1 | sort | tr '\n' ' ')" = "w1 w2 " ]
  check "a progress line per batch with the farm's state of the kind" \
    [ "$(grep -c '^tune matmul_tuned: .* trials .* | farm x86-test: 2 worker(s), [0-9]* queued, [0-9]* in flight, [0-9]* done (0 failed, 0 rejected), [0-9]* in the last minute$' "$work/tune.err")" -eq 4 ]
  # a second tune of the same seed: every job's result is already stored, nothing is measured again
  done_before=$(rcli get texc:done:x86-test)
  "$texc" "${tune[@]}" --records "$work/again.jsonl" --broker "$broker" --device x86-test > /dev/null 2>&1
  check "results reused by job id" [ "$(rcli get texc:done:x86-test)" = "$done_before" ]
  check "the reused records are the same configurations" diff <(configurations "$work/farm.jsonl") <(configurations "$work/again.jsonl")
  ;;
kill)
  # The victim sleeps 30 s with each job in hand; killed, its job must go to the other worker.
  start_worker victim x86-kill TEXC_FARM_TEST_DELAY_S=30 -- --visibility 2
  "$texc" tune "$small_tex" --target x86 --trials 12 --tuner random --seed 5 --records "$work/farm.jsonl" \
    --broker "$broker" --device x86-kill > "$work/tune.out" 2> "$work/tune.err" &
  tune_pid=$!
  pids+=($tune_pid)
  for _ in $(seq 100); do
    [ "$(rcli xpending texc:jobs:x86-kill workers | head -1)" -ge 1 ] 2> /dev/null && break
    sleep 0.1
  done
  check "the victim holds a job" grep -q victim <(rcli xpending texc:jobs:x86-kill workers - + 10)
  kill -9 "$pid_victim"
  start_worker rescuer x86-kill -- --visibility 2
  for _ in $(seq 400); do kill -0 $tune_pid 2> /dev/null || break; sleep 0.1; done
  if kill -0 $tune_pid 2> /dev/null; then bad "texc tune did not finish in 40 s"; kill -9 $tune_pid; fi
  wait $tune_pid
  check "texc tune exits 0" [ $? -eq 0 ]
  check "12 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 12 ]
  check "no configuration twice" no_duplicates "$work/farm.jsonl"
  check "every record has a status" python3 -c '
import json, sys
assert all(json.loads(l)["status"] in ("ok", "invalid") for l in open(sys.argv[1]))' "$work/farm.jsonl"
  check "the rescuer reclaimed the victim's job" grep -q "reclaimed job" "$work/rescuer.log"
  check "nothing left pending" [ "$(rcli xpending texc:jobs:x86-kill workers | head -1)" -eq 0 ]
  ;;
reject)
  start_worker wa kind-a -- --max-job-bytes 2000
  for _ in $(seq 50); do [ "$(rcli exists texc:device:kind-a)" = 1 ] && break; sleep 0.1; done
  rcli xgroup create texc:jobs:kind-b workers 0 mkstream > /dev/null
  rcli xadd texc:jobs:kind-b '*' id 0123 job '{"v": 1}' > /dev/null   # another kind's: never taken
  rcli xadd texc:jobs:kind-a '*' id 1 job 'not json' > /dev/null
  rcli xadd texc:jobs:kind-a '*' nothing here > /dev/null
  rcli xadd texc:jobs:kind-a '*' id 2 job "$(python3 -c 'print("x" * 3000)')" > /dev/null
  # well-formed but for kind-b, put on kind-a's stream
  job() {  # job DEVICE FILES_JSON: a well-formed job but for its device and files
    echo '{"v": 2, "device": "'"$1"'", "main": "a.tex", "files": '"$2"', "include_dirs": [], "stdlib": "", "args": [], "op": "mm", "knobs": {}, "seed": "0", "repeat": 5, "timeout_s": 10}'
  }
  rcli xadd texc:jobs:kind-a '*' id 3 job "$(job kind-b '{"a.tex": ""}')" > /dev/null
  # well-formed, but its id is not its content hash
  rcli xadd texc:jobs:kind-a '*' id 4 job "$(job kind-a '{"a.tex": ""}')" > /dev/null
  # sources that would make the worker read its own files: a path out of its folder, imports that look out of it
  rcli xadd texc:jobs:kind-a '*' id 5 job "$(job kind-a '{"a.tex": "", "../b.tex": ""}')" > /dev/null
  rcli xadd texc:jobs:kind-a '*' id 6 job "$(job kind-a '{"a.tex": "import \"../../etc/x.tex\"\n"}')" > /dev/null
  rcli xadd texc:jobs:kind-a '*' id 7 job "$(job kind-a '{"a.tex": "import \"/etc/x.tex\"\n"}')" > /dev/null
  for _ in $(seq 100); do [ "$(rcli get texc:rejected:kind-a)" = 8 ] && break; sleep 0.1; done
  check "8 jobs rejected and counted" [ "$(rcli get texc:rejected:kind-a)" = 8 ]
  check "each rejection logged with its reason" [ "$(grep -c 'rejected job' "$work/wa.log")" -eq 8 ]
  check "the malformed one says why" grep -q "not a well-formed job" "$work/wa.log"
  check "the oversized one says why" grep -q "more than the limit of 2000" "$work/wa.log"
  check "the other kind's says why" grep -q "a job of device kind 'kind-b'" "$work/wa.log"
  check "the forged id says why" grep -q "is not the hash of its content" "$work/wa.log"
  check "a path out of the folder says why" grep -q "a file path '../b.tex' that is not a plain relative path" "$work/wa.log"
  check "an import out of the folder says why" grep -q 'imports "../../etc/x.tex", which looks outside the shipped files' "$work/wa.log"
  check "an absolute import says why" grep -q 'imports "/etc/x.tex" by an absolute path' "$work/wa.log"
  check "rejected jobs are acknowledged" [ "$(rcli xpending texc:jobs:kind-a workers | head -1)" -eq 0 ]
  check "nothing was measured" [ "$(rcli get texc:done:kind-a)" = "" ]
  check "kind-b's job was never delivered" [ "$(rcli xpending texc:jobs:kind-b workers | head -1)" -eq 0 ]
  check "kind-b's job is still queued" [ "$(rcli xinfo groups texc:jobs:kind-b | grep -A1 last-delivered-id | tail -1)" = "0-0" ]
  kill -TERM "$pid_wa"
  wait "$pid_wa"
  check "SIGTERM: the worker exits 0" [ $? -eq 0 ]
  check "SIGTERM: the worker's heartbeat key is gone" [ "$(rcli exists texc:worker:kind-a:wa)" = 0 ]
  check "SIGTERM: the worker is out of the alive set" [ "$(rcli zscore texc:alive:kind-a wa)" = "" ]
  ;;
restart)
  start_worker wr x86-restart TEXC_FARM_TEST_DELAY_S=0.3 -- --visibility 3
  "$texc" tune "$small_tex" --target x86 --trials 16 --tuner random --seed 9 --records "$work/farm.jsonl" \
    --broker "$broker" --device x86-restart > "$work/tune.out" 2> "$work/tune.err" &
  tune_pid=$!
  pids+=($tune_pid)
  for _ in $(seq 100); do [ "$(rcli get texc:done:x86-restart)" -ge 3 ] 2> /dev/null && break; sleep 0.1; done
  rcli shutdown > /dev/null 2>&1  # the append-only file is flushed
  for _ in $(seq 50); do rcli ping > /dev/null 2>&1 || break; sleep 0.1; done
  sleep 1
  start_redis
  for _ in $(seq 400); do kill -0 $tune_pid 2> /dev/null || break; sleep 0.1; done
  if kill -0 $tune_pid 2> /dev/null; then bad "texc tune did not finish in 40 s after the restart"; kill -9 $tune_pid; fi
  wait $tune_pid
  check "texc tune exits 0 across the restart" [ $? -eq 0 ]
  check "16 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 16 ]
  check "no configuration twice" no_duplicates "$work/farm.jsonl"
  check "the worker is still measuring" kill -0 "$pid_wr"
  check "nothing left pending" [ "$(rcli xpending texc:jobs:x86-restart workers | head -1)" -eq 0 ]
  ;;
auth)
  tune=(tune "$small_tex" --target x86 --trials 6 --tuner random --seed 2 --broker "$broker" --device x86-auth)
  start_worker wp x86-auth -- --password-file "$work/password"
  "$texc" "${tune[@]}" --records "$work/wrong.jsonl" --password-file "$work/wrong" > /dev/null 2> "$work/wrong.err"
  check "a wrong password: exit 2" [ $? -eq 2 ]
  check "... saying the broker refused it" grep -q "refused AUTH" "$work/wrong.err"
  "$texc" "${tune[@]}" --records "$work/none.jsonl" > /dev/null 2> "$work/none.err" < /dev/null &
  none_pid=$!
  pids+=($none_pid)
  for _ in $(seq 50); do kill -0 $none_pid 2> /dev/null || break; sleep 0.1; done
  wait $none_pid
  check "no password: exit 2" [ $? -eq 2 ]
  "$texc" "${tune[@]/$broker/redis://:pw@127.0.0.1:$port}" --records "$work/url.jsonl" > /dev/null 2> "$work/url.err"
  check "a password in the URL: exit 1" [ $? -eq 1 ]
  check "... saying to use --password-file" grep -q "give it with --password-file" "$work/url.err"
  "$texc" "${tune[@]}" --records "$work/farm.jsonl" --password-file "$work/password" > /dev/null 2> "$work/tune.err"
  check "--password-file: texc tune exits 0" [ $? -eq 0 ]
  check "6 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 6 ]
  check "the password is on no command line" bash -c "! grep -q '$(cat "$work/password")' /proc/$pid_wp/cmdline"
  "$texc" "${tune[@]/$broker/rediss://127.0.0.1:$port}" --records "$work/tls.jsonl" > /dev/null 2> "$work/tls.err"
  check "rediss:// (TLS): exit 1" [ $? -eq 1 ]
  check "... saying how to reach a TLS broker" grep -q "rediss:// is not supported: see docs/tuning.md for TLS" "$work/tls.err"
  # A broker off loopback: refused unless --insecure-broker (texc speaks plain TCP: a tunnel's local end is on loopback)
  "$texc" "${tune[@]/$broker/redis://192.0.2.1:$port}" --records "$work/far.jsonl" > /dev/null 2> "$work/far.err"
  check "a broker off loopback: exit 1" [ $? -eq 1 ]
  check "... saying to use a tunnel or --insecure-broker" grep -q "is not on this machine's loopback.*ssh -N -L 6380:127.0.0.1:6380 BROKER_HOST.*--insecure-broker" "$work/far.err"
  "$texc" worker --broker redis://192.0.2.1:$port --device x86-auth > /dev/null 2> "$work/far-worker.err"
  check "... texc worker too: exit 1" [ $? -eq 1 ]
  "$texc" farm status --broker redis://192.0.2.1:$port > /dev/null 2> "$work/far-status.err"
  check "... texc farm status too: exit 1" [ $? -eq 1 ]
  "$texc" farm status --broker redis://localhost:$port --password-file "$work/password" > /dev/null 2> "$work/localhost.err"
  check "localhost is loopback" [ $? -eq 0 ]
  here=$(hostname -I 2> /dev/null | tr ' ' '\n' | grep -v '^127\.' | grep -m1 '\.')
  if [ -n "$here" ]; then  # redis listens on 127.0.0.1 only: --insecure-broker lets texc try, and it cannot connect
    "$texc" farm status --broker "redis://$here:$port" --insecure-broker > /dev/null 2> "$work/insecure.err"
    check "--insecure-broker: texc connects in plain TCP (here: refused, exit 2)" [ $? -eq 2 ]
    check "... saying it cannot connect" grep -q "cannot connect to the broker at redis://$here:$port" "$work/insecure.err"
  fi
  ;;
imports)
  src=$(dirname "$small_tex")/farm_imports
  tune=(tune "$src/main.tex" -I "$src/lib" --target x86 --trials 8 --tuner random --seed 3)
  "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1 || bad "local tuning"
  # The tuner first, with the kind registered by hand: its first job stays in the stream to be read.
  rcli hset texc:device:x86-imports device "x86 / registered by farm_test.sh" > /dev/null
  "$texc" "${tune[@]}" --records "$work/farm.jsonl" --broker "$broker" --device x86-imports > /dev/null 2> "$work/tune.err" &
  tune_pid=$!
  pids+=($tune_pid)
  for _ in $(seq 100); do [ "$(rcli xlen texc:jobs:x86-imports)" -ge 1 ] && break; sleep 0.1; done
  rcli --raw xrange texc:jobs:x86-imports - + count 1 > "$work/job.txt"
  mkdir -p "$work/elsewhere" "$work/no-stdlib"
  cd "$work/elsewhere"  # the workers' folder: none of the sources is here, and their stdlib is empty
  start_worker wi1 x86-imports TEXC_STDLIB="$work/no-stdlib"
  start_worker wi2 x86-imports TEXC_STDLIB="$work/no-stdlib"
  cd - > /dev/null
  for _ in $(seq 400); do kill -0 $tune_pid 2> /dev/null || break; sleep 0.1; done
  wait $tune_pid
  check "texc tune --broker exits 0" [ $? -eq 0 ]
  check "8 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 8 ]
  check "every record ok (the workers compiled the shipped files)" python3 -c '
import json, sys
assert all(json.loads(l)["status"] == "ok" for l in open(sys.argv[1]))' "$work/farm.jsonl"
  check "the same configurations as local tuning" diff <(configurations "$work/local.jsonl") <(configurations "$work/farm.jsonl")
  check "a job ships the 4 files, -I and the stdlib, relative to their common folder" python3 -c '
import json, sys
job = json.loads(sys.stdin.read().splitlines()[4])
assert job["main"] == "tests/tuner/farm_imports/main.tex", job["main"]
assert sorted(job["files"]) == ["stdlib/tensor/transpose.tex", "tests/tuner/farm_imports/lib/tiles/mm.tex",
                                "tests/tuner/farm_imports/lib/tiles/sizes.tex", "tests/tuner/farm_imports/main.tex"], sorted(job["files"])
assert job["include_dirs"] == ["tests/tuner/farm_imports/lib"], job["include_dirs"]
assert job["stdlib"] == "stdlib", job["stdlib"]' < "$work/job.txt"
  # The same workers, another task, then the first again: each worker compiles a task's sources once
  # and keeps them for its next jobs; a job of another task must not be measured as the last one's.
  "$texc" tune "$small_tex" --target x86 --trials 8 --tuner random --seed 3 --records "$work/other.jsonl" \
    --broker "$broker" --device x86-imports > /dev/null 2>&1
  "$texc" tune "$src/main.tex" -I "$src/lib" --target x86 --trials 8 --tuner random --seed 4 --records "$work/again.jsonl" \
    --broker "$broker" --device x86-imports > /dev/null 2>&1
  check "another task through the same workers: its own op measured" python3 -c '
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
assert len(records) == 8 and all(r["op"] == "mm" and r["status"] in ("ok", "invalid") for r in records), records' "$work/other.jsonl"
  check "... then the first task again: every record ok" python3 -c '
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
assert len(records) == 8 and all(r["op"] == "mm_bt" and r["status"] == "ok" for r in records), records' "$work/again.jsonl"
  printf 'import "%s"\nop add1(A: f32[M, K]) -> B {\n  compute { B[i, j] = A[i, j] + 1.0 }\n}\n' "$src/lib/tiles/sizes.tex" > "$work/absolute.tex"
  "$texc" tune "$work/absolute.tex" --target x86 --trials 2 --records "$work/abs.jsonl" --broker "$broker" --device x86-imports > /dev/null 2> "$work/abs.err"
  check "an import by an absolute path: exit 1" [ $? -eq 1 ]
  check "... saying to use -I" grep -q 'imports ".*sizes.tex" by an absolute path (name its folder with -I instead)' "$work/abs.err"
  ;;
status)
  # field KIND KEY: the value of KEY for device kind KIND in `texc farm status --json`
  field() {
    "$texc" farm status --broker "$broker" --json |
      python3 -c 'import json, sys; k = {x["kind"]: x for x in json.load(sys.stdin)["kinds"]}; print(json.dumps(k[sys.argv[1]][sys.argv[2]]))' "$1" "$2"
  }
  start_worker victim st-a TEXC_FARM_TEST_DELAY_S=30 -- --visibility 2
  for _ in $(seq 50); do [ "$(rcli exists texc:device:st-a)" = 1 ] && break; sleep 0.1; done
  "$texc" tune "$small_tex" --target x86 --trials 8 --tuner random --seed 5 --records "$work/farm.jsonl" \
    --broker "$broker" --device st-a > /dev/null 2> "$work/tune.err" &
  tune_pid=$!
  pids+=($tune_pid)
  for _ in $(seq 100); do [ "$(rcli xpending texc:jobs:st-a workers | head -1)" -ge 1 ] 2> /dev/null && break; sleep 0.1; done
  sleep 0.5  # the whole batch published
  kill -9 "$pid_victim"
  published=$(rcli xlen texc:jobs:st-a)
  check "one job in flight" [ "$(field st-a in_flight)" = 1 ]
  check "the others queued ($published jobs in the stream)" [ "$(field st-a queued)" = $((published - 1)) ]
  check "the device its workers registered" python3 -c "assert $(field st-a device).startswith('x86 / ')"
  sleep 2.5  # the victim's heartbeat key expires (--visibility 2)
  check "the killed worker is not alive" [ "$(field st-a workers)" = "[]" ]
  check "its job idle longer than the visibility" python3 -c "assert $(field st-a oldest_in_flight_s) >= 2"
  rcli xadd texc:jobs:st-b '*' id 1 job x > /dev/null
  check "a kind with a job and no worker: 1 queued" [ "$(field st-b queued)" = 1 ]
  check "... no device registered" [ "$(field st-b device)" = '""' ]
  start_worker rescuer st-a -- --visibility 2
  for _ in $(seq 400); do kill -0 $tune_pid 2> /dev/null || break; sleep 0.1; done
  wait $tune_pid
  check "texc tune exits 0" [ $? -eq 0 ]
  measured=$(python3 -c 'import json, sys; print(sum(json.loads(l)["status"] != "invalid" for l in open(sys.argv[1])))' "$work/farm.jsonl")
  check "the rescuer alive" [ "$(field st-a workers)" = '["rescuer"]' ]
  check "nothing queued or in flight" [ "$(field st-a queued) $(field st-a in_flight)" = "0 0" ]
  check "done: every measured record ($measured)" [ "$(field st-a done)" = "$measured" ]
  check "1 reclaimed" [ "$(field st-a reclaimed)" = 1 ]
  check "none failed or rejected" [ "$(field st-a failed) $(field st-a rejected)" = "0 0" ]
  check "every result in the last minute" [ "$(field st-a results_last_minute)" = "$measured" ]
  check "the device is the records'" [ "$(field st-a device)" = "$(python3 -c 'import json, sys; print(json.dumps(json.loads(open(sys.argv[1]).readline())["device"]))' "$work/farm.jsonl")" ]
  "$texc" farm status --broker "$broker" > "$work/status.txt"
  check "text: a line per kind" grep -q "^st-a  x86 / " "$work/status.txt"
  check "text: workers" grep -q "workers   1 alive: rescuer" "$work/status.txt"
  check "text: results" grep -q "$measured done, 0 failed, 0 rejected, 1 reclaimed" "$work/status.txt"
  check "text: the kind without a worker" grep -q "^st-b  (no worker has registered)" "$work/status.txt"
  "$texc" farm status --broker redis://127.0.0.1:1 > /dev/null 2> "$work/nobroker.err"
  check "no broker: exit 2" [ $? -eq 2 ]
  check "... saying so" grep -q "cannot connect to the broker at redis://127.0.0.1:1" "$work/nobroker.err"
  "$texc" farm > /dev/null 2>&1
  check "texc farm without status: exit 1" [ $? -eq 1 ]
  ;;
compiled)
  tune=(tune "$knobs_tex" --target x86 -D M=64 -D N=64 -D K=64 --trials 20 --tuner random --seed 7)
  "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1 || bad "local tuning"
  # The kind registered by hand first: the tuner's first job stays in the stream to be read.
  rcli hset texc:device:x86-compiled device "x86 / registered by farm_test.sh" > /dev/null
  "$texc" "${tune[@]}" --records "$work/farm.jsonl" --broker "$broker" --device x86-compiled --compile-on tuner \
    > /dev/null 2> "$work/tune.err" &
  tune_pid=$!
  pids+=($tune_pid)
  for _ in $(seq 100); do [ "$(rcli xlen texc:jobs:x86-compiled)" -ge 1 ] && break; sleep 0.1; done
  rcli --raw xrange texc:jobs:x86-compiled - + count 1 > "$work/job.txt"
  start_worker wc1 x86-compiled
  start_worker wc2 x86-compiled
  for _ in $(seq 600); do kill -0 $tune_pid 2> /dev/null || break; sleep 0.1; done
  wait $tune_pid
  check "texc tune --compile-on tuner exits 0" [ $? -eq 0 ]
  check "20 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 20 ]
  check "the same configurations and statuses as local tuning" diff <(statuses "$work/local.jsonl") <(statuses "$work/farm.jsonl")
  check "no configuration twice" no_duplicates "$work/farm.jsonl"
  check "a job ships its candidate as an x86 object for this machine" python3 -c '
import base64, json, sys
job = json.loads(sys.stdin.read().splitlines()[4])
a = job["artefact"]
assert a["kind"] == "x86-object" and a["triple"].startswith("x86_64") and a["entry"] and a["cpu"], a
assert base64.b64decode(a["bytes"])[:4] == b"\x7fELF", a["bytes"][:16]' < "$work/job.txt"
  kill -TERM "$pid_wc1" "$pid_wc2"
  wait "$pid_wc1" "$pid_wc2"
  check "the workers ran the tuner's objects: 20 jobs, every one compiled by the tuner" [ "$(cat "$work/wc1.log" "$work/wc2.log" |
    sed -n 's/.*stopped after \([0-9]*\) job(s), \([0-9]*\) of them compiled by the tuner/\1 \2/p' |
    awk '{ j += $1; s += $2 } END { print j, s }')" = "20 20" ]
  check "both workers measured" [ "$(grep -c 'stopped after [1-9]' "$work/wc1.log" "$work/wc2.log" | grep -c ':1')" -eq 2 ]
  # Artefacts a worker cannot run: of another kind, and built for CPU features its CPU lacks.
  start_worker wr x86-compiled
  artefact_job() {  # artefact_job KIND TRIPLE FEATURE: a job for x86-compiled with such an artefact
    python3 -c '
import json, sys
kind, triple, feature = sys.argv[1:]
print(json.dumps({"v": 2, "device": "x86-compiled", "main": "a.tex", "files": {"a.tex": ""}, "include_dirs": [],
                  "stdlib": "", "args": [], "op": "mm", "knobs": {}, "seed": "0", "repeat": 5, "timeout_s": 10,
                  "artefact": {"kind": kind, "triple": triple, "cpu": "some-cpu", "features": [feature],
                               "entry": "mm", "bytes": "f0VMRg==", "driver": "int main() {}",
                               "input_bytes": [4, 4], "output_bytes": [4]}}))' "$@"
  }
  rejected_before=$(rcli get texc:rejected:x86-compiled)
  rcli xadd texc:jobs:x86-compiled '*' id 1 job "$(artefact_job arm-object aarch64-unknown-linux-gnu neon)" > /dev/null
  triple=$(python3 -c 'import json, sys; print(json.loads(sys.stdin.read().splitlines()[4])["artefact"]["triple"])' < "$work/job.txt")
  rcli xadd texc:jobs:x86-compiled '*' id 2 job "$(artefact_job x86-object "$triple" no-such-feature)" > /dev/null
  for _ in $(seq 100); do [ "$(rcli get texc:rejected:x86-compiled)" = $((${rejected_before:-0} + 2)) ] && break; sleep 0.1; done
  check "2 artefacts refused and counted" [ "$(rcli get texc:rejected:x86-compiled)" = $((${rejected_before:-0} + 2)) ]
  check "... an arm object on an x86 worker, saying so" grep -q "rejected job .*: a shipped arm-object for aarch64-unknown-linux-gnu (some-cpu), but this worker measures x86 and runs x86-objects only" "$work/wr.log"
  check "... an object for a CPU this one is not, saying so" grep -q "rejected job .*: a shipped x86-object built for some-cpu with no-such-feature, which this worker's CPU (.*) lacks" "$work/wr.log"
  check "... acknowledged" [ "$(rcli xpending texc:jobs:x86-compiled workers | head -1)" -eq 0 ]
  # A job whose object takes it past the worker's limit (the same job without it fits).
  start_worker ws x86-small -- --max-job-bytes 2000
  "$texc" tune "$small_tex" --target x86 --trials 1 --records "$work/small.jsonl" --broker "$broker" --device x86-small \
    --compile-on tuner > /dev/null 2>&1 &
  small_pid=$!
  pids+=($small_pid)
  for _ in $(seq 100); do [ "$(rcli get texc:rejected:x86-small)" = 1 ] && break; sleep 0.1; done
  kill "$small_pid" 2> /dev/null
  check "an object past --max-job-bytes: refused" grep -q "rejected job .*: [0-9]* bytes, more than the limit of 2000" "$work/ws.log"
  "$texc" tune "$small_tex" --target x86 --trials 1 --records "$work/small2.jsonl" --broker "$broker" --device x86-small \
    > /dev/null 2>&1
  check "... the same job compiled by the worker fits and is measured" [ "$(rcli get texc:done:x86-small)" = 1 ]
  "$texc" tune "$small_tex" --target interp --trials 1 --records "$work/interp.jsonl" --broker "$broker" --compile-on tuner \
    > /dev/null 2> "$work/interp.err"
  check "--compile-on tuner --target interp: exit 1" [ $? -eq 1 ]
  check "... saying x86, arm, cuda and vdla only" grep -q "texc ships compiled candidates for --target x86, arm, cuda and vdla only, not interp" "$work/interp.err"
  # Arm (with the cross toolchain and qemu-aarch64): the tuner ships the aarch64 object and its
  # driver, the worker links them with its aarch64 runtime and runs the program under qemu.
  if command -v aarch64-linux-gnu-g++ > /dev/null && command -v qemu-aarch64 > /dev/null; then
    arm=(tune "$small_tex" --target arm --trials 3 --tuner random --seed 4)
    "$texc" "${arm[@]}" --records "$work/arm-local.jsonl" > /dev/null 2>&1 || bad "local arm tuning"
    start_worker wa arm-compiled -- --target arm
    "$texc" "${arm[@]}" --records "$work/arm-farm.jsonl" --broker "$broker" --device arm-compiled --compile-on tuner \
      > /dev/null 2> "$work/arm-tune.err"
    check "arm: texc tune --compile-on tuner exits 0" [ $? -eq 0 ]
    check "arm: the same configurations and statuses as local tuning" diff <(statuses "$work/arm-local.jsonl") <(statuses "$work/arm-farm.jsonl")
    check "arm: some record ok" grep -q '"status": "ok"' "$work/arm-farm.jsonl"
    kill -TERM "$pid_wa"
    wait "$pid_wa"
    measured=$(python3 -c 'import json, sys; print(sum(json.loads(l)["status"] != "invalid" for l in open(sys.argv[1])))' "$work/arm-farm.jsonl")
    check "arm: the worker ran the tuner's programs ($measured jobs)" grep -q "stopped after $measured job(s), $measured of them compiled by the tuner" "$work/wa.log"
  else
    echo "skip: arm (no aarch64-linux-gnu-g++ or qemu-aarch64)"
  fi
  "$texc" tune "$small_tex" --target x86 --trials 1 --records "$work/nb.jsonl" --compile-on tuner > /dev/null 2> "$work/nb.err"
  check "--compile-on without --broker: exit 1" [ $? -eq 1 ]
  ;;
network)
  net=$(dirname "$knobs_tex")/10_network.tex
  export TEXC_NUM_THREADS=1
  tune=(tune "$net" -D S=8 --target x86 --trials 14 --tuner random --seed 1 --timeout 30)
  "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1 || bad "local tuning of the network"
  start_worker wn1 x86-net
  start_worker wn2 x86-net
  for _ in $(seq 300); do [ "$(rcli zcard texc:alive:x86-net)" = 2 ] && break; sleep 0.1; done
  monitor
  "$texc" "${tune[@]}" --records "$work/farm.jsonl" --broker "$broker" --device x86-net > "$work/tune.out" 2> "$work/tune.err"
  check "texc tune --broker of a network exits 0" [ $? -eq 0 ]
  check "... a graph of 6 kernels, 6 tasks" grep -q "op 'small_cnn' is a graph of 6 kernels: 6 tuning tasks" "$work/tune.err"
  check "... a summary line per task" [ "$(grep -c "  task '" "$work/tune.out")" -eq 6 ]
  check "... a progress line per task with the farm's state" \
    [ "$(grep -o '^tune task [1-6]/6 small_cnn_k[0-9]: .* | farm x86-net: 2 worker(s)' "$work/tune.err" | cut -d: -f1 | sort -u | wc -l)" -eq 6 ]
  check "14 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 14 ]
  # tasks FILE: the sorted (task, op, knobs, status) of its records
  tasks() {
    python3 -c '
import json, sys
for r in sorted(json.dumps([r["task"], r["op"], r["knobs"], r["status"]], sort_keys=True)
                for r in map(json.loads, open(sys.argv[1]))): print(r)' "$1"
  }
  check "records of 6 tasks, each with its kernel" python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert len({r["task"] for r in rs}) == 6 and all(r["task"] and r["op"].startswith("small_cnn_k") for r in rs), rs
assert sum(r["status"] == "ok" for r in rs) >= 6, [r["status"] for r in rs]' "$work/farm.jsonl"
  check "the same tasks, kernels, configurations and statuses as local tuning" diff <(tasks "$work/local.jsonl") <(tasks "$work/farm.jsonl")
  check "the same device as local tuning" [ "$(devices "$work/local.jsonl")" = "$(devices "$work/farm.jsonl")" ]
  published_jobs x86-net > "$work/jobs.txt"
  check "every job names the op, its kernel and the kernel's task (version 3), as the records do" python3 -c '
import json, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
records = [json.loads(l) for l in open(sys.argv[2])]
assert len(jobs) == sum(r["status"] != "invalid" for r in records), (len(jobs), len(records))
assert all(j["v"] == 3 and j["op"] == "small_cnn" for j in jobs), [(j["v"], j["op"]) for j in jobs]
by_kernel = {(r["op"], r["task"]) for r in records}
assert {(j["kernel"], j["task"]) for j in jobs} <= by_kernel, ({(j["kernel"], j["task"]) for j in jobs}, by_kernel)
assert len({j["kernel"] for j in jobs}) == 6' "$work/jobs.txt" "$work/farm.jsonl"
  "$texc" run "$net" -D S=8 --target x86 --records "$work/farm.jsonl" --repeat 2 > "$work/run.out" 2> "$work/run.err"
  check "texc run --records of the farm's records passes" [ $? -eq 0 ]
  check "... each kernel compiled with its task's best record" \
    [ "$(grep -c "note: kernel 'small_cnn_k[0-5]': knobs .* from the best record of task" "$work/run.err")" -eq 6 ]
  # --compile-on tuner: each task's kernel compiled here, its object shipped; the workers only link and run it.
  "$texc" "${tune[@]}" --records "$work/compiled.jsonl" --broker "$broker" --device x86-net --compile-on tuner --seed 2 \
    > /dev/null 2> "$work/compiled.err"
  check "--compile-on tuner: exit 0" [ $? -eq 0 ]
  "$texc" "${tune[@]}" --records "$work/local2.jsonl" --seed 2 > /dev/null 2>&1 || bad "local tuning, seed 2"
  check "--compile-on tuner: local tuning's tasks, configurations and statuses" diff <(tasks "$work/local2.jsonl") <(tasks "$work/compiled.jsonl")
  kill -TERM "$pid_wn1" "$pid_wn2"
  wait "$pid_wn1" "$pid_wn2"
  check "both workers measured" [ "$(grep -c 'stopped after [1-9]' "$work/wn1.log" "$work/wn2.log" | grep -c ':1')" -eq 2 ]
  shipped=$(python3 -c 'import json, sys; print(sum(json.loads(l)["status"] != "invalid" for l in open(sys.argv[1])))' "$work/compiled.jsonl")
  check "... the workers ran $shipped objects compiled by the tuner" [ "$(cat "$work/wn1.log" "$work/wn2.log" |
    sed -n 's/.*stopped after \([0-9]*\) job(s), \([0-9]*\) of them compiled by the tuner/\2/p' | awk '{ s += $1 } END { print s }')" = "$shipped" ]
  # A job whose task is not the one the worker's graph gives its kernel (a tuner of another texc
  # version): the worker stores an error saying so, not a measurement of the kernel it has.
  start_worker wt x86-net
  python3 - "$work/jobs.txt" "$work/forged" <<'PY'
import re, sys
text = open(sys.argv[1]).readline().rstrip("\n")
text, n = re.subn(r'("task": *")[^"]*(")', r'\1conv2d(f32[9]) -> f32[9] #00000000\2', text)
assert n == 1, text
def fnv(t, h):
    for c in t.encode():
        h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
    return h
open(sys.argv[2] + ".job", "w").write(text)
open(sys.argv[2] + ".id", "w").write("%016x%016x" % (fnv(text, 0xcbf29ce484222325), fnv(text, 0x84222325cbf29ce4)))
PY
  id=$(cat "$work/forged.id")
  rcli xadd texc:jobs:x86-net '*' id "$id" job "$(cat "$work/forged.job")" > /dev/null
  for _ in $(seq 200); do [ "$(rcli exists "texc:result:$id")" = 1 ] && break; sleep 0.1; done
  check "another task for the kernel: an error result saying so" python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["status"] == "error" and "here, not the job" in r["message"] and "#00000000" in r["message"], r' "$(rcli get "texc:result:$id")"
  ;;
compilefail)
  tune=(tune "$knobs_tex" --target x86 -D M=64 -D N=64 -D K=64 --trials 20 --tuner random --seed 7)
  "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1 || bad "local tuning"
  start_worker wf1 x86-cf
  start_worker wf2 x86-cf
  monitor
  TEXC_TUNE_TEST_FAULT="compile-crash@TI=16" "$texc" "${tune[@]}" --records "$work/farm.jsonl" --broker "$broker" \
    --device x86-cf --compile-on tuner > "$work/tune.out" 2> "$work/tune.err"
  check "texc tune exits 0 (other candidates are valid)" [ $? -eq 0 ]
  check "20 records" [ "$(wc -l < "$work/farm.jsonl")" -eq 20 ]
  check "each TI=16 candidate that local tuning measured: an error record saying its compile here crashed" python3 -c '
import json, sys
local = {json.dumps(r["knobs"], sort_keys=True): r for r in map(json.loads, open(sys.argv[1]))}
farm = [json.loads(l) for l in open(sys.argv[2])]
crashed = [r for r in farm if r["knobs"]["TI"] == 16 and local[json.dumps(r["knobs"], sort_keys=True)]["status"] != "invalid"]
assert crashed, "no TI=16 candidate among the trials: pick another seed"
for r in crashed:
    assert r["status"] == "error" and "compiling it on the tuner" in r["message"] and "SIGSEGV" in r["message"], r
for r in farm:
    if r["knobs"]["TI"] != 16:
        assert r["status"] == local[json.dumps(r["knobs"], sort_keys=True)]["status"], (r, local[json.dumps(r["knobs"], sort_keys=True)])
print(len(crashed), "crashed")' "$work/local.jsonl" "$work/farm.jsonl"
  check "the same configurations as local tuning" diff <(configurations "$work/local.jsonl") <(configurations "$work/farm.jsonl")
  measured=$(python3 -c '
import json, sys
print(sum(r["status"] not in ("invalid", "error") for r in map(json.loads, open(sys.argv[1]))))' "$work/farm.jsonl")
  check "a job for each other candidate ($measured), none for those that did not compile" \
    [ "$(published_jobs x86-cf | wc -l)" = "$measured" ]
  check "... all measured by the workers" [ "$(rcli get texc:done:x86-cf)" = "$measured" ]
  ;;
cuda)
  fake=$5
  gpu_tex=$(dirname "$small_tex")/cuda_knobs.tex
  shim=(LD_LIBRARY_PATH="$fake" TEXC_FAKE_CUDA_CC=86)
  tune=(tune "$gpu_tex" --target cuda --trials 4 --tuner random --seed 1)
  env "${shim[@]}" "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1
  check "local tuning through the stand-in: 4 records" [ "$(wc -l < "$work/local.jsonl")" -eq 4 ]
  start_worker wg cuda-fake "${shim[@]}" TEXC_FAKE_CUDA_LOG="$work/calls.log" TEXC_FAKE_CUDA_PTX="$work/loaded.ptx" -- --target cuda
  for _ in $(seq 100); do [ "$(rcli exists texc:device:cuda-fake)" = 1 ] && break; sleep 0.1; done
  monitor
  "$texc" "${tune[@]}" --records "$work/farm.jsonl" --broker "$broker" --device cuda-fake --compile-on tuner \
    > /dev/null 2> "$work/tune.err"
  check "texc tune --compile-on tuner --target cuda: exit 1 as local tuning (the stand-in computes nothing)" [ $? -eq 1 ]
  check "4 records, local tuning's configurations and statuses (wrong)" diff <(statuses "$work/local.jsonl") <(statuses "$work/farm.jsonl")
  check "the same device as local tuning: the stand-in's, sm_86" [ "$(devices "$work/farm.jsonl")" = "$(devices "$work/local.jsonl")" ]
  published_jobs cuda-fake > "$work/jobs.txt"
  mkdir -p "$work/ptx"
  check "each job ships its candidate's PTX for sm_86 (the worker's device), launched with BT threads a block" python3 -c '
import base64, json, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
assert sorted(j["knobs"]["BT"] for j in jobs) == [32, 64, 128, 256], [j["knobs"] for j in jobs]
for j in jobs:
    a, bt = j["artefact"], j["knobs"]["BT"]
    assert a["kind"] == "cuda-ptx" and a["triple"] == "nvptx64-nvidia-cuda" and a["cpu"] == "sm_86", a["kind"]
    assert a["entry"] == "cuda_knobs" and a["block"] == [bt, 1, 1] and a["grid"] == [2048 // bt, 1, 1], a
    ptx = base64.b64decode(a["bytes"]).decode()
    assert ".target sm_86" in ptx and ".entry cuda_knobs(" in ptx, ptx[:300]
    open("%s/ptx/%d.ptx" % (sys.argv[2], bt), "w").write(ptx)' "$work/jobs.txt" "$work"
  ptxas=${TEXC_PTXAS:-/usr/local/cuda/bin/ptxas}
  if [ -x "$ptxas" ]; then
    for f in "$work"/ptx/*.ptx; do
      check "ptxas assembles the shipped $(basename "$f")" "$ptxas" -arch=sm_86 "$f" -o "$work/ptx.cubin"
    done
  else
    echo "skip: ptxas (no $ptxas)"
  fi
  kill -TERM "$pid_wg"
  wait "$pid_wg"
  check "the worker ran the tuner's PTX: 4 jobs, all compiled by the tuner" grep -q "stopped after 4 job(s), 4 of them compiled by the tuner" "$work/wg.log"
  check "... each launched with its job's grid and block" [ "$(sed -n 's/^cuLaunchKernel \(grid=[0-9x]* block=[0-9x]*\).*/\1/p' "$work/calls.log" | sort -u | tr '\n' ' ')" = \
    "grid=16x1x1 block=128x1x1 grid=32x1x1 block=64x1x1 grid=64x1x1 block=32x1x1 grid=8x1x1 block=256x1x1 " ]
  check "... the PTX the driver was given is a shipped one, byte for byte" bash -c "for f in '$work'/ptx/*.ptx; do cmp -s \"\$f\" '$work/loaded.ptx' && exit 0; done; exit 1"
  # PTX newer than the worker's device (sm_90 on sm_86), and PTX on an x86 worker: refused.
  start_worker wr cuda-fake "${shim[@]}" -- --target cuda
  start_worker wx x86-ptx
  for _ in $(seq 100); do [ "$(rcli exists texc:device:x86-ptx)" = 1 ] && break; sleep 0.1; done
  ptx_job() {  # ptx_job KIND ARCH: a job for KIND shipping PTX for ARCH
    python3 -c '
import json, sys
job = json.loads(open(sys.argv[1]).readline())
job["device"] = sys.argv[2]
job["artefact"]["cpu"] = sys.argv[3]
print(json.dumps(job))' "$work/jobs.txt" "$@"
  }
  rcli xadd texc:jobs:cuda-fake '*' id 1 job "$(ptx_job cuda-fake sm_90)" > /dev/null
  rcli xadd texc:jobs:x86-ptx '*' id 2 job "$(ptx_job x86-ptx sm_86)" > /dev/null
  for _ in $(seq 100); do [ "$(rcli get texc:rejected:cuda-fake)$(rcli get texc:rejected:x86-ptx)" = 11 ] && break; sleep 0.1; done
  check "PTX for sm_90 on an sm_86 device: refused, saying so" grep -q "rejected job .*: a shipped cuda-ptx for sm_90, newer than this worker's device (sm_86)" "$work/wr.log"
  check "PTX on an x86 worker: refused, saying so" grep -q "rejected job .*: a shipped cuda-ptx for nvptx64-nvidia-cuda (sm_86), but this worker measures x86 and runs x86-objects only" "$work/wx.log"
  ;;
vdla)
  cat > "$work/vdla_conv.tex" <<'TEX'
import nn.int8
op vdla_conv(X: i8[1, 1, 8, 8, 16], W: i8[2, 1, 3, 3, 16, 16]) -> Y {
  compute { Y = conv2d_int8(X, W, shift = 6, stride = 1, pad = 1) }
}
TEX
  tune=(tune "$work/vdla_conv.tex" --target vdla --trials 8 --tuner random --seed 3)
  "$texc" "${tune[@]}" --records "$work/local.jsonl" > /dev/null 2>&1 || bad "local tuning"
  start_worker wv1 vdla-sim -- --target vdla
  start_worker wv2 vdla-sim -- --target vdla
  for _ in $(seq 300); do [ "$(rcli zcard texc:alive:vdla-sim)" = 2 ] && break; sleep 0.1; done
  monitor
  "$texc" "${tune[@]}" --records "$work/farm.jsonl" --broker "$broker" --device vdla-sim --compile-on tuner \
    > /dev/null 2> "$work/tune.err"
  check "texc tune --compile-on tuner --target vdla exits 0" [ $? -eq 0 ]
  check "8 records, local tuning's configurations and statuses" diff <(statuses "$work/local.jsonl") <(statuses "$work/farm.jsonl")
  check "... and its simulated times, configuration by configuration" diff \
    <(python3 -c 'import json, sys; [print(json.dumps([r["knobs"], r["median_ms"]], sort_keys=True)) for r in sorted(map(json.loads, open(sys.argv[1])), key=lambda r: json.dumps(r["knobs"], sort_keys=True))]' "$work/local.jsonl") \
    <(python3 -c 'import json, sys; [print(json.dumps([r["knobs"], r["median_ms"]], sort_keys=True)) for r in sorted(map(json.loads, open(sys.argv[1])), key=lambda r: json.dumps(r["knobs"], sort_keys=True))]' "$work/farm.jsonl")
  check "the same device as local tuning" [ "$(devices "$work/farm.jsonl")" = "$(devices "$work/local.jsonl")" ]
  published_jobs vdla-sim > "$work/jobs.txt"
  measured=$(python3 -c 'import json, sys; print(sum(json.loads(l)["status"] != "invalid" for l in open(sys.argv[1])))' "$work/farm.jsonl")
  check "a job per measured candidate ($measured), each shipping a VDLA program for the default configuration" python3 -c '
import base64, json, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
assert len(jobs) == int(sys.argv[2]), len(jobs)
for j in jobs:
    a = j["artefact"]
    assert a["kind"] == "vdla-program" and a["triple"] == "vdla" and a["cpu"].startswith("config-") and a["entry"] == "vdla_conv", a["kind"]
    assert base64.b64decode(a["bytes"])[:4] == b"\x89VDL", base64.b64decode(a["bytes"])[:8]' "$work/jobs.txt" "$measured"
  kill -TERM "$pid_wv1" "$pid_wv2"
  wait "$pid_wv1" "$pid_wv2"
  check "the workers simulated the tuner's programs: $measured jobs, all compiled by the tuner" [ "$(cat "$work/wv1.log" "$work/wv2.log" |
    sed -n 's/.*stopped after \([0-9]*\) job(s), \([0-9]*\) of them compiled by the tuner/\1 \2/p' |
    awk '{ j += $1; s += $2 } END { print j, s }')" = "$measured $measured" ]
  # Refused: a program for another configuration (its cpu and the program's configuration agree,
  # but are not the worker's), and bytes that are not a VDLA program.
  start_worker wr vdla-sim -- --target vdla
  for _ in $(seq 100); do [ "$(rcli zcard texc:alive:vdla-sim)" = 1 ] && break; sleep 0.1; done
  rejected_before=$(rcli get texc:rejected:vdla-sim)
  printf '{"dram_latency_cycles": 7}' > "$work/other.json"
  "$texc" tune "$work/vdla_conv.tex" --target vdla --vdla-config "$work/other.json" --trials 1 --records "$work/other.jsonl" \
    --broker "$broker" --device vdla-sim --compile-on tuner > /dev/null 2> "$work/other.err" &
  other_pid=$!
  pids+=($other_pid)
  for _ in $(seq 100); do [ "$(rcli get texc:rejected:vdla-sim)" = $((${rejected_before:-0} + 1)) ] && break; sleep 0.1; done
  kill "$other_pid" 2> /dev/null
  check "a program for another configuration: refused, saying so" grep -q "rejected job .*: a shipped vdla-program for VDLA configuration config-[0-9a-f]*, but this worker simulates config-[0-9a-f]*" "$work/wr.log"
  python3 -c '
import json, sys
job = json.loads(open(sys.argv[1]).readline())
job["artefact"]["bytes"] = "AAAAAAAA"
print(json.dumps(job))' "$work/jobs.txt" > "$work/garbled.job"
  rcli xadd texc:jobs:vdla-sim '*' id 1 job "$(cat "$work/garbled.job")" > /dev/null
  for _ in $(seq 100); do [ "$(rcli get texc:rejected:vdla-sim)" = $((${rejected_before:-0} + 2)) ] && break; sleep 0.1; done
  check "bytes that are not a VDLA program: refused as a malformed job" grep -q "rejected job .*: not a well-formed job: a vdla-program artefact that is not a VDLA program" "$work/wr.log"
  ;;
*) echo "unknown part $part"; exit 2 ;;
esac
[ $failures -eq 0 ] && echo "all passed" || echo "$failures failed"
[ $failures -eq 0 ]
