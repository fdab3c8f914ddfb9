#include "frontend/ScheduleElaborator.h"

#include <algorithm>
#include <map>
#include <optional>

#include "frontend/ConstExpr.h"
#include "frontend/ExprElaborator.h"
#include "frontend/Suggest.h"
#include "ir/ConstEval.h"
#include "ir/IROperators.h"
#include "ir/Target.h"
#include "ir/TargetProperties.h"

namespace texc {

namespace {

enum class ArgKind { Loop, Stage, Tensor, Value, Scope, ThreadTag, Intrinsic };

struct PrimitiveSignature {
  const char* name;
  std::vector<ArgKind> args;  // the positional arguments
  bool variadic;              // the last kind may repeat
  int results;
  bool results_are_stages;
};

const std::vector<PrimitiveSignature>& primitive_signatures() {
  using K = ArgKind;
  static const std::vector<PrimitiveSignature> table = {
      {"split", {K::Loop, K::Value}, false, 2, false},
      {"tile", {K::Loop, K::Loop, K::Value, K::Value}, false, 4, false},
      {"fuse", {K::Loop, K::Loop}, true, 1, false},
      {"reorder", {K::Loop}, true, 0, false},
      {"compute_at", {K::Stage, K::Loop}, false, 0, false},
      {"inline", {K::Stage}, false, 0, false},
      {"compute_root", {K::Stage}, false, 0, false},
      {"cache_read", {K::Tensor, K::Scope, K::Stage}, true, 1, true},
      {"cache_write", {K::Stage, K::Scope}, false, 1, true},
      {"bind", {K::Loop, K::ThreadTag}, false, 0, false},
      {"parallel", {K::Loop}, false, 0, false},
      {"vectorize", {K::Loop}, false, 0, false},
      {"unroll", {K::Loop}, false, 0, false},
      {"tensorize", {K::Loop, K::Intrinsic}, false, 0, false},
      {"rfactor", {K::Stage, K::Loop}, false, 1, true},
      {"storage_align", {K::Stage, K::Loop, K::Value, K::Value}, false, 0, false},
      {"double_buffer", {K::Stage}, false, 0, false},
      {"prefetch", {K::Tensor, K::Loop, K::Value}, false, 0, false},
  };
  return table;
}

constexpr int64_t kMaxFactorsArgument = int64_t(1) << 40;
/// The default of `knob T in factors(N)` is the largest divisor of N up to this: a tile of a few
/// vectors (04_knobs.tex's matmul, N = 512: 32 runs 40x faster than 1 at one thread).
constexpr int64_t kFactorsDefaultMax = 32;

// The names the schedule language knows, from the target table (ir/Target.h).
const std::vector<std::string>& kTargets = schedule_block_names();
const std::vector<std::string>& kThreadTags = all_thread_tags();
const std::vector<std::string>& kScopes = scope_names();
const std::vector<std::string> kBuiltinIntrinsics = [] {
  std::vector<std::string> names;
  for (const Target& t : all_targets()) names.insert(names.end(), t.builtin_intrinsics.begin(), t.builtin_intrinsics.end());
  return names;
}();

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

class ScheduleChecker {
 public:
  explicit ScheduleChecker(const ScheduleContext& context) : context_(context) {
    for (const auto& s : context.stages) stage_loops_[s.stage] = s.loops;
  }

  CheckedSchedule run(const ast::ScheduleBlock& block) {
    if (!contains(kTargets, block.target.text)) throw_error(DiagId::UnknownTarget, block.target.loc, block.target.text);
    CheckedSchedule out;
    out.block.target = block.target.text;
    out.block.loc = block.target.loc;
    out.block.items = items(block.items);
    out.stages_named = std::move(stages_named_);
    return out;
  }

 private:
  std::vector<SchedItem> items(const std::vector<ast::SchedItem>& list) {
    std::vector<SchedItem> out;
    for (const ast::SchedItem& item : list) {
      if (item.apply) {
        out.push_back(apply(*item.apply));
      } else if (item.knob) {
        out.push_back(knob(*item.knob));
      } else if (item.if_) {
        out.push_back(if_item(*item.if_));
      }
    }
    return out;
  }

