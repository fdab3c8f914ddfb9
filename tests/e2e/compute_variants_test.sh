#!/usr/bin/env bash
# Per-target implementations (`compute TARGET { ... }`, docs/language.md): the implementation is
# what a target compiles, the definition is what the reference evaluates.
#  - transposed.tex passes on interp, x86, arm and cuda-interp; its x86 loops have the
#    implementation's stage BT, its cuda loops the definition's (no BT);
#  - wrong.tex (an implementation that differs from its definition) FAILs on interp and x86;
#  - calls.tex: a caller gets the callee's implementation;
#  - guarded.tex: each caller gets the first guarded implementation whose condition holds on its
#    shapes and attributes, else the unguarded one; all pass against the definition.
# Error cases (unknown target, a second block for one target, outputs that differ) are in tests/errors.
# usage: compute_variants_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
cd "$root/tests/e2e/compute_variants" || exit 2

for target in interp x86 cuda-interp; do
  expect 0 'PASS' -- run transposed.tex --target "$target"
done
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then
  expect 0 'PASS' -- run transposed.tex --target arm
fi
expect 0 'allocate BT' -- transposed.tex --target x86 --emit loops -o -
if "$texc" transposed.tex --target cuda-interp --emit loops -o - 2>&1 | grep -q 'BT'; then
  echo "FAIL: the cuda-interp loops of transposed.tex have the cpu implementation's stage BT"
  failures=$((failures + 1))
else
  echo "ok: the cuda-interp loops of transposed.tex are the definition's"
fi
for target in interp x86; do
  expect 1 'FAIL' -- run wrong.tex --target "$target"
done
expect 0 'PASS' -- run calls.tex --target x86
expect 0 'allocate BT' -- calls.tex --target interp --emit loops -o -
for target in interp x86; do
  expect 0 'PASS' -- run guarded.tex --target "$target"
done
expect 0 'A\[[^]]*\] \+ A\[' -- guarded.tex --target x86 --op narrow --emit loops -o -   # SMALL
expect 0 '\*4\.0f/2\.0f' -- guarded.tex --target x86 --op even --emit loops -o -         # EVEN
expect 0 '\*0\.5f\*4\.0f' -- guarded.tex --target x86 --op odd --emit loops -o -        # ANY
expect 0 '\*0\.5f\*4\.0f' -- guarded.tex --target x86 --op narrow_k3 --emit loops -o -  # ANY: k is not 2
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
