#include "lower/schedule/StageNest.h"

#include <algorithm>
#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/LoopBounds.h"

namespace texc {

namespace {

// The statements enclosing `target` (outermost first, the root included, the target excluded).
class AncestorFinder : public IRVisitor {
 public:
  explicit AncestorFinder(const StmtNode* target) : target_(target) {}
  bool found = false;
  std::vector<Stmt> ancestors;

  void visit_stmt(const Stmt& s) override {
    if (found || !s) return;
    if (s.get() == target_) {
      found = true;
      ancestors = stack_;
      return;
    }
    if (s->as<Block>() || s->as<Store>() || s->as<Evaluate>()) return;  // no statements of interest below
    stack_.push_back(s);
    IRVisitor::visit_stmt(s);
    stack_.pop_back();
  }
  void visit_expr(const Expr&) override {}

 private:
  const StmtNode* target_;
  std::vector<Stmt> stack_;
};

std::vector<Stmt> ancestors_of(const Stmt& root, const StmtNode* target) {
  AncestorFinder finder(target);
  finder.visit_stmt(root);
  TEXC_CHECK(finder.found) << "statement not found in the loop AST";
  return finder.ancestors;
}

// True if s holds no Block of another stage and no extern call.
bool holds_only_stage(const Stmt& s, const std::string& stage) {
  bool only = true;
  for_each_stmt(s, [&](const Stmt& x) {
    if (const Block* b = x->as<Block>(); b && b->stage != stage) only = false;
    if (x->as<Evaluate>()) only = false;
  });
  return only;
}


// The child of `parent` (a statement list) that is or contains the statement chain's next node.
int child_index(const Stmt& parent, const StmtNode* next) {
  std::vector<Stmt> list = statement_list(parent);
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].get() == next) return int(i);
  return -1;
}

// Does `a` run before `b` (both statements under root)? True when at their deepest common
// ancestor, a Seq, a's branch comes first.
bool runs_before(const Stmt& root, const StmtNode* a, const StmtNode* b) {
  std::vector<Stmt> pa = ancestors_of(root, a), pb = ancestors_of(root, b);
  size_t n = 0;
  while (n < pa.size() && n < pb.size() && pa[n] == pb[n]) ++n;
  if (n == 0) return false;
  const Stmt& common = pa[n - 1];
  if (!common->as<Seq>()) return false;
  const StmtNode* branch_a = n < pa.size() ? pa[n].get() : a;
  const StmtNode* branch_b = n < pb.size() ? pb[n].get() : b;
  return child_index(common, branch_a) < child_index(common, branch_b);
}

bool encloses(const Stmt& root, const For* loop, const StmtNode* s) {
  for (const Stmt& a : ancestors_of(root, s))
    if (a.get() == loop) return true;
  return false;
}

}  // namespace

std::optional<StageSite> find_stage_site(const ScheduleState& st, const std::string& stage) {
  Stmt block;
  int count = 0;
  for_each_stmt(st.func.body, [&](const Stmt& s) {
    if (const Block* b = s->as<Block>(); b && b->stage == stage) {
      if (!block) block = s;
      ++count;
    }
  });
  if (!block) return std::nullopt;
  TEXC_CHECK(count == 1) << "stage " << stage << " has " << count << " Blocks";
  StageSite site;
  site.block_stmt = block;
  site.block = block->as<Block>();
  std::vector<Stmt> ancestors = ancestors_of(st.func.body, block.get());
  // Walk outwards while the enclosing statement holds nothing but this stage; never take the
  // function's top-level Seq itself.
  size_t top = ancestors.size();  // index of nest_top in ancestors (size = the Block itself)
  while (top > 0) {
    const Stmt& parent = ancestors[top - 1];
    if (top - 1 == 0 && parent->as<Seq>()) break;
    if (!holds_only_stage(parent, stage)) break;
    --top;
  }
  site.nest_top = top == ancestors.size() ? block : ancestors[top];
  for (size_t i = 0; i < ancestors.size(); ++i)
    if (const For* f = ancestors[i]->as<For>()) (i < top ? site.attach_loops : site.own_loops).push_back(f);
  site.is_root_statement = top == 0 || (top == 1 && ancestors[0]->as<Seq>());
  return site;
}

StageSite require_stage_site(const ScheduleState& st, const std::string& stage, const std::string& primitive,
                             SourceLoc loc) {
  Diagnostic problem;
  std::optional<StageSite> site = movable_stage_site(st, stage, primitive, loc, &problem);
  if (!site) throw UserError(problem);
  return *site;
}