  SchedKnob knob(const ast::KnobDecl& k) {
    if (knobs_.count(k.name.text)) {
      throw_with_note(make_diagnostic(DiagId::Redefinition, k.name.loc, k.name.text), knobs_[k.name.text].loc,
                      fmt::format("knob '{}' is declared here", k.name.text));
    }
    SchedKnob knob;
    knob.name = k.name.text;
    knob.loc = k.name.loc;
    if (k.factors_of) {
      int64_t n = eval_const_int(*k.factors_of, *context_.sizes);
      if (n <= 0) throw_error(DiagId::FactorsOfNonPositive, start_loc(*k.factors_of), n);
      // Trial division up to sqrt(n): bounded so that no input makes the front end hang.
      if (n > kMaxFactorsArgument) throw_error(DiagId::FactorsTooLarge, start_loc(*k.factors_of), n, kMaxFactorsArgument);
      for (int64_t d = 1; d * d <= n; ++d) {
        if (n % d == 0) knob.values.push_back(d);
      }
      for (size_t i = knob.values.size(); i-- > 0;) {
        int64_t other = n / knob.values[i];
        if (other != knob.values[i]) knob.values.push_back(other);
      }
      // The first value is the default without records: not 1 (an untiled, scalar loop), but the
      // largest divisor up to kFactorsDefaultMax; the others follow in increasing order.
      auto default_value = std::find_if(knob.values.rbegin(), knob.values.rend(),
                                        [](int64_t d) { return d <= kFactorsDefaultMax; });
      std::rotate(knob.values.begin(), std::prev(default_value.base()), default_value.base());
    } else {
      knob.is_bool = k.values.front().is_bool;
      for (const ast::KnobValue& v : k.values) {
        if (v.is_bool != knob.is_bool) throw_error(DiagId::KnobMixedValues, v.loc, k.name.text);
        knob.values.push_back(v.value);
      }
    }
    knob.var = Variable::make(knob.name, knob.is_bool ? Bool() : Index());
    knobs_[knob.name] = knob;
    return knob;
  }

  std::shared_ptr<SchedIf> if_item(const ast::SchedIf& i) {
    auto node = std::make_shared<SchedIf>();
    node->loc = i.loc;
    node->cond = value(*i.cond);
    if (!node->cond->type.is_bool()) {
      throw_error(DiagId::ScheduleCondNotBool, start_loc(*i.cond), node->cond->type.str());
    }
    // Only one branch is applied, so each branch may bind the names the other binds (the same
    // tiling written two ways); a name is visible after the `if` when some branch binds it (using
    // it where the taken branch did not is "unknown loop" when the schedule is applied).
    auto bound_before = bound_;
    auto stages_before = cache_stages_;
    node->then_items = items(i.then_items);
    std::swap(bound_before, bound_);
    std::swap(stages_before, cache_stages_);
    node->else_items = items(i.else_items);
    bound_.insert(bound_before.begin(), bound_before.end());
    cache_stages_.insert(stages_before.begin(), stages_before.end());
    return node;
  }

  const PrimitiveSignature& signature(const ast::Name& primitive) {
    // TVM's and Halide's spellings of a primitive that means the same here.
    static const std::map<std::string, std::string> kOtherSpellings = {{"compute_inline", "inline"}};
    auto spelled = kOtherSpellings.find(primitive.text);
    const std::string& name = spelled == kOtherSpellings.end() ? primitive.text : spelled->second;
    std::vector<std::string> names;
    for (const PrimitiveSignature& s : primitive_signatures()) {
      if (name == s.name) return s;
      names.push_back(s.name);
    }
    std::string suggestion = closest_name(primitive.text, names);
    if (!suggestion.empty()) throw_error(DiagId::UnknownPrimitiveSuggest, primitive.loc, primitive.text, suggestion);
    throw_error(DiagId::UnknownPrimitive, primitive.loc, primitive.text);
  }

