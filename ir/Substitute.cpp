#include "ir/Substitute.h"

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"

namespace texc {

namespace {
class VarSubstituter : public IRMutator {
 public:
  explicit VarSubstituter(const VarMap& m) : map_(m) {}

 protected:
  Expr mutate(const Variable* op, const Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

 private:
  const VarMap& map_;
};

class BufferSubstituter : public IRMutator {
 public:
  explicit BufferSubstituter(const BufferMap& m) : map_(m) {}

 protected:
  Buffer replace(const Buffer& b) {
    auto it = map_.find(b.get());
    return it == map_.end() ? b : it->second;
  }
  Expr mutate(const Load* op, const Expr& self) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    Buffer b = replace(op->buffer);
    if (!changed && b == op->buffer) return self;
    return Load::make(b, std::move(idx));
  }
  Stmt mutate(const Store* op, const Stmt& self) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    Expr v = mutate_expr(op->value);
    Buffer b = replace(op->buffer);
    if (!changed && v == op->value && b == op->buffer) return self;
    return op->with(b, std::move(idx), v);
  }
  Stmt mutate(const Allocate* op, const Stmt& self) override {
    Stmt body = mutate_stmt(op->body);
    Buffer b = replace(op->buffer);
    if (body == op->body && b == op->buffer) return self;
    return Allocate::make(b, body);
  }

 private:
  const BufferMap& map_;
};
}  // namespace

Expr substitute(const Expr& e, const VarMap& vars) {
  if (vars.empty()) return e;
  return VarSubstituter(vars).mutate_expr(e);
}
Stmt substitute(const Stmt& s, const VarMap& vars) {
  if (vars.empty()) return s;
  return VarSubstituter(vars).mutate_stmt(s);
}
Stmt substitute_buffers(const Stmt& s, const BufferMap& buffers) { return BufferSubstituter(buffers).mutate_stmt(s); }
Expr substitute_buffers(const Expr& e, const BufferMap& buffers) { return BufferSubstituter(buffers).mutate_expr(e); }

bool uses_var(const Expr& e, const Variable* v) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) { found = found || x.get() == v; });
  return found;
}
bool uses_var(const Stmt& s, const Variable* v) {
  bool found = false;
  for_each_expr(s, [&](const Expr& x) { found = found || x.get() == v; });
  return found;
}

}  // namespace texc
