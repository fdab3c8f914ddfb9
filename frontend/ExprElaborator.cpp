#include "frontend/ExprElaborator.h"

#include <algorithm>

#include <cmath>

#include "frontend/ConstExpr.h"
#include "frontend/Suggest.h"
#include "ir/IROperators.h"
#include "ir/MathFunctions.h"

namespace texc {

namespace {

const std::set<std::string> kReductions = {"sum", "max", "min", "prod"};

bool is_arithmetic(const std::string& op) { return op == "+" || op == "-" || op == "*" || op == "/" || op == "%"; }
bool is_shift(const std::string& op) { return op == "<<" || op == ">>"; }
bool is_compare(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
}

BinaryOp binary_op_of(const std::string& op) {
  static const std::pair<const char*, BinaryOp> table[] = {
      {"+", BinaryOp::Add}, {"-", BinaryOp::Sub},  {"*", BinaryOp::Mul}, {"/", BinaryOp::Div},
      {"%", BinaryOp::Mod}, {"<<", BinaryOp::Shl}, {">>", BinaryOp::Shr}, {"<", BinaryOp::LT},
      {"<=", BinaryOp::LE}, {">", BinaryOp::GT},   {">=", BinaryOp::GE}, {"==", BinaryOp::EQ},
      {"!=", BinaryOp::NE}, {"&&", BinaryOp::And}, {"||", BinaryOp::Or}, {"min", BinaryOp::Min},
      {"max", BinaryOp::Max}};
  for (const auto& [sym, bop] : table)
    if (op == sym) return bop;
  TEXC_UNREACHABLE() << "operator " << op;
}

bool fits(int64_t v, Type t) {
  if (t.is_float()) return true;
  if (t.bits >= 64) return t.is_int() || v >= 0;
  if (t.is_uint()) return v >= 0 && v < (int64_t(1) << t.bits);
  int64_t limit = int64_t(1) << (t.bits - 1);
  return v >= -limit && v < limit;
}

std::vector<std::string> builtin_function_names() {
  std::vector<std::string> names;
  for (const MathFunctionInfo& f : math_functions()) names.push_back(f.name);
  for (const char* n : {"select", "sum", "max", "min", "prod", "f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8",
                        "u16", "u32", "bool"})
    names.push_back(n);
  return names;
}

}  // namespace

bool is_builtin_function(const std::string& name) {
  std::vector<std::string> names = builtin_function_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

SourceLoc start_loc(const ast::Expr& e) {
  if (auto* b = e.as<ast::Binary>()) return start_loc(*b->lhs);
  return e.loc;
}

ExprElaborator::Typed ExprElaborator::int_lit(int64_t v) {
  Typed t = typed(IntImm::make(Index(), v));
  t.lit = Typed::Lit::Int;
  t.int_value = v;
  return t;
}

ExprElaborator::Typed ExprElaborator::float_lit(double v, std::string text) {
  Typed t = typed(FloatImm::make(Float(64), v));
  t.lit = Typed::Lit::Float;
  t.float_value = v;
  t.text = std::move(text);
  return t;
}

Expr ExprElaborator::value(const ast::Expr& e) {
  Typed t = elaborate(e);
  return materialize(t, Int(32), start_loc(e));
}

Expr ExprElaborator::adapt(const Typed& x, Type t, const std::string& op, SourceLoc loc) {
  if (x.loc.valid()) loc = x.loc;
  switch (x.lit) {
    case Typed::Lit::None: return x.e;
    case Typed::Lit::Int:
      if (t.is_bool()) throw_error(DiagId::TypeMismatch, loc, op, "bool", "i32", "i32");
      if (t.is_float()) return FloatImm::make(t, double(x.int_value));
      if (!fits(x.int_value, t)) throw_error(DiagId::LiteralOutOfRange, loc, x.int_value, t.str());
      return IntImm::make(t, x.int_value);
    case Typed::Lit::Float:
      if (!t.is_float()) throw_error(DiagId::LiteralTypeMismatch, loc, x.text, t.str());
      return FloatImm::make(t, x.float_value);
  }
  TEXC_UNREACHABLE();
}

Expr ExprElaborator::materialize(const Typed& x, Type int_type, SourceLoc loc) {
  switch (x.lit) {
    case Typed::Lit::None: return x.e;
    case Typed::Lit::Int: return adapt(x, int_type, "", loc);
    case Typed::Lit::Float: return FloatImm::make(Float(32), x.float_value);
  }
  TEXC_UNREACHABLE();
}

std::pair<Expr, Expr> ExprElaborator::unify(const Typed& a, const Typed& b, const std::string& op, SourceLoc loc) {
  using Lit = Typed::Lit;
  if (a.lit != Lit::None && b.lit != Lit::None) {
    // Two literals: a float makes both f32; two integers are i64 (sizes, index arithmetic).
    Type t = (a.lit == Lit::Float || b.lit == Lit::Float) ? Float(32) : Index();
    return {adapt(a, t, op, loc), adapt(b, t, op, loc)};
  }
  if (a.lit != Lit::None) return {adapt(a, b.e->type, op, loc), b.e};
  if (b.lit != Lit::None) return {a.e, adapt(b, a.e->type, op, loc)};
  Type ta = a.e->type, tb = b.e->type;
  if (ta != tb) {
    Type suggestion = (tb.is_float() && !ta.is_float()) ? tb : ta;
    throw_error(DiagId::TypeMismatch, loc, op, ta.str(), tb.str(), suggestion.str());
  }
  return {a.e, b.e};
}

ExprElaborator::Typed ExprElaborator::elaborate(const ast::Expr& e) {
  Typed t = elaborate_node(e);
  if (t.lit != Typed::Lit::None && !t.loc.valid()) t.loc = start_loc(e);
  return t;
}

ExprElaborator::Typed ExprElaborator::elaborate_node(const ast::Expr& e) {
  switch (e.kind) {
    case ast::ExprKind::IntLit: return int_lit(e.as<ast::IntLit>()->value);
    case ast::ExprKind::FloatLit: {
      auto* f = e.as<ast::FloatLit>();
      return float_lit(f->value, f->text);
    }
    case ast::ExprKind::BoolLit: return typed(make_bool(e.as<ast::BoolLit>()->value));
    case ast::ExprKind::Name: return name(*e.as<ast::NameRef>());
    case ast::ExprKind::DottedName: throw_error(DiagId::SyntaxError, e.loc, "a dotted name is not an expression");
    case ast::ExprKind::Index: return index(*e.as<ast::Index>());
    case ast::ExprKind::Unary: return unary(*e.as<ast::Unary>());
    case ast::ExprKind::Binary: return binary(*e.as<ast::Binary>());
    case ast::ExprKind::Call: return call(*e.as<ast::Call>());
  }
  TEXC_UNREACHABLE();
}

ExprElaborator::Typed ExprElaborator::name(const ast::NameRef& n) {
  const Symbol* s = scope_->lookup(n.name);
  if (!s) scope_->throw_unknown(n.name, n.loc);
  switch (s->kind) {
    case Symbol::Kind::Size: return int_lit(s->value);
    case Symbol::Kind::FloatAttribute: return typed(FloatImm::make(s->type, s->real));
    case Symbol::Kind::Tensor: {
      const Buffer& b = s->buffer;
      throw_error(DiagId::TensorNotIndexed, n.loc, n.name, b->ndim(), n.name);
    }
    case Symbol::Kind::Index: {
      Expr v = s->var;
      if (s->offset != 0) v = Binary::make(BinaryOp::Add, v, IntImm::make(Index(), s->offset));
      return typed(v);
    }
  }
  TEXC_UNREACHABLE();
}

ExprElaborator::Typed ExprElaborator::index(const ast::Index& i) {
  const Symbol* s = scope_->lookup(i.tensor);
  if (!s) scope_->throw_unknown(i.tensor, i.loc);
  if (s->kind == Symbol::Kind::FloatAttribute) {
    std::string type = s->type.str();
    throw_error(DiagId::FloatAttributeNotTensor, i.loc, i.tensor, type, i.tensor, type);
  }
  if (s->kind != Symbol::Kind::Tensor) throw_error(DiagId::NotATensor, i.loc, i.tensor);
  const Buffer& buffer = s->buffer;
  if (i.indices.size() != buffer->ndim()) {
    throw_error(DiagId::RankMismatch, i.loc, i.tensor, buffer->ndim(), i.indices.size());
  }
  TensorRead read{buffer, {}, {}, guard_depth_ > 0};
  for (size_t k = 0; k < i.indices.size(); ++k) {
    const ast::Expr& idx = *i.indices[k];
    ++index_depth_;
    Typed t = elaborate(idx);
    --index_depth_;
    Expr e = materialize(t, Index(), start_loc(idx));
    if (!e->type.is_integer()) throw_error(DiagId::IndexNotInteger, start_loc(idx), k + 1, i.tensor, e->type.str());
    if (e->type != Index()) e = Cast::make(Index(), e);
    if (auto* n = idx.as<ast::NameRef>()) {
      const Symbol* is = scope_->lookup(n->name);
      if (is && is->kind == Symbol::Kind::Index && is->axis >= 0) {
        int64_t extent = 0;
        is_const_int(buffer->shape[k], &extent);
        bare_uses_.push_back({is->axis, extent, i.tensor, idx.loc});
      }
    }
    read.indices.push_back(e);
    read.index_locs.push_back(start_loc(idx));
  }
  Expr load = Load::make(buffer, read.indices);
  reads_.push_back(std::move(read));
  return typed(load);
}

ExprElaborator::Typed ExprElaborator::unary(const ast::Unary& u) {
  Typed x = elaborate(*u.operand);
  if (u.op == "!") {
    Expr e = x.e;
    if (x.lit != Typed::Lit::None || !e->type.is_bool()) {
      throw_error(DiagId::NeedsBool, u.loc, "!", x.lit == Typed::Lit::None ? e->type.str() : "a number");
    }
    return typed(Not::make(e));
  }
  // unary minus
  if (x.lit == Typed::Lit::Int) return int_lit(checked_int_op("-", 0, x.int_value, u.loc));
  if (x.lit == Typed::Lit::Float) return float_lit(-x.float_value, "-" + x.text);
  Type t = x.e->type;
  if (t.is_bool()) throw_error(DiagId::BoolArithmetic, u.loc, "-");
  return typed(Binary::make(BinaryOp::Sub, make_const(t, 0), x.e));
}

ExprElaborator::Typed ExprElaborator::binary(const ast::Binary& b) {
  Typed x = elaborate(*b.lhs);
  Typed y = elaborate(*b.rhs);
  const std::string& op = b.op;
  using Lit = Typed::Lit;
  if (op == "&&" || op == "||") {
    for (const Typed* t : {&x, &y}) {
      if (t->lit != Lit::None || !t->e->type.is_bool()) {
        throw_error(DiagId::NeedsBool, b.loc, op, t->lit == Lit::None ? t->e->type.str() : "a number");
      }
    }
    return typed(Binary::make(binary_op_of(op), x.e, y.e));
  }
  // Constant folding of literals keeps them adaptable: `2*pad` is still an untyped integer.
  if (x.lit == Lit::Int && y.lit == Lit::Int && (is_arithmetic(op) || is_shift(op))) {
    return int_lit(checked_int_op(op, x.int_value, y.int_value, b.loc));
  }
  if (x.lit != Lit::None && y.lit != Lit::None && (x.lit == Lit::Float || y.lit == Lit::Float) &&
      (op == "+" || op == "-" || op == "*" || op == "/")) {
    double a = x.lit == Lit::Float ? x.float_value : double(x.int_value);
    double c = y.lit == Lit::Float ? y.float_value : double(y.int_value);
    double r = op == "+" ? a + c : op == "-" ? a - c : op == "*" ? a * c : a / c;
    return float_lit(r, fmt::format("{}", r));
  }
  auto [ea, eb] = unify(x, y, op, b.loc);
  Type t = ea->type;
  if (is_shift(op) && !t.is_integer()) throw_error(DiagId::NeedsInteger, b.loc, op, t.str());
  if (t.is_bool() && (is_arithmetic(op) || (is_compare(op) && op != "==" && op != "!="))) {
    throw_error(DiagId::BoolArithmetic, b.loc, op);
  }
  return typed(Binary::make(binary_op_of(op), ea, eb));
}

ExprElaborator::Typed ExprElaborator::call(const ast::Call& c) {
  const std::string& f = c.callee;
  bool is_reduction_name = kReductions.count(f) > 0;
  if (!c.fors.empty() && !is_reduction_name) throw_error(DiagId::ForNotAllowed, c.fors.front().var.loc, f);
  bool known = is_reduction_name || f == "select" || find_math_function_info(f) || Type::parse(f).has_value();
  // Inside an expression an op can never be called, so a built-in function wins over an op that
  // shares its name (an op called `tanh` does not hide tanh(x)).
  if (!known && callables_.ops.count(f)) throw_error(DiagId::OpCallInExpression, c.loc, f, f);
  if (!known && callables_.intrinsics.count(f)) throw_error(DiagId::CallOfIntrinsic, c.loc, f);
  if (!known) {
    std::vector<std::string> candidates = builtin_function_names();
    candidates.insert(candidates.end(), callables_.ops.begin(), callables_.ops.end());
    std::vector<std::string> suggestions = closest_names(f, candidates);
    if (!suggestions.empty()) throw_error(DiagId::UnknownFunctionSuggest, c.loc, f, quoted_alternatives(suggestions));
    std::string math;  // the functions of a value (not the reductions, select or the casts)
    for (const MathFunctionInfo& m : math_functions()) math += (math.empty() ? "" : ", ") + std::string(m.name);
    throw_error(DiagId::UnknownFunction, c.loc, f, math);
  }
  for (const ast::CallArg& a : c.args)
    if (!a.keyword.text.empty()) throw_error(DiagId::KeywordNotAllowed, a.keyword.loc, f);
  if (!c.fors.empty()) return reduction(c);
  if (f == "sum" || f == "prod") throw_error(DiagId::ReductionNeedsFor, c.loc, f, f);
  if (f == "select") return select(c);
  if (auto t = Type::parse(f)) return cast(c, *t);
  if (f == "min" || f == "max") {
    if (c.args.size() != 2) throw_error(DiagId::WrongArgCount, c.loc, f, 2, c.args.size());
    Typed x = elaborate(*c.args[0].value);
    Typed y = elaborate(*c.args[1].value);
    if (x.lit == Typed::Lit::Int && y.lit == Typed::Lit::Int) {
      return int_lit(checked_int_op(f, x.int_value, y.int_value, c.loc));
    }
    auto [a, b] = unify(x, y, f, c.loc);
    if (a->type.is_bool()) throw_error(DiagId::BoolArithmetic, c.loc, f);
    return typed(Binary::make(binary_op_of(f), a, b));
  }
  return math(c);
}

ExprElaborator::Typed ExprElaborator::select(const ast::Call& c) {
  if (c.args.size() != 3) throw_error(DiagId::WrongArgCount, c.loc, "select", 3, c.args.size());
  Typed cond = elaborate(*c.args[0].value);
  if (cond.lit != Typed::Lit::None || !cond.e->type.is_bool()) {
    throw_error(DiagId::NeedsBool, start_loc(*c.args[0].value), "select",
                cond.lit == Typed::Lit::None ? cond.e->type.str() : "a number");
  }
  ++guard_depth_;
  Typed a = elaborate(*c.args[1].value);
  Typed b = elaborate(*c.args[2].value);
  --guard_depth_;
  if (a.lit == Typed::Lit::Int && b.lit == Typed::Lit::Int) {
    a = typed(materialize(a, Int(32), c.loc));
    b = typed(materialize(b, Int(32), c.loc));
  }
  auto [ea, eb] = unify(a, b, "select", c.loc);
  return typed(Select::make(cond.e, ea, eb));
}

ExprElaborator::Typed ExprElaborator::cast(const ast::Call& c, Type t) {
  if (c.args.size() != 1) throw_error(DiagId::WrongArgCount, c.loc, c.callee, 1, c.args.size());
  Typed x = elaborate(*c.args[0].value);
  SourceLoc loc = start_loc(*c.args[0].value);
  if (x.lit == Typed::Lit::Int && t.is_bool()) return typed(make_bool(x.int_value != 0));
  if (x.lit == Typed::Lit::Int) return typed(adapt(x, t, c.callee, loc));
  if (x.lit == Typed::Lit::Float && t.is_float()) return typed(FloatImm::make(t, x.float_value));
  Expr e = materialize(x, Int(32), loc);
  if (e->type == t) return typed(e);
  return typed(Cast::make(t, e));
}

ExprElaborator::Typed ExprElaborator::math(const ast::Call& c) {
  const std::string& f = c.callee;
  const MathFunctionInfo* info = find_math_function_info(f);
  TEXC_CHECK(info) << "math function " << f;
  size_t arity = size_t(info->arity);
  if (c.args.size() != arity) throw_error(DiagId::WrongArgCount, c.loc, f, arity, c.args.size());
  Typed x = elaborate(*c.args[0].value);
  if (arity == 2) {
    Typed y = elaborate(*c.args[1].value);
    if (x.lit != Typed::Lit::None && y.lit != Typed::Lit::None) {
      x = typed(adapt(x, Float(32), f, c.loc));
    }
    auto [a, b] = unify(x, y, f, c.loc);
    if (!a->type.is_float()) throw_error(DiagId::NeedsFloat, c.loc, f, a->type.str());
    return typed(Call::make(a->type, f, {a, b}, CallKind::Math));
  }
  Expr e;
  if (x.lit != Typed::Lit::None) {
    e = adapt(x, Float(32), f, c.loc);  // exp(1) is exp(1.0f)
  } else {
    e = x.e;
  }
  if (info->integer_ok) {
    if (e->type.is_bool()) throw_error(DiagId::BoolArithmetic, c.loc, f);
  } else if (!e->type.is_float()) {
    throw_error(DiagId::NeedsFloat, c.loc, f, e->type.str());
  }
  Type result = info->returns_bool ? Bool(e->type.lanes) : e->type;
  return typed(Call::make(result, f, {e}, CallKind::Math));
}

ExprElaborator::Typed ExprElaborator::reduction(const ast::Call& c) {
  const std::string& f = c.callee;
  if (c.args.size() != 1) throw_error(DiagId::WrongArgCount, c.loc, f, 1, c.args.size());
  if (index_depth_ > 0) throw_error(DiagId::ReductionInIndex, c.loc);
  Scope inner(scope_);
  std::vector<IterVar> axes;
  for (const ast::ForClause& clause : c.fors) {
    int64_t lo = eval_const_int(*clause.lo, *scope_);
    int64_t hi = eval_const_int(*clause.hi, *scope_);
    if (hi <= lo) throw_error(DiagId::EmptyReduction, clause.var.loc, lo, hi, clause.var.text);
    int64_t extent = checked_int_op("-", hi, lo, clause.var.loc);
    Var v = Variable::make(clause.var.text, Index());
    Symbol s;
    s.kind = Symbol::Kind::Index;
    s.var = v;
    s.offset = lo;
    inner.define(clause.var.text, clause.var.loc, s);
    axes.push_back(IterVar{v, IntImm::make(Index(), 0), IntImm::make(Index(), extent), true});
    reduction_ranges_[v.get()] = IndexInterval{0, extent - 1, true, {}};
  }
  const Scope* outer = scope_;
  scope_ = &inner;
  Typed source = elaborate(*c.args[0].value);
  scope_ = outer;
  Expr e = materialize(source, Int(32), start_loc(*c.args[0].value));
  if (e->type.is_bool()) throw_error(DiagId::ReductionOfBool, c.loc, f);
  ReduceKind kind = f == "sum" ? ReduceKind::Sum : f == "max" ? ReduceKind::Max : f == "min" ? ReduceKind::Min : ReduceKind::Prod;
  return typed(Reduce::make(kind, e, std::move(axes)));
}

}  // namespace texc
