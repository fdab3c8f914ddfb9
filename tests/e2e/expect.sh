# Sourced by the command-line tests (cli_test.sh, cpu_cli_test.sh); needs $texc set.
failures=0

# expect EXIT_CODE PATTERN -- ARGS...: runs texc ARGS, checks the exit code and that the combined
# output matches the extended regular expression PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 3
  local out status
  out=$("$texc" "$@" 2>&1)
  status=$?
  if [ "$status" -ne "$code" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL: texc $* -> exit $status (want $code), output:"
    sed 's/^/    /' <<<"$out"
    echo "    (wanted /$pattern/)"
    failures=$((failures + 1))
  else
    echo "ok: texc $*"
  fi
}
