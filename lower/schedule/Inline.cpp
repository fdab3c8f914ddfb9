// inline(S): stage S is no longer stored; every read of S is replaced by S's value there.
//
// Contract: S is elementwise (injective: its body has no reduction) and not an op output; it is
// still computed by a nest of its own, and no tensorized call reads it. Every Load S[e0, e1, ...]
// in another stage's Block becomes S's stored value with S's axis variables replaced by e0, e1,
// ... (the value as the Block now stores it, so earlier inlining into S carries over). The
// stage definitions of the readers in ScheduleState::stages are rewritten the same way. S's nest
// is removed and S is recorded in ScheduleState::inlined. Works for any number of readers.
#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/DefaultLoops.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

namespace {

class LoadInliner : public IRMutator {
 public:
  LoadInliner(const BufferNode* buffer, std::vector<IterVar> axes, Expr value)
      : buffer_(buffer), axes_(std::move(axes)), value_(std::move(value)) {}

 protected:
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
};

}  // namespace

void apply_inline(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const SourceLoc loc = p.args[0].loc;
  std::string name = stage_arg(st, step, 0);
  const Stage& stage = st.stage(name, loc);
  if (is_reduction_stage(stage)) throw_error(DiagId::InlineReduction, loc, name);
  if (is_op_output(st, name)) throw_error(DiagId::MoveOutputStage, loc, "inline", name);
  StageSite site = require_stage_site(st, name, "inline", loc);
  const Block* block = site.block;
  const Store* store = block->body->as<Store>();
  TEXC_CHECK(store && !block->init) << "elementwise stage " << name << " does not store one value";

  std::vector<std::string> readers;
  for (const BufferAccess& a : find_accesses(st.func.body, stage.buffer.get(), true, false)) {
    if (a.stmt == site.block_stmt) continue;
    if (a.stage.empty()) throw_error(DiagId::InlineIntoExtern, loc, name);
    readers.push_back(a.stage);
  }

  LoadInliner inliner(stage.buffer.get(), block->iter_vars, store->value);
  st.replace(site.nest_top.get(), nullptr);
  st.func.body = inliner.mutate_stmt(st.func.body);
  for (auto& [other, def] : st.stages)
    if (other != name) def.body = inliner.mutate_expr(def.body);
  st.inlined.insert(name);
  for (const std::string& reader : readers) check_dataflow(st, reader, "inline", p.loc);
}

}  // namespace texc
