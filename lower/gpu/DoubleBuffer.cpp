#include "lower/gpu/DoubleBuffer.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/Remarks.h"
#include "ir/Bounds.h"

namespace texc {

namespace {

bool is_pragma(const Stmt& s, const char* name) {
  const AttrStmt* a = s ? s->as<AttrStmt>() : nullptr;
  return a && a->key == AttrKey::Pragma && a->name == name;
}

Stmt async_call(Intrinsic which, std::vector<Expr> args) {
  return Evaluate::make(make_intrinsic_call(which, Int(32), std::move(args)));
}

std::set<const BufferNode*> stored(const Stmt& s) {
  std::set<const BufferNode*> out;
  for_each_stmt(s, [&](const Stmt& n) {
    if (const Store* st = n->as<Store>()) out.insert(st->buffer.get());
  });
  return out;
}

std::set<const BufferNode*> loaded(const Stmt& s) {
  std::set<const BufferNode*> out;
  for_each_expr(s, [&](const Expr& e) {
    if (const Load* l = e->as<Load>()) out.insert(l->buffer.get());
  });
  return out;
}

// Accesses of the doubled buffers moved to their half: b[i] -> b2[i + half * size].
class ToHalf : public IRMutator {
 public:
  struct Doubled {
    Buffer two;
    int64_t size;
  };
  ToHalf(const std::map<const BufferNode*, Doubled>& doubled, Expr half) : doubled_(doubled), half_(std::move(half)) {}

 protected:
  using IRMutator::mutate;
  Expr mutate(const Load* op, const Expr& self) override {
    auto it = doubled_.find(op->buffer.get());
    if (it == doubled_.end()) return IRMutator::mutate(op, self);
    return Load::make(it->second.two, {shifted(mutate_expr(op->indices[0]), it->second.size)});
  }
  Stmt mutate(const Store* op, const Stmt& self) override {
    auto it = doubled_.find(op->buffer.get());
    if (it == doubled_.end()) return IRMutator::mutate(op, self);
    return op->with(it->second.two, {shifted(mutate_expr(op->indices[0]), it->second.size)}, mutate_expr(op->value));
  }

 private:
  Expr shifted(const Expr& index, int64_t size) { return simplify(index + half_ * make_int(size)); }
  const std::map<const BufferNode*, Doubled>& doubled_;
  Expr half_;
};

// The marked fills without their mark (a fill the pass does not pipeline stays as it was).
Stmt unmarked(const Stmt& s) {
  class Unmark : public IRMutator {
   protected:
    using IRMutator::mutate;
    Stmt mutate(const AttrStmt* op, const Stmt& self) override {
      if (op->key == AttrKey::Pragma && op->name == "double_buffer") {
        for (const BufferNode* b : stored(op->body))
          report_remark({PendingRemark::Subject::Buffer, b->name,
                         "double_buffer(" + b->name + ") not applied: the fill is not the copy of global data into a "
                         "shared tile allocated in its k loop, ahead of the tile's reads (lower/gpu/DoubleBuffer.h); "
                         "the tile is filled in place, one k step at a time"});
        return mutate_stmt(op->body);
      }
      return IRMutator::mutate(op, self);
    }
  };
  return Unmark().mutate_stmt(s);
}

class Pipeliner : public IRMutator {
 protected:
  using IRMutator::mutate;
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt visited = IRMutator::mutate(op, self);
    const For* loop = visited->as<For>();
    if (!loop || loop->for_kind != ForKind::Serial) return visited;
    std::optional<Stmt> piped = pipeline(loop);
    return piped ? *piped : visited;
  }

 private:
  std::optional<Stmt> pipeline(const For* loop) {
    std::vector<Buffer> chain;
    Stmt inner = loop->body;
    while (const Allocate* a = inner->as<Allocate>()) {
      chain.push_back(a->buffer);
      inner = a->body;
    }
    std::vector<Stmt> stmts;
    if (const Seq* q = inner->as<Seq>()) stmts = q->stmts;
    else stmts = {inner};
    std::vector<Stmt> fills, rest;
    for (const Stmt& s : stmts) (is_pragma(s, "double_buffer") ? fills : rest).push_back(s);
    if (fills.empty()) return std::nullopt;
    std::set<const BufferNode*> in_chain;
    for (const Buffer& b : chain) in_chain.insert(b.get());
    // The doubled buffers: what the fills store; each a constant-size shared buffer of the chain.
    std::map<const BufferNode*, ToHalf::Doubled> doubled;
    std::set<const BufferNode*> written;
    for (const Stmt& f : fills)
      for (const BufferNode* b : stored(f)) written.insert(b);
    for (const Buffer& b : chain) {
      if (!written.count(b.get())) continue;
      int64_t size = 0;
      if (b->scope != MemScope::Shared || b->shape.size() != 1 || !is_const_int(b->shape[0], &size)) return std::nullopt;
      doubled[b.get()] = {BufferNode::make(b->name, b->dtype, {make_int(2 * size)}, b->scope, b->role), size};
    }
    if (doubled.size() != written.size()) return std::nullopt;  // a fill stores outside the chain
    for (const Stmt& f : fills)
      for (const BufferNode* b : loaded(f))
        if (in_chain.count(b)) return std::nullopt;  // a fill reads the chain: not a copy of global data
    // Every fill before the first statement that reads a doubled buffer.
    bool read_yet = false;
    for (const Stmt& s : stmts) {
      if (is_pragma(s, "double_buffer")) {
        if (read_yet) return std::nullopt;
        continue;
      }
      for (const BufferNode* b : loaded(s)) read_yet = read_yet || doubled.count(b);
    }
    const Expr m = loop->min, end = simplify(loop->min + loop->extent);
    const Expr l = loop->var;
    auto fills_at = [&](const Expr& at, const Expr& half) {
      std::vector<Stmt> out;
      for (const Stmt& f : fills) {
        const AttrStmt* a = f->as<AttrStmt>();
        Stmt body = ToHalf(doubled, half).mutate_stmt(substitute(a->body, VarMap{{loop->var.get(), at}}));
        out.push_back(AttrStmt::make(AttrKey::Pragma, "async_copy", a->value, simplify(body)));
      }
      return Seq::make(out);
    };
    Stmt prologue = fills_at(m, make_int(0));
    if (!is_const_int(loop->extent) || !can_prove(loop->extent > 0)) prologue = IfThenElse::make(loop->extent > 0, prologue);
    Stmt prefetch = IfThenElse::make(simplify(l + 1 < end), fills_at(l + 1, simplify((l - m + 1) % 2)));
    std::vector<Stmt> body = {prefetch, async_call(Intrinsic::AsyncCopyCommit, {}),
                              async_call(Intrinsic::AsyncCopyWait, {make_int(1, Int(32))})};
    for (const Stmt& s : rest) body.push_back(ToHalf(doubled, simplify((l - m) % 2)).mutate_stmt(s));
    Stmt new_body = Seq::make(body);
    for (size_t i = chain.size(); i > 0; --i)
      if (!doubled.count(chain[i - 1].get())) new_body = Allocate::make(chain[i - 1], new_body);
    Stmt out = Seq::make({prologue, async_call(Intrinsic::AsyncCopyCommit, {}), loop->with_body(new_body)});
    for (size_t i = chain.size(); i > 0; --i)
      if (auto it = doubled.find(chain[i - 1].get()); it != doubled.end()) out = Allocate::make(it->second.two, out);
    return out;
  }
};

}  // namespace

Stmt pipeline_double_buffers(const Stmt& body) { return unmarked(Pipeliner().mutate_stmt(body)); }

}  // namespace texc
