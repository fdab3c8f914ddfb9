#include "lower/gpu/SingleThreadStores.h"

#include <map>
#include <set>
#include <string>

#include "ir/IROperators.h"
#include "ir/IRVisitor.h"

namespace texc {

namespace {

bool is_thread_loop(const Stmt& s) {
  const For* f = s ? s->as<For>() : nullptr;
  return f && f->for_kind == ForKind::ThreadBound && f->thread_tag.rfind("threadIdx.", 0) == 0;
}

bool holds_thread_loop(const Stmt& s) {
  bool found = false;
  if (s)
    for_each_stmt(s, [&](const Stmt& n) { found = found || is_thread_loop(n); });
  return found;
}

// A loop outside the thread loops is left as it is: the launch check reports one that is bound to
// nothing ("bind it or fuse it into a bound loop").
bool holds_loop(const Stmt& s) {
  bool found = false;
  if (s)
    for_each_stmt(s, [&](const Stmt& n) { found = found || n->as<For>() != nullptr; });
  return found;
}

bool stores_outside_local(const Stmt& s) {
  bool found = false;
  if (s)
    for_each_stmt(s, [&](const Stmt& n) {
      if (const Store* st = n->as<Store>(); st && st->buffer->scope != MemScope::Local) found = true;
    });
  return found;
}

class Wrapper {
 public:
  explicit Wrapper(std::map<std::string, Expr> extents) : extents_(std::move(extents)) {}

  // `enclosing`: the thread tags of the loops around s.
  Stmt visit(const Stmt& s, const std::set<std::string>& enclosing) {
    if (!s) return s;
    if (is_thread_loop(s)) {
      const For* f = s->as<For>();
      std::set<std::string> inner = enclosing;
      inner.insert(f->thread_tag);
      return f->with_body(visit(f->body, inner));
    }
    if (!holds_thread_loop(s)) return stores_outside_local(s) && !holds_loop(s) ? on_thread_zero(s, enclosing) : s;
    if (const For* f = s->as<For>()) return f->with_body(visit(f->body, enclosing));
    if (const Seq* q = s->as<Seq>()) {
      std::vector<Stmt> out;
      for (const Stmt& x : q->stmts) out.push_back(visit(x, enclosing));
      return Seq::make(out);
    }
    if (const IfThenElse* i = s->as<IfThenElse>())
      return IfThenElse::make(i->cond, visit(i->then_case, enclosing), visit(i->else_case, enclosing));
    if (const Allocate* a = s->as<Allocate>()) return Allocate::make(a->buffer, visit(a->body, enclosing));
    if (const LetStmt* l = s->as<LetStmt>()) return LetStmt::make(l->var, l->value, visit(l->body, enclosing));
    if (const AttrStmt* a = s->as<AttrStmt>()) return a->with_body(visit(a->body, enclosing));
    return s;
  }

 private:
  // s run by index 0 of every thread tag of the kernel that is not already a loop around it.
  Stmt on_thread_zero(const Stmt& s, const std::set<std::string>& enclosing) {
    Expr all_zero;
    std::vector<std::pair<Var, std::string>> loops;
    for (const auto& [tag, extent] : extents_) {
      if (enclosing.count(tag)) continue;
      Var t = Variable::make(tag + ".single", Index());
      Expr zero = eq(Expr(t), make_int(0));
      all_zero = all_zero ? logical_and(all_zero, zero) : zero;
      loops.push_back({t, tag});
    }
    if (loops.empty()) return s;
    Stmt body = IfThenElse::make(all_zero, s);
    for (auto it = loops.rbegin(); it != loops.rend(); ++it)
      body = For::make(it->first, make_int(0), extents_.at(it->second), ForKind::ThreadBound, body, it->second);
    return body;
  }

  std::map<std::string, Expr> extents_;
};

}  // namespace

Stmt single_thread_stores(const Stmt& body) {
  std::map<std::string, Expr> extents;
  for_each_stmt(body, [&](const Stmt& s) {
    if (is_thread_loop(s)) extents.emplace(s->as<For>()->thread_tag, s->as<For>()->extent);
  });
  if (extents.empty()) return body;
  return Wrapper(std::move(extents)).visit(body, {});
}

}  // namespace texc
