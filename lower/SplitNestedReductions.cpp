#include "lower/SplitNestedReductions.h"

#include "ir/IRMutator.h"
#include "ir/Substitute.h"

namespace texc {

namespace {
// Replaces each Reduce by a Load of a new hidden stage over the enclosing stage's axes.
class ReductionExtractor : public IRMutator {
 public:
  ReductionExtractor(const Stage& s, std::vector<Stage>& out) : stage_(s), out_(out) {}

 protected:
  Expr mutate(const Reduce* op, const Expr& self) override {
    std::string name = hidden_reduction_stage_name(stage_.name, count_++);
    // Fresh axes for the hidden stage, so no Var is shared between stages.
    std::vector<IterVar> axes;
    std::vector<Expr> shape, own_indices;
    VarMap rename;
    for (const IterVar& a : stage_.axes) {
      Var v = Variable::make(a.var->name, a.var->type);
      axes.push_back({v, a.min, a.extent, false});
      shape.push_back(a.extent);
      rename[a.var.get()] = v;
      own_indices.push_back(a.var);
    }
    Stage hidden;
    hidden.name = name;
    hidden.buffer = BufferNode::make(name, op->type, shape, "global", BufferRole::Intermediate);
    hidden.axes = axes;
    hidden.body = substitute(self, rename);
    hidden.loc = stage_.loc;
    hidden.origin_call = stage_.origin_call;
    out_.push_back(std::move(hidden));
    return Load::make(out_.back().buffer, own_indices);
  }

 private:
  const Stage& stage_;
  std::vector<Stage>& out_;
  int count_ = 0;
};
}  // namespace

OpDef split_nested_reductions(const OpDef& op) {
  OpDef result = op;
  result.stages.clear();
  for (const Stage& s : op.stages) {
    if (!s.body->as<Reduce>()) {
      std::vector<Stage> hidden;
      ReductionExtractor extractor(s, hidden);
      Stage rewritten = s;
      rewritten.body = extractor.mutate_expr(s.body);
      for (Stage& h : hidden) result.stages.push_back(std::move(h));
      result.stages.push_back(std::move(rewritten));
    } else {
      result.stages.push_back(s);
    }
  }
  return result;
}

}  // namespace texc
