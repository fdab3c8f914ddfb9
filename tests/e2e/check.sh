# Sourced by e2e tests that count their own failures: `check WHAT COMMAND...` runs COMMAND, prints
# "ok   WHAT" or "FAIL WHAT" and counts failures in $failed (prefetch_test.sh, and the PTX tests
# through ptx_test_setup.sh).
failed=0
check() {
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else
    echo "FAIL $what"
    failed=$((failed + 1))
  fi
}
