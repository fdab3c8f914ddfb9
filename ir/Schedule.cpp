#include "ir/Schedule.h"

#include <algorithm>
#include <set>

#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Target.h"

namespace texc {

namespace {
// The value of a knob expression; a division by zero in it, or anything not constant, is an error
// at loc saying so.
int64_t eval_schedule_int(const Expr& e, const VarValues& values, SourceLoc loc, const char* what) {
  if (auto v = eval_int(e, values)) return *v;
  for_each_expr(e, [&](const Expr& x) {
    const Binary* b = x->as<Binary>();
    if (b && (b->op == BinaryOp::Div || b->op == BinaryOp::Mod) && eval_int(b->b, values) == 0)
      throw_error(DiagId::DivisionByZero, loc, binary_op_symbol(b->op));
  });
  throw_error(DiagId::ScheduleError, loc, what);
}
}  // namespace

int schedule_specificity(const std::string& block_target, const std::string& target) {
  const Target* t = find_target(target);
  if (block_target == target) return 2;
  if (t && block_target == t->schedule_family) return 1;
  return 0;
}

bool schedule_applies(const std::string& block_target, const std::string& target) {
  return schedule_specificity(block_target, target) > 0;
}

std::vector<const ScheduleBlock*> select_schedule_blocks(const std::vector<ScheduleBlock>& blocks,
                                                         const std::string& target) {
  std::map<std::string, int> best;  // origin -> highest specificity
  for (const ScheduleBlock& b : blocks) {
    int s = schedule_specificity(b.target, target);
    if (s > 0) best[b.origin] = std::max(best[b.origin], s);
  }
  std::vector<const ScheduleBlock*> out;
  for (const ScheduleBlock& b : blocks) {
    int s = schedule_specificity(b.target, target);
    if (s > 0 && s == best[b.origin]) out.push_back(&b);
  }
  // A GPU op is one kernel, and the grid of a kernel cannot wait for one grid-wide stage to finish
  // before the next starts: carried schedules of two or more calls (each binding its own blocks)
  // cannot share one. Such an op runs with its own blocks only (without any, the default schedule:
  // all stages in one block, ordered by barriers).
  if (is_gpu_target(target)) {
    std::set<std::string> calls;
    for (const ScheduleBlock* b : out)
      if (!b->origin.empty()) calls.insert(b->origin);
    if (calls.size() >= 2)
      out.erase(std::remove_if(out.begin(), out.end(), [](const ScheduleBlock* b) { return !b->origin.empty(); }), out.end());
  }
  return out;
}

static void collect(const std::vector<SchedItem>& items, std::vector<SchedKnob>& out, std::set<std::string>& seen) {
  for (const SchedItem& it : items) {
    if (auto* k = std::get_if<SchedKnob>(&it)) {
      if (seen.insert(k->name).second) out.push_back(*k);
    } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&it)) {
      collect((*f)->then_items, out, seen);
      collect((*f)->else_items, out, seen);
    }
  }
}

std::vector<SchedKnob> collect_knobs(const std::vector<const ScheduleBlock*>& blocks) {
  std::vector<SchedKnob> out;
  std::set<std::string> seen;
  for (const ScheduleBlock* b : blocks) collect(b->items, out, seen);
  return out;
}

namespace {
struct Instantiator {
  const KnobConfig& config;
  VarValues values;
  std::vector<SchedStep> steps;

  void run(const std::vector<SchedItem>& items) {
    for (const SchedItem& it : items) {
      if (auto* k = std::get_if<SchedKnob>(&it)) {
        auto c = config.find(k->name);
        int64_t v = (c != config.end()) ? c->second : (k->values.empty() ? 0 : k->values.front());
        values[k->var.get()] = v;
      } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&it)) {
        int64_t c = eval_schedule_int((*f)->cond, values, (*f)->loc, "the condition of 'if' must be a constant of knobs");
        run(c ? (*f)->then_items : (*f)->else_items);
      } else {
        const SchedPrimitive& p = std::get<SchedPrimitive>(it);
        SchedStep step{p, {}};
        for (const SchedArg& a : p.args) {
          if (a.is_name() || !a.value) {
            step.int_args.push_back(std::nullopt);
            continue;
          }
          step.int_args.push_back(
              eval_schedule_int(a.value, values, a.loc, "this argument must be a constant of params and knobs"));
        }
        steps.push_back(std::move(step));
      }
    }
  }
};
}  // namespace

std::vector<SchedStep> instantiate_schedule(const std::vector<const ScheduleBlock*>& blocks, const KnobConfig& config) {
  Instantiator inst{config, {}, {}};
  for (const ScheduleBlock* b : blocks) inst.run(b->items);
  return std::move(inst.steps);
}

}  // namespace texc
