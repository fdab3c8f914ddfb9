#!/usr/bin/env bash
# The GPU checks of docs/cuda.md, for a machine with a CUDA device (run from the repository root
# there, with the bundle of tools/device_bundle.sh carried along):
#   1. texc run --target cuda on every stdlib test op (tests/stdlib: the *_small ops and the typical
#      sizes), the cross-thread reductions (tests/e2e/cuda_reduction), the ragged tiles
#      (tests/e2e/cuda_ragged), split-K (tests/e2e/cuda_split_k, G6 with MMG_SPLITK=4 and 8), the GPU
#      schedule regressions (tests/schedule/regressions/*cuda*) and
#      the end-to-end corpus with the examples (tests/e2e/run_corpus.sh), each checked against the
#      reference;
#   2. the host path: a C program calling mm.o's host function with device pointers; (step graph)
#      the entry of examples/10_network.tex's 7 kernels called twice from C against texc run's
#      output on x86; and (step capi) examples/c_api's CUDA example, built by tools/device_bundle.sh;
#   3. texc tune --target cuda on some workloads ($TUNE_WORKLOADS, default G5 G4 G2 C9 C12 C2;
#      $TUNE_TRIALS trials each, default 40, at most $TUNE_SECONDS s each, default 40; none started
#      after $TUNE_UNTIL s, default 250) into OUT_DIR/cuda.jsonl, which starts from
#      bench/records/cuda.jsonl unless TUNE_FRESH=1 (records of older schedules set aside);
#   4. bench/run_bench.py --target cuda: texc (as shipped, and with the records of OUT_DIR/cuda.jsonl
#      or bench/records/cuda.jsonl) against cuBLAS and cuDNN on G1-G6, C1-C12, D1-D9;
#   5. compute-sanitizer (memcheck, racecheck, synccheck) on texc run of some of those kernels
#      (each run at most 40 s, none started after 480 s);
#   6. (step sweep, not in the default list) tools/device_gemm_sweep.sh: G1-G6 and C1-C12 (or
#      $SWEEP_WORKLOADS) with the stdlib matmul's and conv2d's schedule variants (warp tiling,
#      tensor cores, register tiles, double buffering) side by side, at most 420 s.
# Logs and the benchmark's JSON and markdown go to OUT_DIR; the last lines are a summary.
# usage: tools/device_check.sh BUNDLE_DIR OUT_DIR [steps]     steps: a comma list of
#        ops,host,graph,capi,tune,bench,sanitizer,sweep (default all but sweep)
set -u
bundle=$(cd "$1" && pwd)
out=$2
steps=${3:-ops,host,graph,capi,tune,bench,sanitizer}
root=$(pwd)
mkdir -p "$out" /tmp/texc-device
tar -xJf "$bundle/lib.tar.xz" -C /tmp/texc-device
export LD_LIBRARY_PATH=/tmp/texc-device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# cuBLAS from the toolkit; cuDNN from the toolkit or the Python wheels (nvidia-cudnn).
for d in /usr/local/cuda/lib64 $(find / -xdev -name 'libcudnn.so.9' -printf '%h\n' 2>/dev/null | head -n 1); do
  LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d
