// The lowering driver: the ordered list of passes from an op's compute definitions and schedule
// to a loop AST a backend can compile. Each entry names a pass and says what it does; the driver
// prints the IR after each (--print-after-each / --print-changed), times them (--time-passes) and
// runs the verifier after every pass, naming the pass that broke the IR.
#include "lower/Lower.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>

#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/Simplify.h"
#include "ir/Verifier.h"
#include "lower/AttachHiddenReductions.h"
#include "lower/AutoFuse.h"
#include "lower/passes/FlattenStorage.h"
#include "lower/passes/LowerBlocks.h"
#include "lower/passes/PartitionLoops.h"
#include "lower/passes/PlanStorage.h"
#include "lower/passes/RemoveNoOps.h"
#include "lower/passes/UnrollLoops.h"
#include "lower/passes/VectorizeLoops.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {

struct Lowering {
  const LowerOptions& options;
  ScheduleState state;
  std::vector<SchedStep> steps;
  bool blocks_lowered = false;
  bool storage_planned = false;
};

struct Pass {
  const char* name;
  const char* summary;
  std::function<void(Lowering&)> run;
};

Stmt& body(Lowering& l) { return l.state.func.body; }

// Until plan_storage places them, intermediate stage buffers are allocated nowhere: verify the
// function as if they were allocated around the whole body.
LoweredFunc function_to_verify(const Lowering& l) {
  if (l.storage_planned) return l.state.func;
  LoweredFunc f = l.state.func;
  for (const auto& [name, stage] : l.state.stages)
    if (std::find(f.args.begin(), f.args.end(), stage.buffer) == f.args.end())
      f.body = Allocate::make(stage.buffer, f.body);
  return f;
}

// The passes, in order.
const std::vector<Pass>& passes() {
  static const std::vector<Pass> list = {
      {"auto_inline", "inline the elementwise stages the schedule does not name (not with --no-fuse)",
       [](Lowering& l) {
         if (!l.options.no_fuse) inline_injective_stages(l.state);
       }},
      {"apply_schedule", "apply the schedule block's primitives in order (lower/schedule/)",
       [](Lowering& l) { apply_schedule(l.state, l.steps); }},
      {"attach_hidden_reductions", "compute unnamed hidden reduction stages at their scheduled consumer's loop (not with --no-fuse)",
       [](Lowering& l) {
         if (!l.options.no_fuse) attach_hidden_reductions(l.state);
       }},
      {"fuse_into_reductions", "compute unnamed elementwise consumers in their reduction's loops (not with --no-fuse)",
       [](Lowering& l) {
         if (!l.options.no_fuse) fuse_into_reductions(l.state);
       }},
      {"lower_blocks", "replace Blocks by stores: substitute bindings, guard predicates, hoist reduction inits",
       [](Lowering& l) {
         body(l) = lower_blocks(body(l));
         l.blocks_lowered = true;
       }},
      {"plan_storage", "allocate each intermediate where it is used, sized by the region it needs",
       [](Lowering& l) {
         body(l) = plan_storage(body(l), l.state.func.args);
         l.storage_planned = true;
       }},
      {"flatten_storage", "make every buffer one-dimensional (row-major offsets)",
       [](Lowering& l) { l.state.func = flatten_storage(l.state.func); }},
      {"simplify", "fold constants and provable conditions, drop trivial loops",
       [](Lowering& l) { body(l) = simplify(body(l)); }},
      {"partition_loops", "split loops into a guard-free steady part and guarded tails",
       [](Lowering& l) { body(l) = partition_loops(body(l)); }},
      {"vectorize_loops", "turn vectorized loops into Ramp/Broadcast vector code (or serial loops)",
       [](Lowering& l) { body(l) = vectorize_loops(body(l)); }},
      {"unroll_loops", "replace unrolled loops of small constant extent by copies of their body",
       [](Lowering& l) { body(l) = unroll_loops(body(l)); }},
      {"remove_no_ops", "drop dead allocations, self-stores, empty loops, ifs and seqs",
       [](Lowering& l) { body(l) = remove_no_ops(body(l)); }},
      {"simplify_final", "fold what unrolling and partitioning exposed",
       [](Lowering& l) { body(l) = simplify(body(l)); }},
  };
  return list;
}

}  // namespace

std::vector<std::string> lowering_pass_names() {
  std::vector<std::string> names = {"default_loops"};
  for (const Pass& p : passes()) names.push_back(p.name);
  return names;
}

LoweredFunc lower_op(const OpDef& op, const LowerOptions& options) {
  std::ostream& log = options.log ? *options.log : std::cerr;
  Lowering l{options, ScheduleState::create(op, options.target), {}};
  l.steps = instantiate_schedule(select_schedule_blocks(l.state.op.schedules, options.target), options.knobs);
  for (const SchedStep& s : l.steps)
    for (const SchedArg& a : s.prim.args)
      if (a.is_name()) {
        // A stage (or a loop of it, "C.i"), under the caller's name when the schedule came with an
        // imported op.
        auto dot = a.name.find('.');
        std::string head = a.name.substr(0, dot);
        auto renamed = s.prim.stage_renames.find(head);
        if (renamed != s.prim.stage_renames.end()) head = renamed->second;
        l.state.user_named.insert(head);
        // "O.j", a reduction loop of O's hidden stage O_red (not a loop of O), names that stage.
        if (dot == std::string::npos || l.state.find_loop(head + a.name.substr(dot))) continue;
        for (int i = 0; l.state.stages.count(hidden_reduction_stage_name(head, i)); ++i)
          if (l.state.find_loop(hidden_reduction_stage_name(head, i) + a.name.substr(dot)))
            l.state.user_named.insert(hidden_reduction_stage_name(head, i));
      }

  const bool printing = options.print_after_each || options.print_changed;
  std::string previous = printing ? to_string(l.state.func) : std::string();
  if (printing) log << "// ---- after default_loops: one loop nest per stage\n" << previous << "\n";

  std::vector<std::pair<const char*, double>> times;
  for (const Pass& pass : passes()) {
    auto start = std::chrono::steady_clock::now();
    pass.run(l);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    times.push_back({pass.name, ms});
    if (options.verify) {
      VerifyOptions vo;
      vo.require_no_blocks = l.blocks_lowered;
      if (auto problem = verify(function_to_verify(l), vo))
        TEXC_CHECK(false) << "the IR is invalid after pass '" << pass.name << "': " << *problem << "\n"
                          << to_string(l.state.func);
    }
    if (printing) {
      std::string now = to_string(l.state.func);
      if (options.print_after_each || now != previous)
        log << "// ---- after " << pass.name << ": " << pass.summary << "\n" << now << "\n";
      previous = std::move(now);
    }
  }
  if (options.time_passes) {
    log << "// ---- pass times (ms)\n";
    for (auto& [name, ms] : times) log << fmt::format("{:>10.3f}  {}\n", ms, name);
  }
  return l.state.func;
}

}  // namespace texc
