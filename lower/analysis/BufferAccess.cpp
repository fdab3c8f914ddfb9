#include "lower/analysis/BufferAccess.h"

#include <functional>
#include <unordered_map>

#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Substitute.h"

namespace texc {

namespace {

// The buffer element of an extern call's `address_of(B[...])` argument, or null.
const Load* extern_address_target(const Call* c) {
  return is_intrinsic_call(c, Intrinsic::AddressOf) ? c->args[0]->as<Load>() : nullptr;
}

// The first dimension of the block of innermost dimensions that holds the `count` elements from
// `base` (row-major) of an extern operand: the call touches those dimensions whole and the outer
// ones only at base. 0 (the whole buffer) when the count is not positive, a shape or a base index of
// the block is not constant, or the run does not fit in the block from base.
size_t whole_from_dim(const Load* target, int64_t count) {
  const Buffer& b = target->buffer;
  if (count < 1) return 0;
  int64_t block = 1, offset = 0;
  for (size_t d = b->ndim(); d-- > 0;) {
    int64_t extent = 0, index = 0;
    if (!is_const_int(b->shape[d], &extent) || !is_const_int(target->indices[d], &index)) return 0;
    offset += index * block;
    block *= extent;
    if (block >= count) return offset + count <= block ? d : 0;
  }
  return 0;
}

// Walks statements keeping the enclosing loops; reports each access to `report`.
class AccessWalker : public IRVisitor {
 public:
  using Report = std::function<void(const Buffer&, BufferAccess)>;
  AccessWalker(bool loads, bool stores, Report report) : loads_(loads), stores_(stores), report_(std::move(report)) {}

  void visit_stmt(const Stmt& s) override {
    if (!s) return;
    if (const Block* b = s->as<Block>()) return visit_block(s, b);
    if (const Store* st = s->as<Store>()) {
      if (stores_) add(st->buffer, s, "", st->indices, true, false);
      for (const Expr& i : st->indices) scan_loads(s, "", i, {});
      scan_loads(s, "", st->value, {});
      return;
    }
    if (const Evaluate* e = s->as<Evaluate>()) return scan_loads(s, "", e->value, {});
    current_ = s;
    IRVisitor::visit_stmt(s);
  }
  // Expressions directly under other statements (loop bounds, if conditions, let values).
  void visit_expr(const Expr& e) override { scan_loads(current_, "", e, {}); }

 protected:
  void visit(const For* op) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    loops_.push_back(op);
    visit_stmt(op->body);
    loops_.pop_back();
  }

 private:
  void add(const Buffer& b, const Stmt& s, const std::string& stage, std::vector<Expr> indices, bool is_store,
           bool whole, size_t whole_from = 0) {
    report_(b, BufferAccess{s, stage, std::move(indices), loops_, is_store, whole, whole ? whole_from : b->ndim()});
  }
  static std::vector<Expr> bound(const std::vector<Expr>& idx, const VarMap& values) {
    if (values.empty()) return idx;
    std::vector<Expr> out;
    for (const Expr& e : idx) out.push_back(substitute(e, values));
    return out;
  }
  // Loads in e, outermost first; an extern call's address_of argument is an access beyond its
  // element (a load, and a store when stores are asked for; whole_from_dim above), not also a
  // plain load. A `lower llvm` call (tensorize's llvm_call_block) follows each address with the
  // operand's element count.
  class LoadScanner : public IRVisitor {
   public:
    using Found = std::function<void(const Load*, bool beyond, size_t whole_from)>;
    explicit LoadScanner(Found f) : f_(std::move(f)) {}

   protected:
    void visit(const Call* op) override {
      if (const Load* target = extern_address_target(op)) {
        auto count = counts_.find(op);
        f_(target, true, count == counts_.end() ? 0 : whole_from_dim(target, count->second));
        for (const Expr& i : target->indices) visit_expr(i);
        return;
      }
      if (op->call_kind == CallKind::Extern && op->name.rfind("llvm.", 0) == 0) {
        int64_t count = 0;
        for (size_t i = 0; i + 1 < op->args.size(); ++i)
          if (const Call* arg = op->args[i]->as<Call>(); arg && is_const_int(op->args[i + 1], &count))
            counts_[arg] = count;
      }
      IRVisitor::visit(op);
    }
    void visit(const Load* op) override {
      f_(op, false, 0);
      IRVisitor::visit(op);
    }

   private:
    Found f_;
    std::unordered_map<const Call*, int64_t> counts_;  // an address_of's element count, where given
  };
  void scan_loads(const Stmt& s, const std::string& stage, const Expr& e, const VarMap& values) {
    if (!e) return;
    LoadScanner scanner([&](const Load* l, bool beyond, size_t whole_from) {
      if (beyond && (loads_ || stores_)) add(l->buffer, s, stage, bound(l->indices, values), stores_, true, whole_from);
      if (!beyond && loads_) add(l->buffer, s, stage, bound(l->indices, values), false, false);
    });
    scanner.visit_expr(e);
  }
  void visit_block(const Stmt& s, const Block* b) {
    VarMap values;
    for (size_t i = 0; i < b->iter_vars.size(); ++i) values[b->iter_vars[i].var.get()] = b->bindings[i];
    scan_loads(s, b->stage, b->predicate, values);
    for (const Stmt& part : {b->init, b->body}) {
      if (!part) continue;
      for_each_expr(part, [&](const Expr& x) {
        if (const Load* l = x->as<Load>(); l && loads_) add(l->buffer, s, b->stage, bound(l->indices, values), false, false);
      });
      for_each_stmt(part, [&](const Stmt& x) {
        if (const Store* st = x->as<Store>(); st && stores_)
          add(st->buffer, s, b->stage, bound(st->indices, values), true, false);
      });
    }
  }

  bool loads_, stores_;
  Report report_;
  std::vector<const For*> loops_;
  Stmt current_;
};

}  // namespace

std::vector<BufferAccess> find_accesses(const Stmt& root, const BufferNode* buffer, bool loads, bool stores) {
  std::vector<BufferAccess> out;
  AccessWalker walker(loads, stores, [&](const Buffer& b, BufferAccess a) {
    if (b.get() == buffer) out.push_back(std::move(a));
  });
  walker.visit_stmt(root);
  return out;
}

AccessMap collect_accesses(const Stmt& root, const std::unordered_set<const BufferNode*>& skip) {
  AccessMap map;
  AccessWalker walker(true, true, [&](const Buffer& b, BufferAccess a) {
    if (skip.count(b.get())) return;
    auto& list = map.by_buffer[b.get()];
    if (list.empty()) map.order.push_back(b);
    list.push_back(std::move(a));
  });
  walker.visit_stmt(root);
  return map;
}

}  // namespace texc
