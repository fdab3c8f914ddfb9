#include "frontend/ConstExpr.h"

#include <algorithm>

#include <fmt/format.h>

#include "frontend/ExprElaborator.h"
#include "ir/ConstEval.h"

namespace texc {

int64_t checked_int_op(const std::string& op, int64_t a, int64_t b, SourceLoc loc) {
  int64_t r = 0;
  bool overflow = false;
  if (op == "+") {
    overflow = __builtin_add_overflow(a, b, &r);
  } else if (op == "-") {
    overflow = __builtin_sub_overflow(a, b, &r);
  } else if (op == "*") {
    overflow = __builtin_mul_overflow(a, b, &r);
  } else if (op == "/" || op == "%") {
    if (b == 0) throw_error(DiagId::DivisionByZero, loc, op);
    if (a == INT64_MIN && b == -1) {
      overflow = true;
    } else {
      r = op == "/" ? floor_div(a, b) : floor_mod(a, b);
    }
  } else if (op == "<<") {
    if (b < 0 || b >= 63) {
      overflow = true;
    } else {
      r = int64_t(uint64_t(a) << b);
      overflow = (r >> b) != a;
    }
  } else if (op == ">>") {
    r = b < 0 ? a : (b >= 63 ? (a < 0 ? -1 : 0) : (a >> b));
  } else if (op == "min") {
    r = std::min(a, b);
  } else if (op == "max") {
    r = std::max(a, b);
  } else {
    throw_error(DiagId::NotCompileTimeInt, loc);
  }
  if (overflow) throw_error(DiagId::IntegerOverflow, loc, op, a, b);
  return r;
}

void check_tensor_size(const std::string& name, Type dtype, const std::vector<int64_t>& shape, SourceLoc loc) {
  // At most kMaxRank dimensions (docs/language.md, "Limits"): lowering's work grows with the rank.
  constexpr size_t kMaxRank = 64;
  if (shape.size() > kMaxRank) throw_error(DiagId::TooManyDimensions, loc, name, shape.size(), kMaxRank);
  int64_t element_bytes = dtype.is_bool() ? 1 : dtype.bytes();
  int64_t elements = 1, bytes = 0;
  bool overflow = false;
  for (int64_t extent : shape) overflow = overflow || __builtin_mul_overflow(elements, extent, &elements);
  overflow = overflow || __builtin_mul_overflow(elements, element_bytes, &bytes);
  if (!overflow) return;
  // The element count in the message: exact up to 2^128, else approximate.
  unsigned __int128 exact = 1;
  bool exact_overflow = false;
  double approximate = 1;
  for (int64_t extent : shape) {
    exact_overflow = exact_overflow || __builtin_mul_overflow(exact, (unsigned __int128)extent, &exact);
    approximate *= double(extent);
  }
  std::string count;
  if (exact_overflow) {
    count = fmt::format("about {:.3g}", approximate);
  } else {
    for (; exact > 0; exact /= 10) count.insert(count.begin(), char('0' + int(exact % 10)));
  }
  std::string shape_text = "[";
  for (size_t d = 0; d < shape.size(); ++d) shape_text += (d ? ", " : "") + std::to_string(shape[d]);
  throw_error(DiagId::TensorTooLarge, loc, name, shape_text + "]", count, element_bytes);
}

namespace {

/// Whether e is a float number: a float literal or float attribute appears in it.
bool has_float(const ast::Expr& e, const Scope& scope) {
  if (e.as<ast::FloatLit>()) return true;
  if (auto* n = e.as<ast::NameRef>()) {
    const Symbol* s = scope.lookup(n->name);
    return s && s->kind == Symbol::Kind::FloatAttribute;
  }
  if (auto* u = e.as<ast::Unary>()) return has_float(*u->operand, scope);
  if (auto* b = e.as<ast::Binary>()) return has_float(*b->lhs, scope) || has_float(*b->rhs, scope);
  return false;
}

}  // namespace

int64_t define_as_int(const std::string& name, const DefineValue& value) {
  if (!value.is_integer) throw_error(DiagId::DefineNotInteger, SourceLoc{}, name, value.text, name);
  return value.integer;
}

double eval_const_number(const ast::Expr& e, const Scope& scope) {
  if (auto* n = e.as<ast::NameRef>()) {
    const Symbol* s = scope.lookup(n->name);
    if (s && s->kind == Symbol::Kind::Tensor) throw_error(DiagId::TensorIsNotANumber, e.loc, n->name);
  }
  if (!has_float(e, scope)) return double(eval_const_int(e, scope));  // integer arithmetic: floor division, checks
  if (auto* f = e.as<ast::FloatLit>()) return f->value;
  if (auto* n = e.as<ast::NameRef>()) return scope.lookup(n->name)->real;
  if (auto* u = e.as<ast::Unary>(); u && u->op == "-") return -eval_const_number(*u->operand, scope);
  if (auto* b = e.as<ast::Binary>(); b && (b->op == "+" || b->op == "-" || b->op == "*" || b->op == "/")) {
    double x = eval_const_number(*b->lhs, scope), y = eval_const_number(*b->rhs, scope);
    if (b->op == "+") return x + y;
    if (b->op == "-") return x - y;
    if (b->op == "*") return x * y;
    return x / y;
  }
  throw_error(DiagId::NotAConstNumber, e.loc);
}

int64_t eval_const_int(const ast::Expr& e, const Scope& scope) {
  switch (e.kind) {
    case ast::ExprKind::IntLit: return e.as<ast::IntLit>()->value;
    case ast::ExprKind::Name: {
      const std::string& name = e.as<ast::NameRef>()->name;
      const Symbol* s = scope.lookup(name);
      if (!s) scope.throw_unknown(name, e.loc);
      if (s->kind == Symbol::Kind::Tensor) throw_error(DiagId::TensorIsNotASize, e.loc, name);
      if (s->kind == Symbol::Kind::Index) throw_error(DiagId::IndexVarIsNotASize, e.loc, name);
      if (s->kind == Symbol::Kind::FloatAttribute) throw_error(DiagId::FloatAttributeIsNotASize, e.loc, name, s->type.str());
      return s->value;
    }
    case ast::ExprKind::Unary: {
      auto* u = e.as<ast::Unary>();
      if (u->op != "-") break;
      return checked_int_op("-", 0, eval_const_int(*u->operand, scope), e.loc);
    }
    case ast::ExprKind::Binary: {
      auto* b = e.as<ast::Binary>();
      static const char* kOps[] = {"+", "-", "*", "/", "%", "<<", ">>"};
      if (std::find(std::begin(kOps), std::end(kOps), b->op) == std::end(kOps)) break;
      int64_t lhs = eval_const_int(*b->lhs, scope);
      int64_t rhs = eval_const_int(*b->rhs, scope);
      return checked_int_op(b->op, lhs, rhs, e.loc);
    }
    case ast::ExprKind::Call: {
      auto* c = e.as<ast::Call>();
      if ((c->callee != "min" && c->callee != "max") || !c->fors.empty()) break;
      if (c->args.size() != 2) throw_error(DiagId::WrongArgCount, e.loc, c->callee, 2, c->args.size());
      for (const ast::CallArg& a : c->args)
        if (!a.keyword.text.empty()) throw_error(DiagId::KeywordNotAllowed, a.keyword.loc, c->callee);
      int64_t lhs = eval_const_int(*c->args[0].value, scope);
      int64_t rhs = eval_const_int(*c->args[1].value, scope);
      return checked_int_op(c->callee, lhs, rhs, e.loc);
    }
    default: break;
  }
  throw_error(DiagId::NotCompileTimeInt, e.loc);
}

bool eval_const_bool(const ast::Expr& e, const Scope& scope) {
  switch (e.kind) {
    case ast::ExprKind::BoolLit: return e.as<ast::BoolLit>()->value;
    case ast::ExprKind::Unary: {
      auto* u = e.as<ast::Unary>();
      if (u->op != "!") break;
      return !eval_const_bool(*u->operand, scope);
    }
    case ast::ExprKind::Binary: {
      auto* b = e.as<ast::Binary>();
      if (b->op == "&&") return eval_const_bool(*b->lhs, scope) && eval_const_bool(*b->rhs, scope);
      if (b->op == "||") return eval_const_bool(*b->lhs, scope) || eval_const_bool(*b->rhs, scope);
      static const char* kComparisons[] = {"==", "!=", "<", "<=", ">", ">="};
      if (std::find(std::begin(kComparisons), std::end(kComparisons), b->op) == std::end(kComparisons)) break;
      int64_t lhs = eval_const_int(*b->lhs, scope);
      int64_t rhs = eval_const_int(*b->rhs, scope);
      if (b->op == "==") return lhs == rhs;
      if (b->op == "!=") return lhs != rhs;
      if (b->op == "<") return lhs < rhs;
      if (b->op == "<=") return lhs <= rhs;
      if (b->op == ">") return lhs > rhs;
      return lhs >= rhs;
    }
    default: break;
  }
  throw_error(DiagId::NotCompileTimeBool, start_loc(e));
}

}  // namespace texc
