// inline(S): stage S is no longer stored; every read of S is replaced by S's value there.
//
// Contract: S is elementwise (injective: its body has no reduction) and not an op output; it is
// still computed by a nest of its own, and no tensorized call reads it. Every Load S[e0, e1, ...]
// in another stage's Block becomes S's stored value with S's axis variables replaced by e0, e1,
// ... (the value as the Block now stores it, so earlier inlining into S carries over). The
// stage definitions of the readers in ScheduleState::stages are rewritten the same way. S's nest
// is removed and S is recorded in ScheduleState::inlined. Works for any number of readers.
//
// Bounded work: each inlined read copies S's value, so a chain T2 = T1 * T1, T3 = T2 * T2, ...
// would double the expression per stage. Inlining that would grow a reader's stored value past
// kMaxInlinedNodes expression nodes is a diagnostic (automatic inlining then keeps S stored). Only
// the readers' Blocks and definitions are rewritten, so a chain of n stages costs O(n) walks of
// the loop AST's statements, not O(n) walks of every expression. On a diagnostic the state is
// unchanged.
#include <map>
#include <set>

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/IRMutator.h"
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

  std::set<std::string> readers;
  std::map<const StmtNode*, int64_t> reads_per_block;
  for (const BufferAccess& a : find_accesses(st.func.body, stage.buffer.get(), true, false)) {
    if (a.stmt == site.block_stmt) continue;
    if (a.stage.empty()) throw_error(DiagId::InlineIntoExtern, loc, name);
    readers.insert(a.stage);
    ++reads_per_block[a.stmt.get()];
  }
  int64_t value_size = tree_size(store->value);
  for (const auto& [reader, reads] : reads_per_block) {
    const Store* reader_store = static_cast<const Block*>(reader)->body->as<Store>();
    if (!reader_store) continue;
    int64_t grown = tree_size(reader_store->value) + reads * (value_size - 1);
    if (grown > kMaxInlinedNodes)
      throw_error(DiagId::InlineTooLarge, loc, name, static_cast<const Block*>(reader)->stage, grown, kMaxInlinedNodes);
  }

  // On a diagnostic the state is left as it was (automatic inlining relies on it).
  Stmt old_body = st.func.body;
  std::map<std::string, Expr> old_defs;
  LoadInliner inliner(stage.buffer.get(), block->iter_vars, store->value, readers);
  st.replace(site.nest_top.get(), nullptr);
  st.func.body = inliner.mutate_stmt(st.func.body);
  for (const std::string& reader : readers) {
    Stage& def = st.stages.at(reader);
    old_defs[reader] = def.body;
    def.body = inliner.mutate_expr(def.body);
  }
  st.inlined.insert(name);
  try {
    for (const std::string& reader : readers) check_dataflow(st, reader, "inline", p.loc);
  } catch (const UserError&) {
    st.func.body = old_body;
    for (const auto& [reader, body] : old_defs) st.stages.at(reader).body = body;
    st.inlined.erase(name);
    throw;
  }
}

}  // namespace texc
