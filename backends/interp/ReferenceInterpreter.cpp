#include "backends/interp/ReferenceInterpreter.h"

#include <cmath>
#include <limits>

#include "backends/interp/InterpError.h"
#include "ir/ConstEval.h"
#include "ir/Intrinsics.h"

namespace texc {

struct ReferenceInterpreter::TensorSource {
  const BufferNode* buffer;
  const Tensor* input;  // for an op input
  StageCache* stage;    // for a stage
  std::vector<int64_t> shape;
};

struct ReferenceInterpreter::StageCache {
  const Stage* stage;
  std::vector<int64_t> shape;
  int64_t size = 1;
  std::vector<Value> values;   // allocated on first use
  std::vector<double> magnitudes;  // the condition magnitude of each computed value (see the header)
  std::vector<uint8_t> state;  // 0 not computed, 1 being computed, 2 computed
};

namespace {
std::vector<int64_t> constant_shape(const Buffer& b, const std::string& what) {
  std::vector<int64_t> shape;
  for (const Expr& e : b->shape) {
    auto v = eval_int(e);
    if (!v) throw InterpError(what + " '" + b->name + "' has a shape that is not a constant");
    shape.push_back(*v);
  }
  return shape;
}
// The identity of a reduction (Reduce::identity, without building an Expr each time).
Value reduce_identity(ReduceKind kind, Type t) {
  double inf = std::numeric_limits<double>::infinity();
  if (t.is_float()) {
    switch (kind) {
      case ReduceKind::Sum: return float_value(0);
      case ReduceKind::Prod: return float_value(1);
      case ReduceKind::Max: return float_value(-inf);
      case ReduceKind::Min: return float_value(inf);
    }
  }
  switch (kind) {
    case ReduceKind::Sum: return int_value(0);
    case ReduceKind::Prod: return int_value(1);
    case ReduceKind::Max:
      if (t.is_uint() || t.is_bool()) return int_value(0);
      return int_value(t.bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (t.bits - 1)));
    case ReduceKind::Min:
      if (t.is_bool()) return int_value(1);
      if (t.is_uint()) return int_value(wrap_int(t, -1));
      return int_value(t.bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (t.bits - 1)) - 1);
  }
  return int_value(0);
}

}  // namespace

ReferenceInterpreter::ReferenceInterpreter(const OpDef& op, std::vector<const Tensor*> inputs) : op_(op) {
  if (inputs.size() != op.inputs.size())
    throw InterpError("op '" + op.name + "' takes " + std::to_string(op.inputs.size()) + " inputs, got " +
                      std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Buffer& b = op.inputs[i];
    std::vector<int64_t> shape = constant_shape(b, "input");
    if (!inputs[i] || inputs[i]->dtype() != b->dtype || inputs[i]->shape() != shape)
      throw InterpError("input '" + b->name + "' of op '" + op.name + "' must be " + b->dtype.str() +
                        shape_string(shape) + ", got " + (inputs[i] ? inputs[i]->describe() : "nothing"));
    sources_.push_back({b.get(), inputs[i], nullptr, shape});
  }
  for (const Stage& s : op.stages) {
    auto cache = std::make_unique<StageCache>();
    cache->stage = &s;
    cache->shape = constant_shape(s.buffer, "tensor");
    for (int64_t e : cache->shape) cache->size *= e;
    sources_.push_back({s.buffer.get(), nullptr, cache.get(), cache->shape});
    stages_.push_back(std::move(cache));
  }
}

ReferenceInterpreter::~ReferenceInterpreter() = default;

ReferenceInterpreter::StageCache& ReferenceInterpreter::stage_named(const std::string& name) const {
  for (const auto& s : stages_)
    if (s->stage->name == name) return *s;
  throw InterpError("op '" + op_.name + "' has no tensor named '" + name + "'");
}

Type ReferenceInterpreter::stage_dtype(const std::string& name) const { return stage_named(name).stage->buffer->dtype; }
std::vector<int64_t> ReferenceInterpreter::stage_shape(const std::string& name) const { return stage_named(name).shape; }

