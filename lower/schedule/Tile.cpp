// xo, yo, xi, yi = tile(X, Y, FX, FY): split X by FX and Y by FY, then reorder(xo, yo, xi, yi).
#include "ir/Diagnostics.h"
#include "lower/schedule/Primitives.h"

namespace texc {

void apply_tile(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 4, 4, 4);
  auto loc_of = [&](size_t i) { return p.result_locs.size() > i ? p.result_locs[i] : p.loc; };
  SchedStep split_x{p, {}}, split_y{p, {}}, reorder{p, {}};
  split_x.prim.primitive = split_y.prim.primitive = "split";
  split_x.prim.args = {p.args[0], p.args[2]};
  split_x.int_args = {std::nullopt, step.int_args[2]};
  split_x.prim.results = {p.results[0], p.results[2]};
  split_x.prim.result_locs = {loc_of(0), loc_of(2)};
  split_y.prim.args = {p.args[1], p.args[3]};
  split_y.int_args = {std::nullopt, step.int_args[3]};
  split_y.prim.results = {p.results[1], p.results[3]};
  split_y.prim.result_locs = {loc_of(1), loc_of(3)};
  apply_split(st, split_x);
  apply_split(st, split_y);
  st.record_replaced(loop_name_arg(step, 0), "tile", {p.results[0], p.results[2]});
  st.record_replaced(loop_name_arg(step, 1), "tile", {p.results[1], p.results[3]});
  reorder.prim.primitive = "reorder";
  reorder.prim.results.clear();
  reorder.prim.result_locs.clear();
  reorder.prim.stage_renames.clear();
  reorder.prim.args.clear();
  for (size_t i = 0; i < 4; ++i) {
    SchedArg a;
    a.name = p.results[i];
    a.loc = loc_of(i);
    reorder.prim.args.push_back(a);
    reorder.int_args.push_back(std::nullopt);
  }
  apply_reorder(st, reorder);
}

}  // namespace texc
