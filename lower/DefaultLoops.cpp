#include "lower/DefaultLoops.h"

namespace texc {

bool is_reduction_stage(const Stage& stage) { return stage.body->as<Reduce>() != nullptr; }

std::vector<IterVar> stage_iter_vars(const Stage& stage) {
  std::vector<IterVar> ivs = stage.axes;
  for (IterVar& iv : ivs) iv.is_reduce = false;
  if (const Reduce* r = stage.body->as<Reduce>())
    for (IterVar a : r->axes) {
      a.is_reduce = true;
      ivs.push_back(a);
    }
  return ivs;
}

Stmt build_stage_nest(const Stage& stage) {
  std::vector<IterVar> ivs = stage_iter_vars(stage);
  std::vector<Expr> bindings, store_indices;
  std::vector<Var> loop_vars;
  for (const IterVar& iv : ivs) {
    Var lv = Variable::make(stage.name + "." + iv.var->name, iv.var->type);
    loop_vars.push_back(lv);
    bindings.push_back(lv);
  }
  for (const IterVar& a : stage.axes) store_indices.push_back(a.var);

  Stmt init, body;
  if (const Reduce* r = stage.body->as<Reduce>()) {
    init = Store::make(stage.buffer, store_indices, Reduce::identity(r->reduce_kind, r->type));
    Expr acc = Load::make(stage.buffer, store_indices);
    body = Store::make(stage.buffer, store_indices, Reduce::combine(r->reduce_kind, acc, r->source));
  } else {
    body = Store::make(stage.buffer, store_indices, stage.body);
  }
  Stmt nest = Block::make(stage.name, ivs, bindings, nullptr, init, body);
  for (size_t i = ivs.size(); i-- > 0;)
    nest = For::make(loop_vars[i], ivs[i].min, ivs[i].extent, ForKind::Serial, nest);
  return nest;
}

LoweredFunc build_default_loops(const OpDef& op) {
  LoweredFunc f;
  f.name = op.name;
  f.args = op.inputs;
  f.args.insert(f.args.end(), op.outputs.begin(), op.outputs.end());
  f.attributes = op.attributes;
  std::vector<Stmt> nests;
  for (const Stage& s : op.stages) nests.push_back(build_stage_nest(s));
  f.body = Seq::make(std::move(nests));
  return f;
}

}  // namespace texc
