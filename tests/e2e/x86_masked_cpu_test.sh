#!/usr/bin/env bash
# The x86 tests as a host with CPU MCPU gets them (x86-64-v3: AVX2 and FMA, no AVX-512;
# x86-64-v2: SSE4.2), on any host that has MCPU's features: every x86 command gets --mcpu MCPU
# (texc_with_mcpu.sh). Runs the vectorised end-to-end corpus, the stdlib's small ops (int8_cpu's
# vpdpbusd ops fall back to their portable schedules) and the stdlib name-clash check; each must
# pass as on the host's CPU. int8_cpu_test.sh MCPU covers the int8 ops' remarks and errors.
# usage: x86_masked_cpu_test.sh TEXC REPO_ROOT MCPU
set -u
export TEXC_REAL=$(realpath "$1")
root=$(realpath "$2")
export TEXC_MCPU=$3
wrapper=$root/tests/e2e/texc_with_mcpu.sh
status=0
echo "== corpus, --target x86 --mcpu $TEXC_MCPU"
"$root/tests/e2e/run_corpus.sh" "$TEXC_REAL" x86 "$root" --mcpu "$TEXC_MCPU" | grep -E "^FAIL|passed"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "== stdlib small ops, --target x86 --mcpu $TEXC_MCPU"
"$root/tests/stdlib/run_stdlib_tests.sh" "$wrapper" x86 "$root" small | grep -E "FAIL|SKIP|passed"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
if command -v python3 >/dev/null; then
  echo "== stdlib name clash, --target x86 --mcpu $TEXC_MCPU"
  python3 "$root/tests/stdlib/check_name_clash.py" "$wrapper" x86 "$root" | grep -E "FAIL|passed"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
exit $status
