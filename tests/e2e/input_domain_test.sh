#!/usr/bin/env bash
# Input domains (docs/language.md "Input domains"): `texc run` draws random inputs in an input's
# declared domain (or one inherited from nn.norm's batch_norm), so a block with batch
# normalization is checked on numbers, not NaN; --input-range overrides the domain, and a run whose
# checked reference values are all NaN fails with that reason (it used to PASS).
# usage: input_domain_test.sh TEXC REPO_ROOT
set -u
texc=$1
root=$2
export TEXC_STDLIB="$root/stdlib"
dir=$root/tests/e2e/input_domain
failures=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failures=$((failures + 1)); }

for target in interp x86; do
  out=$("$texc" run "$dir/bn_block.tex" --target "$target" --json 2>&1)
  python3 -c '
import json, sys
r = json.loads(sys.argv[1].splitlines()[-1])
assert r["status"] == "pass" and r["points_checked"] == 288 and r["nonfinite_expected"] == 0, r' "$out" &&
    ok "bn_block on $target: PASS on 288 finite points (var drawn in batch_norm's domain)" ||
    bad "bn_block on $target: $out"
  out=$("$texc" run "$dir/gather_index.tex" --target "$target" 2>&1)
  [ $? -eq 0 ] && grep -qE '^gather_rows +[a-z0-9]+ +PASS .*24 points checked \(all\)$' <<<"$out" &&
    grep -qE '^log_of_positive +[a-z0-9]+ +PASS .*16 points checked \(all\)$' <<<"$out" &&
    ok "declared domains on $target: indices inside the table, log and sqrt of positive values" ||
    bad "declared domains on $target: $out"
done

# --input-range overrides the domain: every variance negative, every reference value NaN: FAIL.
out=$("$texc" run "$dir/bn_block.tex" --target x86 --input-range var=-1,-0.5 2>&1)
status=$?
[ $status -eq 1 ] && grep -qE '^bn_block +x86 +FAIL .*288 points checked \(all\), 288 NaN/inf in the reference$' <<<"$out" &&
  grep -q "every one of the 288 checked points of output 'Y' is NaN or infinite in the reference, so no number was compared" <<<"$out" &&
  ok "all-NaN reference: FAIL with the reason" || bad "all-NaN reference (exit $status): $out"
# An index outside the table (--input-range beyond the declared domain): the reference says so.
out=$("$texc" run "$dir/gather_index.tex" --target interp --op gather_rows --input-range idx=5,9 2>&1)
[ $? -eq 1 ] && grep -q "reference: out-of-bounds read of 'T'" <<<"$out" &&
  ok "--input-range idx=5,9 overrides idx's domain" || bad "--input-range over a domain: $out"

[ $failures -eq 0 ] && echo "input domains: all passed"
[ $failures -eq 0 ]
