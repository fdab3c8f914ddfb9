#include "tools/driver/LowerForTarget.h"

#include <iostream>

#include "lower/Lower.h"
#include "lower/SplitPrepare.h"
#include "ir/Target.h"
#include "tools/driver/CpuTarget.h"
#include "tools/driver/TargetPropertiesOf.h"
#include "tools/driver/KnobOptions.h"

namespace texc {

LoweredFunc lower_for_target(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs, std::vector<Remark>* remarks) {
  LowerOptions options;
  options.target = opts.target;
  options.knobs = knobs;
  options.arch = opts.arch;
  for (const auto& [name, value] : knob_options_for(opts, op)) options.knobs[name] = value;  // --knob wins
  options.no_fuse = opts.no_fuse;
  options.print_after_each = opts.print_after_each;
  options.print_changed = opts.print_changed;
  options.time_passes = opts.time_passes;
  if (opts.verify_each) options.verify = true;
  options.log = &std::cerr;
  if (is_llvm_cpu_target(opts.target)) options.cpu_features = cpu_feature_query(opts, op);  // tensorize's fallback
  options.target_properties = target_properties_of(opts);  // target.vector_bits etc. in the schedules
  std::vector<Remark> found;
  if (opts.remarks) options.remarks = &found;
  LoweredFunc func = lower_op(op, options);
  for (const Remark& r : found) print_remark(std::cerr, r);
  if (remarks) *remarks = std::move(found);
  return func;
}

std::vector<LoweredFunc> lower_op_functions(const OpDef& op, const CompileOptions& opts, const KnobConfig& knobs,
                                            std::vector<Remark>* remarks) {
  std::optional<PreparedOp> split = split_prepare(op);
  if (!split) return {lower_for_target(op, opts, knobs, remarks)};
  std::vector<Remark> prepare_remarks;
  LoweredFunc prepare = lower_for_target(split->prepare, opts, knobs, remarks ? &prepare_remarks : nullptr);
  LoweredFunc main = lower_for_target(split->main, opts, knobs, remarks);
  if (remarks) remarks->insert(remarks->begin(), prepare_remarks.begin(), prepare_remarks.end());
  std::string prepared;
  for (const std::string& name : split->prepared) prepared += (prepared.empty() ? "" : ", ") + name;
  prepare.doc = {"Computes once what op '" + op.name + "' derives from its const inputs alone (" + prepared + ").",
                 "Call it again only when those inputs change; pass its outputs to every " + op.name + " call."};
  main.doc = {"Op '" + op.name + "' with its const inputs prepared: its inputs " + prepared + " are " + prepare.name + "'s outputs."};
  return {std::move(prepare), std::move(main)};
}

}  // namespace texc
