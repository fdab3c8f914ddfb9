// inline(S): stage S is no longer stored; every read of S is replaced by S's value there.
//
// Contract: S is elementwise (injective: its body has no reduction) and not an op output; it is
// still computed by a nest of its own, and no tensorized call reads it. Every Load S[e0, e1, ...]
// in another stage's Block becomes S's stored value with S's axis variables replaced by e0, e1,
// ... (the value as the Block now stores it, so earlier inlining into S carries over, simplified
// over S's domain: a padding select with pad 0 becomes its value). The
// stage definitions of the readers in ScheduleState::stages are rewritten the same way. S's nest
// is removed and S is recorded in ScheduleState::inlined. Works for any number of readers.
//
// Bounded work: each inlined read copies S's value, so a chain T2 = T1 * T1, T3 = T2 * T2, ...
// would double the expression per stage. Inlining that would grow a reader's stored value past
// kMaxInlinedNodes expression nodes is a diagnostic. Only the readers' Blocks and definitions are
// rewritten, so a chain of n stages costs O(n) walks of the loop AST's statements, not O(n) walks
// of every expression.
//
// try_inline(st, S) is inline(S) where it can be applied and otherwise the reason, without
// throwing and with st unchanged: automatic inlining (lower/AutoFuse.cpp) uses it to keep S stored
// where inline(S) would be an error.
#include <map>
#include <optional>
#include <set>

#include "ir/Bounds.h"
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/IRMutator.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/DefaultLoops.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

namespace {

/// The most expression nodes (counted as a tree) a reader's stored value may reach by inlining.
constexpr int64_t kMaxInlinedNodes = 4096;

int64_t tree_size(const Expr& e) {
  int64_t n = 0;
  for_each_expr(e, [&](const Expr&) { ++n; });
  return n;
}

class LoadInliner : public IRMutator {
 public:
  LoadInliner(const BufferNode* buffer, std::vector<IterVar> axes, Expr value, std::set<std::string> readers)
      : buffer_(buffer), axes_(std::move(axes)), value_(std::move(value)), readers_(std::move(readers)) {}

 protected:
  Stmt mutate(const Block* op, const Stmt& self) override {
    return readers_.count(op->stage) ? IRMutator::mutate(op, self) : self;
  }
  Expr mutate(const Load* op, const Expr& self) override {
    Expr e = IRMutator::mutate(op, self);
    const Load* load = e->as<Load>();
    if (load->buffer.get() != buffer_) return e;
    VarMap at_index;
    for (size_t d = 0; d < axes_.size(); ++d) at_index[axes_[d].var.get()] = load->indices[d];
    return substitute(value_, at_index);
  }

