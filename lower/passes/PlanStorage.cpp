#include "lower/passes/PlanStorage.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "lower/analysis/Region.h"

namespace texc {

namespace {

struct Plan {
  Buffer replacement;
  std::vector<Expr> mins;     // per dimension, subtracted from every index
  const For* site = nullptr;  // allocate inside this loop (null = function root)
};

// The buffer is allocated in the innermost loop enclosing all its accesses, over the region they
// touch during one iteration of that loop (lower/analysis/Region.h).
Plan plan_buffer(const Buffer& buf, const std::vector<BufferAccess>& accesses) {
  size_t common = accesses.front().loops.size();
  for (const BufferAccess& a : accesses) {
    size_t n = 0;
    while (n < common && n < a.loops.size() && a.loops[n] == accesses.front().loops[n]) ++n;
    common = n;
  }
  std::vector<const For*> outer(accesses.front().loops.begin(), accesses.front().loops.begin() + common);
  Plan plan;
  plan.site = outer.empty() ? nullptr : outer.back();
  Region region = infer_region(accesses, outer, buf);
  std::vector<Expr> shape;
  for (size_t d = 0; d < buf->ndim(); ++d) {
    int64_t full = 0;
    bool whole = is_const_int(buf->shape[d], &full) && region.extent[d] >= full;
    plan.mins.push_back(whole ? make_int(0) : region.min[d]);
    shape.push_back(whole ? buf->shape[d] : make_int(region.extent[d]));
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
    return op->with_body(body);
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
    if (it == plans_.end()) return (changed || v != op->value) ? op->with(op->buffer, idx, v) : self;
    return op->with(it->second.replacement, shift(it->second, idx), v);
  }

 private:
  std::unordered_map<const BufferNode*, Plan> plans_;
  std::unordered_map<const For*, std::vector<Buffer>> by_site_;
};

}  // namespace

Stmt plan_storage(const Stmt& body, const std::vector<Buffer>& args) {
  std::unordered_set<const BufferNode*> arguments;
  for (const Buffer& b : args) arguments.insert(b.get());
  AccessMap accesses = collect_accesses(body, arguments);
  std::unordered_map<const BufferNode*, Plan> plans;
  for (const Buffer& b : accesses.order) plans[b.get()] = plan_buffer(b, accesses.by_buffer.at(b.get()));
  return StorageRewriter(accesses.order, std::move(plans)).run(body);
}

}  // namespace texc
