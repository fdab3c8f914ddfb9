#!/usr/bin/env bash
# Every schedule primitive the front end accepts (frontend/ScheduleElaborator.cpp's table), with
# every memory scope, thread tag and intrinsic it takes, applied in a `schedule cpu` block and
# compiled for interp (--emit loops), x86 and arm (--emit obj). Each must either compile or be a
# located diagnostic (exit 1, `FILE:LINE:COL: error: ...`): never an internal error, an abort or
# another exit code. What compiles is also run on interp and x86 and checked against the reference.
# usage: primitive_sweep.sh TEXC
set -u
texc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# case NAME SCHEDULE-LINE...: writes $work/NAME.tex, a matmul with an elementwise producer T (so
# that stage primitives have a stage to move) scheduled with the given lines.
case_file() {
  local name=$1
  shift
  {
    echo 'intrinsic dot16(a: f32[16], b: f32[16, 16]) -> c {'
    echo '  compute { c[j] = sum(a[k] * b[k, j] for k in 0..16) }'
    echo '  lower extern "sweep_dot16"'
    echo '}'
    echo 'intrinsic vnni(a: u8[4], b: i8[16, 4]) -> c {'
    echo '  compute { c[j] = sum(i32(a[k]) * i32(b[j, k]) for k in 0..4) }'
    echo '  lower llvm "llvm.x86.avx512.vpdpbusd.512"'
    echo '}'
    echo 'op f(A: f32[16, 16], B: f32[16, 16]) -> C {'
    echo '  compute {'
    echo '    T[i, j] = A[i, j] * 2.0'
    echo '    C[i, j] = sum(T[i, k] * B[k, j] for k in 0..16)'
    echo '  }'
    echo '  schedule cpu {'
    printf '    %s\n' "$@"
    echo '  }'
    echo '}'
  } >"$work/$name.tex"
}

case_file split 'a, b = split(C.i, 4)'
case_file split_nparts 'a, b = split(C.i, nparts = 3)'
case_file tile 'a, b, c, d = tile(C.i, C.j, 4, 8)'
case_file fuse 'f = fuse(C.i, C.j)'
case_file reorder 'reorder(C.j, C.i)'
case_file reorder_reduction 'reorder(C.i, C.k, C.j)'
case_file compute_at 'compute_at(T, C.i)'
case_file inline 'inline(T)'
case_file compute_root 'compute_root(T)'
for scope in global local shared vdla.inp vdla.wgt vdla.acc; do
  case_file "cache_read_input_$scope" "AA = cache_read(A, $scope, T)"
  case_file "cache_read_stage_$scope" "TT = cache_read(T, $scope, C)"
  case_file "cache_write_$scope" "CC = cache_write(C, $scope)"
done
for tag in blockIdx.x blockIdx.y blockIdx.z threadIdx.x threadIdx.y threadIdx.z vthread; do
  case_file "bind_$tag" "bind(C.i, $tag)"
  case_file "bind_reduction_$tag" "bind(C.k, $tag)"
  case_file "bind_split_$tag" 'a, b = split(C.j, 4)' "bind(a, $tag)"
done
case_file bind_two_vthreads 'a, b = split(C.i, 4)' 'bind(a, vthread)' 'bind(b, vthread)'
case_file bind_vthread_then_parallel 'bind(C.i, vthread)' 'parallel(C.i)'
for annotation in parallel vectorize unroll; do
  case_file "$annotation" "$annotation(C.j)"
  case_file "${annotation}_reduction" "$annotation(C.k)"
done
case_file vectorize_outer 'vectorize(C.i)'
case_file tensorize_gemm 'tensorize(C.i, vdla.gemm)'
case_file tensorize_dot16 'tensorize(C.j, dot16)'
case_file tensorize_vnni 'tensorize(C.j, vnni)'
case_file prefetch 'prefetch(B, C.i, 1)'
case_file prefetch_from 'a, b = split(C.i, 4)' 'prefetch(B, C.k, 2, from = a)'
case_file prefetch_stage 'compute_root(T)' 'prefetch(T, C.i, 3)'
case_file prefetch_vectorized 'vectorize(C.j)' 'prefetch(B, C.j, 1)'

compiled=0 diagnosed=0
for file in "$work"/*.tex; do
  name=$(basename "$file" .tex)
  for target in interp x86 arm; do
    emit=obj
    [ $target = interp ] && emit=loops
    out=$("$texc" "$file" --target $target --emit $emit -o "$work/out" 2>&1)
    status=$?
    if [ $status -eq 0 ]; then
      compiled=$((compiled + 1))
      [ $target = arm ] && continue
      # It compiled: it must also compute the right values (no extern function: not tensorized).
      run=$("$texc" run "$file" --target $target --repeat 1 2>&1)
      if [ $? -ne 0 ]; then
        echo "FAIL: $name on $target compiles but does not pass 'texc run':"
        sed 's/^/    /' <<<"$run"
        failures=$((failures + 1))
      fi
    elif [ $status -eq 1 ] && grep -qE "^$file:[0-9]+:[0-9]+: error: " <<<"$out" && ! grep -q "internal error" <<<"$out"; then
      diagnosed=$((diagnosed + 1))
    else
      echo "FAIL: $name on $target: exit $status, not a located diagnostic:"
      sed 's/^/    /' <<<"$out" | head -n 8
      echo "    schedule: $(sed -n '/schedule cpu/,/^  }/p' "$file" | sed -n '2,$p' | tr -s ' \n' ' ')"
      failures=$((failures + 1))
    fi
  done
done
echo "$compiled compiled, $diagnosed diagnosed, $failures failed"
[ "$failures" -eq 0 ]
