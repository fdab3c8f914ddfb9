#!/usr/bin/env bash
# Nothing a user owns is destroyed (docs/cli.md "Files texc reads and writes"):
#  - no output (-o and every emitted file, --curve, --trace) replaces an input of the run (the .tex,
#    an import, --records, --transfer, --vdla-config), compared by file identity (hard and symbolic
#    links too), and --records is no other input; each refused with exit 1, the file unchanged;
#  - outputs are written whole or not at all: a write that fails (a full standard output, /dev/full,
#    a file size limit) exits 2 with the reason and leaves the old file and no temporary file;
#  - two `texc tune` on one records file take turns: no configuration measured twice;
#  - corrupt records (a negative time, a throughput beyond any machine, knob values outside the
#    lists) are skipped with a warning by tune and by run --records;
#  - inputs that are not regular files (/dev/urandom, /dev/zero, a directory, a FIFO) or larger than
#    their limit are refused at once, never read.
# usage: outputs_test.sh TEXC VDLA_SIM REPO_ROOT
set -u
texc=$(realpath "$1")
vdla_sim=$(realpath "$2")
root=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
umask 022
cd "$work" || exit 1
cp "$root/tests/tuner/small_matmul.tex" mm.tex
cp "$root/tests/vdla/dense_int8.tex" d.tex
small=(-D M=16 -D N=16 -D K=16)

ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failures=$((failures + 1)); }
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
sum() { cksum <"$1"; }
# unchanged FILE -- ARGS...: texc ARGS exits 1 with a message, and FILE is as it was.
unchanged() {
  local file=$1 before
  before=$(sum "$file")
  shift 2
  local out status
  out=$(timeout 60 "$texc" "$@" 2>&1)
  status=$?
  if [ "$status" -eq 1 ] && [ "$(sum "$file")" = "$before" ] && grep -q "texc does not overwrite its inputs\|need a file of their own\|needs a file of its own" <<<"$out"; then
    ok "texc $* refused, $file unchanged"
  else
    bad "texc $* -> exit $status, $file $( [ "$(sum "$file")" = "$before" ] && echo unchanged || echo CHANGED ): $out"
  fi
  restore
}
# The files the cases share, as they were (a texc that replaced one must not fail the next cases).
mkdir pristine
restore() { cp pristine/* . ; }

# ---- outputs never replace inputs
"$texc" tune mm.tex --target interp "${small[@]}" --trials 12 --records r.jsonl --seed 1 >/dev/null 2>&1
check "a records file of 12 trials" test "$(wc -l <r.jsonl)" -eq 12
cp mm.tex d.tex r.jsonl pristine/
unchanged r.jsonl -- tune mm.tex --target interp "${small[@]}" --trials 12 --records r.jsonl --curve r.jsonl
ln r.jsonl hard.svg
unchanged r.jsonl -- tune mm.tex --target interp "${small[@]}" --trials 12 --records r.jsonl --curve hard.svg
cp r.jsonl t.jsonl
unchanged t.jsonl -- tune mm.tex --target interp "${small[@]}" --trials 12 --records r.jsonl --transfer t.jsonl --curve t.jsonl
unchanged mm.tex -- tune mm.tex --target interp "${small[@]}" --trials 12 --records r.jsonl --curve mm.tex
"$texc" tune mm.tex --target interp "${small[@]}" --trials 2 --records fresh.jsonl --curve fresh.jsonl >/dev/null 2>&1
check "--curve the same as a --records file not created yet: refused, nothing written" test ! -e fresh.jsonl
unchanged mm.tex -- tune mm.tex --target interp "${small[@]}" --trials 12 --records mm.tex
unchanged mm.tex -- run mm.tex --target interp "${small[@]}" --records mm.tex
unchanged d.tex -- run d.tex --target vdla --trace d.tex
cp mm.tex S.h
unchanged S.h -- S.h --target x86 -o S --emit header
ln mm.tex hard.h
unchanged mm.tex -- mm.tex --target x86 -o hard --emit header
ln -s mm.tex link.h
unchanged mm.tex -- mm.tex --target x86 -o link --emit obj,header
check "the symbolic link is still one, and no output was written" test -L link.h -a ! -e link.o
mkdir lib
printf 'import "lib/ops.tex"\nop twice(A: f32[8]) -> B {\n  compute { B[i] = A[i] * 2.0 }\n}\n' >main.tex
printf 'param Q = 4\n' >lib/ops.tex
ln -s lib/ops.tex out.loops.txt
unchanged lib/ops.tex -- main.tex --target interp -o out --emit loops
echo '{"block_out": 16}' >cfg.vdla
unchanged cfg.vdla -- d.tex --target vdla --vdla-config cfg.vdla -o cfg
ln -s ../r.jsonl lib/r.h
unchanged r.jsonl -- mm.tex --target x86 --records r.jsonl -o lib/r --emit header
"$texc" run mm.tex --target interp "${small[@]}" --save-io saved >/dev/null 2>&1
before_io=$(cat saved/*.npy | cksum)
expect 1 "--save-io saved is the --inputs directory: the run would write over the files it reads" \
  -- run mm.tex --target interp "${small[@]}" --inputs saved --save-io saved
mkdir saved2
ln saved/mm.A.npy saved2/mm.A.npy
expect 1 "cannot write 'saved2/mm.A.npy': it is the same file as --inputs file 'saved/mm.A.npy', which this run reads" \
  -- run mm.tex --target interp "${small[@]}" --inputs saved --save-io saved2
check "the --inputs files are unchanged" test "$(cat saved/*.npy | cksum)" = "$before_io"
# Outputs that are no input are still written; a symbolic link to one keeps pointing at it.
echo old >target.h
ln -s target.h out.h
expect 0 "" -- mm.tex --target x86 -o out
check "out.o is an object" test -s out.o
check "out.h through the link: the link stays, its file is the header" test -L out.h -a "$(head -c 2 target.h)" = "//"
check "outputs have the umask's permissions, not a temporary file's" test "$(stat -c %a out.o)" = 644

# ---- failed writes: the reason, exit 2, the old file kept, no temporary file left
out=$("$texc" mm.tex --target interp --emit loops -o - 2>&1 >/dev/full)
check "-o - > /dev/full: exit 2 with the reason" test $? -eq 2 -a "$out" = "texc: error: cannot write to standard output: No space left on device"
out=$("$texc" run mm.tex --target interp "${small[@]}" 2>&1 >/dev/full)
check "run > /dev/full: exit 2 with the reason" test $? -eq 2 -a "$out" = "texc: error: cannot write to standard output: No space left on device"
out=$("$texc" --help 2>&1 >/dev/full)
check "--help > /dev/full: exit 2" test $? -eq 2
cp r.jsonl r3.jsonl
out=$("$texc" tune mm.tex --target interp "${small[@]}" --trials 12 --records r3.jsonl --curve /dev/full 2>&1 >/dev/null)
check "--curve /dev/full: exit 2 with the reason" test $? -eq 2 -a "$out" = "texc: error: cannot write '/dev/full': No space left on device"
mkdir limited
echo "old header" >limited/mm.h
echo "old object" >limited/mm.o
out=$(ulimit -f 1; trap '' XFSZ; "$texc" mm.tex --target x86 --emit header -o limited/mm 2>&1)
check "a header past the file size limit: exit 2 with the reason" test $? -eq 2 -a "$out" = "texc: error: cannot write 'limited/mm.h': File too large"
out=$(ulimit -f 1; trap '' XFSZ; "$texc" mm.tex --target x86 --emit obj -o limited/mm 2>&1)
check "an object past the file size limit: exit 2 with the reason" test $? -eq 2 -a "$out" = "texc: error: cannot write 'limited/mm.o': File too large"
check "the old files are as they were" test "$(cat limited/mm.h limited/mm.o)" = "old header
old object"
check "no temporary file is left" test "$(ls -A limited | wc -l)" -eq 2

# ---- two tuners on one records file: they take turns, nothing measured twice
for seed in 1 2; do
  "$texc" tune mm.tex --target interp "${small[@]}" --trials 60 --records both.jsonl --seed $seed --tuner random \
    >"tune$seed.out" 2>"tune$seed.err" &
done
wait
python3 - both.jsonl <<'PY' >dups.txt
import json, sys
seen, dups = set(), 0
lines = [json.loads(l) for l in open(sys.argv[1])]
for r in lines:
    key = tuple(sorted(r["knobs"].items()))
    dups += key in seen
    seen.add(key)
print(len(lines), dups)
PY
check "two tuners on one file: 60 trials together, no configuration twice ($(cat dups.txt))" test "$(cat dups.txt)" = "60 0"
check "the first tuner counts 60 trials, the other's included" grep -q " 60 trials (" tune1.out
check "the second tuner counts 60 trials, the other's included" grep -q " 60 trials (" tune2.out

# A tuner killed while its measuring child hangs: the orphaned child does not hold the file's lock.
TEXC_TUNE_TEST_FAULT="hang@P=0;hang@P=1" setsid "$texc" tune mm.tex --target interp "${small[@]}" --trials 20 \
  --records orphan.jsonl --timeout 60 >/dev/null 2>&1 &
tuner=$!
for _ in $(seq 100); do pgrep -P "$tuner" >/dev/null && break; sleep 0.1; done
{ kill -9 "$tuner"; wait "$tuner"; } 2>/dev/null
timeout 30 "$texc" tune mm.tex --target interp "${small[@]}" --trials 3 --records orphan.jsonl --tuner random \
  >orphan.out 2>&1 </dev/null
check "the next tuner does not wait for the killed one's hanging child" grep -q " 3 trials (" orphan.out
kill -9 -- "-$tuner" 2>/dev/null  # the hanging child (its own process group, from setsid)

# ---- corrupt records: skipped with a warning by tune and run --records
python3 - r.jsonl >bad.jsonl <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in lines if r["status"] == "ok"]
negative = dict(ok[0], median_ms=-1.0, knobs=dict(ok[0]["knobs"], TI=4, TJ=1, UK=0, P=0))
huge = dict(ok[1], gflops=1e12, median_ms=1e-9, min_ms=1e-9, max_ms=1e-9, knobs=dict(ok[1]["knobs"], TI=8, TJ=2, UK=0, P=0))
unknown = dict(ok[2], median_ms=1e-3, knobs=dict(ok[2]["knobs"], TI=7))
for r in lines + [negative, huge, unknown]:
    print(json.dumps(r))
PY
"$texc" tune mm.tex --target interp "${small[@]}" --trials 13 --records bad.jsonl >tune.out 2>tune.err
check "tune with corrupt records exits 0" test $? -eq 0
check "tune: a negative time skipped with a warning" grep -q "warning: skipped the record at bad.jsonl:13: median_ms is -1" tune.err
check "tune: 1e12 GFLOP/s skipped with a warning" grep -q "warning: skipped the record at bad.jsonl:14: gflops 1e+12 is more than 100 times" tune.err
check "tune: an unknown knob value skipped with a warning" grep -q "warning: skipped the record at bad.jsonl:15: knobs TI=7 .* are not all in the lists of op 'mm'" tune.err
check "tune: the corrupt records are no trials and not the best" grep -q "13 trials (12 resumed, 1 new" tune.out
check "tune: the best is a measurement" test "$(grep -c 'best 1000000000000' tune.out)" -eq 0
"$texc" run mm.tex --target interp "${small[@]}" --records bad.jsonl >run.out 2>run.err
check "run --records: the corrupt records skipped with a warning" grep -q "warning: skipped 2 records of op 'mm' on interp in bad.jsonl that cannot be measurements (line 13: median_ms is -1" run.err
check "run --records: not the 1e-9 ms record's knobs" test "$(grep -c 'TI=8 TJ=2 UK=false P=0' run.err)" -eq 0

# ---- inputs that are not regular files or too large: refused at once
# refused PATTERN ARGS...: texc ARGS exits 1 within 20 s with a message matching PATTERN.
refused() {
  local pattern=$1 out status
  shift
  out=$(ulimit -v 8000000; timeout 20 "$texc" "$@" 2>&1 </dev/null)
  status=$?
  if [ "$status" -eq 1 ] && grep -qE -- "$pattern" <<<"$out"; then ok "texc $*: $pattern"; else bad "texc $* -> exit $status (want 1 and /$pattern/): $out"; fi
}
refused "--records '/dev/urandom' is a character device, not a regular file" run mm.tex --target interp --records /dev/urandom
refused "--records '.*lib' is a directory, not a regular file" run mm.tex --target interp --records "$work/lib"
refused "--records '/dev/zero' is a character device, not a regular file" tune mm.tex --target interp --trials 2 --records /dev/zero
refused "--transfer '/dev/urandom' is a character device, not a regular file" tune mm.tex --target interp --trials 2 --records r4.jsonl --transfer /dev/urandom
refused "--curve-with '/dev/zero' is a character device, not a regular file" tune mm.tex --target interp --trials 2 --records r4.jsonl --curve c.svg --curve-with /dev/zero
refused "--vdla-config '/dev/zero' is a character device, not a regular file" run d.tex --target vdla --vdla-config /dev/zero
refused "source file '/dev/zero' is a character device, not a regular file" /dev/zero --target interp
refused "source file 'lib' is a directory, not a regular file" lib --target interp
mkdir -p outdir/mm.h
refused "output 'outdir/mm.h' is a directory" mm.tex --target x86 -o outdir/mm
check "an output that is a directory: nothing written before it is found" test ! -e outdir/mm.o
mkfifo fifo.tex
refused "source file 'fifo.tex' is a FIFO, not a regular file" fifo.tex --target interp
mkdir io
mkfifo io/mm.A.npy
refused "--inputs file 'io/mm.A.npy' is a FIFO, not a regular file" run mm.tex --target interp "${small[@]}" --inputs io
truncate -s 17M big.tex
refused "source file 'big.tex' is 17825792 bytes, more than the 16 MiB texc reads for a source file" big.tex --target interp
truncate -s 17M big.json
refused "--vdla-config 'big.json' is 17825792 bytes, more than the 16 MiB texc reads for a configuration" run d.tex --target vdla --vdla-config big.json
truncate -s 1025M big.jsonl
refused "--records 'big.jsonl' is 1074790400 bytes, more than the 1 GiB texc reads for a records file" run mm.tex --target interp --records big.jsonl
rm -f big.tex big.json big.jsonl
"$texc" d.tex --target vdla -o d >/dev/null 2>&1
out=$(timeout 20 "$vdla_sim" d.vdla --dram-in /dev/zero 2>&1)
check "vdla-sim --dram-in /dev/zero: exit 1, refused ($out)" test $? -eq 1 -a "$out" = "texc: error: --dram-in '/dev/zero' is a character device, not a regular file"
out=$(timeout 20 "$vdla_sim" /dev/urandom 2>&1)
check "vdla-sim /dev/urandom: exit 1, refused ($out)" test $? -eq 1 -a "$out" = "texc: error: program '/dev/urandom' is a character device, not a regular file"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
