#include "ir/IRPrinter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ir/IRVisitor.h"
#include "ir/MathFunctions.h"

namespace texc {

bool is_math_function(const std::string& name) { return find_math_function_info(name) != nullptr; }

bool is_reserved_word(const std::string& name) {
  static const std::unordered_set<std::string> words = {
      "for",  "parallel", "vectorized", "unrolled", "tensorized", "bound", "if",     "else",  "let",
      "in",   "allocate", "block",      "init",     "where",      "reduce", "func",  "call",  "select",
      "min",  "max",      "ramp",       "broadcast", "sum",       "prod",  "true",   "false", "inf",
      "inff", "infh",     "nan",        "nanf",     "nanh"};
  return words.count(name) > 0;
}

namespace {

const char* role_word(BufferRole r) {
  switch (r) {
    case BufferRole::Input: return "input";
    case BufferRole::Output: return "output";
    case BufferRole::Intermediate: return "temp";
  }
  return "temp";
}

std::string format_float(double v, Type t) {
  const char* suffix = t.is_bfloat() ? "bf" : t.bits == 32 ? "f" : (t.bits == 16 ? "h" : "");
  if (std::isnan(v)) return std::string("nan") + suffix;
  if (std::isinf(v)) return std::string(v < 0 ? "-inf" : "inf") + suffix;
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    double back = std::strtod(buf, nullptr);
    if (t.bits == 32 ? float(back) == float(v) : back == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + suffix;
}

std::string format_int(int64_t v, Type t) {
  if (t.is_bool()) return v ? "true" : "false";
  std::string digits = t.is_uint() ? std::to_string(uint64_t(v)) : std::to_string(v);
  if (t.is_int() && t.bits == 64) return digits;
  return digits + (t.is_uint() ? "u" : "i") + std::to_string(t.bits);
}

// Operator precedence: higher binds tighter.
int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or: return 1;
    case BinaryOp::And: return 2;
    case BinaryOp::EQ:
    case BinaryOp::NE: return 3;
    case BinaryOp::LT:
    case BinaryOp::LE:
    case BinaryOp::GT:
    case BinaryOp::GE: return 4;
    case BinaryOp::Shl:
    case BinaryOp::Shr: return 5;
    case BinaryOp::Add:
    case BinaryOp::Sub: return 6;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Mod: return 7;
    case BinaryOp::Min:
    case BinaryOp::Max: return 10;
  }
  return 10;
}
constexpr int kUnaryPrecedence = 8;
constexpr int kPrimaryPrecedence = 10;

// Valid identifier characters of the text form; anything else becomes '_'.
std::string sanitize(const std::string& name) {
  if (name.empty()) return "v";
  std::string s = name;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c == '.' && i > 0 && i + 1 < s.size());
    if (!ok) s[i] = '_';
  }
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  // ".." would read as a range.
  for (size_t p; (p = s.find("..")) != std::string::npos;) s[p + 1] = '_';
  return s;
}

// Variables bound somewhere under a root (loops, lets, block iter vars, reduction axes).
class BoundVars : public IRVisitor {
 public:
  std::unordered_set<const Variable*> bound;
  std::vector<const Variable*> used_in_order;

  void visit(const Variable* op) override {
    if (seen_.insert(op).second) used_in_order.push_back(op);
  }
  void visit(const Let* op) override {
    bound.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const Reduce* op) override {
    for (const IterVar& a : op->axes) bound.insert(a.var.get());
    IRVisitor::visit(op);
  }
  void visit(const For* op) override {
    bound.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const LetStmt* op) override {
    bound.insert(op->var.get());
    IRVisitor::visit(op);
  }
  void visit(const Block* op) override {
    for (const IterVar& iv : op->iter_vars) bound.insert(iv.var.get());
    IRVisitor::visit(op);
  }

 private:
  std::unordered_set<const Variable*> seen_;
};

class Printer {
 public:
  std::ostringstream os;
  bool show_stages = false;

  // Names free variables (used but not bound under the roots) first, so bound ones avoid them.
  void reserve_free_vars(const std::vector<const Variable*>& order, const std::unordered_set<const Variable*>& bound) {
    for (const Variable* v : order)
      if (!bound.count(v)) name_free(v);
  }

  std::string var_name(const Variable* v) {
    auto it = var_names_.find(v);
    if (it != var_names_.end()) return it->second;
    return name_free(v);
  }