  SchedPrimitive apply(const ast::SchedApply& a) {
    const PrimitiveSignature& sig = signature(a.primitive);
    SchedPrimitive p;
    p.primitive = sig.name;  // compute_inline is inline
    p.loc = a.primitive.loc;
    // Arguments: positional ones by the signature; split also takes `nparts = P` for its factor,
    // prefetch `from = L` (the loop whose later iteration it fetches for) after its positional ones.
    size_t positional = 0;
    for (const ast::SchedArg& arg : a.args) {
      SchedArg out;
      out.loc = start_loc(*arg.value);
      ArgKind kind;
      if (p.primitive == "prefetch" && arg.keyword.text == "from") {
        if (positional != sig.args.size() || p.args.size() != sig.args.size())  // after the others, once
          throw_error(DiagId::ScheduleArgCount, arg.keyword.loc, p.primitive, sig.args.size(), a.args.size());
        out.keyword = arg.keyword.text;
        out.name = loop_name(*arg.value, p.primitive, positional + 1);
        p.args.push_back(std::move(out));
        continue;
      }
      if (!arg.keyword.text.empty()) {
        if (p.primitive != "split" || arg.keyword.text != "nparts") {
          throw_error(DiagId::UnknownKeywordArg, arg.keyword.loc, p.primitive, arg.keyword.text);
        }
        if (positional != 1) throw_error(DiagId::ScheduleArgCount, arg.keyword.loc, p.primitive, 2, a.args.size());
        out.keyword = arg.keyword.text;
        out.loc = arg.keyword.loc;
        kind = ArgKind::Value;
        ++positional;  // nparts stands in for the factor
      } else {
        if (positional >= sig.args.size() && !sig.variadic) {
          throw_error(DiagId::ScheduleArgCount, out.loc, p.primitive, sig.args.size(), a.args.size());
        }
        kind = sig.args[std::min(positional, sig.args.size() - 1)];
        ++positional;
      }
      switch (kind) {
        case ArgKind::Loop: out.name = loop_name(*arg.value, p.primitive, positional); break;
        case ArgKind::Stage: out.name = stage_name(*arg.value, false); break;
        case ArgKind::Tensor: out.name = stage_name(*arg.value, true); break;
        case ArgKind::Value: out.value = value(*arg.value); break;
        case ArgKind::Scope: out.name = scope_name(*arg.value, p.primitive, positional); break;
        case ArgKind::ThreadTag:
          out.name = listed_name(*arg.value, kThreadTags, DiagId::BadThreadTag, p.primitive, positional);
          break;
        case ArgKind::Intrinsic: out.name = intrinsic_name(*arg.value, p.primitive, positional); break;
      }
      if (kind == ArgKind::Value && !out.value->type.is_integer()) {
        throw_error(DiagId::ScheduleValueNotInt, out.loc, out.value->type.str());
      }
      p.args.push_back(std::move(out));
    }
    if (positional < sig.args.size()) {
      throw_error(DiagId::ScheduleArgCount, a.primitive.loc, p.primitive, sig.args.size(), a.args.size());
    }
    if (int(a.results.size()) != sig.results) {
      SourceLoc loc = a.results.empty() ? a.primitive.loc : a.results.front().loc;
      throw_error(DiagId::WrongResultCount, loc, p.primitive, sig.results, a.results.size());
    }
    for (const ast::Name& r : a.results) {
      if (bound_.count(r.text) || stage_loops_.count(r.text) || cache_stages_.count(r.text)) {
        SourceLoc previous = bound_.count(r.text) ? bound_[r.text] : SourceLoc{};
        throw_with_note(make_diagnostic(DiagId::Redefinition, r.loc, r.text), previous,
                        fmt::format("'{}' is bound here", r.text));
      }
      if (sig.results_are_stages) {
        cache_stages_.insert(r.text);
      } else {
        bound_[r.text] = r.loc;
      }
      p.results.push_back(r.text);
      p.result_locs.push_back(r.loc);
    }
    return p;
  }

  /// A name argument as written (a bare name or a dotted name); errors if it is an expression.
  static std::string written_name(const ast::Expr& e, const std::string& primitive, size_t position) {
    if (auto* n = e.as<ast::NameRef>()) return n->name;
    if (auto* d = e.as<ast::DottedName>()) return d->text();
    throw_error(DiagId::ScheduleExpectedName, start_loc(e), position, primitive);
  }