std::optional<StageSite> movable_stage_site(const ScheduleState& st, const std::string& stage,
                                            const std::string& primitive, SourceLoc loc, Diagnostic* problem) {
  std::optional<StageSite> site = find_stage_site(st, stage);
  if (!site) {
    *problem = make_diagnostic(DiagId::StageNotComputed, loc, primitive, stage);
    return std::nullopt;
  }
  // An enclosing loop under which nothing reads the stage is one of its own loops with another
  // stage computed inside it (compute_at into the stage's loop): moving the stage would break that.
  const BufferNode* buffer = st.stages.at(stage).buffer.get();
  for (const For* l : site->attach_loops) {
    bool read_inside = false;
    std::string other;
    for_each_stmt(l->body, [&](const Stmt& s) {
      if (s.get() == site->block) return;
      if (s->as<Block>() || s->as<Evaluate>()) {
        if (reads_buffer(s, buffer)) read_inside = true;
        if (const Block* b = s->as<Block>(); b && other.empty()) other = b->stage;
      }
    });
    if (!read_inside) {
      std::string inner = other.empty() ? "a tensorized call" : other;
      // rfactor moves the reading of S's inputs into the new stage: what is attached inside S
      // belongs inside it, after the rfactor.
      *problem = primitive == "rfactor"
                     ? make_diagnostic(DiagId::StageHasInnerStageRfactor, loc, stage, inner, l->var->name)
                     : make_diagnostic(DiagId::StageHasInnerStage, loc, primitive, stage, inner, l->var->name);
      return std::nullopt;
    }
  }
  return site;
}

bool is_unscheduled_nest(const StageSite& site, std::string* first_changed) {
  const Block* b = site.block;
  for (size_t i = 0; i < site.own_loops.size(); ++i) {
    const For* l = site.own_loops[i];
    bool ok = i < b->iter_vars.size() && l->var->name == b->stage + "." + b->iter_vars[i].var->name &&
              l->for_kind == ForKind::Serial &&
              (i + 1 == site.own_loops.size() || l->body.get() == site.own_loops[i + 1]);
    for (size_t k = 0; ok && k < b->bindings.size(); ++k)
      if (uses_var(b->bindings[k], l->var.get()) != (k == i)) ok = false;
    if (!ok) {
      *first_changed = l->var->name;
      return false;
    }
  }
  if (site.own_loops.size() != b->iter_vars.size()) {
    *first_changed = b->stage;
    return false;
  }
  return true;
}

bool is_op_output(const ScheduleState& st, const std::string& stage) {
  for (const Buffer& b : st.op.outputs)
    if (b->name == stage) return true;
  return false;
}

std::string stage_of_buffer(const ScheduleState& st, const BufferNode* buffer) {
  for (const auto& [name, s] : st.stages)
    if (s.buffer.get() == buffer) return name;
  return "";
}

Stmt build_nest_over_region(const Block* block, const Region& region, const std::vector<const For*>& outer) {
  VarIntervals ranges = loop_intervals(outer);
  std::vector<Var> loop_vars;
  std::vector<Expr> loop_mins, loop_extents, bindings, guards;
  size_t d = 0;
  for (const IterVar& iv : block->iter_vars) {
    Var lv = Variable::make(block->stage + "." + iv.var->name, iv.var->type);
    loop_vars.push_back(lv);
    if (iv.is_reduce) {
      loop_mins.push_back(iv.min);
      loop_extents.push_back(iv.extent);
      bindings.push_back(lv);
      continue;
    }
    TEXC_CHECK(d < region.min.size()) << "region of " << block->stage << " has too few dimensions";
    const Expr& lo = region.min[d];
    int64_t extent = region.extent[d++];
    loop_mins.push_back(make_int(0));
    loop_extents.push_back(make_int(extent));
    ranges[lv.get()] = Interval::range(0, extent - 1);
    Expr value = is_const_int(lo, int64_t(0)) ? Expr(lv) : simplify(lo + lv);
    bindings.push_back(value);
    for (Expr cond : {value >= iv.min, value < simplify(iv.min + iv.extent)})
      if (!can_prove(cond, ranges)) guards.push_back(cond);
  }
  Expr predicate;
  for (const Expr& g : guards) predicate = predicate ? logical_and(predicate, g) : g;
  Stmt nest = Block::make(block->stage, block->iter_vars, bindings, predicate, block->init, block->body);
  for (size_t i = loop_vars.size(); i-- > 0;)
    nest = For::make(loop_vars[i], loop_mins[i], loop_extents[i], ForKind::Serial, nest);
  return nest;
}

