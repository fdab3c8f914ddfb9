# Sourced by the layout-planning tests of imported models (onnx_layout_test.sh,
# onnx_layout_mobilenet_test.sh), after `root` is set; its checks need the working directory that
# layout_test_setup makes, holding MODEL.y.npy and MODEL.feat.npy, the outputs NumPy computed.
# shellcheck source=expect.sh
. "$root/tests/e2e/expect.sh"

# layout_test_setup TEXC PYTHON MAKE_MODELS MODEL: sets texc and python, a temporary working
# directory (removed at exit) where MAKE_MODELS (a python script given the directory) writes the
# ONNX models and NumPy's outputs, and cds there, with in/MODEL.x.npy the input for --inputs.
layout_test_setup() {
  texc=$(realpath "$1")
  python=$2
  export TEXC_STDLIB="$root/stdlib"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$python" "$3" "$work" || { echo "FAIL: $(basename "$3")"; exit 1; }
  cd "$work" || exit 2
  mkdir in && cp "$4.x.npy" "in/$4.x.npy"
}

# count PATTERN FILE WANT: the lines of FILE matching PATTERN are WANT
count() {
  local got
  got=$(grep -cE -- "$1" "$2")
  if [ "$got" -ne "$3" ]; then
    echo "FAIL: $2 has $got lines matching /$1/, want $3"
    failures=$((failures + 1))
  else
    echo "ok: $2: $3 x /$1/"
  fi
}

# check_outputs MODEL DIR: DIR/MODEL.y.npy and DIR/MODEL.feat.npy match NumPy's outputs
check_outputs() {
  "$python" - "$1" "$2" <<'PY' || failures=$((failures + 1))
import numpy as np, sys
model, out = sys.argv[1], sys.argv[2]
for name in ("y", "feat"):
    got, want = np.load("%s/%s.%s.npy" % (out, model, name)), np.load("%s.%s.npy" % (model, name))
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        print("FAIL: %s/%s.%s.npy differs from NumPy's:" % (out, model, name), got, want); sys.exit(1)
    print("ok: %s/%s.%s.npy matches NumPy's (max abs error %.2g)" % (out, model, name, np.abs(got - want).max()))
PY
}

# run_everywhere MODEL KERNELS: blocked.tex (with blocked.weights) on x86, MODEL.onnx on x86 (planned
# and with --layout nchw), interp and arm (qemu; skipped when texc run exits 2) each PASS with
# KERNELS kernels checked on their own inputs (any count with --layout nchw), inputs from in/, and
# give NumPy's outputs
run_everywhere() {
  local model=$1 kernels=$2 out status
  expect 0 "$model +x86 +PASS .* $kernels kernels checked on their own inputs" -- \
    run blocked.tex --target x86 --weights blocked.weights --inputs in --save-io out_file --repeat 1
  check_outputs "$model" out_file
  expect 0 "$model +x86 +PASS .* $kernels kernels checked on their own inputs" -- \
    run "$model.onnx" --target x86 --inputs in --save-io out_x86 --repeat 1
  check_outputs "$model" out_x86
  expect 0 "$model +x86 +PASS .* kernels checked on their own inputs" -- \
    run "$model.onnx" --target x86 --layout nchw --inputs in --save-io out_nchw --repeat 1
  check_outputs "$model" out_nchw
  expect 0 "$model +interp +PASS .* $kernels kernels checked on their own inputs" -- \
    run "$model.onnx" --target interp --inputs in --save-io out_interp
  check_outputs "$model" out_interp
  out=$("$texc" run "$model.onnx" --target arm --inputs in --save-io out_arm --repeat 1 2>&1)
  status=$?
  if [ "$status" -eq 2 ]; then
    echo "SKIP: arm (texc run exits 2: $out)"
  elif [ "$status" -ne 0 ] || ! grep -qE "$model +arm +PASS .* $kernels kernels checked on their own inputs" <<<"$out"; then
    echo "FAIL: texc run $model.onnx --target arm -> exit $status:"; sed 's/^/    /' <<<"$out"; failures=$((failures + 1))
  else
    echo "ok: texc run $model.onnx --target arm"
    check_outputs "$model" out_arm
  fi
}