Value ReferenceInterpreter::evaluate_point(const std::string& name, const std::vector<int64_t>& index,
                                           double* magnitude) {
  StageCache& s = stage_named(name);
  bool in_bounds = index.size() == s.shape.size();
  for (size_t d = 0; in_bounds && d < index.size(); ++d) in_bounds = index[d] >= 0 && index[d] < s.shape[d];
  if (!in_bounds)
    throw InterpError("point " + shape_string(index) + " is outside tensor '" + name + "' of shape " +
                      shape_string(s.shape));
  bindings_.clear();
  evaluating_.clear();
  Evaluated e = evaluate_stage_point(s, index.data());
  if (magnitude) *magnitude = e.m;
  return e.v;
}

Tensor ReferenceInterpreter::evaluate_all(const std::string& name) {
  StageCache& s = stage_named(name);
  Tensor t(s.stage->buffer->dtype, s.shape);
  bool is_float = t.dtype().is_float();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    Value v = evaluate_point(name, t.unflatten(i));
    if (is_float) t.set_double(i, v.f);
    else t.set_int(i, v.i);
  }
  return t;
}

ReferenceInterpreter::Evaluated ReferenceInterpreter::evaluate_stage_point(StageCache& s, const int64_t* index) {
  size_t rank = s.shape.size();
  int64_t flat = 0;
  for (size_t d = 0; d < rank; ++d) flat = flat * s.shape[d] + index[d];
  if (s.state.empty()) {
    s.values.resize(size_t(s.size));
    s.magnitudes.resize(size_t(s.size));
    s.state.assign(size_t(s.size), 0);
  }
  if (s.state[flat] == 2) return {s.values[flat], s.magnitudes[flat]};
  std::vector<int64_t> point(index, index + rank);
  if (s.state[flat] == 1) fail("tensor '" + s.stage->name + "' depends on its own value at " + shape_string(point));
  s.state[flat] = 1;

  const Stage& stage = *s.stage;
  if (stage.axes.size() != rank)
    fail("tensor '" + stage.name + "' has " + std::to_string(stage.axes.size()) + " index variables for rank " +
         std::to_string(rank));
  // The axes are bound on top of whatever is bound now; this stage's body sees only its own axes
  // (a stage reads other stages through Loads, never their variables), so start a fresh scope.
  std::vector<std::pair<const Variable*, Evaluated>> outer_bindings;
  outer_bindings.swap(bindings_);
  for (size_t d = 0; d < rank; ++d)
    bindings_.push_back({stage.axes[d].var.get(), {int_value(index[d]), std::fabs(double(index[d]))}});
  evaluating_.push_back({&s, std::move(point)});

  Evaluated e;
  try {
    e = eval(stage.body);
  } catch (...) {
    s.state[flat] = 0;  // not computed: a later evaluation reports the same error, not a cycle
    evaluating_.pop_back();
    bindings_.swap(outer_bindings);
    throw;
  }
  Value v = e.v;
  Type t = stage.buffer->dtype;
  if (t.is_float()) v.f = round_float(t, stage.body->type.is_float() ? v.f : cast_to_float(t, stage.body->type, v.i, 0));
  else v.i = stage.body->type.is_float() ? cast_to_int(t, stage.body->type, 0, v.f) : wrap_int(t, v.i);

  evaluating_.pop_back();
  bindings_.swap(outer_bindings);
  // Stored: the rounding to t adds at most a unit roundoff of |v| (the magnitude covers |v|).
  double m = t.is_float() ? std::max(e.m, std::fabs(v.f)) : std::fabs(double(v.i));
  if (std::isnan(m)) m = INFINITY;
  s.values[flat] = v;
  s.magnitudes[flat] = m;
  s.state[flat] = 2;
  return {v, m};
}

void ReferenceInterpreter::fail(const std::string& what) const {
  std::string msg = what;
  if (!evaluating_.empty()) {
    msg += " while evaluating";
    for (size_t i = evaluating_.size(); i-- > 0;) {
      msg += " '" + evaluating_[i].first->stage->name + "' at " + shape_string(evaluating_[i].second);
      if (i) msg += ", for";
    }
  }
  throw InterpError(msg);
}

