#include "lower/passes/PlanStorage.h"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/analysis/Region.h"

namespace texc {

namespace {

struct Plan {
  Buffer replacement;
  std::vector<Expr> mins;     // per dimension, subtracted from every index
  const For* site = nullptr;  // allocate inside this loop (null = function root)
  // A per-thread `local` buffer (below): the variable standing for each thread tag in `mins`,
  // replaced at each access by the variable of its own loop bound to that tag.
  std::map<std::string, Var> thread_vars;
};

bool is_thread_loop(const For* l) {
  return l->for_kind == ForKind::ThreadBound && thread_level(l->thread_tag) == ThreadLevel::Thread;
}

// A `local` buffer is private to each thread. When it is allocated outside the threadIdx loops
// that hold its accesses (a cache_write attached at a block loop whose loops are bound to threads),
// its region is one thread's: every access lies under one loop of each of the same thread tags,
// and those loops stay symbolic, each tag through one variable (all loops bound to a tag are the
// same thread index). Returns the accesses rewritten that way, with `outer` extended by one loop
// per tag, or nothing when the accesses do not all lie under the same thread tags.
std::optional<std::vector<BufferAccess>> per_thread_accesses(const std::vector<BufferAccess>& accesses,
                                                             std::vector<const For*>* outer,
                                                             std::map<std::string, Var>* thread_vars,
                                                             std::vector<Stmt>* keep_alive) {
  std::optional<std::set<std::string>> tags;
  std::map<std::string, Expr> extents;
  for (const BufferAccess& a : accesses) {
    std::set<std::string> mine;
    for (size_t i = outer->size(); i < a.loops.size(); ++i) {
      if (!is_thread_loop(a.loops[i])) continue;
      if (!mine.insert(a.loops[i]->thread_tag).second) return std::nullopt;
      extents.emplace(a.loops[i]->thread_tag, a.loops[i]->extent);
    }
    if (mine.empty() || (tags && *tags != mine)) return std::nullopt;
    tags = mine;
  }
  for (const std::string& tag : *tags) {
    Var v = Variable::make(tag, Index());
    (*thread_vars)[tag] = v;
    keep_alive->push_back(For::make(v, make_int(0), extents.at(tag), ForKind::ThreadBound, Evaluate::make(make_int(0)), tag));
    outer->push_back(keep_alive->back()->as<For>());
  }
  size_t common = outer->size() - tags->size();
  std::vector<BufferAccess> out;
  for (const BufferAccess& a : accesses) {
    BufferAccess b = a;
    VarMap to_tag;
    b.loops.assign(outer->begin(), outer->end());
    for (size_t i = common; i < a.loops.size(); ++i) {
      if (is_thread_loop(a.loops[i])) to_tag[a.loops[i]->var.get()] = Expr(thread_vars->at(a.loops[i]->thread_tag));
      else b.loops.push_back(a.loops[i]);
    }
    for (Expr& e : b.indices) e = substitute(e, to_tag);
    out.push_back(std::move(b));
  }
  return out;
}

// The buffer is allocated in the innermost loop enclosing all its accesses, over the region they
// touch during one iteration of that loop (lower/analysis/Region.h).
Plan plan_buffer(const Buffer& buf, const std::vector<BufferAccess>& accesses, const StorageAligns& aligns) {
  size_t common = accesses.front().loops.size();
  for (const BufferAccess& a : accesses) {
    size_t n = 0;
    while (n < common && n < a.loops.size() && a.loops[n] == accesses.front().loops[n]) ++n;
    common = n;
  }
  std::vector<const For*> outer(accesses.front().loops.begin(), accesses.front().loops.begin() + common);
  Plan plan;
  plan.site = outer.empty() ? nullptr : outer.back();
  std::vector<Stmt> fake_loops;
  std::optional<std::vector<BufferAccess>> per_thread;
  if (buf->scope == MemScope::Local) per_thread = per_thread_accesses(accesses, &outer, &plan.thread_vars, &fake_loops);
  Region region = infer_region(per_thread ? *per_thread : accesses, outer, buf);
  std::vector<Expr> shape;
  for (size_t d = 0; d < buf->ndim(); ++d) {
    int64_t full = 0;
    bool whole = is_const_int(buf->shape[d], &full) && region.extent[d] >= full;
    plan.mins.push_back(whole ? make_int(0) : region.min[d]);
    shape.push_back(whole ? buf->shape[d] : make_int(region.extent[d]));
  }
  int64_t row = 0;
  if (auto align = aligns.find(buf->name); align != aligns.end() && buf->ndim() >= 2 && is_const_int(shape.back(), &row)) {
    const auto [factor, offset] = align->second;
    int64_t padded = (row - offset + factor - 1) / factor * factor + offset;  // smallest >= row, == offset mod factor
    if (padded < row) padded += factor;
    shape.back() = make_int(padded);
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
    VarMap threads;
    for (const auto& [tag, v] : p.thread_vars) {
      TEXC_CHECK(thread_loops_.count(tag)) << "an access of per-thread buffer " << p.replacement->name << " outside " << tag;
      threads[v.get()] = thread_loops_.at(tag);
    }
    // A loop of one iteration is its min: some indices have already lost its variable (simplified
    // away) where the region's min still has it, so a per-thread index keeps none.
    VarMap units;
    if (!p.thread_vars.empty())
      for (const auto& [var, min] : unit_loops_) units[var] = min;
    std::vector<Expr> out;
    for (size_t d = 0; d < idx.size(); ++d) {
      Expr min = threads.empty() ? p.mins[d] : substitute(p.mins[d], threads);
      Expr shifted = is_const_int(min, int64_t(0)) ? idx[d] : simplify(idx[d] - min);
      out.push_back(units.empty() ? shifted : simplify(substitute(shifted, units)));
    }
    return out;
  }
  Stmt mutate(const For* op, const Stmt& self) override {
    std::optional<Expr> outer_thread;
    if (is_thread_loop(op)) {
      if (thread_loops_.count(op->thread_tag)) outer_thread = thread_loops_[op->thread_tag];
      thread_loops_[op->thread_tag] = Expr(op->var);
    }
    const bool unit = is_const_int(op->extent, int64_t(1));
    if (unit) unit_loops_[op->var.get()] = op->min;
    Stmt body = wrap(op, mutate_stmt(op->body));
    if (unit) unit_loops_.erase(op->var.get());
    if (is_thread_loop(op)) {
      if (outer_thread) thread_loops_[op->thread_tag] = *outer_thread;
      else thread_loops_.erase(op->thread_tag);
    }
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
  std::map<std::string, Expr> thread_loops_;  // the variable of the innermost loop bound to each thread tag
  std::map<const Variable*, Expr> unit_loops_;  // enclosing loops of extent 1, with their min
};

}  // namespace

Stmt plan_storage(const Stmt& body, const std::vector<Buffer>& args, const StorageAligns& aligns) {
  std::unordered_set<const BufferNode*> arguments;
  for (const Buffer& b : args) arguments.insert(b.get());
  AccessMap accesses = collect_accesses(body, arguments);
  std::unordered_map<const BufferNode*, Plan> plans;
  for (const Buffer& b : accesses.order) plans[b.get()] = plan_buffer(b, accesses.by_buffer.at(b.get()), aligns);
  return StorageRewriter(accesses.order, std::move(plans)).run(body);
}

}  // namespace texc
