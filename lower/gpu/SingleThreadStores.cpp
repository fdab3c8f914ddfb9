#include "lower/gpu/SingleThreadStores.h"

#include <map>
#include <set>
#include <string>

#include "ir/IRMutator.h"
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

class Wrapper : public IRMutator {
 public:
  explicit Wrapper(std::map<std::string, Expr> extents) : extents_(std::move(extents)) {}

  // A statement without thread loops that stores outside local memory (and holds no loop) is
  // wrapped; one that holds thread loops is walked.
  Stmt mutate_stmt(const Stmt& s) override {
    if (!s || is_thread_loop(s) || holds_thread_loop(s)) return IRMutator::mutate_stmt(s);
    return stores_outside_local(s) && !holds_loop(s) ? on_thread_zero(s) : s;
  }

 protected:
  using IRMutator::mutate;
  Stmt mutate(const For* f, const Stmt& self) override {
    if (!is_thread_loop(self)) return IRMutator::mutate(f, self);
    const bool fresh = enclosing_.insert(f->thread_tag).second;
    Stmt out = IRMutator::mutate(f, self);
    if (fresh) enclosing_.erase(f->thread_tag);
    return out;
  }

 private:
  // s run by index 0 of every thread tag of the kernel that is not already a loop around it.
  Stmt on_thread_zero(const Stmt& s) {
    Expr all_zero;
    std::vector<std::pair<Var, std::string>> loops;
    for (const auto& [tag, extent] : extents_) {
      if (enclosing_.count(tag)) continue;
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
  std::set<std::string> enclosing_;  // the thread tags of the loops around the statement visited
};

}  // namespace

Stmt single_thread_stores(const Stmt& body) {
  std::map<std::string, Expr> extents;
  for_each_stmt(body, [&](const Stmt& s) {
    if (is_thread_loop(s)) extents.emplace(s->as<For>()->thread_tag, s->as<For>()->extent);
  });
  if (extents.empty()) return body;
  return Wrapper(std::move(extents)).mutate_stmt(body);
}

}  // namespace texc
