#include "lower/passes/NarrowGuardedReductions.h"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "ir/ExprOrder.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
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
// a let or a guarded accumulation; nullopt otherwise. Also collects the variables bound inside.
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

class Narrow : public IRMutator {
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
    Expr lo = loop->min, end = loop->min + loop->extent;
    std::vector<Expr> used;
    for (const Expr& c : body.guards[0]) {
      if (contains(used, c)) continue;
      bool shared = std::all_of(body.guards.begin() + 1, body.guards.end(),
                                [&](const std::vector<Expr>& g) { return contains(g, c); });
      std::optional<LinearComparison> solved = shared ? linear_comparison(c, v) : std::nullopt;
      if (!solved || !invariant(solved->rest)) continue;
      // k*v + rest < bound: v <= floor((bound - 1 - rest) / k) for k > 0, v >= floor((rest - bound) / -k) + 1
      // for k < 0 (Div is floor division).
      if (solved->k > 0)
        end = min(end, (make_int(solved->bound - 1) - solved->rest) / make_int(solved->k) + make_int(1));
      else
        lo = max(lo, (solved->rest - make_int(solved->bound)) / make_int(-solved->k) + make_int(1));
      used.push_back(c);
    }
    if (used.empty()) return mutated;
    Expr new_min = simplify(lo);
    Expr new_extent = simplify(max(end - lo, make_int(0)));
    return loop->with_range(new_min, new_extent, DropConjuncts(used).mutate_stmt(loop->body));
  }
};

}  // namespace

Stmt narrow_guarded_reductions(const Stmt& s) { return Narrow().mutate_stmt(s); }

}  // namespace texc
