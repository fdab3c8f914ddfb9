# Sourced by the GPU e2e tests that check PTX (cuda_vector_fill_test.sh, cuda_ragged_test.sh,
# cuda_double_buffer_test.sh, cuda_mma_test.sh), after `root` is set: `check WHAT COMMAND...`
# (check.sh) prints "ok WHAT" or "FAIL WHAT" and counts failures in $failed; $ptxas is
# $TEXC_PTXAS, else /usr/local/cuda/bin/ptxas, else ptxas on PATH, else empty (then the PTX is
# generated but not assembled, said once); `ptx_no_spills PTX ARCH` holds when ptxas assembles the
# PTX for ARCH and reports 0 bytes spilled for every function (else it prints ptxas's report).
# shellcheck source=check.sh
. "$root/tests/e2e/check.sh"
ptxas=${TEXC_PTXAS:-}
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
[ -z "$ptxas" ] && command -v ptxas > /dev/null 2>&1 && ptxas=ptxas
[ -z "$ptxas" ] && echo "note: no ptxas: the PTX is generated but not assembled"
ptx_no_spills() {
  local out
  out=$("$ptxas" -arch="$2" -v "$1" -o /dev/null 2>&1) || { echo "$out"; return 1; }
  grep -q "spill" <<<"$out" || { echo "$out"; return 1; }
  if grep "spill" <<<"$out" | grep -vq "0 bytes spill stores, 0 bytes spill loads"; then echo "$out"; return 1; fi
}