  std::string loop_name(const ast::Expr& e, const std::string& primitive, size_t position) {
    if (auto* d = e.as<ast::DottedName>()) {
      if (d->parts.size() != 2) throw_error(DiagId::UnknownLoop, e.loc, d->text());
      const ast::Name& stage = d->parts[0];
      const ast::Name& loop = d->parts[1];
      check_stage(stage.text, stage.loc, false);
      auto it = stage_loops_.find(stage.text);
      if (it != stage_loops_.end() && !contains(it->second, loop.text)) {
        throw_error(DiagId::LoopNotInStage, loop.loc, stage.text, loop.text, join(it->second));
      }
      return d->text();
    }
    std::string name = written_name(e, primitive, position);
    if (bound_.count(name)) return name;
    std::vector<std::string> candidates;
    for (const auto& [n, loc] : bound_) candidates.push_back(n);
    for (const auto& [stage, loops] : stage_loops_)
      for (const std::string& l : loops) candidates.push_back(stage + "." + l);
    std::string suggestion = closest_name(name, candidates);
    if (!suggestion.empty()) throw_error(DiagId::UnknownLoopSuggest, e.loc, name, suggestion);
    throw_error(DiagId::UnknownLoop, e.loc, name);
  }

  void check_stage(const std::string& name, SourceLoc loc, bool allow_inputs) {
    if (stage_loops_.count(name) || cache_stages_.count(name)) {
      if (stage_loops_.count(name)) stages_named_.insert(name);
      return;
    }
    if (allow_inputs && context_.inputs.count(name)) return;
    std::vector<std::string> candidates;
    for (const auto& [stage, loops] : stage_loops_) candidates.push_back(stage);
    candidates.insert(candidates.end(), cache_stages_.begin(), cache_stages_.end());
    if (allow_inputs) candidates.insert(candidates.end(), context_.inputs.begin(), context_.inputs.end());
    std::string suggestion = closest_name(name, candidates);
    if (!suggestion.empty()) throw_error(DiagId::UnknownStageSuggest, loc, name, suggestion);
    throw_error(DiagId::UnknownStage, loc, name);
  }

  std::string stage_name(const ast::Expr& e, bool allow_inputs) {
    auto* n = e.as<ast::NameRef>();
    if (!n) {
      if (auto* d = e.as<ast::DottedName>()) throw_error(DiagId::UnknownStage, e.loc, d->text());
      throw_error(DiagId::UnknownStage, start_loc(e), "(an expression)");
    }
    check_stage(n->name, n->loc, allow_inputs);
    return n->name;
  }

  std::string listed_name(const ast::Expr& e, const std::vector<std::string>& allowed, DiagId error,
                          const std::string& primitive, size_t position) {
    std::string name = written_name(e, primitive, position);
    if (!contains(allowed, name)) throw_error(error, e.loc, name);
    return name;
  }

  /// A scope some target declares (ir/Target.h); whether the target being compiled has it is
  /// checked when the schedule is applied (lower/schedule/ScheduleState.h, scope_arg).
  std::string scope_name(const ast::Expr& e, const std::string& primitive, size_t position) {
    std::string name = written_name(e, primitive, position);
    if (contains(kScopes, name)) return name;
    std::string expected;
    for (size_t i = 0; i < kScopes.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == kScopes.size() ? " or " : ", ") + kScopes[i];
    throw_error(DiagId::BadScope, e.loc, name, expected);
  }

  std::string intrinsic_name(const ast::Expr& e, const std::string& primitive, size_t position) {
    std::string name = written_name(e, primitive, position);
    if (context_.intrinsics.count(name) || contains(kBuiltinIntrinsics, name)) return name;
    throw_error(DiagId::UnknownIntrinsic, e.loc, name);
  }

