#!/usr/bin/env bash
# Target properties in schedules (docs/language.md "Target properties"): lanes.tex splits by
# target.vector_lanes(f32), tiles rows by target.vector_registers and unrolls under
# target.has("fma"), so its loops differ between x86-64-v2 (4 lanes, 16 registers, no FMA),
# x86-64-v3 (8 lanes, 16 registers, FMA) and skylake-avx512 (16 lanes, 32 registers), and each
# runs correctly; unknown properties, unknown features, a bad element type and a property in a
# compute expression are located errors.
# usage: target_properties_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
cd "$root/tests/e2e/target_properties" || exit 2

# The loops for each CPU: 100 columns in vectors of 4, 8 or 16 lanes; 37 rows in tiles of 2 or 4.
expect 0 'for tp_jo in 0\.\.25 ' -- lanes.tex --target x86 --mcpu x86-64-v2 --emit loops -o -
expect 0 'ramp\([^)]*, 1, 4\)' -- lanes.tex --target x86 --mcpu x86-64-v2 --emit loops -o -
expect 0 'for tp_ii in 0\.\.2 ' -- lanes.tex --target x86 --mcpu x86-64-v2 --emit loops -o -
expect 0 'for tp_io in 0\.\.18 ' -- lanes.tex --target x86 --mcpu x86-64-v3 --emit loops -o -
expect 0 'for tp_jo in 0\.\.12 ' -- lanes.tex --target x86 --mcpu x86-64-v3 --emit loops -o -
expect 0 'ramp\([^)]*, 1, 8\)' -- lanes.tex --target x86 --mcpu x86-64-v3 --emit loops -o -
expect 0 'for tp_io in 0\.\.9 ' -- lanes.tex --target x86 --mcpu skylake-avx512 --emit loops -o -
expect 0 'for tp_jo in 0\.\.6 ' -- lanes.tex --target x86 --mcpu x86-64-v4 --emit loops -o -
expect 0 'for tp_jo in 0\.\.6 ' -- lanes.tex --target x86 --mcpu skylake-avx512 --emit loops -o -
expect 0 'ramp\([^)]*, 1, 16\)' -- lanes.tex --target x86 --mcpu skylake-avx512 --emit loops -o -
# --mattr -evex512: AVX-512 in 256-bit registers (8 lanes), still 32 of them.
expect 0 'for tp_jo in 0\.\.12 ' -- lanes.tex --target x86 --mcpu skylake-avx512 --mattr -evex512 --emit loops -o -
expect 0 'ramp\([^)]*, 1, 8\)' -- lanes.tex --target x86 --mcpu skylake-avx512 --mattr -evex512 --emit loops -o -
expect 0 'for tp_io in 0\.\.9 ' -- lanes.tex --target x86 --mcpu skylake-avx512 --mattr -evex512 --emit loops -o -
# arm: NEON, 4 lanes, 32 registers.
expect 0 'for tp_jo in 0\.\.25 ' -- lanes.tex --target arm --emit loops -o -
expect 0 'ramp\([^)]*, 1, 4\)' -- lanes.tex --target arm --emit loops -o -
# Each runs and matches the reference (the host runs x86-64-v2 and -v3 code; x86-64-v4, AVX-512 with
# 16 lanes like skylake-avx512, where it has AVX-512).
expect 0 'PASS' -- run lanes.tex --target x86 --mcpu x86-64-v2
expect 0 'PASS' -- run lanes.tex --target x86 --mcpu x86-64-v3
if grep -q avx512f /proc/cpuinfo; then
  expect 0 'PASS' -- run lanes.tex --target x86 --mcpu x86-64-v4
fi
expect 0 'PASS' -- run lanes.tex --target x86
expect 0 'PASS' -- run lanes.tex --target interp

# Caches: another --mcpu gets 32 KiB and 1 MiB (4096 / 32 = 128 blocks, in groups of 16); the host
# CPU its own L1 data cache (from /sys, as texc reads it).
expect 0 'for tc_oi in 0\.\.16 ' -- caches.tex --target x86 --mcpu x86-64-v3 --emit loops -o -
expect 0 'for tc_i in 0\.\.32 ' -- caches.tex --target x86 --mcpu x86-64-v3 --emit loops -o -
l1=
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
  [ "$(cat "$d/level" 2>/dev/null)" = 1 ] && [ "$(cat "$d/type" 2>/dev/null)" = Data ] && l1=$(cat "$d/size")
done
case $l1 in
  *K) expect 0 "for tc_i in 0\.\.${l1%K} " -- caches.tex --target x86 --emit loops -o - ;;
esac
expect 0 'PASS' -- run caches.tex --target x86

# Mistakes: located errors, exit 1.
expect 1 "unknown_property.tex:6:[0-9]+: error: unknown target property 'target.vector_lane'; did you mean 'target.vector_lanes'\?" \
  -- unknown_property.tex --target x86 --emit loops -o -
expect 1 "unknown_feature.tex:7:[0-9]+: error: target 'x86 --mcpu x86-64-v3' has no CPU feature 'avx512fnord'" \
  -- unknown_feature.tex --target x86 --mcpu x86-64-v3 --emit loops -o -
expect 1 "bad_lanes_type.tex:6:[0-9]+: error: target.vector_lanes takes an element type \(f32, f16, i8, ...\), not 'float'" \
  -- bad_lanes_type.tex --target x86 --emit loops -o -
expect 1 "in_compute.tex:3:[0-9]+: error: .*dotted name is not an expression" -- in_compute.tex --target x86 --emit loops -o -

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
