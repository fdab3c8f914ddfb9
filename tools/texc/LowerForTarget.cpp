#include "tools/texc/LowerForTarget.h"

#include <iostream>

#include "lower/Lower.h"
#include "lower/SplitPrepare.h"
#include "ir/Target.h"
#include "tools/texc/CpuTarget.h"
#include "tools/texc/TargetPropertiesOf.h"
#include "tools/texc/KnobOptions.h"

namespace texc {

LoweredFunc lower_for_target(const OpDef& op, const CommandLine& cl, const KnobConfig& knobs, std::vector<Remark>* remarks) {
  LowerOptions options;
  options.target = cl.target;
  options.knobs = knobs;
  options.arch = cl.arch;
  for (const auto& [name, value] : knob_options_for(cl, op)) options.knobs[name] = value;  // --knob wins
  options.no_fuse = cl.no_fuse;
  options.print_after_each = cl.print_after_each;
  options.print_changed = cl.print_changed;
  options.time_passes = cl.time_passes;
  if (cl.verify_each) options.verify = true;
  options.log = &std::cerr;
  if (is_llvm_cpu_target(cl.target)) options.cpu_features = cpu_feature_query(cl, op);  // tensorize's fallback
  options.target_properties = target_properties_of(cl);  // target.vector_bits etc. in the schedules
  std::vector<Remark> found;
  if (cl.remarks) options.remarks = &found;
  LoweredFunc func = lower_op(op, options);
  for (const Remark& r : found) print_remark(std::cerr, r);
  if (remarks) *remarks = std::move(found);
  return func;
}

std::vector<LoweredFunc> lower_op_functions(const OpDef& op, const CommandLine& cl, const KnobConfig& knobs,
                                            std::vector<Remark>* remarks) {
  std::optional<PreparedOp> split = split_prepare(op);
  if (!split) return {lower_for_target(op, cl, knobs, remarks)};
  std::vector<Remark> prepare_remarks;
  LoweredFunc prepare = lower_for_target(split->prepare, cl, knobs, remarks ? &prepare_remarks : nullptr);
  LoweredFunc main = lower_for_target(split->main, cl, knobs, remarks);
  if (remarks) remarks->insert(remarks->begin(), prepare_remarks.begin(), prepare_remarks.end());
  std::string prepared;
  for (const std::string& name : split->prepared) prepared += (prepared.empty() ? "" : ", ") + name;
  prepare.doc = {"Computes once what op '" + op.name + "' derives from its const inputs alone (" + prepared + ").",
                 "Call it again only when those inputs change; pass its outputs to every " + op.name + " call."};
  main.doc = {"Op '" + op.name + "' with its const inputs prepared: its inputs " + prepared + " are " + prepare.name + "'s outputs."};
  return {std::move(prepare), std::move(main)};
}

}  // namespace texc