  std::string buffer_name(const BufferNode* b) {
    auto it = buffer_names_.find(b);
    if (it != buffer_names_.end()) return it->second;
    std::string base = sanitize(b->name), name = base;
    for (int n = 1; used_buffer_names_.count(name); ++n) name = base + "." + std::to_string(n);
    used_buffer_names_.insert(name);
    buffer_names_[b] = name;
    return name;
  }

  // Scoped binding of a variable's name.
  void bind(const Variable* v) {
    saved_.push_back({v, var_names_.count(v) ? std::optional<std::string>(var_names_[v]) : std::nullopt});
    std::string base = sanitize(v->name);
    if (is_reserved_word(base)) base += ".0";
    std::string name = base;
    for (int n = 1; live_[name] > 0; ++n) name = base + "." + std::to_string(n);
    live_[name]++;
    var_names_[v] = name;
  }
  void unbind() {
    auto [v, old] = saved_.back();
    saved_.pop_back();
    live_[var_names_[v]]--;
    if (old) var_names_[v] = *old;
    else var_names_.erase(v);
  }

  // ---- expressions

  void expr(const Expr& e, int context = 0) {
    if (!e) {
      os << "<null>";
      return;
    }
    switch (e->kind) {
      case ExprKind::IntImm: os << format_int(e->as<IntImm>()->value, e->type); return;
      case ExprKind::FloatImm: os << format_float(e->as<FloatImm>()->value, e->type); return;
      case ExprKind::Variable: os << var_name(e->as<Variable>()); return;
      case ExprKind::Binary: return binary(e->as<Binary>(), context);
      case ExprKind::Not: {
        bool parens = context > kUnaryPrecedence;
        if (parens) os << "(";
        os << "!";
        expr(e->as<Not>()->a, kUnaryPrecedence);
        if (parens) os << ")";
        return;
      }
      case ExprKind::Select: {
        auto* s = e->as<Select>();
        call_like("select", {s->cond, s->true_value, s->false_value});
        return;
      }
      case ExprKind::Cast:
        os << e->type.element_of().str() << "(";
        expr(e->as<Cast>()->value);
        os << ")";
        return;
      case ExprKind::Call: return call(e->as<Call>());
      case ExprKind::Load: {
        auto* l = e->as<Load>();
        os << buffer_name(l->buffer.get());
        indices(l->indices);
        return;
      }
      case ExprKind::Ramp: {
        auto* r = e->as<Ramp>();
        os << "ramp(";
        expr(r->base);
        os << ", ";
        expr(r->stride);
        os << ", " << r->lanes << ")";
        return;
      }
      case ExprKind::Broadcast: {
        auto* b = e->as<Broadcast>();
        os << "broadcast(";
        expr(b->value);
        os << ", " << b->lanes << ")";
        return;
      }
      case ExprKind::Let: {
        auto* l = e->as<Let>();
        bool parens = context > 0;
        if (parens) os << "(";
        std::ostringstream saved;  // the value is in the outer scope: print it before binding
        saved.swap(os);
        expr(l->value);
        saved.swap(os);
        bind(l->var.get());
        os << "let " << var_name(l->var.get()) << " = " << saved.str() << " in ";
        expr(l->body);
        unbind();
        if (parens) os << ")";
        return;
      }
      case ExprKind::Reduce: return reduce(e->as<Reduce>());
    }
  }