ReferenceInterpreter::Evaluated ReferenceInterpreter::lookup(const Variable* v) const {
  for (size_t i = bindings_.size(); i-- > 0;)
    if (bindings_[i].first == v) return bindings_[i].second;
  fail("variable '" + v->name + "' is not bound");
}

int64_t ReferenceInterpreter::eval_index(const Expr& e) {
  if (e->type.is_float()) fail("a floating-point value is used as an index");
  return eval(e).v.i;
}

ReferenceInterpreter::Evaluated ReferenceInterpreter::eval_load(const Load* load) {
  const BufferNode* b = load->buffer.get();
  const TensorSource* source = nullptr;
  for (const TensorSource& t : sources_)
    if (t.buffer == b) source = &t;
  if (!source) fail("read of '" + b->name + "', which is neither an input nor a tensor of op '" + op_.name + "'");
  size_t rank = load->indices.size();
  if (rank != source->shape.size())
    fail("read of '" + b->name + "' with " + std::to_string(rank) + " indices, but it has rank " +
         std::to_string(source->shape.size()));
  int64_t small[8];
  std::vector<int64_t> large;
  int64_t* index = small;
  if (rank > 8) {
    large.resize(rank);
    index = large.data();
  }
  for (size_t d = 0; d < rank; ++d) {
    index[d] = eval_index(load->indices[d]);
    if (index[d] < 0 || index[d] >= source->shape[d])
      fail("out-of-bounds read of '" + b->name + "' at " + shape_string(std::vector<int64_t>(index, index + d + 1)) +
           (d + 1 < rank ? "...: index " : ": index ") + std::to_string(index[d]) + " in dimension " +
           std::to_string(d) + " is outside [0, " + std::to_string(source->shape[d]) + ")");
  }
  if (source->stage) return evaluate_stage_point(*source->stage, index);
  const Tensor& t = *source->input;
  int64_t flat = 0;
  for (size_t d = 0; d < rank; ++d) flat = flat * source->shape[d] + index[d];
  if (t.dtype().is_float()) {
    double x = t.get_double(flat);
    return {float_value(x), std::fabs(x)};
  }
  int64_t x = t.get_int(flat);
  return {int_value(x), std::fabs(double(x))};
}

ReferenceInterpreter::Evaluated ReferenceInterpreter::eval_reduce(const Reduce* r) {
  Type t = r->type;
  Value acc = reduce_identity(r->reduce_kind, t);
  // The magnitude: a sum adds its terms' magnitudes, a product multiplies them; max and min take
  // the chosen term's (they do not round).
  double acc_m = r->reduce_kind == ReduceKind::Prod ? 1 : 0;
  BinaryOp combine = BinaryOp::Add;
  switch (r->reduce_kind) {
    case ReduceKind::Sum: combine = BinaryOp::Add; break;
    case ReduceKind::Prod: combine = BinaryOp::Mul; break;
    case ReduceKind::Max: combine = BinaryOp::Max; break;
    case ReduceKind::Min: combine = BinaryOp::Min; break;
  }
  // Iterates the axes as nested loops, outermost first; an axis' bounds may read outer axes.
  size_t base = bindings_.size();
  auto loop = [&](auto& self, size_t axis) -> void {
    if (axis == r->axes.size()) {
      Evaluated x = eval(r->source);
      if (t.is_float()) {
        double before = acc.f;
        acc.f = float_binary(combine, acc.f, x.v.f);
        if (combine == BinaryOp::Add) acc_m += x.m;
        else if (combine == BinaryOp::Mul) acc_m *= x.m;
        else if (acc.f != before || std::isnan(acc.f)) acc_m = x.m;
      } else {
        acc.i = int_binary(combine, t, acc.i, x.v.i);
        acc_m = std::fabs(double(acc.i));
      }
      return;
    }
    const IterVar& iv = r->axes[axis];
    int64_t lo = eval_index(iv.min), extent = eval_index(iv.extent);
    bindings_.push_back({iv.var.get(), {int_value(lo), 0}});
    for (int64_t k = lo; k < lo + extent; ++k) {
      bindings_[base + axis].second.v.i = k;
      self(self, axis + 1);
    }
    bindings_.pop_back();
  };
  loop(loop, 0);
  if (t.is_float()) acc_m = std::max(acc_m, std::fabs(acc.f));
  return {acc, acc_m};
}

