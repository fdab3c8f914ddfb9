#!/usr/bin/env bash
# `texc --remarks` (ir/Remark.h): every case in tests/e2e/remarks/*.tex is lowered for x86 with
# --remarks; each `# remark: LINE:COL: MESSAGE` line of its header must be printed (as
# FILE:LINE:COL: remark: MESSAGE..., the message matched as a prefix) and no other remark may be;
# a case without such lines must print none. Also: no remark without --remarks, and the same
# remarks from `texc run --remarks` (and in its --json object).
# usage: remarks_test.sh TEXC CASES_DIR
set -u
texc=$1
cases=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
for file in "$cases"/*.tex; do
  name=$(basename "$file")
  "$texc" "$file" --target x86 --remarks --emit loops -o "$work/out.loops" 2>"$work/err" >/dev/null
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL $name: exit $rc"; cat "$work/err"; failures=$((failures + 1)); continue
  fi
  python3 - "$file" "$work/err" <<'PY' || failures=$((failures + 1))
import re, sys
path, err = sys.argv[1], open(sys.argv[2]).read()
expected = [l[len("# remark: "):].rstrip("\n") for l in open(path) if l.startswith("# remark: ")]
got = [m.group(1) + ": " + m.group(2) for m in re.finditer(r"^[^\n]*?:(\d+:\d+): remark: ([^\n]*)$", err, re.M)]
name = path.rsplit("/", 1)[-1]
ok = len(got) == len(expected) and all(g.startswith(e) for g, e in zip(got, expected))
print(("ok   " if ok else "FAIL ") + name)
if not ok:
    print("  expected:", *expected, sep="\n    ")
    print("  got:", *got, sep="\n    ")
sys.exit(0 if ok else 1)
PY
done
# Without --remarks nothing is said.
"$texc" "$cases/vectorize_too_wide.tex" --target x86 --emit loops -o "$work/out.loops" 2>"$work/err" >/dev/null
if grep -q "remark:" "$work/err"; then echo "FAIL: a remark without --remarks"; failures=$((failures + 1)); else echo "ok   no remarks without --remarks"; fi
# run prints them too, and lists them in --json.
"$texc" run "$cases/vectorize_too_wide.tex" --target x86 --remarks --repeat 1 --json >"$work/out" 2>"$work/err"
if grep -q "remark: vectorized loop 'B.j' runs as scalar code" "$work/err" && grep -q '"remarks": \[{"line": 6, "column": 5, "message": "vectorized loop' "$work/out"; then
  echo "ok   run --remarks --json"
else
  echo "FAIL run --remarks --json"; cat "$work/out" "$work/err"; failures=$((failures + 1))
fi
echo "$failures failure(s)"
exit $((failures > 0))
