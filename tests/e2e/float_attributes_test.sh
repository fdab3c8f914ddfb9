#!/usr/bin/env bash
# Float attributes (docs/language.md "Attributes"), in float_attributes/scale.tex:
#  - the ops pass against the reference on interp, x86, cuda-interp and arm (when qemu is here),
#    with the defaults, with -D alpha=3 -D beta=1e3, and through a call that sets them;
#  - a C program built against the --emit obj/header output (check.c) computes the formula with
#    the values the test gave and checks every element, and that OP_ATTR_ macros hold the values;
#    the same for arm under qemu;
#  - -D errors: a fraction for a dimension, a value that is not a number.
# usage: float_attributes_test.sh TEXC REPO_ROOT TEXRT [TEXRT_AARCH64]
set -u
texc=$(realpath "$1")
root=$(realpath "$2")
texrt=$3
texrt_arm=${4:-}
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"
cd "$root/tests/e2e/float_attributes" || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
have_arm=0
command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null && [ -f "$texrt_arm" ] && have_arm=1

targets="interp x86 cuda-interp"
[ "$have_arm" -eq 1 ] && targets="$targets arm"
for t in $targets; do
  expect 0 "user +$t +PASS" -- run scale.tex --target "$t" -D N=37 -D M=29
  expect 0 "scale_shift +$t +PASS" -- run scale.tex --target "$t" --op scale_shift -D N=37 -D alpha=3 -D beta=1e3
done

# compile_and_check ARCH CC RUNNER TEXRT ALPHA BETA -D...: the C program against the compiled ops.
compile_and_check() {
  local arch=$1 cc=$2 runner=$3 rt=$4 alpha=$5 beta=$6
  shift 6
  local name="C program ($arch, alpha=$alpha beta=$beta)"
  if ! "$texc" scale.tex --target "$arch" -D N=41 -D M=33 "$@" --emit obj -o "$work/scale.o" ||
     ! "$texc" scale.tex --target "$arch" -D N=41 -D M=33 "$@" --emit header -o "$work/scale.h"; then
    echo "FAIL: $name: texc failed"; failures=$((failures + 1)); return
  fi
  if ! "$cc" -std=c99 -Wall -Werror -DEXPECT_ALPHA="$alpha" -DEXPECT_BETA="$beta" -I"$work" check.c "$work/scale.o" \
       "$rt" -lstdc++ -lpthread -lm -o "$work/check_$arch"; then
    echo "FAIL: $name does not build"; failures=$((failures + 1)); return
  fi
  if out=$($runner "$work/check_$arch") && [ "$out" = PASS ]; then
    echo "ok: $name"
  else
    echo "FAIL: $name:"; sed 's/^/    /' <<<"$out"; failures=$((failures + 1))
  fi
}
compile_and_check x86 cc "" "$texrt" 0.5 -0.125
compile_and_check x86 cc "" "$texrt" 3.0 1000.0 -D alpha=3 -D beta=1e3
if [ "$have_arm" -eq 1 ]; then
  compile_and_check arm aarch64-linux-gnu-gcc "qemu-aarch64 -L /usr/aarch64-linux-gnu" "$texrt_arm" 0.5 -0.125
fi
expect 0 '^#define SCALE_SHIFT_ATTR_BETA \(-0\.125\)$' -- scale.tex --target x86 -D N=8 -D M=8 --emit header -o -
expect 0 '^//   alpha = 3\.0 \(f32 attribute, compiled in\)$' -- scale.tex --target x86 -D N=8 -D M=8 -D alpha=3 --emit header -o -

expect 1 "-D N=1.5: 'N' is an integer here \(a param, int attribute or dimension\), so its value must be a whole number" -- \
  run scale.tex --target interp -D N=1.5 -D M=4
expect 1 "-D alpha needs a number, not '1.5e'" -- run scale.tex --target interp -D N=4 -D M=4 -D alpha=1.5e
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