 private:
  const BufferNode* buffer_;
  std::vector<IterVar> axes_;
  Expr value_;
  std::set<std::string> readers_;
};

// What inline(S) rewrites, once the checks that need no rewrite have passed.
struct InlinePlan {
  std::string name;
  StageSite site;
  const Store* store = nullptr;
  std::set<std::string> readers;
};

// The checks of inline(S) before the rewrite: the plan, or nullopt with *problem set to the
// diagnostic (at loc) of the first check that fails.
std::optional<InlinePlan> plan_inline(const ScheduleState& st, const std::string& name, SourceLoc loc,
                                      Diagnostic* problem) {
  auto it = st.stages.find(name);
  if (it == st.stages.end() || st.inlined.count(name)) {
    *problem = make_diagnostic(DiagId::UnknownStage, loc, name);
    return std::nullopt;
  }
  const Stage& stage = it->second;
  if (is_reduction_stage(stage)) {
    *problem = make_diagnostic(DiagId::InlineReduction, loc, name);
    return std::nullopt;
  }
  if (is_op_output(st, name)) {
    *problem = make_diagnostic(DiagId::MoveOutputStage, loc, "inline", name);
    return std::nullopt;
  }
  std::optional<StageSite> site = movable_stage_site(st, name, "inline", loc, problem);
  if (!site) return std::nullopt;
  InlinePlan plan{name, *site, site->block->body->as<Store>(), {}};
  TEXC_CHECK(plan.store && !site->block->init) << "elementwise stage " << name << " does not store one value";

  std::map<const StmtNode*, int64_t> reads_per_block;
  for (const BufferAccess& a : find_accesses(st.func.body, stage.buffer.get(), true, false)) {
    if (a.stmt == site->block_stmt) continue;
    if (a.stage.empty()) {
      *problem = make_diagnostic(DiagId::InlineIntoExtern, loc, name);
      return std::nullopt;
    }
    plan.readers.insert(a.stage);
    ++reads_per_block[a.stmt.get()];
  }
  int64_t value_size = tree_size(plan.store->value);
  for (const auto& [reader, reads] : reads_per_block) {
    const Store* reader_store = static_cast<const Block*>(reader)->body->as<Store>();
    if (!reader_store) continue;
    int64_t grown = tree_size(reader_store->value) + reads * (value_size - 1);
    if (grown > kMaxInlinedNodes) {
      *problem = make_diagnostic(DiagId::InlineTooLarge, loc, name, static_cast<const Block*>(reader)->stage, grown,
                                 kMaxInlinedNodes);
      return std::nullopt;
    }
  }
  return plan;
}

// The rewrite: S's nest removed, its value substituted into the readers' Blocks and definitions.
void inline_into_readers(ScheduleState& st, const InlinePlan& plan) {
  const Stage& stage = st.stages.at(plan.name);
  // The value is only ever read inside the stage's domain: simplified over it first, a padding
  // select whose pad is 0 (y >= 0 && y < H over y in 0..H) is gone before it reaches a reader.
  VarIntervals domain;
  for (const IterVar& iv : plan.site.block->iter_vars) {
    int64_t min = 0, extent = 0;
    if (is_const_int(iv.min, &min) && is_const_int(iv.extent, &extent) && extent > 0)
      domain[iv.var.get()] = Interval::range(min, min + extent - 1);
  }
  LoadInliner inliner(stage.buffer.get(), plan.site.block->iter_vars, simplify(plan.store->value, domain),
                      plan.readers);
  st.replace(plan.site.nest_top.get(), nullptr);
  st.func.body = inliner.mutate_stmt(st.func.body);
  for (const std::string& reader : plan.readers) {
    Stage& def = st.stages.at(reader);
    def.body = inliner.mutate_expr(def.body);
  }
  st.inlined.insert(plan.name);
}

}  // namespace

bool try_inline(ScheduleState& st, const std::string& stage, SourceLoc loc, Diagnostic* why) {
  Diagnostic problem;
  std::optional<InlinePlan> plan = plan_inline(st, stage, loc, &problem);
  if (!plan) {
    if (why) *why = problem;
    return false;
  }
  // The data flow is checked on the rewritten state, which is undone when it is broken (undoing
  // costs O(readers); a copy of the state per stage would make long chains quadratic).
  Stmt old_body = st.func.body;
  std::map<std::string, Expr> old_defs;
  for (const std::string& reader : plan->readers) old_defs[reader] = st.stages.at(reader).body;
  inline_into_readers(st, *plan);
  for (const std::string& reader : plan->readers) {
    if (std::optional<Diagnostic> broken = dataflow_diagnostic(st, reader, "inline", loc)) {
      st.func.body = old_body;
      for (const auto& [name, body] : old_defs) st.stages.at(name).body = body;
      st.inlined.erase(stage);
      if (why) *why = *broken;
      return false;
    }
  }
  return true;
}

void apply_inline(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const SourceLoc loc = p.args[0].loc;
  std::string name = stage_arg(st, step, 0);
  Diagnostic problem;
  std::optional<InlinePlan> plan = plan_inline(st, name, loc, &problem);
  if (!plan) throw UserError(problem);
  inline_into_readers(st, *plan);
  for (const std::string& reader : plan->readers) check_dataflow(st, reader, "inline", p.loc);
}

}  // namespace texc
