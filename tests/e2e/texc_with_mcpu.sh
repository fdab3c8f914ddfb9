#!/usr/bin/env bash
# texc with `--mcpu $TEXC_MCPU` added to every command that compiles for x86 (its arguments hold
# `x86`), so that test scripts written for the host's CPU run as on a host with that CPU
# (x86_masked_cpu_test.sh). usage: TEXC_REAL=texc TEXC_MCPU=x86-64-v3 texc_with_mcpu.sh ARGS...
for arg in "$@"; do
  if [ "$arg" = x86 ]; then exec "$TEXC_REAL" "$@" --mcpu "$TEXC_MCPU"; fi
done
exec "$TEXC_REAL" "$@"