namespace {

/// The condition magnitude of a math function's result r = f(x) (x with magnitude mx, y with my
/// for pow): |r| for its own rounding plus |f'| times the arguments' magnitudes (first order).
double math_magnitude(const std::string& name, const std::vector<double>& x, const std::vector<double>& m, double r) {
  double a = x[0], ma = m[0];
  if (name == "exp") return std::fabs(r) * (1 + ma);
  if (name == "log") return std::fabs(r) + ma / std::fabs(a);
  if (name == "sqrt") return std::fabs(r) + (ma == 0 ? 0 : ma / (2 * std::fabs(r)));
  if (name == "tanh") return std::fabs(r) + (1 - r * r) * ma;
  if (name == "sigmoid") return std::fabs(r) + r * (1 - r) * ma;
  if (name == "abs") return std::max(std::fabs(r), ma);
  if (name == "exp2") return std::fabs(r) * (1 + 0.69314718055994531 * ma);
  if (name == "expm1") return std::fabs(r) + std::fabs(r + 1) * ma;
  if (name == "log2") return std::fabs(r) + ma / (0.69314718055994531 * std::fabs(a));
  if (name == "log1p") return std::fabs(r) + ma / std::fabs(1 + a);
  if (name == "rsqrt") return std::fabs(r) + (ma == 0 ? 0 : 0.5 * std::fabs(r) * ma / std::fabs(a));
  if (name == "erf" || name == "erfc") return std::fabs(r) + 1.1283791670955126 * std::exp(-a * a) * ma;
  if (name == "sin") return std::fabs(r) + std::fabs(std::cos(a)) * ma;
  if (name == "cos") return std::fabs(r) + std::fabs(std::sin(a)) * ma;
  if (name == "atan2" && x.size() == 2) {  // atan2(y = a, x = b)
    double b = x[1], mb = m[1];
    double r2 = a * a + b * b;
    return std::fabs(r) + (r2 == 0 ? 0 : (std::fabs(b) * ma + std::fabs(a) * mb) / r2);
  }
  if (name == "fmod" && x.size() == 2) return std::fabs(r) + ma + std::fabs(std::trunc(a / x[1])) * m[1];
  if (name == "pow" && x.size() == 2) {
    double b = x[1], mb = m[1];
    double da = b == 0 ? 0 : std::fabs(b * std::pow(a, b - 1)) * ma;
    double db = mb == 0 ? 0 : std::fabs(r * std::log(std::fabs(a))) * mb;
    return std::fabs(r) + da + db;
  }
  return std::fabs(r);  // floor, ceil, round, trunc: piecewise constant
}

}  // namespace