  void call_like(const char* name, const std::vector<Expr>& args) {
    os << name << "(";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) os << ", ";
      expr(args[i]);
    }
    os << ")";
  }

  void indices(const std::vector<Expr>& idx) {
    os << "[";
    for (size_t i = 0; i < idx.size(); ++i) {
      if (i) os << ", ";
      expr(idx[i]);
    }
    os << "]";
  }

  void binary(const Binary* b, int context) {
    if (b->op == BinaryOp::Min || b->op == BinaryOp::Max) {
      call_like(b->op == BinaryOp::Min ? "min" : "max", {b->a, b->b});
      return;
    }
    int p = precedence(b->op);
    bool parens = context > p;
    if (parens) os << "(";
    expr(b->a, p);
    bool tight = p == 7;
    os << (tight ? "" : " ") << binary_op_symbol(b->op) << (tight ? "" : " ");
    expr(b->b, p + 1);
    if (parens) os << ")";
  }

  void call(const Call* c) {
    Type default_type = c->call_kind == CallKind::Extern || c->args.empty() ? Int(32) : c->args[0]->type;
    const MathFunctionInfo* math = c->call_kind == CallKind::Math ? find_math_function_info(c->name) : nullptr;
    if (math && math->returns_bool && !c->args.empty()) default_type = Bool(c->args[0]->type.lanes);  // isnan, isinf
    bool plain = c->call_kind == CallKind::Math ? is_math_function(c->name)
                                                : (c->call_kind == CallKind::Intrinsic && !is_math_function(c->name) &&
                                                   !is_reserved_word(c->name) && !Type::parse(c->name));
    if (c->call_kind == CallKind::Extern) os << "call ";
    else if (!plain) os << (c->call_kind == CallKind::Math ? "call.math " : "call.intrinsic ");
    os << c->name;
    if (c->type != default_type) os << ":" << c->type.str();
    os << "(";
    for (size_t i = 0; i < c->args.size(); ++i) {
      if (i) os << ", ";
      expr(c->args[i]);
    }
    os << ")";
  }

  void range(const Expr& min, const Expr& extent) {
    int64_t m, e;
    if (is_const_int(min, int64_t(0))) {
      os << "0..";
      expr(extent, 9);
    } else if (is_const_int(min, &m) && is_const_int(extent, &e) && min->type == Index() &&
               extent->type == Index() && !__builtin_add_overflow(m, e, &e)) {
      os << m << ".." << e;
    } else {
      expr(min, 9);
      os << "..+";
      expr(extent, 9);
    }
  }

  void reduce(const Reduce* r) {
    os << reduce_kind_name(r->reduce_kind) << "(";
    std::ostringstream axes_text;
    // Domains are in the outer scope; the source sees the axes.
    std::vector<std::string> domains;
    for (const IterVar& a : r->axes) {
      std::ostringstream saved;
      saved.swap(os);
      range(a.min, a.extent);
      saved.swap(os);
      domains.push_back(saved.str());
    }
    for (const IterVar& a : r->axes) bind(a.var.get());
    expr(r->source);
    os << " for ";
    for (size_t i = 0; i < r->axes.size(); ++i) {
      if (i) os << ", ";
      os << var_name(r->axes[i].var.get()) << " in " << domains[i];
    }
    for (size_t i = 0; i < r->axes.size(); ++i) unbind();
    os << ")";
  }

  // ---- statements

  void indent() { os << std::string(2 * depth_, ' '); }

  void open_body(const Stmt& body) {
    os << " {\n";
    ++depth_;
    stmt(body);
    --depth_;
    indent();
    os << "}";
  }

  void stmt(const Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const Stmt& x : s->as<Seq>()->stmts) stmt(x);
        return;
      case StmtKind::Store: {
        auto* st = s->as<Store>();
        indent();
        if (show_stages && !st->stage.empty()) os << "stage(" << sanitize(st->stage) << ") ";
        os << buffer_name(st->buffer.get());
        indices(st->indices);
        os << " = ";
        expr(st->value);
        os << "\n";
        return;
      }
      case StmtKind::Evaluate:
        indent();
        expr(s->as<Evaluate>()->value);
        os << "\n";
        return;
      case StmtKind::For: {
        auto* f = s->as<For>();
        indent();
        if (f->for_kind == ForKind::ThreadBound) os << "bound(" << f->thread_tag << ") ";
        else if (f->for_kind == ForKind::Tensorized && !f->thread_tag.empty()) os << "tensorized(" << f->thread_tag << ") ";
        else os << for_kind_name(f->for_kind) << " ";
        std::ostringstream saved;
        saved.swap(os);
        range(f->min, f->extent);
        saved.swap(os);
        bind(f->var.get());
        os << var_name(f->var.get()) << " in " << saved.str();
        open_body(f->body);
        unbind();
        os << "\n";
        return;
      }
      case StmtKind::IfThenElse: {
        indent();
        if_chain(s->as<IfThenElse>());
        os << "\n";
        return;
      }
      case StmtKind::LetStmt: {
        auto* l = s->as<LetStmt>();
        indent();
        std::ostringstream saved;
        saved.swap(os);
        expr(l->value);
        saved.swap(os);
        bind(l->var.get());
        os << "let " << var_name(l->var.get()) << " = " << saved.str() << " in";
        open_body(l->body);
        unbind();
        os << "\n";
        return;
      }
      case StmtKind::AttrStmt: {
        auto* a = s->as<AttrStmt>();
        indent();
        os << "attr " << attr_key_name(a->key) << "(" << sanitize(a->name) << ") = ";
        expr(a->value);
        open_body(a->body);
        os << "\n";
        return;
      }
      case StmtKind::Allocate: {
        auto* a = s->as<Allocate>();
        indent();
        os << "allocate ";
        buffer_decl(a->buffer, /*is_arg=*/false);
        open_body(a->body);
        os << "\n";
        return;
      }
      case StmtKind::Block: return block(s->as<Block>());
    }
  }

  void if_chain(const IfThenElse* i) {
    os << "if (";
    expr(i->cond);
    os << ")";
    open_body(i->then_case);
    if (!i->else_case) return;
    os << " else ";
    if (const IfThenElse* next = i->else_case->as<IfThenElse>()) {
      if_chain(next);
      return;
    }
    os << "{\n";
    ++depth_;
    stmt(i->else_case);
    --depth_;
    indent();
    os << "}";
  }

  void block(const Block* b) {
    indent();
    os << "block " << sanitize(b->stage) << "(";
    std::vector<std::string> headers;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      const IterVar& iv = b->iter_vars[i];
      std::ostringstream saved;
      saved.swap(os);
      os << (iv.is_reduce ? "reduce " : "");
      range(iv.min, iv.extent);
      os << " = ";
      expr(b->bindings[i]);
      saved.swap(os);
      headers.push_back(saved.str());
    }
    for (const IterVar& iv : b->iter_vars) bind(iv.var.get());
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      if (i) os << ", ";
      os << var_name(b->iter_vars[i].var.get()) << ": " << headers[i];
    }
    os << ")";
    if (b->predicate) {
      os << " where (";
      expr(b->predicate);
      os << ")";
    }
    os << " {\n";
    ++depth_;
    if (b->init) {
      indent();
      os << "init";
      open_body(b->init);
      os << "\n";
    }
    stmt(b->body);
    --depth_;
    indent();
    os << "}\n";
    for (size_t i = 0; i < b->iter_vars.size(); ++i) unbind();
  }

  void buffer_decl(const Buffer& b, bool is_arg) {
    os << buffer_name(b.get()) << ": " << b->dtype.str();
    indices(b->shape);
    if (is_arg || b->role != BufferRole::Intermediate) os << " " << role_word(b->role);
    if (!is_arg || b->scope != MemScope::Global) os << " " << b->scope.name();
  }

  void func(const LoweredFunc& f) {
    os << "func " << sanitize(f.name) << "(";
    for (size_t i = 0; i < f.args.size(); ++i) {
      if (i) os << ", ";
      buffer_decl(f.args[i], /*is_arg=*/true);
      if (i < f.arg_dims.size() && !f.arg_dims[i].empty() && !dims_match_shape(f.args[i], f.arg_dims[i])) {
        os << " dims(";
        for (size_t d = 0; d < f.arg_dims[i].size(); ++d) os << (d ? ", " : "") << f.arg_dims[i][d];
        os << ")";
      }
    }
    os << ") {\n";
    ++depth_;
    stmt(f.body);
    --depth_;
    os << "}\n";
  }

  static bool dims_match_shape(const Buffer& b, const std::vector<int64_t>& dims) {
    if (dims.size() != b->shape.size()) return false;
    for (size_t i = 0; i < dims.size(); ++i)
      if (!is_const_int(b->shape[i], dims[i])) return false;
    return true;
  }

  int depth_ = 0;

 private:
  std::string name_free(const Variable* v) {
    std::string base = sanitize(v->name);
    if (is_reserved_word(base)) base += ".0";
    std::string name = base;
    for (int n = 1; live_[name] > 0; ++n) name = base + "." + std::to_string(n);
    live_[name]++;  // free variables stay live for the whole print
    var_names_[v] = name;
    return name;
  }

  std::unordered_map<const Variable*, std::string> var_names_;
  std::unordered_map<std::string, int> live_;
  std::vector<std::pair<const Variable*, std::optional<std::string>>> saved_;
  std::unordered_map<const BufferNode*, std::string> buffer_names_;
  std::unordered_set<std::string> used_buffer_names_;
};

