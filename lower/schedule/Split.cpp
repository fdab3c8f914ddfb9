// split(L, F) / split(L, nparts = P): loop L becomes an outer and an inner loop.
// Non-dividing factors are guarded with a Block predicate (lower/ partitions the tail later); a
// factor larger than the extent gives an outer loop of extent 1.
#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {
class PredicateAdder : public IRMutator {
 public:
  explicit PredicateAdder(Expr c) : cond_(std::move(c)) {}

 protected:
  Stmt mutate(const Block* op, const Stmt& self) override {
    Stmt b = IRMutator::mutate(op, self);
    const Block* nb = b->as<Block>();
    Expr pred = nb->predicate ? logical_and(nb->predicate, cond_) : cond_;
    return Block::make(nb->stage, nb->iter_vars, nb->bindings, pred, nb->init, nb->body);
  }
  Expr mutate_expr(const Expr& e) override { return e; }

 private:
  Expr cond_;
};
}  // namespace

Stmt add_block_predicate(const Stmt& s, const Expr& cond) { return PredicateAdder(cond).mutate_stmt(s); }

Stmt split_loop(const For* l, int64_t factor, const std::string& outer_name, const std::string& inner_name) {
  Var outer = Variable::make(outer_name, l->var->type);
  Var inner = Variable::make(inner_name, l->var->type);
  int64_t extent = 0;
  bool constant = is_const_int(l->extent, &extent);
  Expr inner_extent, outer_extent;
  bool exact;
  if (constant && factor >= extent) {
    inner_extent = make_int(std::max<int64_t>(extent, 1));
    outer_extent = make_int(1);
    exact = true;
  } else {
    inner_extent = make_int(factor);
    outer_extent = simplify((l->extent + (factor - 1)) / factor);
    exact = constant && extent % factor == 0;
  }
  Expr value = outer * inner_extent + inner;
  if (!is_const_int(l->min, int64_t(0))) value = value + l->min;
  Stmt body = substitute(l->body, VarMap{{l->var.get(), value}});
  if (!exact) body = add_block_predicate(body, outer * inner_extent + inner < l->extent);
  Stmt inner_loop = For::make(inner, make_int(0), inner_extent, ForKind::Serial, body);
  return For::make(outer, make_int(0), outer_extent, ForKind::Serial, inner_loop);
}

void apply_split(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 2, 2, 2);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  for (size_t i = 0; i < 2; ++i) st.check_fresh_name(p.results[i], p.result_locs.size() > i ? p.result_locs[i] : p.loc);
  if (p.results[0] == p.results[1]) throw_error(DiagId::NameInUse, p.loc, p.results[1]);
  int64_t n = int_arg(step, 1);
  if (n <= 0) throw_error(DiagId::BadSplitFactor, p.args[1].loc, n);
  int64_t factor = n;
  if (p.args[1].keyword == "nparts") {
    int64_t extent;
    if (!is_const_int(l->extent, &extent))
      throw_error(DiagId::NonConstantExtent, p.args[0].loc, "split by nparts", l->var->name);
    factor = (extent + n - 1) / n;
    if (factor <= 0) factor = 1;
  } else if (!p.args[1].keyword.empty()) {
    throw_error(DiagId::ScheduleError, p.args[1].loc, "split takes a factor or 'nparts = P', not '" + p.args[1].keyword + "'");
  }
  st.record_replaced(l->var->name, p.primitive, p.results);
  if (int64_t extent = 0; is_const_int(l->extent, &extent) && factor > extent) st.clamped_splits[p.results[1]] = factor;
  st.replace(l, split_loop(l, factor, p.results[0], p.results[1]));
}

}  // namespace texc
