#include "lower/analysis/Region.h"

#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Target.h"
#include "lower/LoopBounds.h"

namespace texc {

namespace {

bool mentions_only(const Expr& e, const std::unordered_set<const Variable*>& allowed) {
  bool ok = true;
  for_each_expr(e, [&](const Expr& x) {
    if (const Variable* v = x->as<Variable>(); v && !allowed.count(v)) ok = false;
  });
  return ok;
}

}  // namespace

bool relaxes_over_thread(MemScope scope, const std::string& thread_tag) {
  ThreadLevel level = thread_level(thread_tag);
  bool thread = level == ThreadLevel::Thread || level == ThreadLevel::Virtual;
  if (scope == MemScope::Global) return level == ThreadLevel::Block || thread;
  if (scope == MemScope::Shared) return thread;
  return false;
}

Region infer_region(const std::vector<BufferAccess>& accesses, const std::vector<const For*>& outer,
                    const Buffer& buffer) {
  // The loops of `outer` that stay symbolic; thread loops the buffer is shared over are relaxed.
  std::vector<const For*> kept;
  std::unordered_set<const Variable*> kept_vars;
  for (const For* l : outer) {
    if (l->for_kind == ForKind::ThreadBound && relaxes_over_thread(buffer->scope, l->thread_tag)) continue;
    kept.push_back(l);
    kept_vars.insert(l->var.get());
  }
  size_t nd = buffer->ndim();
  std::vector<Expr> lo(nd), hi(nd);
  std::vector<bool> whole(nd, false);
  for (const BufferAccess& a : accesses) {
    SymVarIntervals relaxed;
    for (size_t i = 0; i < a.loops.size(); ++i) {
      const For* l = a.loops[i];
      if (i < outer.size() && kept_vars.count(l->var.get())) continue;
      SymInterval first = sym_bounds_of(l->min, relaxed),
                  last = sym_bounds_of(simplify(l->min + l->extent - 1), relaxed);
      relaxed[l->var.get()] = SymInterval{first.min, last.max};
    }
    for (size_t d = 0; d < nd; ++d) {
      if (a.whole_buffer && d >= a.whole_from_dim) {
        whole[d] = true;
        continue;
      }
      SymInterval r = sym_bounds_of(simplify(a.indices[d]), relaxed);  // (p / 56)*56 + p % 56 is p
      if (!r.is_bounded() || !mentions_only(r.min, kept_vars) || !mentions_only(r.max, kept_vars)) {
        whole[d] = true;
        continue;
      }
      lo[d] = lo[d] ? union_min(lo[d], r.min) : r.min;
      hi[d] = hi[d] ? union_max(hi[d], r.max) : r.max;
    }
  }
  Region region;
  for (size_t d = 0; d < nd; ++d) {
    int64_t full = 0;
    TEXC_CHECK(is_const_int(buffer->shape[d], &full)) << "buffer " << buffer->name << " has a non-constant extent";
    std::optional<int64_t> extent;
    if (!whole[d] && lo[d]) {
      Expr e = simplify(hi[d] - lo[d] + 1);
      int64_t c;
      extent = is_const_int(e, &c) ? std::optional<int64_t>(c) : constant_upper_bound(e, kept);
    }
    if (!extent || *extent >= full) {
      region.min.push_back(make_int(0));
      region.extent.push_back(full);
    } else {
      region.min.push_back(lo[d]);
      region.extent.push_back(std::max<int64_t>(*extent, 1));
    }
  }
  return region;
}

}  // namespace texc
