#include "lower/passes/LowerBlocks.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/IROperators.h"
#include "ir/Substitute.h"

namespace texc {

namespace {

using VarSet = std::unordered_set<const Variable*>;

VarSet vars_in(const Expr& e) {
  VarSet out;
  if (e)
    for_each_expr(e, [&](const Expr& x) {
      if (const Variable* v = x->as<Variable>()) out.insert(v);
    });
  return out;
}

bool intersects(const VarSet& a, const VarSet& b) {
  for (const Variable* v : a)
    if (b.count(v)) return true;
  return false;
}

void split_conjuncts(const Expr& e, std::vector<Expr>& out) {
  if (!e) return;
  if (const Binary* b = e->as<Binary>(); b && b->op == BinaryOp::And) {
    split_conjuncts(b->a, out);
    split_conjuncts(b->b, out);
  } else {
    out.push_back(e);
  }
}

Expr conjunction(const std::vector<Expr>& terms) {
  Expr r;
  for (const Expr& t : terms) r = r ? logical_and(r, t) : t;
  return r;
}

// Marks every store under s that no stage owns yet as computing `stage` (Store::stage).
class StageTagger : public IRMutator {
 public:
  explicit StageTagger(const std::string& stage) : stage_(stage) {}

 protected:
  Stmt mutate(const Store* op, const Stmt& self) override {
    if (!op->stage.empty()) return self;
    return Store::make(op->buffer, op->indices, op->value, stage_);
  }

 private:
  const std::string& stage_;
};

Stmt tag_stores(const Stmt& s, const std::string& stage) { return StageTagger(stage).mutate_stmt(s); }

// Phase 1: for every Block with an init, find where the init nest goes and build it.
class InitPlanner : public IRVisitor {
 public:
  std::unordered_map<const StmtNode*, std::vector<Stmt>> inits_before;  // keyed by a For node
  std::vector<Stmt> inits_at_block;                                     // unused placeholder order

 protected:
  void visit(const For* op) override {
    loops_.push_back(op);
    IRVisitor::visit(op);
    loops_.pop_back();
  }
  void visit(const Block* op) override {
    if (!op->init) return;
    VarSet reduce_vars, spatial_vars;
    VarMap iter_values;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) {
      VarSet vs = vars_in(op->bindings[i]);
      (op->iter_vars[i].is_reduce ? reduce_vars : spatial_vars).insert(vs.begin(), vs.end());
      iter_values[op->iter_vars[i].var.get()] = op->bindings[i];
    }
    // The outermost enclosing loop driving a reduction iter var.
    size_t first = loops_.size();
    for (size_t i = 0; i < loops_.size(); ++i)
      if (reduce_vars.count(loops_[i]->var.get())) {
        first = i;
        break;
      }
    if (first == loops_.size()) return;  // handled in place by the rewriter
    for (size_t i = first; i < loops_.size(); ++i) {
      const Variable* v = loops_[i]->var.get();
      TEXC_CHECK(!(reduce_vars.count(v) && spatial_vars.count(v)))
          << "loop " << v->name << " drives both spatial and reduction axes of " << op->stage;
    }
    // Predicate terms that do not depend on reduction loops guard the init.
    std::vector<Expr> terms, kept;
    split_conjuncts(op->predicate, terms);
    for (const Expr& t : terms)
      if (!intersects(vars_in(t), reduce_vars)) kept.push_back(t);
    Stmt init = tag_stores(substitute(op->init, iter_values), op->stage);
    if (Expr guard = conjunction(kept)) init = IfThenElse::make(guard, init);
    // Regenerate the spatial loops between `first` and the block, innermost first.
    for (size_t i = loops_.size(); i-- > first;) {
      const For* l = loops_[i];
      if (reduce_vars.count(l->var.get())) continue;
      if (!spatial_vars.count(l->var.get()) && !uses_var(init, l->var.get())) continue;
      Var fresh = Variable::make(l->var->name, l->var->type);
      // The init is not the tensorized computation: its copy of a tensorized loop is serial.
      bool serial = l->for_kind == ForKind::Parallel || l->for_kind == ForKind::Tensorized;
      init = For::make(fresh, l->min, l->extent, serial ? ForKind::Serial : l->for_kind,
                       substitute(init, VarMap{{l->var.get(), fresh}}), serial ? "" : l->thread_tag);
    }
    inits_before[loops_[first]].push_back(init);
  }

 private:
  std::vector<const For*> loops_;
};

// Phase 2: replace Blocks, and put planned init nests before their loops.
class BlockLowerer : public IRMutator {
 public:
  explicit BlockLowerer(const InitPlanner& plan) : plan_(plan) {}

 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt lowered = IRMutator::mutate(op, self);
    auto it = plan_.inits_before.find(op);
    if (it == plan_.inits_before.end()) return lowered;
    std::vector<Stmt> seq = it->second;
    seq.push_back(lowered);
    return Seq::make(std::move(seq));
  }
  Stmt mutate(const Block* op, const Stmt& self) override {
    VarMap iter_values;
    bool reduce_driven = false;
    for (size_t i = 0; i < op->iter_vars.size(); ++i) {
      iter_values[op->iter_vars[i].var.get()] = op->bindings[i];
      if (op->iter_vars[i].is_reduce && !vars_in(op->bindings[i]).empty()) reduce_driven = true;
    }
    Stmt body = tag_stores(substitute(op->body, iter_values), op->stage);
    if (op->init && !reduce_driven) {
      // Every reduction iter var is fixed here: this point's whole reduction is this one update.
      body = Seq::make({tag_stores(substitute(op->init, iter_values), op->stage), body});
    }
    if (op->predicate) body = IfThenElse::make(op->predicate, body);
    return body;
  }

 private:
  const InitPlanner& plan_;
};

}  // namespace

Stmt lower_blocks(const Stmt& s) {
  InitPlanner plan;
  plan.visit_stmt(s);
  BlockLowerer lowerer(plan);
  return lowerer.mutate_stmt(s);
}

}  // namespace texc
