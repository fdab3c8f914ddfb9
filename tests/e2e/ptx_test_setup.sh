# Sourced by the GPU e2e tests that check PTX (cuda_*_test.sh), after `texc` and `root` are set:
# TEXC_STDLIB is the repository's stdlib, $work a temporary directory removed at exit;
# `check WHAT COMMAND...` (check.sh) prints "ok WHAT" or "FAIL WHAT" and counts failures in
# $failed; `run_knobs WHAT FILE "K1=V1 K2=V2" [OPTION...]` checks `texc run FILE --target
# cuda-interp --knob K1=V1 --knob K2=V2 OPTION...`, `run_dir DIR` each DIR/*.tex on cuda-interp;
# `no_spills_sm80_sm90 WHAT PTX` checks ptx_no_spills (below) for both archs; $ptxas is
# $TEXC_PTXAS, else /usr/local/cuda/bin/ptxas, else ptxas on PATH, else empty (then the PTX is
# generated but not assembled, said once); `ptx_no_spills PTX ARCH` holds when ptxas assembles the
# PTX for ARCH and reports 0 bytes spilled for every function (else it prints ptxas's report).
# shellcheck source=check.sh
. "$root/tests/e2e/check.sh"
export TEXC_STDLIB="$root/stdlib"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run_dir() {
  local f
  for f in "$1"/*.tex; do
    check "$(basename "$f") on cuda-interp" "$texc" run "$f" --target cuda-interp
  done
}
no_spills_sm80_sm90() {
  [ -n "$ptxas" ] || return 0
  local arch
  for arch in sm_80 sm_90; do check "$1: ptxas $arch, no spills" ptx_no_spills "$2" $arch; done
}
run_knobs() {
  local what=$1 file=$2 knobs=$3 k
  shift 3
  local args=()
  for k in $knobs; do args+=(--knob "$k"); done
  check "$what" "$texc" run "$file" --target cuda-interp "${args[@]}" "$@"
}
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
