// reorder(L1, L2, ...): the listed loops take the listed order among the positions they occupy.
// They must lie on one chain of perfectly nested loops (each loop's body is the next loop); loops
// of the chain that are not listed keep their positions.
#include <algorithm>

#include "ir/Diagnostics.h"
#include "ir/Substitute.h"
#include "lower/schedule/Primitives.h"

namespace texc {

void apply_reorder(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  if (p.args.size() < 2) throw_error(DiagId::ScheduleArgCount, p.loc, "reorder", "at least 2", p.args.size());
  if (!p.results.empty()) throw_error(DiagId::WrongResultCount, p.loc, "reorder", 0, p.results.size());
  std::vector<const For*> listed;
  for (size_t i = 0; i < p.args.size(); ++i) {
    const For* l = st.loop(loop_name_arg(step, i), p.args[i].loc);
    if (std::find(listed.begin(), listed.end(), l) != listed.end())
      throw_error(DiagId::ReorderDuplicate, p.args[i].loc, l->var->name);
    listed.push_back(l);
  }
  // All listed loops must lie on one chain: find the outermost and check the others are inside.
  std::vector<std::vector<const For*>> paths(listed.size());
  for (size_t i = 0; i < listed.size(); ++i) st.path_to(listed[i], &paths[i]);
  size_t outer = 0;
  for (size_t i = 1; i < listed.size(); ++i)
    if (paths[i].size() < paths[outer].size()) outer = i;
  size_t inner = outer;
  for (size_t i = 0; i < listed.size(); ++i)
    if (paths[i].size() > paths[inner].size()) inner = i;
  auto encloses = [&](size_t a, size_t b) {  // does listed[a] enclose (or equal) listed[b]?
    return a == b || std::find(paths[b].begin(), paths[b].end(), listed[a]) != paths[b].end();
  };
  for (size_t i = 0; i < listed.size(); ++i) {
    if (!encloses(outer, i) || !encloses(i, inner)) {
      size_t other = encloses(outer, i) ? inner : outer;
      std::string si = st.stage_under(listed[i]), so = st.stage_under(listed[other]);
      if (si != so)
        throw_error(DiagId::ReorderDifferentStages, p.args[i].loc, listed[i]->var->name, si, listed[other]->var->name, so);
      throw_error(DiagId::LoopsNotNested, p.args[i].loc, listed[other]->var->name, listed[i]->var->name);
    }
  }
  // The chain from the outermost to the innermost listed loop must be perfectly nested.
  std::vector<const For*> chain;
  for (const For* l = listed[outer];; l = l->body->as<For>()) {
    chain.push_back(l);
    if (l == listed[inner]) break;
    if (!l->body->as<For>())
      throw_error(DiagId::LoopsNotNested, p.loc, l->var->name, listed[inner]->var->name);
  }
  // New order: listed loops fill the chain positions that listed loops occupied.
  std::vector<const For*> order = chain;
  std::vector<size_t> slots;
  for (size_t i = 0; i < chain.size(); ++i)
    if (std::find(listed.begin(), listed.end(), chain[i]) != listed.end()) slots.push_back(i);
  for (size_t k = 0; k < slots.size(); ++k) order[slots[k]] = listed[k];
  // A loop's bounds may not depend on a loop that moves inside it.
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = i + 1; j < order.size(); ++j)
      if (uses_var(order[i]->min, order[j]->var.get()) || uses_var(order[i]->extent, order[j]->var.get()))
        throw_error(DiagId::ScheduleError, p.loc,
                    "cannot move '" + order[j]->var->name + "' inside '" + order[i]->var->name +
                        "': the bounds of '" + order[i]->var->name + "' depend on it");
  Stmt body = chain.back()->body;
  for (size_t i = order.size(); i-- > 0;) {
    const For* l = order[i];
    body = l->with_body(body);
  }
  st.replace(chain.front(), body);
}

}  // namespace texc
