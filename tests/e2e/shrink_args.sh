# shrink_args FILE: the -D options that make a corpus file or example small enough for the e2e
# runs: params above 64 become 64 (above 16 become 14 in a file with a conv2d). Sourced by
# run_corpus.sh and cuda_verdicts_test.sh.
shrink_args() {
  local file=$1 limit=64 small=64
  if grep -q 'conv2d' "$file"; then limit=16; small=14; fi
  grep -E '^[[:space:]]*param[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*=[[:space:]]*[0-9]+[[:space:]]*(#.*)?$' "$file" |
    sed -E 's/^[[:space:]]*param[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*=[[:space:]]*([0-9]+).*/\1 \2/' |
    while read -r name value; do
      if [ "$value" -gt "$limit" ]; then printf -- '-D %s=%s ' "$name" "$small"; fi
    done
}
