#include "tuner/Features.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "ir/ConstEval.h"
#include "ir/IRVisitor.h"

namespace texc {

namespace {

struct Access {
  Buffer buffer;
  Expr index;  // flattened: one index (the first, when a buffer still has several)
  bool is_write = false;
};

/// One store with the loops and lets around it.
struct StoreSite {
  std::vector<const For*> loops;  // outermost first
  std::vector<double> extents;
  std::vector<std::pair<const Variable*, Expr>> lets;
  std::vector<Access> accesses;   // the store first, then loads in pre-order
  double trips = 1;
  double arith = 0;               // arithmetic ops per execution
};

double constant_or(const Expr& e, double fallback) {
  std::optional<int64_t> v = eval_int(e);
  return v ? double(*v) : fallback;
}

class NestVisitor : public IRVisitor {
 public:
  NestFeatures* out;
  std::vector<StoreSite> sites;

 private:
  std::vector<const For*> loops_;
  std::vector<double> extents_;
  std::vector<std::pair<const Variable*, Expr>> lets_;
  double trips_ = 1;

  void count_expr(const Expr& e, StoreSite* site) {
    for_each_expr(e, [&](const Expr& x) {
      if (const Binary* b = x->as<Binary>()) {
        bool f = b->a->type.is_float();
        double& slot = !f ? out->int_ops
                       : (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) ? out->float_add
                       : b->op == BinaryOp::Mul                            ? out->float_mul
                       : (b->op == BinaryOp::Div || b->op == BinaryOp::Mod) ? out->float_div
                                                                            : out->float_other;
        slot += trips_;
        if (site && f) site->arith += 1;
      } else if (const Call* c = x->as<Call>()) {
        if (c->type.is_float()) {
          out->float_other += trips_;
          if (site) site->arith += 1;
        }
      } else if (const Load* l = x->as<Load>()) {
        out->loads += trips_;
        if (site && !l->indices.empty()) site->accesses.push_back({l->buffer, l->indices[0], false});
      }
    });
  }