void prepare(Printer& p, const Stmt& s, const std::vector<Expr>& extra_roots = {}) {
  BoundVars bv;
  for (const Expr& e : extra_roots) bv.visit_expr(e);
  bv.visit_stmt(s);
  p.reserve_free_vars(bv.used_in_order, bv.bound);
}

void print_sched_items(std::ostream& os, const std::vector<SchedItem>& items, int depth);

}  // namespace

std::string to_string(const Expr& e) {
  Printer p;
  BoundVars bv;
  bv.visit_expr(e);
  p.reserve_free_vars(bv.used_in_order, bv.bound);
  p.expr(e);
  return p.os.str();
}

std::string to_string(const Stmt& s, const PrintOptions& options) {
  Printer p;
  p.show_stages = options.show_stages;
  prepare(p, s);
  p.stmt(s);
  return p.os.str();
}

std::string to_string(const LoweredFunc& f, const PrintOptions& options) {
  Printer p;
  p.show_stages = options.show_stages;
  std::vector<Expr> shapes;
  for (const Buffer& b : f.args)
    for (const Expr& d : b->shape) shapes.push_back(d);
  prepare(p, f.body, shapes);
  for (const Buffer& b : f.args) p.buffer_name(b.get());
  p.func(f);
  return p.os.str();
}