ReferenceInterpreter::Evaluated ReferenceInterpreter::eval(const Expr& e) {
  switch (e->kind) {
    case ExprKind::IntImm: {
      int64_t i = e->as<IntImm>()->value;
      return {int_value(i), std::fabs(double(i))};
    }
    case ExprKind::FloatImm: {
      double f = e->as<FloatImm>()->value;
      return {float_value(f), std::fabs(f)};
    }
    case ExprKind::Variable: return lookup(e->as<Variable>());
    case ExprKind::Binary: {
      auto* b = e->as<Binary>();
      Type t = b->a->type;
      if (b->op == BinaryOp::And || b->op == BinaryOp::Or) {
        bool a = eval(b->a).v.i != 0;
        if (b->op == BinaryOp::And && !a) return {int_value(0), 0};
        if (b->op == BinaryOp::Or && a) return {int_value(1), 1};
        bool r = eval(b->b).v.i != 0;
        return {int_value(r), double(r)};
      }
      Evaluated x = eval(b->a), y = eval(b->b);
      if (t.is_float()) {
        double r = float_binary(b->op, x.v.f, y.v.f);
        if (is_comparison(b->op)) return {int_value(r != 0), double(r != 0)};
        double m;
        switch (b->op) {
          case BinaryOp::Add:
          case BinaryOp::Sub: m = x.m + y.m; break;
          case BinaryOp::Mul: m = x.m * y.m; break;
          case BinaryOp::Div: m = (x.m + std::fabs(r) * y.m) / std::fabs(y.v.f); break;
          case BinaryOp::Mod: m = x.m + std::fabs(std::floor(x.v.f / y.v.f)) * y.m; break;
          case BinaryOp::Min:
          case BinaryOp::Max: m = r == x.v.f ? (r == y.v.f ? std::max(x.m, y.m) : x.m) : y.m; break;
          default: m = std::fabs(r);
        }
        if (std::isnan(m)) m = INFINITY;
        return {float_value(r), std::max(m, std::fabs(r))};
      }
      int64_t r = int_binary(b->op, t, x.v.i, y.v.i);
      return {int_value(r), std::fabs(double(r))};
    }
    case ExprKind::Not: {
      bool r = eval(e->as<Not>()->a).v.i == 0;
      return {int_value(r), double(r)};
    }
    case ExprKind::Select: {
      auto* s = e->as<Select>();
      return eval(s->cond).v.i ? eval(s->true_value) : eval(s->false_value);
    }
    case ExprKind::Cast: {
      auto* c = e->as<Cast>();
      Type from = c->value->type, to = c->type;
      Evaluated v = eval(c->value);
      if (to.is_float()) {
        double r = cast_to_float(to, from, v.v.i, v.v.f);
        return {float_value(r), from.is_float() ? std::max(v.m, std::fabs(r)) : std::fabs(r)};
      }
      int64_t r = cast_to_int(to, from, v.v.i, v.v.f);
      return {int_value(r), std::fabs(double(r))};
    }
    case ExprKind::Call: {
      auto* c = e->as<Call>();
      if (is_value_hint(c)) return eval(c->args[0]);
      if (c->call_kind != CallKind::Math) fail("call of '" + c->name + "' cannot be evaluated in a compute definition");
      if (c->name == "abs" && c->args.size() == 1 && !c->type.is_float()) {
        int64_t x = eval(c->args[0]).v.i;
        int64_t r = wrap_int(c->type, x < 0 && !c->type.is_uint() ? int64_t(0 - uint64_t(x)) : x);
        return {int_value(r), std::fabs(double(r))};
      }
      std::vector<double> args, magnitudes;
      for (const Expr& a : c->args) {
        Evaluated v = eval(a);
        args.push_back(a->type.is_float() ? v.v.f : cast_to_float(Float(64), a->type, v.v.i, 0));
        magnitudes.push_back(a->type.is_float() ? v.m : 0);  // an integer argument is exact
      }
      // isnan and isinf classify the argument as its type holds it: an f16 product past 65504 is
      // inf there though not in double.
      if ((c->name == "isnan" || c->name == "isinf") && c->args[0]->type.is_float())
        args[0] = round_float(c->args[0]->type, args[0]);
      MathFunction f = find_math_function(c->name, args.size());
      if (!f) fail("unknown math function '" + c->name + "' with " + std::to_string(args.size()) + " argument(s)");
      double r = f(args.data());
      if (c->type.is_float()) {
        double m = math_magnitude(c->name, args, magnitudes, r);
        return {float_value(r), std::isnan(m) ? INFINITY : m};
      }
      int64_t i = cast_to_int(c->type, Float(64), 0, r);
      return {int_value(i), std::fabs(double(i))};
    }
    case ExprKind::Load: return eval_load(e->as<Load>());
    case ExprKind::Let: {
      auto* l = e->as<Let>();
      Evaluated v = eval(l->value);
      bindings_.push_back({l->var.get(), v});
      Evaluated r = eval(l->body);
      bindings_.pop_back();
      return r;
    }
    case ExprKind::Reduce: return eval_reduce(e->as<Reduce>());
    case ExprKind::Ramp:
    case ExprKind::Broadcast: fail("vector expression in a compute definition");
  }
  fail("unknown expression kind");
}

}  // namespace texc
