// Shared by the annotation primitives (parallel, vectorize, unroll, bind): what a loop drives,
// and setting a loop's kind.
#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/schedule/Primitives.h"

namespace texc {

bool is_reduction_loop(const For* l, std::string* stage) {
  bool found = false;
  for_each_stmt(l->body, [&](const Stmt& s) {
    const Block* b = s->as<Block>();
    if (!b || found) return;
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      if (b->iter_vars[i].is_reduce && uses_var(b->bindings[i], l->var.get())) {
        found = true;
        if (stage) *stage = b->stage;
      }
  });
  return found;
}

void annotate_loop(ScheduleState& st, const SchedStep& step, ForKind kind, const std::string& tag) {
  const SchedPrimitive& p = step.prim;
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  if (l->for_kind != ForKind::Serial) throw_error(DiagId::LoopAlreadyAnnotated, p.loc, l->var->name, for_kind_name(l->for_kind));
  st.replace(l, l->with_kind(kind, tag));
}

}  // namespace texc
