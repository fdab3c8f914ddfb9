#include "frontend/OpElaborator.h"

#include <algorithm>

#include "frontend/ConstExpr.h"
#include "frontend/InputDomain.h"
#include "frontend/AttainedBounds.h"
#include "frontend/OpCallExpansion.h"
#include "frontend/ScheduleElaborator.h"
#include "frontend/StdlibIndex.h"
#include "frontend/Suggest.h"
#include "ir/IRVisitor.h"
#include "ir/Target.h"

namespace texc {

/// The caller's side of a call: the tensors passed (by parameter position) and the attributes.
struct OpElaborator::CallSite {
  SourceLoc loc;  // the callee's name in the call
  std::vector<Buffer> tensors;
  std::vector<std::string> tensor_names;  // as written by the caller
  std::vector<SourceLoc> tensor_locs;
  std::map<std::string, int64_t> attributes;
  std::map<std::string, double> float_attributes;
};

/// Everything known while one op is being elaborated.
struct OpElaborator::OpState {
  explicit OpState(const Scope& globals) : scope(&globals) {}
  Scope scope;  // attributes, dimension variables, sizes, tensors
  OpDef def;
  std::set<std::string> outputs;
  /// Schedule blocks of called ops, with the caller's names of the stages that call created.
  struct Carried {
    std::set<std::string> stages;
    std::vector<ScheduleBlock> blocks;
  };
  std::vector<Carried> carried;
  std::set<std::string> declared_domains;  // inputs with `in LO..HI` of this op's own
};

namespace {

/// Do two schedule blocks apply to a common target ("cpu" and "x86" do)?
bool targets_overlap(const std::string& a, const std::string& b) {
  for (const Target& t : all_targets())
    if (schedule_applies(a, t.name) && schedule_applies(b, t.name)) return true;
  return false;
}

/// The names of the loops of a stage: its axes, then the reduction variables of its body.
std::vector<std::string> loop_names(const Stage& stage) {
  std::vector<std::string> names;
  for (const IterVar& a : stage.axes) names.push_back(a.var->name);
  for_each_expr(stage.body, [&](const Expr& e) {
    if (const Reduce* r = e->as<Reduce>()) {
      for (const IterVar& a : r->axes) names.push_back(a.var->name);
    }
  });
  return names;
}

/// A call of an op anywhere inside e (where only a whole right-hand side may call an op).
const ast::Call* find_op_call(const ast::Expr& e, const CallableNames& callables) {
  if (auto* c = e.as<ast::Call>()) {
    if (callables.ops.count(c->callee)) return c;
    for (const ast::CallArg& a : c->args)
      if (auto* found = find_op_call(*a.value, callables)) return found;
  } else if (auto* b = e.as<ast::Binary>()) {
    if (auto* found = find_op_call(*b->lhs, callables)) return found;
    return find_op_call(*b->rhs, callables);
  } else if (auto* u = e.as<ast::Unary>()) {
    return find_op_call(*u->operand, callables);
  }
  return nullptr;
}

/// The first float literal in e (an int attribute given `pad = 1.5`), or null.
const ast::FloatLit* find_float_literal(const ast::Expr& e) {
  if (auto* f = e.as<ast::FloatLit>()) return f;
  if (auto* b = e.as<ast::Binary>()) {
    if (auto* found = find_float_literal(*b->lhs)) return found;
    return find_float_literal(*b->rhs);
  }
  if (auto* u = e.as<ast::Unary>()) return find_float_literal(*u->operand);
  if (auto* c = e.as<ast::Call>())
    for (const ast::CallArg& a : c->args)
      if (auto* found = find_float_literal(*a.value)) return found;
  return nullptr;
}

Symbol index_symbol(Var v, int axis) {
  Symbol s;
  s.kind = Symbol::Kind::Index;
  s.var = std::move(v);
  s.axis = axis;
  return s;
}

/// "f32[64, 3, 3]": an output's element type and shape, for comparing an implementation's outputs
/// with the definition's.
std::string buffer_type_text(const Buffer& b) {
  std::string text = b->dtype.str() + "[";
  for (size_t d = 0; d < b->shape.size(); ++d) {
    int64_t n = 0;
    text += (d ? ", " : "") + (is_const_int(b->shape[d], &n) ? std::to_string(n) : std::string("?"));
  }
  return text + "]";
}

/// The `compute TARGET` block of `decl` used when compiling for `target` (a --target, or a schedule
/// block's target), its guards evaluated in `signature` (the op's params and sizes): of the blocks
/// whose target applies, the most specific target's first (`compute x86` over `compute cpu` on
/// x86), and of one target's blocks the guarded ones whose condition holds, in source order, then
/// the unguarded one; null for the definition (no block applies).
const ast::ComputeVariant* variant_for(const ast::OpDecl& decl, const std::string& target, const Scope& signature) {
  if (target.empty()) return nullptr;
  std::vector<const ast::ComputeVariant*> candidates;
  for (const ast::ComputeVariant& v : decl.compute_variants)
    if (schedule_specificity(v.target.text, target) > 0) candidates.push_back(&v);
  std::stable_sort(candidates.begin(), candidates.end(), [&](const ast::ComputeVariant* a, const ast::ComputeVariant* b) {
    int sa = schedule_specificity(a->target.text, target), sb = schedule_specificity(b->target.text, target);
    if (sa != sb) return sa > sb;
    return bool(a->guard) && !b->guard;
  });
  for (const ast::ComputeVariant* v : candidates)
    if (!v->guard || eval_const_bool(*v->guard, signature)) return v;
  return nullptr;
}

/// Each variant names a schedule target; a target has at most one unguarded block.
void check_compute_variants(const ast::OpDecl& decl) {
  const std::vector<std::string>& targets = schedule_block_names();
  std::map<std::string, SourceLoc> seen;
  for (const ast::ComputeVariant& v : decl.compute_variants) {
    if (std::find(targets.begin(), targets.end(), v.target.text) == targets.end())
      throw_error(DiagId::UnknownComputeTarget, v.target.loc, v.target.text);
    if (v.guard) continue;
    auto [previous, first] = seen.emplace(v.target.text, v.target.loc);
    if (!first)
      throw_with_note(make_diagnostic(DiagId::DuplicateComputeVariant, v.target.loc, decl.name.text, v.target.text,
                                      v.target.text),
                      previous->second, fmt::format("the first 'compute {}' is here", v.target.text));
  }
}

/// A stage whose body holds reductions gets hidden stages `<stage>_red`, `<stage>_red1`, ... when
/// it is lowered (ir/Op.h), which schedules name like any stage: a tensor of the op with one of
/// those names is an error at its definition, never two stages of one name.
void check_hidden_stage_names(const OpDef& def) {
  for (const Stage& s : def.stages) {
    const size_t hidden = hidden_reductions(s.body).size();
    for (size_t k = 0; k < hidden; ++k) {
      const std::string name = hidden_reduction_stage_name(s.name, int(k));
      if (const Stage* clash = def.find_stage(name))
        throw_error(DiagId::StageNamedLikeHiddenStage, clash->loc, name, k + 1, s.name, name);
    }
  }
}

}  // namespace

OpDef OpElaborator::entry(const ast::OpDecl& decl) { return elaborate(decl, nullptr); }

const ast::OpDecl* OpElaborator::visible_op(uint32_t file, const std::string& name) const {
  auto ops = program_.file_ops.find(file);
  if (ops == program_.file_ops.end()) return nullptr;
  auto op = ops->second.find(name);
  return op == ops->second.end() ? nullptr : op->second;
}

IntrinsicDef OpElaborator::intrinsic(const ast::OpDecl& decl) {
  OpDef def = elaborate(decl, nullptr);
  IntrinsicDef out;
  out.name = def.name;
  out.inputs = def.inputs;
  out.outputs = def.outputs;
  out.stages = def.stages;
  out.lower_kind = decl.lower_kind;
  out.symbol = decl.lower_symbol;
  out.requires_features = decl.lower_requires;
  out.requires_loc = decl.requires_loc;
  out.loc = decl.name.loc;
  return out;
}

OpDef OpElaborator::elaborate(const ast::OpDecl& decl, const CallSite* call) {
  check_compute_variants(decl);
  const ast::ComputeVariant* variant = nullptr;
  if (!decl.compute_variants.empty() && !target_.empty()) {
    OpState signature(program_.file_scopes.at(decl.name.loc.file));
    bind_signature(decl, call, signature);
    variant = variant_for(decl, target_, signature.scope);
  }
  OpDef def = elaborate_compute(decl, call, variant);
  if (!variant) return def;
  // An implementation computes the definition's outputs: same shapes and element types.
  OpDef definition = elaborate_compute(decl, call, nullptr);
  for (size_t i = 0; i < def.outputs.size(); ++i) {
    const Buffer& have = def.outputs[i];
    const Buffer& want = definition.outputs[i];
    if (buffer_type_text(have) != buffer_type_text(want))
      throw_error(DiagId::VariantOutputMismatch, variant->target.loc, variant->target.text, decl.name.text,
                  have->name, buffer_type_text(have), buffer_type_text(want));
  }
  return def;
}

OpDef OpElaborator::elaborate_compute(const ast::OpDecl& decl, const CallSite* call,
                                      const ast::ComputeVariant* variant) {
  const std::vector<ast::ComputeStmt>& compute = variant ? variant->compute : decl.compute;
  OpState state(program_.file_scopes.at(decl.name.loc.file));
  state.def.name = decl.name.text;
  state.def.loc = decl.name.loc;
  bind_signature(decl, call, state);
  for (const ast::ComputeStmt& stmt : compute) {
    if (stmt.tensor_def) state.scope.declare_later(stmt.tensor_def->name.text);
    if (stmt.assign)
      for (const ast::Name& n : stmt.assign->targets) state.scope.declare_later(n.text);
  }
  for (const ast::ComputeStmt& stmt : compute) {
    if (stmt.tensor_def) {
      tensor_definition(*stmt.tensor_def, state);
      continue;
    }
    const ast::Assign& assign = *stmt.assign;
    const ast::Call* c = assign.value->as<ast::Call>();
    if (c && visible_op(decl.name.loc.file, c->callee) && !state.scope.lookup(c->callee)) {
      if (decl.is_intrinsic) throw_error(DiagId::IntrinsicCannotCall, c->loc, decl.name.text);
      op_call(assign, *c, state);
    } else if (c && !program_.callables.intrinsics.count(c->callee) && !is_builtin_function(c->callee) &&
               !state.scope.lookup(c->callee)) {
      unknown_op(*c);
    } else {
      size_definition(assign, state);
    }
  }
  check_outputs(decl, state);
  check_hidden_stage_names(state.def);
  if (!decl.is_intrinsic) schedules(decl, variant, state);
  state.def.intrinsics = program_.intrinsics;
  return std::move(state.def);
}

namespace {

/// A float attribute's value as C source: the shortest text that reads back as `v`, with a '.' or
/// an exponent so that it is a floating-point literal ("2.0", "1e-05").
std::string float_text(double v) {
  std::string text = fmt::format("{}", v);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

void OpElaborator::bind_signature(const ast::OpDecl& decl, const CallSite* call, OpState& state) {
  size_t tensor_index = 0;
  for (const ast::OpParam& param : decl.params) {
    const std::string& name = param.name.text;
    if (param.is_attribute()) {
      if (param.has_shape) throw_error(DiagId::AttributeWithShape, param.name.loc, name);
      if (param.is_const) throw_error(DiagId::ConstAttribute, param.const_loc, name);
      if (param.domain_lo) throw_error(DiagId::AttributeDomain, param.domain_loc, name);
      if (!param.default_value && !(call ? call->attributes.count(name) || call->float_attributes.count(name)
                                         : defines_.count(name) > 0)) {
        if (call) throw_error(DiagId::CallMissingAttribute, call->loc, decl.name.text, name);
        throw_error(DiagId::MissingAttributeEntry, param.name.loc, name, decl.name.text, name);
      }
      if (param.is_float_attribute()) {
        Type type = *Type::parse(param.type.text);
        double value;
        if (call && call->float_attributes.count(name)) value = call->float_attributes.at(name);
        else if (!call && defines_.count(name)) value = defines_.at(name).number;
        else value = eval_const_number(*param.default_value, state.scope);
        state.scope.define(name, param.name.loc, Symbol::float_attribute(value, type, param.name.loc));
        state.def.attributes.push_back({name, type, float_text(value)});
        continue;
      }
      int64_t value;
      if (call && call->attributes.count(name)) value = call->attributes.at(name);
      else if (!call && defines_.count(name)) value = define_as_int(name, defines_.at(name));
      else value = eval_const_int(*param.default_value, state.scope);
      state.scope.define(name, param.name.loc, Symbol::size(value, param.name.loc));
      state.def.attributes.push_back({name, Index(), std::to_string(value)});
      continue;
    }
    std::optional<Type> type = Type::parse(param.type.text);
    if (!type) throw_error(DiagId::UnknownType, param.type.loc, param.type.text);
    if (!param.has_shape) throw_error(DiagId::TensorParamWithoutShape, param.name.loc, name, name, param.type.text);
    if (param.default_value) throw_error(DiagId::TensorParamDefault, param.name.loc, name);
    Buffer arg;
    if (call) {
      arg = call->tensors[tensor_index];
      const std::string& arg_name = call->tensor_names[tensor_index];
      SourceLoc arg_loc = call->tensor_locs[tensor_index];
      if (arg->ndim() != param.dims.size()) {
        throw_error(DiagId::CallRankMismatch, arg_loc, arg_name, decl.name.text, arg->ndim(), name, param.dims.size());
      }
      if (arg->dtype != *type) {
        throw_error(DiagId::CallElementType, arg_loc, arg_name, decl.name.text, arg->dtype.str(), name, type->str());
      }
    }
    std::vector<Expr> shape;
    std::vector<int64_t> extents;
    for (size_t d = 0; d < param.dims.size(); ++d) {
      const ast::Expr& dim = *param.dims[d];
      int64_t arg_extent = 0;
      if (call) is_const_int(arg->shape[d], &arg_extent);
      int64_t value;
      auto* dim_name = dim.as<ast::NameRef>();
      if (dim_name && !state.scope.lookup(dim_name->name)) {
        // A dimension variable, bound here.
        if (call) {
          value = arg_extent;
        } else if (defines_.count(dim_name->name)) {
          value = define_as_int(dim_name->name, defines_.at(dim_name->name));
        } else {
          throw_error(DiagId::UnboundDimension, dim.loc, dim_name->name, decl.name.text, dim_name->name);
        }
        state.scope.define(dim_name->name, dim.loc, Symbol::size(value, dim.loc));
      } else {
        value = eval_const_int(dim, state.scope);
        if (call && value != arg_extent) {
          const std::string& arg_name = call->tensor_names[tensor_index];
          throw_with_note(make_diagnostic(DiagId::CallShapeMismatch, call->tensor_locs[tensor_index], decl.name.text,
                                          d, arg_name, arg_extent, name, value),
                          dim.loc, fmt::format("the shape of '{}' is declared here", name));
        }
      }
      if (value <= 0) throw_error(DiagId::NonPositiveDimension, dim.loc, d, name, value);
      shape.push_back(IntImm::make(Index(), value));
      extents.push_back(value);
    }
    check_tensor_size(name, *type, extents, param.name.loc);
    Buffer buffer = call ? arg : BufferNode::make(name, *type, shape, MemScope::Global, BufferRole::Input);
    state.scope.define(name, param.name.loc, Symbol::tensor(buffer, param.name.loc));
    state.def.inputs.push_back(buffer);
    if (param.is_const && !call) state.def.const_inputs.insert(name);  // a callee's `const` says nothing
    if (param.domain_lo) {
      state.def.input_domains[buffer->name] = elaborate_input_domain(param, *type, state.scope);
      state.declared_domains.insert(buffer->name);
    }
    ++tensor_index;
  }
  for (const ast::Name& out : decl.outputs) {
    if (state.outputs.count(out.text)) throw_error(DiagId::Redefinition, out.loc, out.text);
    if (const Symbol* s = state.scope.lookup(out.text);
        s && (s->kind == Symbol::Kind::Tensor || s->kind == Symbol::Kind::FloatAttribute)) {
      throw_error(DiagId::OutputIsParameter, out.loc, out.text, decl.name.text);
    }
    state.outputs.insert(out.text);
  }
}

void OpElaborator::size_definition(const ast::Assign& assign, OpState& state) {
  if (assign.targets.size() != 1) throw_error(DiagId::SizeNeedsOneName, assign.targets[1].loc);
  const ast::Name& target = assign.targets[0];
  if (auto* n = assign.value->as<ast::NameRef>()) {
    const Symbol* s = state.scope.lookup(n->name);
    if (s && s->kind == Symbol::Kind::Tensor) throw_error(DiagId::TensorAlias, n->loc, n->name, target.text, n->name);
  }
  if (auto* c = assign.value->as<ast::Call>(); c && program_.callables.intrinsics.count(c->callee)) {
    throw_error(DiagId::CallOfIntrinsic, c->loc, c->callee);
  }
  if (const ast::Call* c = find_op_call(*assign.value, program_.callables)) {
    throw_error(DiagId::OpCallInExpression, c->loc, c->callee, c->callee);
  }
  if (state.outputs.count(target.text)) {
    throw_error(DiagId::OutputIsNotATensor, target.loc, target.text, state.def.name);
  }
  if (state.scope.lookup(target.text)) state.scope.define(target.text, target.loc, {});  // throws Redefinition
  int64_t value = eval_const_int(*assign.value, state.scope);
  state.scope.define(target.text, target.loc, Symbol::size(value, target.loc));
  state.scope.defined_now(target.text);
}

void OpElaborator::tensor_definition(const ast::TensorDef& def, OpState& state) {
  const std::string& name = def.name.text;
  if (state.scope.lookup(name)) state.scope.define(name, def.name.loc, {});  // throws Redefinition
  Scope def_scope(&state.scope);
  std::vector<IterVar> axes;
  std::vector<bool> annotated;
  for (size_t k = 0; k < def.indices.size(); ++k) {
    const ast::IndexDecl& idx = def.indices[k];
    int64_t extent = 0;
    if (idx.extent) {
      extent = eval_const_int(*idx.extent, state.scope);
      if (extent <= 0) throw_error(DiagId::NonPositiveExtent, idx.name.loc, idx.name.text, extent);
    }
    Var v = Variable::make(idx.name.text, Index());
    def_scope.define(idx.name.text, idx.name.loc, index_symbol(v, int(k)));
    axes.push_back(IterVar{v, IntImm::make(Index(), 0), IntImm::make(Index(), std::max<int64_t>(extent, 1)), false});
    annotated.push_back(idx.extent != nullptr);
  }
  ExprElaborator elaborator(def_scope, program_.callables);
  Expr body = elaborator.value(*def.value);

  // Extents of unannotated indices from their bare uses as subscripts.
  for (size_t k = 0; k < axes.size(); ++k) {
    if (annotated[k]) continue;
    const ast::IndexDecl& idx = def.indices[k];
    const BareIndexUse* first = nullptr;
    for (const BareIndexUse& use : elaborator.bare_uses()) {
      if (use.axis != int(k)) continue;
      if (!first) {
        first = &use;
      } else if (use.extent != first->extent) {
        throw_with_note(make_diagnostic(DiagId::ExtentConflict, use.loc, idx.name.text, first->extent, first->tensor,
                                        use.extent, use.tensor, idx.name.text),
                        first->loc, fmt::format("'{}' gets extent {} here", idx.name.text, first->extent));
      }
    }
    if (!first) throw_error(DiagId::ExtentNotInferable, idx.name.loc, idx.name.text, idx.name.text);
    axes[k].extent = IntImm::make(Index(), first->extent);
  }

  // Reads provably outside their tensor, unless a select guards them.
  VarRanges ranges = elaborator.reduction_ranges();
  std::vector<Expr> shape;
  std::vector<int64_t> extents;
  for (const IterVar& a : axes) {
    int64_t extent = 0;
    is_const_int(a.extent, &extent);
    ranges[a.var.get()] = IndexInterval{0, extent - 1, true, {}};
    shape.push_back(a.extent);
    extents.push_back(extent);
  }
  check_tensor_size(name, body->type.element_of(), extents, def.name.loc);
  for (const TensorRead& read : elaborator.reads()) {
    if (read.guarded) continue;
    for (size_t k = 0; k < read.indices.size(); ++k) {
      int64_t extent = 0;
      if (!is_const_int(read.buffer->shape[k], &extent)) continue;
      auto b = attained_bounds_of(read.indices[k], ranges);
      if (b && b->exact && (b->lo < 0 || b->hi >= extent)) {
        throw_error(DiagId::OutOfBoundsRead, read.index_locs[k], read.buffer->name, k + 1, b->lo, b->hi, extent);
      }
    }
  }

  BufferRole role = state.outputs.count(name) ? BufferRole::Output : BufferRole::Intermediate;
  Buffer buffer = BufferNode::make(name, body->type.element_of(), shape, MemScope::Global, role);
  state.def.stages.push_back(Stage{name, buffer, axes, body, def.name.loc, "", ""});
  state.scope.define(name, def.name.loc, Symbol::tensor(buffer, def.name.loc));
  state.scope.defined_now(name);
}

void OpElaborator::op_call(const ast::Assign& assign, const ast::Call& c, OpState& state) {
  const ast::OpDecl& callee = *visible_op(state.def.loc.file, c.callee);
  auto same_place = [](SourceLoc a, SourceLoc b) { return a.file == b.file && a.line == b.line && a.col == b.col; };
  auto is_callee = [&](const Caller& caller) { return same_place(caller.loc, callee.name.loc); };
  if (std::find_if(call_stack_.begin(), call_stack_.end(), is_callee) != call_stack_.end() ||
      same_place(state.def.loc, callee.name.loc)) {
    std::string chain;
    for (const Caller& op : call_stack_) chain += op.name + " -> ";
    chain += state.def.name + " -> ";
    throw_error(DiagId::RecursiveCall, c.loc, c.callee, chain + c.callee);
  }
  if (!c.fors.empty()) throw_error(DiagId::ForNotAllowed, c.fors.front().var.loc, c.callee);

  // Arguments: positional ones in parameter order, then attributes by keyword.
  CallSite site;
  site.loc = c.loc;
  std::vector<const ast::OpParam*> tensor_params;
  std::vector<std::string> attribute_names;
  for (const ast::OpParam& p : callee.params) {
    if (p.is_attribute())
      attribute_names.push_back(p.name.text);
    else
      tensor_params.push_back(&p);
  }
  std::map<std::string, SourceLoc> given;
  size_t positional = 0;
  const ast::Name* first_keyword = nullptr;
  for (const ast::CallArg& arg : c.args) {
    const ast::OpParam* param = nullptr;
    SourceLoc arg_loc = start_loc(*arg.value);
    if (!arg.keyword.text.empty() && !first_keyword) first_keyword = &arg.keyword;
    if (arg.keyword.text.empty() && first_keyword) {
      throw_error(DiagId::CallPositionalAfterKeyword, arg_loc, first_keyword->text);
    }
    if (arg.keyword.text.empty()) {
      if (positional >= callee.params.size()) {
        throw_error(DiagId::CallTooManyArgs, arg_loc, c.callee, callee.params.size(), c.args.size());
      }
      param = &callee.params[positional++];
    } else {
      for (const ast::OpParam& p : callee.params)
        if (p.name.text == arg.keyword.text) param = &p;
      if (!param) {
        std::string suggestion = closest_name(arg.keyword.text, attribute_names);
        if (!suggestion.empty()) {
          throw_error(DiagId::CallUnknownAttributeSuggest, arg.keyword.loc, c.callee, arg.keyword.text, suggestion);
        }
        throw_error(DiagId::CallUnknownAttribute, arg.keyword.loc, c.callee, arg.keyword.text);
      }
      if (!param->is_attribute()) throw_error(DiagId::CallTensorByKeyword, arg.keyword.loc, param->name.text, c.callee);
      arg_loc = arg.keyword.loc;
    }
    if (given.count(param->name.text)) throw_error(DiagId::CallDuplicateAttribute, arg_loc, param->name.text);
    given[param->name.text] = arg_loc;
    if (param->is_float_attribute()) {
      site.float_attributes[param->name.text] = eval_const_number(*arg.value, state.scope);
      continue;
    }
    if (param->type.text == "int") {
      if (const ast::FloatLit* f = find_float_literal(*arg.value))
        throw_error(DiagId::CallAttributeNotInt, f->loc, param->name.text, c.callee, f->text);
      site.attributes[param->name.text] = eval_const_int(*arg.value, state.scope);
      continue;
    }
    auto* n = arg.value->as<ast::NameRef>();
    if (!n) throw_error(DiagId::CallArgNotTensor, arg_loc, positional, c.callee, param->name.text);
    const Symbol* s = state.scope.lookup(n->name);
    if (!s) state.scope.throw_unknown(n->name, n->loc);
    if (s->kind != Symbol::Kind::Tensor) throw_error(DiagId::CallArgNotTensor, arg_loc, positional, c.callee, param->name.text);
    site.tensors.push_back(s->buffer);
    site.tensor_names.push_back(n->name);
    site.tensor_locs.push_back(n->loc);
  }
  if (site.tensors.size() != tensor_params.size()) {
    throw_error(DiagId::CallTensorArity, c.loc, c.callee, tensor_params.size(), site.tensors.size());
  }
  if (assign.targets.size() != callee.outputs.size()) {
    throw_error(DiagId::CallResultCount, assign.targets.front().loc, c.callee, callee.outputs.size(),
                assign.targets.size());
  }
  for (const ast::Name& t : assign.targets) {
    if (state.scope.lookup(t.text)) state.scope.define(t.text, t.loc, {});  // throws Redefinition
  }

  call_stack_.push_back({state.def.name, state.def.loc});
  OpDef elaborated;
  try {
    elaborated = elaborate(callee, &site);
  } catch (UserError& e) {
    call_stack_.pop_back();
    if (e.diag.loc.file != c.loc.file || e.diag.loc.line != c.loc.line || e.diag.loc.col != c.loc.col) {
      e.diag.notes.push_back({c.loc, fmt::format("in this call of '{}'", c.callee)});
    }
    throw;
  }
  call_stack_.pop_back();
  inherit_input_domains(elaborated, state);

  OpCall call{c.callee, &callee, &elaborated, site.tensor_names, {}};
  for (const ast::Name& t : assign.targets) call.results.push_back(t.text);
  auto taken = [&](const std::string& n) {
    return state.scope.lookup(n) || state.scope.is_declared_later(n) || state.outputs.count(n) ||
           state.def.find_stage(n);
  };
  ExpandedCall expansion = expand_op_call(call, taken, state.outputs);
  OpState::Carried carried;
  for (Stage& s : expansion.stages) {
    bool is_result = std::find(call.results.begin(), call.results.end(), s.name) != call.results.end();
    state.scope.define(s.name, is_result ? assign.targets.front().loc : c.loc, Symbol::tensor(s.buffer, s.loc));
    state.scope.defined_now(s.name);
    carried.stages.insert(s.name);
    state.def.stages.push_back(std::move(s));
  }
  carried.blocks = std::move(expansion.schedules);
  state.carried.push_back(std::move(carried));
}

void OpElaborator::inherit_input_domains(const OpDef& callee, OpState& state) const {
  for (const auto& entry : callee.input_domains) {
    // (Not a structured binding: clang 14, the fuzzer's compiler, cannot capture one in a lambda.)
    const std::string& name = entry.first;
    const auto& domain = entry.second;
    // Only this op's own inputs, passed whole (a callee's inputs are the caller's buffers).
    bool is_input = std::any_of(state.def.inputs.begin(), state.def.inputs.end(),
                                [&](const Buffer& b) { return b->name == name; });
    if (!is_input || state.declared_domains.count(name)) continue;
    auto [it, first] = state.def.input_domains.insert({name, domain});
    if (!first) {  // passed to several parameters with domains: where all of them hold
      std::pair<double, double> both = {std::max(it->second.first, domain.first), std::min(it->second.second, domain.second)};
      if (both.first < both.second) it->second = both;
    }
  }
}

void OpElaborator::unknown_op(const ast::Call& c) const {
  std::map<std::string, std::string> stdlib = stdlib_op_modules(program_.stdlib_dir);
  if (auto it = stdlib.find(c.callee); it != stdlib.end())
    throw_error(DiagId::OpNotImported, c.loc, c.callee, it->second, it->second);
  std::vector<std::string> candidates(program_.callables.ops.begin(), program_.callables.ops.end());
  std::string loaded = closest_name(c.callee, candidates);
  if (!loaded.empty()) throw_error(DiagId::UnknownOpSuggest, c.loc, c.callee, loaded);
  candidates.clear();
  for (const auto& [name, module] : stdlib) candidates.push_back(name);
  std::string in_stdlib = closest_name(c.callee, candidates);
  if (!in_stdlib.empty()) throw_error(DiagId::UnknownOpSuggestImport, c.loc, c.callee, in_stdlib, stdlib.at(in_stdlib));
  throw_error(DiagId::UnknownOp, c.loc, c.callee);
}

void OpElaborator::check_outputs(const ast::OpDecl& decl, OpState& state) {
  for (const ast::Name& out : decl.outputs) {
    const Stage* stage = state.def.find_stage(out.text);
    if (!stage) {
      const Symbol* s = state.scope.lookup(out.text);
      if (s && s->kind == Symbol::Kind::Size) throw_error(DiagId::OutputIsNotATensor, out.loc, out.text, decl.name.text);
      throw_error(DiagId::OutputNotDefined, out.loc, out.text, decl.name.text);
    }
    state.def.outputs.push_back(stage->buffer);
  }
}

void OpElaborator::schedules(const ast::OpDecl& decl, const ast::ComputeVariant* variant, OpState& state) {
  ScheduleContext context;
  for (const Stage& s : state.def.stages) {
    context.stages.push_back({s.name, loop_names(s)});
    // Its hidden reduction stages (`O_red` of `O[i] = sum(...) / Z[i]`): its axes and the reduction's.
    std::vector<const Reduce*> hidden = hidden_reductions(s.body);
    for (size_t k = 0; k < hidden.size(); ++k) {
      std::vector<std::string> loops;
      for (const IterVar& a : s.axes) loops.push_back(a.var->name);
      for (const IterVar& a : hidden[k]->axes) loops.push_back(a.var->name);
      context.stages.push_back({hidden_reduction_stage_name(s.name, int(k)), loops});
    }
  }
  // The op's own names for its inputs (when it is being called, its input buffers are the caller's).
  for (const ast::OpParam& p : decl.params)
    if (!p.is_attribute()) context.inputs.insert(p.name.text);
  for (const auto& [name, intrinsic] : program_.intrinsics) context.intrinsics.insert(name);
  context.sizes = &state.scope;
  std::vector<CheckedSchedule> own;
  std::map<std::string, SourceLoc> targets;
  for (const ast::ScheduleBlock& block : decl.schedules) {
    auto [previous, first] = targets.emplace(block.target.text, block.target.loc);
    if (!first) {
      throw_with_note(make_diagnostic(DiagId::DuplicateScheduleBlock, block.target.loc, decl.name.text,
                                      block.target.text, block.target.text),
                      previous->second, fmt::format("the first 'schedule {}' is here", block.target.text));
    }
    // A block schedules the compute its own target would use: a `schedule cuda` block names the
    // definition's stages even while the op is elaborated with its `compute cpu` implementation.
    if (variant_for(decl, block.target.text, state.scope) != variant) continue;
    own.push_back(elaborate_schedule(block, context));
  }

  for (const OpState::Carried& carried : state.carried) {
    for (const ScheduleBlock& block : carried.blocks) {
      bool overridden = false;
      for (const CheckedSchedule& mine : own) {
        if (!targets_overlap(mine.block.target, block.target)) continue;
        for (const std::string& s : mine.stages_named) overridden = overridden || carried.stages.count(s);
      }
      if (!overridden) state.def.schedules.push_back(block);
    }
  }
  for (CheckedSchedule& mine : own) state.def.schedules.push_back(std::move(mine.block));
}

}  // namespace texc
