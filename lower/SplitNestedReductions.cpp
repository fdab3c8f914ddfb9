#include "lower/SplitNestedReductions.h"

#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/Substitute.h"

namespace texc {

namespace {

void split_stage(const Stage& s, const std::string& base_name, int& count, std::vector<Stage>& out);

// Replaces each Reduce by a Load of a new hidden stage over `scope`: the stage's axes and the axes
// of the reductions enclosing the expression being rewritten.
class ReductionExtractor : public IRMutator {
 public:
  ReductionExtractor(const Stage& s, std::vector<IterVar> scope, const std::string& base_name, int& count,
                     std::vector<Stage>& out)
      : stage_(s), scope_(std::move(scope)), base_name_(base_name), count_(count), out_(out) {}

 protected:
  Expr mutate(const Reduce*, const Expr& self) override {
    std::string name = hidden_reduction_stage_name(base_name_, count_++);
    // Fresh axes from 0 for the hidden stage, so no Var is shared between stages.
    std::vector<IterVar> axes;
    std::vector<Expr> shape, indices;
    VarMap rename;
    for (const IterVar& a : scope_) {
      Var v = Variable::make(a.var->name, a.var->type);
      bool from_zero = is_const_int(a.min, int64_t(0));
      axes.push_back({v, make_const(a.var->type, 0.0), a.extent, false});
      shape.push_back(a.extent);
      rename[a.var.get()] = from_zero ? Expr(v) : v + a.min;
      indices.push_back(from_zero ? Expr(a.var) : a.var - a.min);
    }
    Stage hidden;
    hidden.name = name;
    hidden.buffer = BufferNode::make(name, self->type, shape, MemScope::Global, BufferRole::Intermediate);
    hidden.axes = axes;
    hidden.body = substitute(self, rename);
    hidden.loc = stage_.loc;
    hidden.origin_call = stage_.origin_call;
    Buffer buffer = hidden.buffer;
    split_stage(hidden, base_name_, count_, out_);  // its source may hold reductions too
    return Load::make(buffer, indices);
  }

 private:
  const Stage& stage_;
  std::vector<IterVar> scope_;
  const std::string& base_name_;
  int& count_;
  std::vector<Stage>& out_;
};

// Appends the hidden stages of `s` and then `s` itself, rewritten to read them.
void split_stage(const Stage& s, const std::string& base_name, int& count, std::vector<Stage>& out) {
  Stage rewritten = s;
  if (const Reduce* top = s.body->as<Reduce>()) {
    std::vector<IterVar> scope = s.axes;
    scope.insert(scope.end(), top->axes.begin(), top->axes.end());
    ReductionExtractor extractor(s, scope, base_name, count, out);
    Expr source = extractor.mutate_expr(top->source);
    if (source != top->source) rewritten.body = Reduce::make(top->reduce_kind, source, top->axes);
  } else {
    ReductionExtractor extractor(s, s.axes, base_name, count, out);
    rewritten.body = extractor.mutate_expr(s.body);
  }
  out.push_back(std::move(rewritten));
}

}  // namespace

OpDef split_nested_reductions(const OpDef& op) {
  OpDef result = op;
  result.stages.clear();
  for (const Stage& s : op.stages) {
    int count = 0;
    split_stage(s, s.name, count, result.stages);
  }
  return result;
}

}  // namespace texc
