#!/usr/bin/env bash
# vdla-sim against forged .vdla files (docs/vdla-format.md, "Validation" and "Limits"): a DRAM size
# of 2^40, GEMMs and ALUs iterating 16383 x 16383 times over the whole micro-op buffer, a shape
# whose byte size overflows, 100 dimensions, an impossible configuration, counts larger than the
# file, offsets outside DRAM, an out-of-range SRAM address, truncations, trailing bytes, a wrong
# checksum, random bit flips in instructions, a directory. Each must end with a message and exit
# 1 (a flipped bit may also give a program that runs: exit 0) within 20 s and 2 GB, never with a
# signal, an "internal error", an uncaught exception or a timeout.
# usage: vdla_sim_fuzz_test.sh TEXC VDLA_SIM REPO_ROOT
set -u
texc=$1
sim=$2
root=$3
forge="python3 $root/tests/vdla/forge_vdla.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checked=0

"$texc" "$root/tests/vdla/dense_int8.tex" --target vdla -o "$work/d" >/dev/null || { echo "FAIL: texc cannot compile the program to forge"; exit 1; }

# expect_sim CODES PATTERN FILE: vdla-sim FILE exits with one of CODES ("1" or "0|1") and its
# output matches PATTERN (extended regex), within the limits.
expect_sim() {
  local codes=$1 pattern=$2 file=$3 out status problem=""
  out=$(ulimit -v 2000000; timeout 20 "$sim" "$file" 2>&1)
  status=$?
  checked=$((checked + 1))
  if [ "$status" -eq 124 ]; then problem="timed out"
  elif [ "$status" -ge 128 ]; then problem="crashed (exit $status)"
  elif grep -qE "internal error|terminate called|std::" <<<"$out"; then problem="an internal error or uncaught exception"
  elif ! grep -qxE -- "$codes" <<<"$status"; then problem="exit $status, want $codes"
  elif ! grep -qE -- "$pattern" <<<"$out"; then problem="output does not match /$pattern/"
  fi
  if [ -n "$problem" ]; then
    echo "FAIL: vdla-sim $(basename "$file") -> $problem, output:"
    head -5 <<<"$out" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

# forged NAME PATTERN: forges NAME from the program and expects exit 1 with PATTERN.
forged() {
  $forge "$work/d.vdla" "$work/$1.vdla" "$1" || { echo "FAIL: cannot forge $1"; failures=$((failures + 1)); return; }
  expect_sim 1 "$2" "$work/$1.vdla"
}
forged dram_2_40 "its DRAM image of 1099511627776 bytes is larger than the 1073741824 bytes \(1 GiB\)"
forged dram_max "its DRAM image of 18446744073709551615 bytes is larger"
forged gemm_max_iterations "instruction [0-9]+ \(GEMM\) ask for more than the 68719476736 element operations"
forged alu_max_iterations "instruction [0-9]+ \(ALU [A-Z]+\) ask for more than the 68719476736 element operations"
forged shape_overflow "tensor argument 'X' has 2\^64 bytes or more"
forged rank_100 "tensor argument 'X' has 100 dimensions; the limit is 64"
forged config_huge "configuration is invalid: 'inp_buffer_bytes': it is too large"
forged config_zero "configuration is invalid: 'batch': it must be positive"
forged uops_count_max "truncated or corrupt: it says it has 4294967295 micro-ops"
forged insns_count_max "truncated or corrupt: it says it has 4294967295 instructions"
forged uop_offset_outside "the micro-op table .* lies outside the [0-9]+-byte DRAM image"
forged arg_offset_outside "tensor argument 'X' .* at DRAM offset 9223372036854775808\) lies outside"
forged load_sram_out_of_range "invalid access: instruction [0-9]+ .* past the end of"
forged trailing "1 unexpected bytes follow the end of the program"
forged bad_checksum "checksum does not match"
for seed in $(seq 1 15); do
  $forge "$work/d.vdla" "$work/cut.vdla" truncate "$seed"
  expect_sim 1 "truncated|not a \.vdla file" "$work/cut.vdla"
done
for seed in $(seq 1 30); do
  $forge "$work/d.vdla" "$work/flip.vdla" flip "$seed"
  expect_sim "0|1" "cycles|error" "$work/flip.vdla"
done
mkdir "$work/dir.vdla"
expect_sim 1 "directory" "$work/dir.vdla"
# The original still runs.
expect_sim 0 "cycles: [0-9]+" "$work/d.vdla"

echo "vdla-sim fuzz: $checked files, $failures failed"
[ "$failures" -eq 0 ]