done
export TEXC_STDLIB=$root/stdlib
# run_bench.py finds texc and the peers in BUILD/tools/texc and BUILD/bench.
build=/tmp/texc-device/build
mkdir -p "$build/tools/texc" "$build/bench"
cp "$bundle/bin/texc" "$build/tools/texc/"
cp "$bundle"/bin/bench_cu* "$build/bench/" 2>/dev/null
texc=$build/tools/texc/texc
summary=()
has() { case ",$steps," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

nvidia-smi -L
"$texc" --version

if has ops; then
  timeout 240 tests/stdlib/run_stdlib_tests.sh "$texc" cuda "$root" all >"$out/stdlib.log" 2>&1
  summary+=("stdlib ops on cuda (rc $?): $(tail -n 1 "$out/stdlib.log")")
  n=0 bad=0
  for f in tests/e2e/cuda_reduction/*.tex tests/e2e/cuda_ragged/*.tex tests/schedule/regressions/*cuda*.tex; do
    n=$((n + 1))
    if ! timeout 60 "$texc" run "$f" --target cuda --repeat 3 >>"$out/more_ops.log" 2>&1; then
      bad=$((bad + 1))
      echo "FAIL $f" >>"$out/more_ops.log"
    fi
  done
  summary+=("reductions, ragged tiles and regressions on cuda: $((n - bad)) of $n files passed")
  # Split-K (docs/cuda.md): the atomic adds and the host's zeroing of the output on the device.
  n=0 bad=0
  for run in "tests/e2e/cuda_split_k/mm.tex" "tests/e2e/cuda_split_k/mv_direct.tex" "tests/e2e/cuda_split_k/isum.tex" \
             "tests/e2e/cuda_split_k/rowsum_threads.tex" "tests/e2e/cuda_split_k/block_per_k.tex" \
             "tests/e2e/cuda_vector_fill/stdlib_ragged.tex --knob MMG_SPLITK=4" \
             "bench/texc_workloads/G6.tex --knob MMG_SPLITK=4" "bench/texc_workloads/G6.tex --knob MMG_SPLITK=8"; do
    n=$((n + 1))
    # shellcheck disable=SC2086  # $run is a file and its knobs
    if ! timeout 60 "$texc" run $run --target cuda --repeat 3 >>"$out/split_k.log" 2>&1; then
      bad=$((bad + 1))
      echo "FAIL $run" >>"$out/split_k.log"
    fi
  done
  summary+=("split-K on cuda: $((n - bad)) of $n runs passed")
  timeout 240 tests/e2e/run_corpus.sh "$texc" cuda "$root" --repeat 3 >"$out/corpus.log" 2>&1
  summary+=("e2e corpus and examples on cuda (rc $?): $(tail -n 1 "$out/corpus.log")")
fi

if has host; then
  (cd "$bundle/hostcheck" && timeout 60 ./cuda_host_device_check) >"$out/host.log" 2>&1
  summary+=("host path (rc $?): $(tail -n 1 "$out/host.log")")
fi

if has graph; then
  (cd "$bundle/graphcheck" && timeout 60 ./cuda_graph_device_check io) >"$out/graph.log" 2>&1
  summary+=("graph entry (rc $?): $(tail -n 1 "$out/graph.log")")
fi

if has capi; then
  (cd "$bundle/capi" && timeout 60 ./cuda_example) >"$out/capi.log" 2>&1
  summary+=("c_api cuda example (rc $?): $(tail -n 1 "$out/capi.log")")
fi

records=$root/bench/records/cuda.jsonl
if has tune; then
  [ -f "$records" ] && [ "${TUNE_FRESH:-0}" != 1 ] && cp "$records" "$out/cuda.jsonl"
  records=$out/cuda.jsonl
  for w in ${TUNE_WORKLOADS:-G5 G4 G2 C9 C12 C2}; do
    [ $SECONDS -lt "${TUNE_UNTIL:-250}" ] || { summary+=("tune $w: skipped (past ${TUNE_UNTIL:-250} s)"); continue; }
    timeout "${TUNE_SECONDS:-40}" "$texc" tune "bench/texc_workloads/$w.tex" --target cuda --trials "${TUNE_TRIALS:-40}" \
      --records "$records" >>"$out/tune.log" 2>&1
    summary+=("tune $w (rc $?): $(grep -c "\"op\": \"$w\"" "$records" 2>/dev/null) records")
  done
fi

if has bench; then
  cp docs/performance.md "$out/performance.md"
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/run_bench.py --target cuda --no-build --build-dir "$build" \
    --repeat 20 --cuda-records "$records" --json-out "$out/cuda_run.json" --out "$out/performance.md" >"$out/bench.log" 2>&1
  summary+=("run_bench.py --target cuda: rc $?")
fi

if has sweep; then
  timeout 420 tools/device_gemm_sweep.sh "$texc" 20 "${SWEEP_WORKLOADS:-G1 G2 G3 G4 G5 G6 C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 C11 C12}" >"$out/gemm_sweep.md" 2>"$out/gemm_sweep.log"
  summary+=("tools/device_gemm_sweep.sh (rc $?): $out/gemm_sweep.md")
fi

if has sanitizer; then
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    for case in "tests/stdlib/matmul.tex matmul_blocks_small" "tests/stdlib/softmax.tex softmax_small" \
                "tests/stdlib/conv2d.tex conv2d_tiles_small" "tests/stdlib/depthwise_conv2d.tex depthwise_conv2d_small" "tests/e2e/cuda_reduction/rows_2d.tex -" \
                "tests/e2e/cuda_ragged/ragged_mn.tex -" "tests/e2e/cuda_ragged/ragged_k.tex -"; do
      set -- $case
      opt=()
      [ "$2" = - ] || opt=(--op "$2")
      [ $SECONDS -lt 480 ] || { summary+=("compute-sanitizer $tool $case: skipped (past 480 s)"); continue; }
      timeout 40 "$sanitizer" --tool "$tool" --error-exitcode 9 "$texc" run "$1" "${opt[@]}" --target cuda --repeat 1 \
        >>"$out/sanitizer.log" 2>&1
      rc=$?
      echo "== $tool $case: rc $rc" >>"$out/sanitizer.log"
      summary+=("compute-sanitizer $tool $case: rc $rc")
    done
  done
fi

echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
