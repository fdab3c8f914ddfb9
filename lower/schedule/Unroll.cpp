// unroll(L): L is unrolled completely. Needs a constant extent.
//
// Bounded work: the code unrolling makes is the number of statements of the nest once every
// Unrolled loop is expanded (L's extent times the statements of its body, times the extents of
// the Unrolled loops around L, with Unrolled loops inside L expanded too). More than
// kMaxUnrolledStatements is a diagnostic at L: a million-iteration unroll would take the backend
// minutes and gigabytes. Split L and unroll the inner loop instead.
#include <algorithm>

#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {

constexpr int64_t kMaxUnrolledStatements = 1024;

/// The statements `s` expands to when its Unrolled loops are copied out, saturating at `cap`.
int64_t unrolled_statements(const Stmt& s, int64_t cap) {
  if (!s) return 0;
  if (const For* f = s->as<For>()) {
    int64_t extent = 1;
    int64_t body = unrolled_statements(f->body, cap);
    if (f->for_kind != ForKind::Unrolled || !is_const_int(f->extent, &extent)) return body;
    if (extent <= 0) return 0;
    return body > cap / extent ? cap + 1 : extent * body;
  }
  if (const Seq* seq = s->as<Seq>()) {
    int64_t total = 0;
    for (const Stmt& x : seq->stmts) total = std::min(cap + 1, total + unrolled_statements(x, cap));
    return total;
  }
  if (const Allocate* a = s->as<Allocate>()) return unrolled_statements(a->body, cap);
  if (const LetStmt* l = s->as<LetStmt>()) return unrolled_statements(l->body, cap);
  if (const IfThenElse* i = s->as<IfThenElse>())
    return std::min(cap + 1, unrolled_statements(i->then_case, cap) + unrolled_statements(i->else_case, cap));
  if (const Block* b = s->as<Block>()) return std::max<int64_t>(1, unrolled_statements(b->body, cap));
  return 1;
}

}  // namespace

void apply_unroll(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  int64_t extent;
  if (!is_const_int(l->extent, &extent)) throw_error(DiagId::NonConstantExtent, p.args[0].loc, "unroll", l->var->name);
  int64_t copies = std::max<int64_t>(extent, 0);
  int64_t body = unrolled_statements(l->body, kMaxUnrolledStatements);
  copies = body > 0 && copies > kMaxUnrolledStatements / body ? kMaxUnrolledStatements + 1 : copies * body;
  std::vector<const For*> around;
  st.path_to(l, &around);
  for (const For* outer : around) {
    int64_t e;
    if (outer->for_kind == ForKind::Unrolled && is_const_int(outer->extent, &e) && e > 0)
      copies = copies > kMaxUnrolledStatements / e ? kMaxUnrolledStatements + 1 : copies * e;
  }
  if (copies > kMaxUnrolledStatements)
    throw_error(DiagId::UnrollTooLarge, p.args[0].loc, l->var->name, extent, kMaxUnrolledStatements);
  annotate_loop(st, step, ForKind::Unrolled, "");
}

}  // namespace texc
