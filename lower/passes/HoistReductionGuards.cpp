#include "lower/passes/HoistReductionGuards.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "ir/ExprOrder.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "lower/passes/LinearComparison.h"

namespace texc {

namespace {

bool is_zero_constant(const Expr& e) {
  if (const FloatImm* f = e->as<FloatImm>()) return f->value == 0.0;
  return e->type.is_int() || e->type.is_uint() ? is_const_int(e, int64_t(0)) : false;
}

bool loads_own_element(const Expr& e, const Store* s) {
  const Load* l = e->as<Load>();
  if (!l || l->buffer.get() != s->buffer.get() || l->indices.size() != s->indices.size()) return false;
  for (size_t k = 0; k < l->indices.size(); ++k)
    if (!same_expr(l->indices[k], s->indices[k])) return false;
  return true;
}

// The guarded term of an accumulation `B[i] = B[i] + select(c, e, 0)` (or `select(...) + B[i]`),
// and which operand of the add it is; null when the store is anything else.
const Select* guarded_term(const Store* s, bool* term_first = nullptr) {
  const Binary* add = s->value->as<Binary>();
  if (!add || add->op != BinaryOp::Add) return nullptr;
  const Expr* term = loads_own_element(add->a, s) ? &add->b : loads_own_element(add->b, s) ? &add->a : nullptr;
  if (!term) return nullptr;
  const Select* select = (*term)->as<Select>();
  if (!select || !is_zero_constant(select->false_value)) return nullptr;
  if (term_first) *term_first = term == &add->a;
  return select;
}

// The conjuncts of every store's guard when each statement under the loop is a loop, a sequence,
// a let, an if without else or a guarded accumulation; false otherwise. Also collects the
// variables bound inside.
struct LoopBody {
  std::vector<std::vector<Expr>> guards;  // per store
  std::unordered_set<const Variable*> bound;
};

bool collect(const Stmt& s, LoopBody& body) {
  if (!s) return true;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const Stmt& x : s->as<Seq>()->stmts)
        if (!collect(x, body)) return false;
      return true;
    case StmtKind::For: {
      const For* f = s->as<For>();
      body.bound.insert(f->var.get());
      return collect(f->body, body);
    }
    case StmtKind::LetStmt: {
      const LetStmt* l = s->as<LetStmt>();
      body.bound.insert(l->var.get());
      return collect(l->body, body);
    }
    case StmtKind::IfThenElse: {  // e.g. one an inner loop got from this pass
      const IfThenElse* i = s->as<IfThenElse>();
      return !i->else_case && collect(i->then_case, body);
    }
    case StmtKind::Store: {
      const Select* term = guarded_term(s->as<Store>());
      if (!term) return false;
      body.guards.push_back(conjuncts(term->cond));
      return true;
    }
    default:
      return false;
  }
}

bool contains(const std::vector<Expr>& list, const Expr& e) {
  return std::any_of(list.begin(), list.end(), [&](const Expr& x) { return same_expr(x, e); });
}

// Removes the given conjuncts from the guard of every accumulation under a loop.
class DropConjuncts : public IRMutator {
 public:
  explicit DropConjuncts(const std::vector<Expr>& dropped) : dropped_(dropped) {}

 protected:
  Stmt mutate(const Store* op, const Stmt& self) override {
    bool term_first = false;
    const Select* term = guarded_term(op, &term_first);
    if (!term) return self;
    Expr cond;
    for (const Expr& c : conjuncts(term->cond))
      if (!contains(dropped_, c)) cond = cond ? logical_and(cond, c) : c;
    Expr value = cond ? Select::make(cond, term->true_value, term->false_value) : term->true_value;
    const Binary* add = op->value->as<Binary>();
    Expr sum = term_first ? Binary::make(BinaryOp::Add, value, add->b) : Binary::make(BinaryOp::Add, add->a, value);
    return op->with(op->buffer, op->indices, sum);
  }

 private:
  const std::vector<Expr>& dropped_;
};

class HoistGuards : public IRMutator {
 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt mutated = IRMutator::mutate(op, self);
    const For* loop = mutated->as<For>();
    if (!loop || loop->for_kind != ForKind::Serial) return mutated;
    LoopBody body;
    if (!collect(loop->body, body) || body.guards.empty()) return mutated;

    const Variable* v = loop->var.get();
    auto invariant = [&](const Expr& e) {
      bool ok = true;
      for_each_expr(e, [&](const Expr& x) {
        if (x->as<Load>()) ok = false;
        if (const Variable* u = x->as<Variable>(); u && body.bound.count(u)) ok = false;
      });
      return ok;
    };
    std::vector<Expr> hoisted;
    for (const Expr& c : body.guards[0]) {
      if (contains(hoisted, c)) continue;
      bool shared = std::all_of(body.guards.begin() + 1, body.guards.end(),
                                [&](const std::vector<Expr>& g) { return contains(g, c); });
      std::optional<LinearComparison> solved = shared ? linear_comparison(c, v) : std::nullopt;
      if (solved && invariant(solved->rest)) hoisted.push_back(c);
    }
    if (hoisted.empty()) return mutated;
    Expr cond;
    for (const Expr& c : hoisted) cond = cond ? logical_and(cond, c) : c;
    return loop->with_body(IfThenElse::make(cond, DropConjuncts(hoisted).mutate_stmt(loop->body), nullptr));
  }
};

}  // namespace

Stmt hoist_reduction_guards(const Stmt& s) { return HoistGuards().mutate_stmt(s); }

}  // namespace texc
