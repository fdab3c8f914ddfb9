#include "lower/gpu/DefaultSchedule.h"

#include <algorithm>

#include "ir/IRVisitor.h"
#include "ir/ConstEval.h"
#include "ir/IROperators.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {

constexpr int64_t kDefaultThreads = 256;

bool binds_any_loop(const Stmt& s) {
  bool found = false;
  for_each_stmt(s, [&](const Stmt& n) {
    if (const For* f = n->as<For>(); f && f->for_kind == ForKind::ThreadBound) found = true;
  });
  return found;
}

// The root statements of the body: the elements of its top-level Seq (or the body itself).
std::vector<Stmt> root_statements(const Stmt& body) {
  if (const Seq* s = body->as<Seq>()) return s->stmts;
  return {body};
}

// The outer chain of perfectly nested serial spatial loops of a root statement.
std::vector<const For*> spatial_chain(const Stmt& root) {
  std::vector<const For*> chain;
  for (const For* f = root->as<For>(); f; f = f->body->as<For>()) {
    if (f->for_kind != ForKind::Serial || is_reduction_loop(f)) break;
    bool depends = false;
    for (const For* outer : chain)
      if (uses_var(f->min, outer->var.get()) || uses_var(f->extent, outer->var.get())) depends = true;
    if (depends || !is_const_int(f->extent, (int64_t*)nullptr)) break;
    chain.push_back(f);
  }
  return chain;
}

std::string fresh_name(const ScheduleState& st, const std::string& base) {
  std::string name = base;
  for (int i = 1; st.find_loop(name) || st.has_stage(name); ++i) name = base + std::to_string(i);
  return name;
}

// One fused loop over the chain (serial, min 0), its body the innermost chain loop's body.
Stmt fuse_chain(const std::vector<const For*>& chain, const Var& fused, int64_t* total) {
  *total = 1;
  for (const For* f : chain) {
    int64_t e = 0;
    is_const_int(f->extent, &e);
    *total *= e;
  }
  VarMap values;
  int64_t stride = *total;
  for (const For* f : chain) {
    int64_t e = 0;
    is_const_int(f->extent, &e);
    stride /= std::max<int64_t>(e, 1);
    Expr v = Expr(fused);
    if (stride != 1) v = v / make_int(stride);
    if (f != chain.front()) v = v % f->extent;
    if (!is_const_int(f->min, int64_t(0))) v = v + f->min;
    values[f->var.get()] = v;
  }
  Stmt body = substitute(chain.back()->body, values);
  return For::make(fused, make_int(0), make_int(*total), ForKind::Serial, body);
}

}  // namespace

void gpu_default_schedule(ScheduleState& st) {
  if (!st.func.body || binds_any_loop(st.func.body)) return;
  std::vector<Stmt> roots = root_statements(st.func.body);
  const bool one_nest = roots.size() == 1;

  // The thread count: min(256, the largest fused extent), the same in every nest.
  std::vector<std::vector<const For*>> chains;
  int64_t largest = 1;
  for (const Stmt& r : roots) {
    chains.push_back(spatial_chain(r));
    int64_t n = 1;
    for (const For* f : chains.back()) {
      int64_t e = 1;
      is_const_int(f->extent, &e);
      n *= e;
    }
    largest = std::max(largest, n);
  }
  const int64_t threads = std::min(kDefaultThreads, largest);

  for (size_t i = 0; i < roots.size(); ++i) {
    const std::vector<const For*>& chain = chains[i];
    std::string stage = chain.empty() ? std::string() : st.stage_under(chain.front());
    std::string base = stage.empty() ? std::string("gpu") : stage;
    Stmt replacement;
    if (chain.empty()) {
      // No spatial loop: the nest runs on thread 0 of the block, the other threads skip it.
      Var t = Variable::make(fresh_name(st, base + ".tx"), Index());
      Stmt body = add_block_predicate(roots[i], eq(t, make_int(0)));
      replacement = For::make(t, make_int(0), make_int(threads), ForKind::ThreadBound, body, "threadIdx.x");
    } else {
      int64_t total = 0;
      Var fused = Variable::make(fresh_name(st, base + ".fused"), chain.front()->var->type);
      Stmt fused_loop = fuse_chain(chain, fused, &total);
      if (total < threads) {
        // A smaller nest among several: the block's threads beyond its extent skip it.
        Var t = Variable::make(fresh_name(st, base + ".tx"), fused->type);
        Stmt body = substitute(fused_loop->as<For>()->body, VarMap{{fused.get(), Expr(t)}});
        body = add_block_predicate(body, Expr(t) < make_int(total));
        st.replace(roots[i].get(), For::make(t, make_int(0), make_int(threads), ForKind::ThreadBound, body, "threadIdx.x"));
        continue;
      }
      Stmt split = split_loop(fused_loop->as<For>(), threads, fresh_name(st, base + ".bx"), fresh_name(st, base + ".tx"));
      const For* outer = split->as<For>();
      const For* inner = outer->body->as<For>();
      Stmt bound_inner = inner->with_kind(ForKind::ThreadBound, "threadIdx.x");
      replacement = one_nest ? For::make(outer->var, outer->min, outer->extent, ForKind::ThreadBound, bound_inner, "blockIdx.x")
                             : outer->with_body(bound_inner);
    }
    st.replace(roots[i].get(), replacement);
  }
}

}  // namespace texc
