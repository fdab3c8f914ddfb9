#!/usr/bin/env bash
# Target options that LLVM cannot generate code for, or that this host cannot run, are clear errors
# before code generation (backends/llvm/CpuTargetMachine.h), never an LLVM crash, a DAG dump, or a
# SIGILL:
#  - x86 without SSE2 (--mattr -sse,-sse2): exit 1 (x86-64 passes floats in SSE registers);
#  - AVX-512 added to a CPU without it (--mcpu x86-64-v3 --mattr +avx512f, or +avx512bw on haswell)
#    gets 512-bit registers (+evex512) and compiles (was "Cannot select: v8f32 = vselect" and a DAG
#    dump); AVX-512 limited to 256 bits without avx512vl (--mattr -evex512,-avx512vl): exit 1;
#  - texc run for a CPU with features the host lacks: exit 2 naming them; compiling for it works;
#  - an LLVM failure (an intrinsic without `requires` on a CPU without it) prints one line, no
#    node addresses or DAG.
# usage: cpu_portability_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
cd "$root/tests/stdlib" || exit 2

expect 1 '^texc: error: target x86 cannot use --mattr -sse,-sse2: x86-64 code needs .*SSE registers' -- \
  run tanh_act.tex --target x86 --mattr -sse,-sse2
expect 1 '^texc: error: target x86 cannot use --mattr -sse2: ' -- tanh_act.tex --target x86 --mattr -sse2 --emit obj -o /dev/null
for choice in "--mcpu x86-64-v3 --mattr +avx512f" "--mcpu x86-64-v2 --mattr +avx512f" "--mcpu haswell --mattr +avx512bw" \
              "--mcpu x86-64-v4 --mattr -evex512" "--mcpu x86-64-v4 --mattr -avx512vl"; do
  # shellcheck disable=SC2086
  expect 0 '^$' -- tanh_act.tex --target x86 --op tanh_act_typical $choice --emit obj -o /dev/null
  # shellcheck disable=SC2086
  expect 0 '^$' -- softmax.tex --target x86 $choice --emit obj -o /dev/null
done
if grep -qw avx512f /proc/cpuinfo; then
  expect 0 'tanh_act_typical +x86 +PASS' -- run tanh_act.tex --target x86 --mcpu x86-64-v3 --mattr +avx512f
fi
expect 1 '^texc: error: target x86 cannot use --mcpu x86-64-v4 --mattr -evex512,-avx512vl: AVX-512 without 512-bit registers \(-evex512\) needs avx512vl' -- \
  tanh_act.tex --target x86 --mcpu x86-64-v4 --mattr -evex512,-avx512vl --emit obj -o /dev/null

# A CPU with a feature this host lacks (the first of these whose flag /proc/cpuinfo lacks).
foreign=""
for pair in skylake-avx512:avx512f:avx512f sapphirerapids:avx512_fp16:avx512fp16 graniterapids:amx_fp16:amx-fp16; do
  IFS=: read -r cpu flag feature <<<"$pair"
  if ! grep -qw "$flag" /proc/cpuinfo; then foreign=$cpu; break; fi
done
if [ -n "$foreign" ]; then
  expect 2 "^texc: error: cannot run code for target x86 --mcpu $foreign on this host \(.*\): the host CPU lacks .*$feature.*; compile it without .run." -- \
    run tanh_act.tex --target x86 --mcpu "$foreign"
  expect 0 '^$' -- tanh_act.tex --target x86 --mcpu "$foreign" --emit obj -o /dev/null
  expect 2 "the host CPU lacks .*$feature" -- run tanh_act.tex --target x86 --mattr "+$feature"
else
  echo "skip: this host has every feature of skylake-avx512, sapphirerapids and graniterapids"
fi

# LLVM's own failure: one line, no node addresses, no "LLVM ERROR", no dump.
out=$("$texc" "$root/tests/e2e/int8_cpu/acc.tex" --target x86 --mcpu x86-64-v3 --emit obj -o /dev/null 2>&1)
status=$?
if [ "$status" -ne 1 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || grep -qE '0x[0-9a-f]{6}|LLVM ERROR|internal error' <<<"$out"; then
  echo "FAIL: acc.tex for x86-64-v3: exit $status (want 1, one line), output:"
  sed 's/^/    /' <<<"$out"
  failures=$((failures + 1))
else
  echo "ok: acc.tex for x86-64-v3: $out"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
