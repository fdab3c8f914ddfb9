#include "tools/driver/RecordKnobs.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

#include "frontend/Frontend.h"
#include "lower/SplitPrepare.h"
#include "tools/driver/TargetRegistry.h"
#include "tuner/CpuRunners.h"
#include "tuner/GraphTask.h"
#include "tuner/Records.h"
#include "tuner/Space.h"

namespace texc {

namespace {

/// The records texc ships for `target` (stdlib/records/TARGET.jsonl), or "" when there are none.
std::string shipped_records(const std::string& target) {
  std::string path = default_stdlib_dir() + "/records/" + target + ".jsonl";
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? path : "";
}

}  // namespace

KnobConfig knobs_from_records(const CompileOptions& opts, const OpDef& op) {
  // --records, else the shipped records of this target (only on their machine kind, only for
  // their shapes, and silent when none applies: TVM's TopHub); --no-records: the defaults.
  bool shipped = opts.records.empty();
  std::string path = shipped ? (opts.no_records ? "" : shipped_records(opts.target)) : opts.records;
  if (path.empty()) return {};
  if (!std::filesystem::exists(path)) throw OptionError("--records " + path + ": no such file");
  RecordFile file = read_records(path, shipped ? "the shipped records" : "--records");
  name_legacy_x86_machines(file.records);
  Space space(op, opts.target);
  RecordQuery query;
  query.op = op.name;
  query.target = opts.target;
  std::set<std::string> knob_names;
  for (const SchedKnob& k : space.knobs()) knob_names.insert(k.name);
  query.knob_names = knob_names;
  // Records of an op with a prepare function describe its main half (what texc tune times).
  std::optional<PreparedOp> split = split_prepare(op);
  query.shapes = op_shapes(split ? split->main : op);
  // x86 knobs depend on the machine (registers, caches); vdla's cycles and arm's emulated times do
  // not: the target's entry says which machine its records must come from (TargetRegistry.h).
  if (const TargetBehaviour& behaviour = target_behaviour(opts.target); behaviour.records_machine)
    query.here = behaviour.records_machine(opts);
  query.any_machine = opts.records_any_machine;
  query.same_template = query.exact_shapes = shipped;
  RecordChoice choice = choose_record(file.records, query);
  if (shipped && !choice.record) return {};
  if (choice.defective)
    std::cerr << "texc: warning: skipped " << choice.defective << " record" << (choice.defective > 1 ? "s" : "")
              << " of op '" << op.name << "' on " << opts.target << " in " << path
              << " that cannot be measurements (" << choice.first_defect << (choice.defective > 1 ? ", ..." : "")
              << ")\n";
  bool foreign = choice.record && (choice.machine == MachineMatch::Other || choice.machine == MachineMatch::Unknown);
  std::cerr << "texc: " << (foreign ? "warning" : "note") << ": op '" << op.name << "': ";
  if (!choice.record) {
    std::cerr << choice.how << " (" << path << ")\n";
    return {};
  }
  // Only knobs this op declares, with values in its lists (a nearer shape's factors may differ).
  KnobConfig knobs;
  std::string dropped;
  for (const SchedKnob& k : space.knobs()) {
    auto it = choice.record->knobs.find(k.name);
    if (it == choice.record->knobs.end()) continue;
    if (std::find(k.values.begin(), k.values.end(), it->second) != k.values.end()) knobs[k.name] = it->second;
    else dropped += " " + k.name + "=" + std::to_string(it->second);
  }
  char figures[64];
  std::snprintf(figures, sizeof figures, "%.4g ms, %.2f GFLOP/s", choice.record->median_ms, choice.record->gflops);
  std::string timing = figures;
  if (choice.measurements > 1) timing += ", the median of " + std::to_string(choice.measurements) + " measurements";
  std::cerr << "knobs " << space.describe(knobs) << " from " << choice.how << " in "
            << (shipped ? "the records shipped with texc, " : "") << path << " (trial " << choice.record->trial << ", "
            << timing << ")";
  if (!dropped.empty()) std::cerr << "; not in this op's lists, so defaults:" << dropped;
  if (shipped) std::cerr << "; --no-records for the defaults";
  std::cerr << "\n";
  return knobs;
}

KnobConfig kernel_knobs_from_records(const CompileOptions& opts, const GraphKernel& kernel, const KnobConfig& op_knobs) {
  if (opts.records.empty()) return op_knobs;  // only --records holds tasks (none are shipped)
  RecordFile file = read_records(opts.records, "--records");
  name_legacy_x86_machines(file.records);
  const OpDef& op = kernel.op;
  Space space(op, opts.target);
  RecordQuery query;
  query.op = op.name;
  query.task = graph_task_key(kernel);
  query.target = opts.target;
  std::set<std::string> knob_names;
  for (const SchedKnob& k : space.knobs()) knob_names.insert(k.name);
  query.knob_names = knob_names;
  query.shapes = op_shapes(op);
  if (const TargetBehaviour& behaviour = target_behaviour(opts.target); behaviour.records_machine)
    query.here = behaviour.records_machine(opts);
  query.any_machine = opts.records_any_machine;
  RecordChoice choice = choose_record(file.records, query);
  bool foreign = choice.record && (choice.machine == MachineMatch::Other || choice.machine == MachineMatch::Unknown);
  std::cerr << "texc: " << (foreign ? "warning" : "note") << ": kernel '" << op.name << "': ";
  if (!choice.record) {
    std::cerr << choice.how << " (" << opts.records << ")\n";
    return op_knobs;
  }
  KnobConfig knobs;
  for (const SchedKnob& k : space.knobs()) {
    auto it = choice.record->knobs.find(k.name);
    if (it != choice.record->knobs.end() && std::find(k.values.begin(), k.values.end(), it->second) != k.values.end())
      knobs[k.name] = it->second;
  }
  char figures[64];
  std::snprintf(figures, sizeof figures, "%.4g ms, %.2f GFLOP/s", choice.record->median_ms, choice.record->gflops);
  std::cerr << "knobs " << space.describe(knobs) << " from " << choice.how << " in " << opts.records << " (trial "
            << choice.record->trial << ", " << figures << ")\n";
  return knobs;
}

}  // namespace texc