std::string to_string(const Buffer& b) {
  Printer p;
  p.buffer_decl(b, /*is_arg=*/true);
  return p.os.str();
}

namespace {

void print_sched_arg(std::ostream& os, const SchedArg& a) {
  if (!a.keyword.empty()) os << a.keyword << " = ";
  if (a.is_name()) os << a.name;
  else os << to_string(a.value);
}

void print_sched_items(std::ostream& os, const std::vector<SchedItem>& items, int depth) {
  std::string pad(2 * depth, ' ');
  for (const SchedItem& item : items) {
    if (auto* p = std::get_if<SchedPrimitive>(&item)) {
      os << pad;
      for (size_t i = 0; i < p->results.size(); ++i) os << (i ? ", " : "") << p->results[i];
      if (!p->results.empty()) os << " = ";
      os << p->primitive << "(";
      for (size_t i = 0; i < p->args.size(); ++i) {
        if (i) os << ", ";
        print_sched_arg(os, p->args[i]);
      }
      os << ")\n";
    } else if (auto* k = std::get_if<SchedKnob>(&item)) {
      os << pad << "knob " << k->name << " in [";
      for (size_t i = 0; i < k->values.size(); ++i) {
        if (i) os << ", ";
        if (k->is_bool) os << (k->values[i] ? "true" : "false");
        else os << k->values[i];
      }
      os << "]\n";
    } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&item)) {
      os << pad << "if " << to_string((*f)->cond) << " {\n";
      print_sched_items(os, (*f)->then_items, depth + 1);
      if (!(*f)->else_items.empty()) {
        os << pad << "} else {\n";
        print_sched_items(os, (*f)->else_items, depth + 1);
      }
      os << pad << "}\n";
    }
  }
}

}  // namespace

std::string to_string(const OpDef& op) {
  Printer p;
  std::ostream& os = p.os;
  os << "op " << op.name << "(";
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (i) os << ", ";
    os << p.buffer_name(op.inputs[i].get()) << ": " << op.inputs[i]->dtype.str();
    p.indices(op.inputs[i]->shape);
  }
  os << ") -> ";
  for (size_t i = 0; i < op.outputs.size(); ++i) os << (i ? ", " : "") << p.buffer_name(op.outputs[i].get());
  os << " {\n";
  for (const Stage& s : op.stages) {
    os << "  " << p.buffer_name(s.buffer.get()) << "[";
    for (const IterVar& a : s.axes) p.bind(a.var.get());
    for (size_t i = 0; i < s.axes.size(); ++i) {
      if (i) os << ", ";
      os << p.var_name(s.axes[i].var.get()) << ": ";
      if (!is_const_int(s.axes[i].min, int64_t(0))) {
        p.expr(s.axes[i].min);
        os << "..+";
      }
      p.expr(s.axes[i].extent);
    }
    os << "] = ";
    p.expr(s.body);
    os << "  # " << s.buffer->dtype.str();
    if (s.buffer->role == BufferRole::Output) os << ", output";
    if (!s.origin_call.empty()) os << ", from call " << s.origin_call;
    os << "\n";
    for (size_t i = 0; i < s.axes.size(); ++i) p.unbind();
  }
  for (const ScheduleBlock& b : op.schedules) {
    os << "  schedule " << b.target << " {\n";
    print_sched_items(os, b.items, 2);
    os << "  }\n";
  }
  for (const auto& [name, intrinsic] : op.intrinsics) os << "  # intrinsic " << name << "\n";
  os << "}\n";
  return p.os.str();
}

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << to_string(e); }
std::ostream& operator<<(std::ostream& os, const Stmt& s) { return os << to_string(s); }
std::ostream& operator<<(std::ostream& os, const LoweredFunc& f) { return os << to_string(f); }
std::ostream& operator<<(std::ostream& os, const OpDef& op) { return os << to_string(op); }

}  // namespace texc
