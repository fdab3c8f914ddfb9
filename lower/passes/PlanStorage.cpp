#include "lower/passes/PlanStorage.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "lower/LoopBounds.h"

namespace texc {

namespace {

struct Access {
  std::vector<Expr> indices;
  std::vector<const For*> loops;  // enclosing loops, outermost first
  bool whole = false;             // an extern call's address_of argument: it may touch any element
};

class AccessCollector : public IRVisitor {
 public:
  explicit AccessCollector(const std::vector<Buffer>& args) {
    for (const Buffer& b : args) args_.insert(b.get());
  }
  std::unordered_map<const BufferNode*, std::vector<Access>> accesses;
  std::vector<Buffer> order;  // buffers in first-seen order

 protected:
  void record(const Buffer& b, const std::vector<Expr>& idx, bool whole = false) {
    if (args_.count(b.get())) return;
    auto& list = accesses[b.get()];
    if (list.empty()) order.push_back(b);
    list.push_back({idx, loops_, whole});
  }
  void visit(const Call* op) override {
    const Load* l = op->args.size() == 1 ? op->args[0]->as<Load>() : nullptr;
    if (op->call_kind != CallKind::Intrinsic || op->name != "address_of" || !l) return IRVisitor::visit(op);
    record(l->buffer, l->indices, /*whole=*/true);
    for (const Expr& i : l->indices) visit_expr(i);
  }
  void visit(const For* op) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    loops_.push_back(op);
    visit_stmt(op->body);
    loops_.pop_back();
  }
  void visit(const Load* op) override {
    record(op->buffer, op->indices);
    IRVisitor::visit(op);
  }
  void visit(const Store* op) override {
    record(op->buffer, op->indices);
    IRVisitor::visit(op);
  }

 private:
  std::unordered_set<const BufferNode*> args_;
  std::vector<const For*> loops_;
};

struct Plan {
  Buffer replacement;
  std::vector<Expr> mins;   // per dimension, subtracted from every index
  const For* site = nullptr;  // allocate inside this loop (null = function root)
};

Plan plan_buffer(const Buffer& buf, const std::vector<Access>& accesses) {
  // The innermost loop enclosing every access.
  size_t common = accesses.front().loops.size();
  for (const Access& a : accesses) {
    size_t n = 0;
    while (n < common && n < a.loops.size() && a.loops[n] == accesses.front().loops[n]) ++n;
    common = n;
  }
  Plan plan;
  plan.site = common == 0 ? nullptr : accesses.front().loops[common - 1];

  // The loops that stay symbolic (for constant upper bounds of extents).
  std::vector<const For*> outer(accesses.front().loops.begin(), accesses.front().loops.begin() + common);

  size_t nd = buf->ndim();
  std::vector<Expr> lo(nd), hi(nd);
  bool bounded = true;
  for (const Access& a : accesses) {
    if (a.whole) bounded = false;
    std::unordered_map<const Variable*, SymInterval> relaxed;
    for (size_t i = common; i < a.loops.size(); ++i) {
      const For* l = a.loops[i];
      relaxed[l->var.get()] = SymInterval{l->min, simplify(l->min + l->extent - 1)};
    }
    for (size_t d = 0; d < nd; ++d) {
      SymInterval r = sym_bounds_of(a.indices[d], relaxed);
      if (!r.min || !r.max) {
        bounded = false;
        continue;
      }
      lo[d] = lo[d] ? union_min(lo[d], r.min) : r.min;
      hi[d] = hi[d] ? union_max(hi[d], r.max) : r.max;
    }
  }

  std::vector<Expr> shape(nd);
  plan.mins.resize(nd);
  for (size_t d = 0; d < nd; ++d) {
    int64_t full = 0;
    bool full_known = is_const_int(buf->shape[d], &full);
    Expr extent = bounded ? simplify(hi[d] - lo[d] + 1) : Expr();
    int64_t e = 0;
    if (extent && !is_const_int(extent, &e)) {
      std::optional<int64_t> bound = constant_upper_bound(extent, outer);
      if (bound) e = *bound;
      else extent = nullptr;
    }
    if (!extent || (full_known && e >= full)) {
      plan.mins[d] = make_int(0);
      shape[d] = buf->shape[d];
    } else {
      plan.mins[d] = lo[d];
      shape[d] = make_int(std::max<int64_t>(e, 1));
    }
  }
  plan.replacement = BufferNode::make(buf->name, buf->dtype, shape, buf->scope, buf->role);
  return plan;
}

class StorageRewriter : public IRMutator {
 public:
  StorageRewriter(const std::vector<Buffer>& order, std::unordered_map<const BufferNode*, Plan> plans)
      : plans_(std::move(plans)) {
    for (const Buffer& b : order) {
      const Plan& p = plans_.at(b.get());
      by_site_[p.site].push_back(p.replacement);
    }
  }
  Stmt run(const Stmt& s) {
    Stmt body = mutate_stmt(s);
    return wrap(nullptr, body);
  }

 protected:
  Stmt wrap(const For* site, Stmt body) {
    auto it = by_site_.find(site);
    if (it == by_site_.end()) return body;
    for (const Buffer& b : it->second) body = Allocate::make(b, body);
    return body;
  }
  std::vector<Expr> shift(const Plan& p, const std::vector<Expr>& idx) {
    std::vector<Expr> out;
    for (size_t d = 0; d < idx.size(); ++d)
      out.push_back(is_const_int(p.mins[d], int64_t(0)) ? idx[d] : simplify(idx[d] - p.mins[d]));
    return out;
  }
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt body = wrap(op, mutate_stmt(op->body));
    if (body == op->body) return self;
    return For::make(op->var, op->min, op->extent, op->for_kind, body, op->thread_tag);
  }
  Expr mutate(const Load* op, const Expr& self) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    auto it = plans_.find(op->buffer.get());
    if (it == plans_.end()) return changed ? Load::make(op->buffer, idx) : self;
    return Load::make(it->second.replacement, shift(it->second, idx));
  }
  Stmt mutate(const Store* op, const Stmt& self) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    Expr v = mutate_expr(op->value);
    auto it = plans_.find(op->buffer.get());
    if (it == plans_.end()) return (changed || v != op->value) ? Store::make(op->buffer, idx, v) : self;
    return Store::make(it->second.replacement, shift(it->second, idx), v);
  }

 private:
  std::unordered_map<const BufferNode*, Plan> plans_;
  std::unordered_map<const For*, std::vector<Buffer>> by_site_;
};

}  // namespace

Stmt plan_storage(const Stmt& body, const std::vector<Buffer>& args) {
  AccessCollector collector(args);
  collector.visit_stmt(body);
  std::unordered_map<const BufferNode*, Plan> plans;
  for (const Buffer& b : collector.order) plans[b.get()] = plan_buffer(b, collector.accesses[b.get()]);
  return StorageRewriter(collector.order, std::move(plans)).run(body);
}

}  // namespace texc
