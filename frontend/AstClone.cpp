#include "frontend/AstClone.h"

namespace texc::ast {

ExprPtr clone_expr(const Expr& e, const ExprRewrite& rewrite) {
  if (rewrite) {
    if (ExprPtr replaced = rewrite(e)) return replaced;
  }
  switch (e.kind) {
    case ExprKind::IntLit: {
      auto* n = e.as<IntLit>();
      return std::make_unique<IntLit>(n->loc, n->value);
    }
    case ExprKind::FloatLit: {
      auto* n = e.as<FloatLit>();
      return std::make_unique<FloatLit>(n->loc, n->value, n->text);
    }
    case ExprKind::BoolLit: {
      auto* n = e.as<BoolLit>();
      return std::make_unique<BoolLit>(n->loc, n->value);
    }
    case ExprKind::Name: {
      auto* n = e.as<NameRef>();
      return std::make_unique<NameRef>(n->loc, n->name);
    }
    case ExprKind::DottedName: {
      auto* n = e.as<DottedName>();
      return std::make_unique<DottedName>(n->loc, n->parts);
    }
    case ExprKind::Index: {
      auto* n = e.as<Index>();
      std::vector<ExprPtr> indices;
      for (const ExprPtr& i : n->indices) indices.push_back(clone_expr(*i, rewrite));
      return std::make_unique<Index>(n->loc, n->tensor, std::move(indices));
    }
    case ExprKind::Unary: {
      auto* n = e.as<Unary>();
      return std::make_unique<Unary>(n->loc, n->op, clone_expr(*n->operand, rewrite));
    }
    case ExprKind::Binary: {
      auto* n = e.as<Binary>();
      return std::make_unique<Binary>(n->loc, n->op, clone_expr(*n->lhs, rewrite), clone_expr(*n->rhs, rewrite));
    }
    case ExprKind::Call: {
      auto* n = e.as<Call>();
      std::vector<CallArg> args;
      for (const CallArg& a : n->args) args.push_back(CallArg{a.keyword, clone_expr(*a.value, rewrite)});
      std::vector<ForClause> fors;
      for (const ForClause& f : n->fors)
        fors.push_back(ForClause{f.var, clone_expr_or_null(f.lo, rewrite), clone_expr_or_null(f.hi, rewrite)});
      return std::make_unique<Call>(n->loc, n->callee, std::move(args), std::move(fors));
    }
  }
  return nullptr;
}

ExprPtr clone_expr_or_null(const ExprPtr& e, const ExprRewrite& rewrite) {
  return e ? clone_expr(*e, rewrite) : nullptr;
}

OpParam clone_param(const OpParam& p) {
  OpParam out;
  out.name = p.name;
  out.type = p.type;
  out.has_shape = p.has_shape;
  out.is_const = p.is_const;
  out.const_loc = p.const_loc;
  for (const ExprPtr& d : p.dims) out.dims.push_back(clone_expr(*d));
  out.default_value = clone_expr_or_null(p.default_value);
  out.domain_lo = clone_expr_or_null(p.domain_lo);
  out.domain_hi = clone_expr_or_null(p.domain_hi);
  out.domain_loc = p.domain_loc;
  return out;
}

}  // namespace texc::ast
