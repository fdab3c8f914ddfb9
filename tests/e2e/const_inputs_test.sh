#!/usr/bin/env bash
# const inputs and the prepare function (docs/language.md "const inputs"):
#  - conv.tex: conv2d with const weights passes on interp, x86, arm; its loops have
#    conv_const_prepare (the weight re-layout Wb) and conv_const reading Wb as an input, with no
#    loop over Wt; the op without const keeps one function; the C header declares both with the
#    comment that says how they are called;
#  - direct.tex: a const input read directly by the main computation stays its argument;
#  - spanning.tex: a schedule step across the two halves is a remark, and the op still passes.
# usage: const_inputs_test.sh TEXC REPO_ROOT
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
export TEXC_STDLIB="$root/stdlib"
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
cd "$root/tests/e2e/const_inputs" || exit 2

for target in interp x86; do
  expect 0 'conv_const +[a-z0-9-]+ +PASS' -- run conv.tex --target "$target"
  expect 0 'direct +[a-z0-9-]+ +PASS' -- run direct.tex --target "$target"
done
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then
  expect 0 'conv_const +arm +PASS' -- run conv.tex --target arm
fi
expect 0 'func conv_const_prepare\(Wt: f32\[3591\] input dims\(21, 19, 3, 3\), Wb: f32\[[0-9]+\] output' -- \
  conv.tex --op conv_const --target x86 --emit loops -o -
expect 0 'func conv_const\(X: f32\[1881\] input dims\(1, 19, 9, 11\), Wb: f32\[[0-9]+\] input' -- \
  conv.tex --op conv_const --target x86 --emit loops -o -
expect 0 'func conv_plain\(X: f32\[1881\] input dims\(1, 19, 9, 11\), Wt: f32\[3591\] input' -- \
  conv.tex --op conv_plain --target x86 --emit loops -o -
expect 0 'void conv_const_prepare\(const float\* Wt, float\* Wb\);' -- conv.tex --op conv_const --target x86 --emit header -o -
expect 0 'void conv_const\(const float\* X, const float\* Wb, float\* Y\);' -- conv.tex --op conv_const --target x86 --emit header -o -
expect 0 'pass its outputs to every conv_const call' -- conv.tex --op conv_const --target x86 --emit header -o -
# The main function of conv_const never reads Wt: the re-layout is all in the prepare function.
main_loops=$("$texc" conv.tex --op conv_const --target x86 --emit loops -o - | sed -n '/^func conv_const(/,$p')
if grep -q 'Wt\[' <<<"$main_loops"; then
  echo "FAIL: conv_const's main function reads Wt"
  failures=$((failures + 1))
else
  echo "ok: conv_const's main function reads only the prepared Wb"
fi
expect 0 'func direct\(X: f32\[30\] input dims\(6, 5\), W: f32\[20\] input dims\(5, 4\), S: f32\[20\] input' -- \
  direct.tex --target x86 --emit loops -o -
expect 0 "spanning.tex:9:5: remark: compute_at not applied: 'S' depends only on const inputs and is computed once, by spanning_prepare" -- \
  run spanning.tex --target x86 --remarks
expect 0 'spanning +x86 +PASS' -- run spanning.tex --target x86
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