 protected:
  void visit(const For* op) override {
    ++out->num_loops;
    out->parallel_loops += op->for_kind == ForKind::Parallel;
    out->vectorized_loops += op->for_kind == ForKind::Vectorized;
    out->unrolled_loops += op->for_kind == ForKind::Unrolled;
    out->bound_loops += op->for_kind == ForKind::ThreadBound;
    double extent = std::max(1.0, constant_or(op->extent, 1));
    loops_.push_back(op);
    extents_.push_back(extent);
    double saved = trips_;
    trips_ *= extent;
    visit_stmt(op->body);
    trips_ = saved;
    loops_.pop_back();
    extents_.pop_back();
  }
  void visit(const LetStmt* op) override {
    count_expr(op->value, nullptr);
    lets_.emplace_back(op->var.get(), op->value);
    visit_stmt(op->body);
    lets_.pop_back();
  }
  void visit(const Allocate* op) override {
    ++out->num_allocs;
    double elems = 1;
    for (const Expr& e : op->buffer->shape) elems *= std::max(1.0, constant_or(e, 1));
    out->alloc_bytes += elems * op->buffer->dtype.bytes();
    visit_stmt(op->body);
  }
  void visit(const Store* op) override {
    ++out->num_stores;
    out->stores += trips_;
    StoreSite site{loops_, extents_, lets_, {}, trips_, 0};
    if (!op->indices.empty()) site.accesses.push_back({op->buffer, op->indices[0], true});
    count_expr(op->value, &site);
    for (const Expr& i : op->indices) count_expr(i, nullptr);
    sites.push_back(std::move(site));
  }
  void visit(const Evaluate* op) override { count_expr(op->value, nullptr); }
  void visit(const IfThenElse* op) override {
    count_expr(op->cond, nullptr);
    visit_stmt(op->then_case);
    if (op->else_case) visit_stmt(op->else_case);
  }
};

/// The index of `a` with every loop variable of `site` at its minimum except loop `k`, at min + step.
double index_at(const StoreSite& site, const Access& a, size_t k, int step) {
  VarValues values;
  for (size_t j = 0; j < site.loops.size(); ++j)
    values[site.loops[j]->var.get()] = int64_t(constant_or(site.loops[j]->min, 0)) + (j == k ? step : 0);
  for (const auto& [var, value] : site.lets) values[var] = eval_int(value, values).value_or(0);
  // Anything else (sizes, variables of enclosing constructs) counts as 0.
  for_each_expr(a.index, [&](const Expr& x) {
    if (const Variable* v = x->as<Variable>()) values.emplace(v, 0);
  });
  return double(eval_int(a.index, values).value_or(0));
}

double buffer_elements(const Buffer& b) {
  double n = 1;
  for (const Expr& e : b->shape) n *= std::max(1.0, constant_or(e, 1));
  return n;
}

double log_feature(double x) { return x >= 0 ? std::log2(1 + x) : -std::log2(1 - x); }

}  // namespace

NestFeatures analyze_loop_nest(const LoweredFunc& func) {
  NestFeatures nest;
  NestVisitor visitor;
  visitor.out = &nest;
  visitor.visit_stmt(func.body);
  if (visitor.sites.empty()) return nest;

  const StoreSite* dominant = &visitor.sites.front();
  for (const StoreSite& s : visitor.sites)
    if (s.trips * (1 + s.arith) > dominant->trips * (1 + dominant->arith)) dominant = &s;

  // Buffer slots: the dominant store's buffers in order of first appearance.
  std::vector<const BufferNode*> slots;
  for (const Access& a : dominant->accesses)
    if (std::find(slots.begin(), slots.end(), a.buffer.get()) == slots.end()) slots.push_back(a.buffer.get());

  size_t depth = dominant->loops.size();
  for (size_t k = depth; k-- > 0;) {
    const For* loop = dominant->loops[k];
    LoopLevel level;
    level.var = loop->var->name;
    level.extent = dominant->extents[k];
    level.kind = loop->for_kind;
    level.depth = int(k);
    for (size_t j = 0; j <= k; ++j) level.topdown *= dominant->extents[j];
    for (size_t j = k; j < depth; ++j) level.bottomup *= dominant->extents[j];

    // Every store inside this loop contributes its accesses.
    std::map<const BufferNode*, BufferTouch> touches;
    std::vector<const BufferNode*> order;
    std::vector<const StoreSite*> inside = {dominant};  // first, so strides are the dominant store's
    for (const StoreSite& site : visitor.sites)
      if (&site != dominant && site.loops.size() > k && site.loops[k] == loop) inside.push_back(&site);
    for (const StoreSite* s : inside) {
      const StoreSite& site = *s;
      for (const Access& a : site.accesses) {
        double count = 1, reuse = 1;
        for (size_t j = k; j < site.loops.size(); ++j) {
          bool moves = index_at(site, a, j, 1) != index_at(site, a, j, 0);
          (moves ? count : reuse) *= site.extents[j];
        }
        count = std::min(count, buffer_elements(a.buffer));
        auto [it, fresh] = touches.try_emplace(a.buffer.get());
        BufferTouch& t = it->second;
        if (fresh) {
          order.push_back(a.buffer.get());
          t.buffer = a.buffer->name;
          t.elem_bytes = a.buffer->dtype.bytes();
          t.stride = index_at(site, a, k, 1) - index_at(site, a, k, 0);
        }
        t.count = std::max(t.count, count);
        t.accesses += count * reuse;
      }
    }
    for (const BufferNode* b : order) {
      BufferTouch& t = touches[b];
      t.reuse = t.count > 0 ? t.accesses / t.count : 0;
      level.footprint_bytes += t.count * t.elem_bytes;
    }
    for (const BufferNode* b : slots) level.buffers.push_back(touches.count(b) ? touches[b] : BufferTouch{b->name});
    nest.levels.push_back(std::move(level));
  }
  return nest;
}

std::vector<float> flatten_features(const NestFeatures& nest, const CacheSizes& caches) {
  std::vector<float> v;
  v.reserve(kFeatureLength);
  for (int l = 0; l < kMaxLevels; ++l) {
    size_t start = v.size();
    if (l < int(nest.levels.size())) {
      const LoopLevel& level = nest.levels[l];
      v.push_back(1);
      v.push_back(log_feature(level.extent));
      v.push_back(level.kind == ForKind::Serial);
      v.push_back(level.kind == ForKind::Parallel);
      v.push_back(level.kind == ForKind::Vectorized);
      v.push_back(level.kind == ForKind::Unrolled);
      v.push_back(level.kind == ForKind::ThreadBound || level.kind == ForKind::Tensorized);
      v.push_back(level.depth);
      v.push_back(log_feature(level.topdown));
      v.push_back(log_feature(level.bottomup));
      v.push_back(log_feature(level.footprint_bytes));
      v.push_back(level.footprint_bytes <= caches.l1);
      v.push_back(level.footprint_bytes <= caches.l2);
      v.push_back(level.footprint_bytes <= caches.l3);
      for (int b = 0; b < kMaxBuffers; ++b) {
        if (b < int(level.buffers.size())) {
          const BufferTouch& t = level.buffers[b];
          v.push_back(log_feature(t.count));
          v.push_back(log_feature(t.reuse));
          v.push_back(log_feature(t.stride));
          v.push_back(t.stride == 1 || t.stride == -1);
        } else {
          v.insert(v.end(), 4, 0.0f);
        }
      }
    }
    v.resize(start + kLevelLength, 0.0f);
  }
  double parallel_extent = 1, vector_lanes = 1;
  for (const LoopLevel& level : nest.levels) {
    if (level.kind == ForKind::Parallel) parallel_extent *= level.extent;
    if (level.kind == ForKind::Vectorized) vector_lanes *= level.extent;
  }
  double flops = nest.float_add + nest.float_mul + nest.float_div + nest.float_other;
  double outer_bytes = nest.levels.empty() ? 0 : nest.levels.back().footprint_bytes;
  for (double x : {nest.float_add, nest.float_mul, nest.float_div, nest.float_other, nest.int_ops, nest.loads,
                   nest.stores, double(nest.num_loops), double(nest.parallel_loops), double(nest.vectorized_loops),
                   double(nest.unrolled_loops), double(nest.num_allocs), nest.alloc_bytes, parallel_extent,
                   vector_lanes, outer_bytes > 0 ? flops / outer_bytes : 0.0})
    v.push_back(log_feature(x));
  return v;
}

}  // namespace texc