  /// An integer or bool expression over knobs, params and sizes: literals, + - * / %, comparisons,
  /// && || !, min(a, b), max(a, b), select(cond, a, b).
  Expr value(const ast::Expr& e) {
    switch (e.kind) {
      case ast::ExprKind::IntLit: return IntImm::make(Index(), e.as<ast::IntLit>()->value);
      case ast::ExprKind::BoolLit: return make_bool(e.as<ast::BoolLit>()->value);
      case ast::ExprKind::Name: {
        const std::string& name = e.as<ast::NameRef>()->name;
        auto k = knobs_.find(name);
        if (k != knobs_.end()) return k->second.var;
        if (const Symbol* s = context_.sizes->lookup(name); s && s->kind == Symbol::Kind::Size) {
          return IntImm::make(Index(), s->value);
        }
        std::vector<std::string> candidates;
        for (const auto& [n, knob] : knobs_) candidates.push_back(n);
        std::string suggestion = closest_name(name, candidates);
        if (!suggestion.empty()) throw_error(DiagId::UnknownKnobSuggest, e.loc, name, suggestion);
        throw_error(DiagId::UnknownKnob, e.loc, name);
      }
      case ast::ExprKind::Unary: {
        auto* u = e.as<ast::Unary>();
        Expr x = value(*u->operand);
        if (u->op == "!") {
          if (!x->type.is_bool()) throw_error(DiagId::NeedsBool, u->loc, "!", x->type.str());
          return Not::make(x);
        }
        if (!x->type.is_integer()) throw_error(DiagId::ScheduleValueNotInt, u->loc, x->type.str());
        return Binary::make(BinaryOp::Sub, IntImm::make(Index(), 0), x);
      }
      case ast::ExprKind::Binary: {
        auto* b = e.as<ast::Binary>();
        Expr x = value(*b->lhs);
        Expr y = value(*b->rhs);
        static const std::map<std::string, BinaryOp> ops = {
            {"+", BinaryOp::Add}, {"-", BinaryOp::Sub}, {"*", BinaryOp::Mul}, {"/", BinaryOp::Div},
            {"%", BinaryOp::Mod}, {"<", BinaryOp::LT},  {"<=", BinaryOp::LE}, {">", BinaryOp::GT},
            {">=", BinaryOp::GE}, {"==", BinaryOp::EQ}, {"!=", BinaryOp::NE}, {"&&", BinaryOp::And},
            {"||", BinaryOp::Or}};
        auto it = ops.find(b->op);
        if (it == ops.end()) throw_error(DiagId::ScheduleValueNotInt, b->loc, "a shift");
        BinaryOp op = it->second;
        bool logical = op == BinaryOp::And || op == BinaryOp::Or;
        for (const Expr& operand : {x, y}) {
          if (logical && !operand->type.is_bool()) throw_error(DiagId::NeedsBool, b->loc, b->op, operand->type.str());
          if (!logical && op != BinaryOp::EQ && op != BinaryOp::NE && !operand->type.is_integer()) {
            throw_error(DiagId::ScheduleValueNotInt, b->loc, operand->type.str());
          }
        }
        if (x->type != y->type) throw_error(DiagId::TypeMismatch, b->loc, b->op, x->type.str(), y->type.str(), "i64");
        // A divisor that is 0 whatever the knobs is the operator's fault, not the condition's.
        if (std::optional<int64_t> divisor = eval_int(y);
            divisor && *divisor == 0 && (op == BinaryOp::Div || op == BinaryOp::Mod))
          throw_error(DiagId::DivisionByZero, b->loc, b->op);
        return Binary::make(op, x, y);
      }
      case ast::ExprKind::DottedName: {
        auto* d = e.as<ast::DottedName>();
        if (d->parts.size() != 2 || d->parts[0].text != "target")
          throw_error(DiagId::ScheduleValueNotInt, e.loc, "the name '" + d->text() + "'");
        return target_property(d->parts[1]);
      }
      case ast::ExprKind::Call: {
        // min(a, b) and max(a, b) of integers; select(cond, a, b); target.vector_lanes(T), target.has("F").
        auto* c = e.as<ast::Call>();
        if (c->callee.rfind("target.", 0) == 0) return target_call(*c);
        if (c->callee == "select" && c->fors.empty()) return select(*c);
        if ((c->callee != "min" && c->callee != "max") || !c->fors.empty()) {
          throw_error(DiagId::ScheduleValueNotInt, c->loc, "a call of '" + c->callee + "'");
        }
        if (c->args.size() != 2) throw_error(DiagId::WrongArgCount, c->loc, c->callee, 2, c->args.size());
        for (const ast::CallArg& a : c->args)
          if (!a.keyword.text.empty()) throw_error(DiagId::KeywordNotAllowed, a.keyword.loc, c->callee);
        Expr x = value(*c->args[0].value);
        Expr y = value(*c->args[1].value);
        for (const Expr& operand : {x, y})
          if (!operand->type.is_integer()) throw_error(DiagId::ScheduleValueNotInt, c->loc, operand->type.str());
        return Binary::make(c->callee == "min" ? BinaryOp::Min : BinaryOp::Max, x, y);
      }
      default: throw_error(DiagId::ScheduleValueNotInt, start_loc(e), "this expression");
    }
  }

