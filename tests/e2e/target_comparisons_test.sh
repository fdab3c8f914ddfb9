#!/usr/bin/env bash
# target_comparisons_test.sh ROOT: no code outside the places that own a target's behaviour asks
# for a target by its name or kind (docs/architecture.md, "Adding a target"): they ask ir/Target.h's
# predicates (is_gpu_target, llvm_cpu_arch_of, ...) or the target's registry entry
# (tools/driver/TargetRegistry.h). Flagged, in the C++ sources of ir frontend lower backends
# runtime tuner tools:
#   - TargetKind (the enum the table had before it held its behaviour as fields),
#   - is_cpu_target (two functions of that name once answered two different questions),
#   - a comparison of anything named *target* with a string literal, either way round.
# Allowed: ir/Target* (the table), tools/driver/TargetRegistry* and tools/driver/targets/ (the
# registry and each target's entry), backends/ (each target's own code), and the exceptions below,
# each with its reason (listed in docs/architecture.md too). tests/ is not scanned: a test chooses
# the targets it exercises by name.
set -u
root=${1:?usage: target_comparisons_test.sh ROOT}
cd "$root" || exit 2
# path:reason
exceptions=(
  "tuner/CpuRunners.cpp:records written before records named their machine are all of target x86; their device string is parsed as an x86 one"
)
pattern='TargetKind|is_cpu_target|target[A-Za-z0-9_.]*(\(\))? *[!=]= *"|" *[!=]= *[A-Za-z0-9_.]*target\b'
found=$(grep -rnE "$pattern" --include=*.cpp --include=*.h ir frontend lower backends runtime tuner tools |
        grep -vE '^(ir/Target[A-Za-z]*\.(h|cpp)|tools/driver/TargetRegistry\.(h|cpp)|tools/driver/targets/|backends/)')
for e in "${exceptions[@]}"; do
  found=$(printf '%s\n' "$found" | grep -v "^${e%%:*}:")
done
found=$(printf '%s\n' "$found" | sed '/^$/d')
if [ -n "$found" ]; then
  echo "target_comparisons_test: target name or kind compared outside ir/Target*, the registry and the targets' folders:"
  echo "$found"
  echo "ask a predicate of ir/Target.h or the target's entry in tools/driver/TargetRegistry.h instead"
  echo "(docs/architecture.md, \"Adding a target\"), or list the exception here and there with its reason"
  exit 1
fi
# The pattern finds what it must: a comparison planted in a copy of a generic file is reported.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/lower"
printf 'bool f(const Options& opts) { return opts.target == "x86"; }\nbool g(const std::string& t) { return "vdla" != t.target; }\n' > "$probe/lower/Probe.cpp"
hits=$(grep -cE "$pattern" "$probe/lower/Probe.cpp")
if [ "$hits" != 2 ]; then
  echo "target_comparisons_test: the pattern finds $hits of the 2 planted comparisons"
  exit 1
fi
echo "target_comparisons_test: ok (no target name or kind comparison outside the allowed places)"