Stmt build_full_nest(const Block* block) {
  std::vector<Var> loop_vars;
  std::vector<Expr> bindings;
  for (const IterVar& iv : block->iter_vars) {
    loop_vars.push_back(Variable::make(block->stage + "." + iv.var->name, iv.var->type));
    bindings.push_back(loop_vars.back());
  }
  Stmt nest = Block::make(block->stage, block->iter_vars, bindings, nullptr, block->init, block->body);
  for (size_t i = loop_vars.size(); i-- > 0;)
    nest = For::make(loop_vars[i], block->iter_vars[i].min, block->iter_vars[i].extent, ForKind::Serial, nest);
  return nest;
}

std::vector<Stmt> statement_list(const Stmt& s) {
  if (!s) return {};
  if (const Seq* q = s->as<Seq>()) return q->stmts;
  return {s};
}

bool reads_buffer(const Stmt& s, const BufferNode* buffer) {
  bool found = false;
  for_each_expr(s, [&](const Expr& x) {
    if (const Load* l = x->as<Load>(); l && l->buffer.get() == buffer) found = true;
  });
  return found;
}

Stmt insert_before_first_reader(const Stmt& body, const Stmt& nest, const BufferNode* buffer) {
  std::vector<Stmt> list = statement_list(body);
  size_t at = 0;
  while (at < list.size() && !reads_buffer(list[at], buffer)) ++at;
  list.insert(list.begin() + at, nest);
  return Seq::make(std::move(list));
}

std::optional<std::string> dataflow_problem(const ScheduleState& st, const std::string& stage) {
  std::optional<StageSite> site = find_stage_site(st, stage);
  if (!site) return std::nullopt;
  const Stmt& root = st.func.body;
  // A loop enclosing a stage constrains its readers only if the stage is computed there for a
  // reader inside it (compute_at). A loop that holds other stages, but no reader, is the stage's
  // own loop with its producers computed inside (cache_write, packing), and the stage is complete
  // after it.
  auto attached_outside = [&](const StageSite& producer, const StmtNode* reader) -> const For* {
    const BufferNode* buffer = st.stages.at(producer.block->stage).buffer.get();
    for (const For* l : producer.attach_loops) {
      bool read_inside = false;
      for_each_stmt(l->body, [&](const Stmt& s) {
        if (s.get() != producer.block && (s->as<Block>() || s->as<Evaluate>()) && reads_buffer(s, buffer))
          read_inside = true;
      });
      if (read_inside && !encloses(root, l, reader)) return l;
    }
    return nullptr;
  };
  // The stages this one reads.
  std::unordered_set<const BufferNode*> seen;
  for_each_expr(site->block_stmt, [&](const Expr& x) {
    if (const Load* l = x->as<Load>()) seen.insert(l->buffer.get());
  });
  for (const auto& [name, s] : st.stages) {
    if (name == stage || !seen.count(s.buffer.get())) continue;
    std::optional<StageSite> producer = find_stage_site(st, name);
    if (!producer) continue;
    if (!runs_before(root, producer->block, site->block))
      return "it reads '" + name + "', which would be computed after it";
    if (const For* l = attached_outside(*producer, site->block))
      return "it reads '" + name + "', which is computed inside loop '" + l->var->name + "' that does not enclose it";
  }
  // The stages that read this one.
  for (const BufferAccess& a : find_accesses(root, st.stages.at(stage).buffer.get(), true, false)) {
    if (a.stmt.get() == site->block) continue;
    std::string reader = a.stage.empty() ? "a tensorized call" : "'" + a.stage + "'";
    if (!runs_before(root, site->block, a.stmt.get())) return reader + " reads it before it would be computed";
    if (const For* l = attached_outside(*site, a.stmt.get()))
      return reader + " reads it outside loop '" + l->var->name + "' where it would be computed";
  }
  return std::nullopt;
}

void check_dataflow(const ScheduleState& st, const std::string& stage, const std::string& primitive, SourceLoc loc) {
  if (std::optional<Diagnostic> d = dataflow_diagnostic(st, stage, primitive, loc)) throw UserError(*d);
}

std::optional<Diagnostic> dataflow_diagnostic(const ScheduleState& st, const std::string& stage,
                                              const std::string& primitive, SourceLoc loc) {
  std::optional<std::string> problem = dataflow_problem(st, stage);
  if (!problem) return std::nullopt;
  return make_diagnostic(DiagId::ScheduleBreaksDataflow, loc, primitive, stage, *problem);
}

}  // namespace texc