  /// target.vector_bits, target.vector_registers, target.l1_bytes, target.l2_bytes (ir/TargetProperties.h).
  Expr target_property(const ast::Name& member) {
    const std::vector<std::string>& names = target_property_names();
    if (contains(names, member.text)) return target_property_var("target." + member.text);
    std::vector<std::string> all = names;
    all.push_back("vector_lanes");
    all.push_back("has");
    if (member.text == "vector_lanes" || member.text == "has")
      throw_error(DiagId::ScheduleError, member.loc,
                  fmt::format("target.{} takes {}", member.text,
                              member.text == "has" ? "a feature name in quotes: target.has(\"fma\")"
                                                   : "an element type: target.vector_lanes(f32)"));
    unknown_target_property(member.text, member.loc);
  }

  /// target.vector_lanes(T): target.vector_bits / bits(T); target.has("F"): a bool.
  Expr target_call(const ast::Call& c) {
    std::string member = c.callee.substr(std::string("target.").size());
    const ast::NameRef* arg = c.args.size() == 1 ? c.args[0].value->as<ast::NameRef>() : nullptr;
    if (member == "vector_lanes") {
      std::optional<Type> t = arg ? Type::parse(arg->name) : std::nullopt;
      if (!t || t->is_bool() || t->lanes != 1)
        throw_error(DiagId::ScheduleError, arg ? arg->loc : c.loc,
                    fmt::format("target.vector_lanes takes an element type (f32, f16, i8, ...), not '{}'", arg ? arg->name : ""));
      return Binary::make(BinaryOp::Div, target_property_var("target.vector_bits"), IntImm::make(Index(), t->bits));
    }
    if (member == "has") return target_property_var("target.has(" + arg->name + ")");
    if (contains(target_property_names(), member))
      throw_error(DiagId::ScheduleError, c.loc, fmt::format("target.{} takes no argument", member));
    unknown_target_property(member, c.loc);
  }

  [[noreturn]] static void unknown_target_property(const std::string& member, SourceLoc loc) {
    std::vector<std::string> all = target_property_names();
    all.push_back("vector_lanes");
    all.push_back("has");
    std::string suggestion = closest_name(member, all);
    if (!suggestion.empty())
      throw_error(DiagId::ScheduleError, loc,
                  fmt::format("unknown target property 'target.{}'; did you mean 'target.{}'?", member, suggestion));
    throw_error(DiagId::ScheduleError, loc,
                fmt::format("unknown target property 'target.{}' (a schedule may ask target.vector_bits, "
                            "target.vector_lanes(TYPE), target.vector_registers, target.l1_bytes, "
                            "target.l2_bytes and target.has(\"FEATURE\"))",
                            member));
  }

  /// select(cond, a, b): a where cond holds, else b (integers, or bools).
  Expr select(const ast::Call& c) {
    if (c.args.size() != 3) throw_error(DiagId::WrongArgCount, c.loc, c.callee, 3, c.args.size());
    for (const ast::CallArg& a : c.args)
      if (!a.keyword.text.empty()) throw_error(DiagId::KeywordNotAllowed, a.keyword.loc, c.callee);
    Expr cond = value(*c.args[0].value);
    if (!cond->type.is_bool()) throw_error(DiagId::NeedsBool, start_loc(*c.args[0].value), "select", cond->type.str());
    Expr x = value(*c.args[1].value);
    Expr y = value(*c.args[2].value);
    if (x->type != y->type) throw_error(DiagId::TypeMismatch, c.loc, "select", x->type.str(), y->type.str(), "i64");
    return Select::make(cond, x, y);
  }

  const ScheduleContext& context_;
  std::map<std::string, std::vector<std::string>> stage_loops_;
  std::map<std::string, SchedKnob> knobs_;
  std::map<std::string, SourceLoc> bound_;  // loops bound by results, in this block
  std::set<std::string> cache_stages_;      // stages created by cache_read/cache_write
  std::set<std::string> stages_named_;
};

}  // namespace

CheckedSchedule elaborate_schedule(const ast::ScheduleBlock& block, const ScheduleContext& context) {
  return ScheduleChecker(context).run(block);
}

}  // namespace texc
