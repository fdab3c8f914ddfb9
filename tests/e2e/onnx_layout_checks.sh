# Sourced by the layout-planning tests of imported models (onnx_layout_test.sh,
# onnx_layout_mobilenet_test.sh); needs $failures (expect.sh), $python, and the working directory
# holding MODEL.y.npy and MODEL.feat.npy, the outputs NumPy computed.

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
