// unroll(L): L is unrolled completely. Needs a constant extent.
//
// Bounded work: the code unrolling makes is the number of statements of the nest once every
// Unrolled loop is expanded (L's extent times the statements of its body, times the extents of
// the Unrolled loops around L, with Unrolled loops inside L expanded too). More than
// kMaxUnrolledStatements is a diagnostic at L: a million-iteration unroll would take the backend
// minutes and gigabytes. Split L and unroll the inner loop instead.
#include <algorithm>

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {

constexpr int64_t kMaxUnrolledStatements = 1024;

/// The statements a nest expands to when its Unrolled loops are copied out, saturating at `cap`
/// (every count is at most cap + 1): a store or an evaluate is one, a Block at least one, an
/// Unrolled loop its extent times its body; every other statement (loops, sequences, ifs,
/// allocations, lets, attributes) is what its children add up to.
class UnrolledStatements : public IRVisitor {
 public:
  explicit UnrolledStatements(int64_t cap) : cap_(cap) {}
  int64_t of(const Stmt& s) {
    count_ = 0;
    visit_stmt(s);
    return count_;
  }
  void visit_expr(const Expr&) override {}

 protected:
  using IRVisitor::visit;
  void visit(const Store*) override { add(1); }
  void visit(const Evaluate*) override { add(1); }
  void visit(const Block* b) override { add(std::max<int64_t>(1, inner(b->body))); }
  void visit(const For* f) override {
    int64_t extent = 1;
    const int64_t body = inner(f->body);
    if (f->for_kind != ForKind::Unrolled || !is_const_int(f->extent, &extent)) return add(body);
    if (extent <= 0) return;
    add(body > cap_ / extent ? cap_ + 1 : extent * body);
  }

 private:
  void add(int64_t n) { count_ = std::min(cap_ + 1, count_ + n); }
  int64_t inner(const Stmt& s) {
    const int64_t outer = count_;
    const int64_t n = of(s);
    count_ = outer;
    return n;
  }

  int64_t cap_;
  int64_t count_ = 0;
};

}  // namespace

void apply_unroll(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  int64_t extent;
  if (!is_const_int(l->extent, &extent)) throw_error(DiagId::NonConstantExtent, p.args[0].loc, "unroll", l->var->name);
  int64_t copies = std::max<int64_t>(extent, 0);
  int64_t body = UnrolledStatements(kMaxUnrolledStatements).of(l->body);
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
