#include "ir/Op.h"

#include "ir/ConstEval.h"
#include "ir/IRVisitor.h"

namespace texc {

std::string hidden_reduction_stage_name(const std::string& stage, int i) {
  return i == 0 ? stage + "_red" : stage + "_red" + std::to_string(i);
}

namespace {
// The Reduce nodes of an expression that are not inside another Reduce, left to right.
class OutermostReductions : public IRVisitor {
 public:
  std::vector<const Reduce*> found;

 protected:
  void visit(const Reduce* op) override { found.push_back(op); }
};
}  // namespace

std::vector<const Reduce*> hidden_reductions(const Expr& body) {
  if (body->as<Reduce>()) return {};
  OutermostReductions v;
  v.visit_expr(body);
  return v.found;
}

const Stage* OpDef::find_stage(const std::string& n) const {
  for (const Stage& s : stages)
    if (s.name == n) return &s;
  return nullptr;
}

namespace {
// Arithmetic operations per evaluation of an expression; a Reduce multiplies its source's count
// (plus one for the combine) by the size of its domain.
double flops_of(const Expr& e) {
  if (!e) return 0;
  switch (e->kind) {
    case ExprKind::Binary: {
      auto* b = e->as<Binary>();
      double self = (b->op == BinaryOp::And || b->op == BinaryOp::Or || is_comparison(b->op)) ? 0 : 1;
      return self + flops_of(b->a) + flops_of(b->b);
    }
    case ExprKind::Select: {
      auto* s = e->as<Select>();
      // The condition is control, not data: the index arithmetic of a padding or bounds test
      // (`oy * 2 + ry >= 1`) is no FLOP, as the index arithmetic of a load is none.
      return std::max(flops_of(s->true_value), flops_of(s->false_value));
    }
    case ExprKind::Cast: return flops_of(e->as<Cast>()->value);
    case ExprKind::Not: return flops_of(e->as<Not>()->a);
    case ExprKind::Call: {
      double f = 1;
      for (auto& a : e->as<Call>()->args) f += flops_of(a);
      return f;
    }
    case ExprKind::Load: return 0;  // index arithmetic is not counted
    case ExprKind::Let: return flops_of(e->as<Let>()->value) + flops_of(e->as<Let>()->body);
    case ExprKind::Reduce: {
      auto* r = e->as<Reduce>();
      double n = 1;
      for (const IterVar& a : r->axes) n *= double(eval_int(a.extent).value_or(1));
      return n * (flops_of(r->source) + 1);
    }
    default: return 0;
  }
}
}  // namespace

double count_flops(const OpDef& op) {
  double total = 0;
  for (const Stage& s : op.stages) {
    double points = 1;
    for (const IterVar& a : s.axes) points *= double(eval_int(a.extent).value_or(1));
    total += points * flops_of(s.body);
  }
  return total;
}

}  // namespace texc
