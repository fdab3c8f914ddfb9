// tensorize(L, NAME): the loop nest under loop L (L included) is replaced by one call of the tensor
// intrinsic NAME (language.md "intrinsics").
//
// Contract: NAME is an intrinsic declared with `lower extern "symbol"` or `lower llvm "llvm.ARCH.X"`
// and visible to the op (OpDef::intrinsics), or a built-in of the target (ir/Target.h names it:
// `vdla.gemm` on vdla; ScheduleState::builtin_intrinsics defines it); another lowering, or a built-in of another target, is reported as not available on the
// target, and an `llvm.x86.*` intrinsic off x86 or interp (`llvm.aarch64.*` off arm or interp) as
// belonging to its own target. The
// match is structural, like TensorIR's tensorize:
//  - shape: the loops from L inward are perfectly nested down to one Block, one loop per intrinsic
//    axis (spatial axes then reduction axes, by order) with equal constant extents;
//  - the Block's reduction is complete under L (no reduction axis is driven by a loop outside L);
//  - expression: the stored value matches the intrinsic's (same operators, casts, constants,
//    reduction kind and types); intrinsic buffers are mapped to the Block's buffers in order of
//    first appearance, and element types must agree;
//  - strides: every access, flattened row-major with its buffer's full shape, is affine in the
//    loops under L with the same stride for each loop as the intrinsic's access has for the
//    corresponding axis, and the intrinsic's accesses start at element 0.
// A mismatch is a diagnostic that says which part did not match. A built-in accumulating
// intrinsic (vdla.gemm: c[j] += i32(a[k]) * i32(b[j, k]), the GEMM unit's out[1 x block_out] +=
// in[1 x block_in] . wgt^T[block_out x block_in], its definition for the accelerator's
// configuration given with the lowering: ScheduleState::builtin_intrinsics) may leave reduction axes to loops outside L (the accumulator is reset by the
// reduction's own init); its nest stays as it is, L marked `tensorized` with the intrinsic's name
// as the loop's tag, for the target's code generator to emit (and the loop interpreter to run as
// plain loops). An extern intrinsic's nest becomes
//   Evaluate(Call(i32, symbol, {address_of(X[base])...}, Extern))
// with the intrinsic's inputs first, then its outputs (parameter order), each base being the
// access's indices with the loops under L at 0; split guards that depend only on outer loops
// guard the call. An LLVM intrinsic accumulates like vdla.gemm (outer loops may drive the
// reduction) and becomes a Block holding its call (llvm_call_block), or stays a tensorized nest on
// interp. Caveat: strides are checked against the buffers' full logical shapes, which is
// exact for op inputs and outputs; plan_storage keeps an intermediate accessed by an intrinsic
// whole in the dimensions the intrinsic's operand spans (all of them, for an extern symbol), so
// the strides stay.
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/Bounds.h"
#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/TensorizeMma.h"
#include "lower/schedule/TensorizePattern.h"

namespace texc {

namespace {

using tensorize::AccessPair;
using tensorize::flat_offset;
using tensorize::Mismatch;
using tensorize::PatternMatcher;

// The stride of `offset` with respect to each of `vars` (all others fixed), or a mismatch if it
// is not affine in them.
std::vector<int64_t> strides_of(const Expr& offset, const std::vector<Var>& vars, const std::string& buffer,
                                const std::vector<std::string>& loop_names) {
  VarMap zero;
  for (const Var& v : vars) zero[v.get()] = make_int(0);
  Expr base = simplify(substitute(offset, zero));
  Expr affine = base;
  std::vector<int64_t> strides;
  for (size_t i = 0; i < vars.size(); ++i) {
    VarMap one = zero;
    one[vars[i].get()] = make_int(1);
    int64_t s;
    if (!is_const_int(simplify(substitute(offset, one) - base), &s))
      throw Mismatch{"stride: the access of '" + buffer + "' has no constant stride for loop '" + loop_names[i] + "'"};
    strides.push_back(s);
    affine = affine + vars[i] * make_int(s);
  }
  if (!is_const_int(simplify(offset - affine), int64_t(0)))
    throw Mismatch{"stride: the access of '" + buffer + "' is not affine in the loops under the tensorized loop"};
  return strides;
}

// A `lower llvm` intrinsic's replacement of the matched nest under `top`. On interp the nest stays
// (marked tensorized): the loop interpreter evaluates the pattern it matched. On x86/arm it becomes
// a Block of the same stage at the nest's first point whose body is
//   Evaluate(Call(i32, "llvm.NAME", {address_of(out[base]), n_out, address_of(in[base]), n_in...}, Extern))
// (the output first, then the inputs in parameter order, each with its element count in the
// pattern) and whose init is the original init looped over the tensorized spatial loops, so that
// lower_blocks still resets the accumulator before the reduction loops outside `top`.
Stmt llvm_call_block(const For* top, const IntrinsicDef& intrin, const std::string& target, const Block& block,
                     const std::vector<const For*>& loops, const VarMap& iter_values,
                     const std::vector<std::pair<Buffer, Buffer>>& buffer_map,
                     const std::map<const BufferNode*, std::vector<Expr>>& base_of) {
  if (interprets_intrinsics(target)) return top->with_kind(ForKind::Tensorized, intrin.name);
  std::vector<Expr> args;
  std::vector<Buffer> params = intrin.outputs;
  params.insert(params.end(), intrin.inputs.begin(), intrin.inputs.end());
  for (const Buffer& param : params) {
    Buffer actual;
    for (auto& [p, a] : buffer_map)
      if (p == param) actual = a;
    if (!actual) throw Mismatch{"expression: the intrinsic's '" + param->name + "' has no counterpart in the nest"};
    int64_t count = 1;
    for (const Expr& d : param->shape) {
      int64_t extent = 0;
      TEXC_CHECK(is_const_int(d, &extent)) << "intrinsic " << intrin.name << " has a non-constant shape";
      count *= extent;
    }
    args.push_back(
        make_intrinsic_call(Intrinsic::AddressOf, Int(64), {Load::make(actual, base_of.at(actual.get()))}));
    args.push_back(make_int(count));
  }
  Stmt call = Evaluate::make(Call::make(Int(32), intrin.symbol, args, CallKind::Extern));
  Stmt init;
  if (block.init) {
    init = substitute(block.init, iter_values);
    for (size_t i = loops.size(); i-- > 0;) {
      if (!uses_var(init, loops[i]->var.get())) continue;
      Var fresh = Variable::make(loops[i]->var->name, loops[i]->var->type);
      init = For::make(fresh, loops[i]->min, loops[i]->extent, ForKind::Serial,
                       substitute(init, VarMap{{loops[i]->var.get(), fresh}}));
    }
  }
  VarMap at_start;
  for (const For* l : loops) at_start[l->var.get()] = make_int(0);
  std::vector<Expr> bindings;
  for (const Expr& b : block.bindings) bindings.push_back(simplify(substitute(b, at_start)));
  return Block::make(block.stage, block.iter_vars, bindings, block.predicate, init, call);
}

// The Evaluate that replaces the nest (an extern intrinsic), or the nest marked tensorized (an
// accumulating built-in), or a Mismatch.
Stmt match_and_replace(const For* top, const IntrinsicDef& intrin, const std::string& target) {
  const bool llvm = intrin.lower_kind == "llvm";
  const bool accumulating = intrin.lower_kind == "vdla.gemm" || llvm;
  const Stage& pattern = intrin.stages.front();
  // Shape: the perfectly nested loops and the Block under them.
  std::vector<const For*> loops{top};
  while (const For* inner = loops.back()->body->as<For>()) loops.push_back(inner);
  const Block* block = loops.back()->body->as<Block>();
  if (!block)
    throw Mismatch{"shape: the loops under '" + top->var->name + "' are not perfectly nested down to one computation"};
  std::vector<IterVar> axes = pattern.axes;
  const Reduce* pattern_reduce = pattern.body->as<Reduce>();
  if (pattern_reduce)
    for (IterVar a : pattern_reduce->axes) axes.push_back(a);
  if (loops.size() != axes.size())
    throw Mismatch{"shape: " + std::to_string(loops.size()) + " loop(s) under '" + top->var->name +
                   "' but the intrinsic has " + std::to_string(axes.size()) + " axes"};
  std::vector<Var> loop_vars;
  std::vector<std::string> loop_names;
  for (size_t i = 0; i < loops.size(); ++i) {
    int64_t have = 0, want = 0;
    bool have_const = is_const_int(loops[i]->extent, &have), want_const = is_const_int(axes[i].extent, &want);
    if (!have_const || !want_const || have != want || !is_const_int(loops[i]->min, int64_t(0)))
      throw Mismatch{"shape/extent: loop '" + loops[i]->var->name + "' has " +
                     (have_const ? "extent " + std::to_string(have) : std::string("a non-constant extent")) +
                     " but the intrinsic's axis '" + axes[i].var->name + "' has extent " + std::to_string(want)};
    loop_vars.push_back(loops[i]->var);
    loop_names.push_back(loops[i]->var->name);
  }
  std::unordered_set<const Variable*> inner;
  for (const Var& v : loop_vars) inner.insert(v.get());
  auto uses_outer_loop = [&](const Expr& e, std::string* which) {
    bool outer = false;
    for_each_expr(e, [&](const Expr& x) {
      const Variable* v = x->as<Variable>();
      if (v && !inner.count(v) && !outer) {
        outer = true;
        *which = v->name;
      }
    });
    return outer;
  };

  // The whole reduction happens under the tensorized loop.
  VarIntervals ranges;
  for (const For* l : loops) ranges[l->var.get()] = Interval::range(0, *bounds_of(l->extent).max - 1);
  VarMap iter_values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    iter_values[iv.var.get()] = block->bindings[i];
    if (!iv.is_reduce) continue;
    std::string outer_loop;
    Interval covered = bounds_of(block->bindings[i], ranges);
    int64_t lo = 0, ext = 0;
    is_const_int(iv.min, &lo);
    is_const_int(iv.extent, &ext);
    bool outer = uses_outer_loop(block->bindings[i], &outer_loop);
    if (accumulating) continue;  // outer loops may drive the reduction: the intrinsic accumulates
    if (outer || covered != Interval::range(lo, lo + ext - 1))
      throw Mismatch{"the reduction of '" + block->stage + "' over '" + iv.var->name +
                     "' is not complete under loop '" + top->var->name + "'" +
                     (outer_loop.empty() ? "" : " (loop '" + outer_loop + "' outside it also drives it)")};
  }
  if ((block->init != nullptr) != (pattern_reduce != nullptr))
    throw Mismatch{std::string("expression: the nest ") + (block->init ? "is" : "is not") +
                   " a reduction but the intrinsic " + (pattern_reduce ? "is" : "is not")};
  Expr guard;
  for (const Expr& c : conjuncts(block->predicate)) {
    bool inner_dependent = false;
    for_each_expr(c, [&](const Expr& x) {
      if (const Variable* v = x->as<Variable>(); v && inner.count(v)) inner_dependent = true;
    });
    if (inner_dependent)
      throw Mismatch{"shape/extent: a guard of a non-dividing split lies inside the tensorized nest"};
    guard = guard ? logical_and(guard, c) : c;
  }

  // Expression: the stored value against the intrinsic's, in its accumulating form for a reduction.
  PatternMatcher matcher;
  matcher.match_stored_value(*block, pattern);

  // Strides, and the base of every access.
  std::vector<Var> axis_vars;
  for (const IterVar& a : axes) axis_vars.push_back(a.var);
  std::map<const BufferNode*, std::vector<Expr>> base_of;
  for (const AccessPair& ap : matcher.accesses) {
    std::vector<Expr> actual_indices;
    for (const Expr& e : ap.actual_indices) actual_indices.push_back(simplify(substitute(e, iter_values)));
    std::vector<int64_t> have =
        strides_of(flat_offset(actual_indices, ap.actual), loop_vars, ap.actual->name, loop_names);
    Expr pattern_offset = flat_offset(ap.pattern_indices, ap.pattern);
    std::vector<int64_t> want = strides_of(pattern_offset, axis_vars, ap.pattern->name, loop_names);
    for (size_t i = 0; i < have.size(); ++i)
      if (have[i] != want[i])
        throw Mismatch{"stride: the stride of buffer '" + ap.actual->name + "' for loop '" + loop_names[i] + "' is " +
                       std::to_string(have[i]) + " but the intrinsic's '" + ap.pattern->name + "' has " +
                       std::to_string(want[i]) + " for axis '" + axes[i].var->name + "'"};
    VarMap zero;
    for (const Var& v : axis_vars) zero[v.get()] = make_int(0);
    if (!is_const_int(simplify(substitute(pattern_offset, zero)), int64_t(0)))
      throw Mismatch{"stride: the intrinsic's access of '" + ap.pattern->name +
                     "' does not start at its first element"};
    VarMap at_start;
    for (const Var& v : loop_vars) at_start[v.get()] = make_int(0);
    std::vector<Expr> base;
    for (const Expr& e : actual_indices) base.push_back(simplify(substitute(e, at_start)));
    base_of.emplace(ap.actual.get(), base);
  }

  if (llvm) return llvm_call_block(top, intrin, target, *block, loops, iter_values, matcher.buffer_map, base_of);
  if (accumulating) return top->with_kind(ForKind::Tensorized, intrin.name);

  // The call: intrinsic inputs, then outputs, each as the address of its base element.
  std::vector<Expr> args;
  std::vector<Buffer> params = intrin.inputs;
  params.insert(params.end(), intrin.outputs.begin(), intrin.outputs.end());
  for (const Buffer& param : params) {
    Buffer actual;
    for (auto& [p, a] : matcher.buffer_map)
      if (p == param) actual = a;
    if (!actual) throw Mismatch{"expression: the intrinsic's '" + param->name + "' has no counterpart in the nest"};
    args.push_back(
        make_intrinsic_call(Intrinsic::AddressOf, Int(64), {Load::make(actual, base_of.at(actual.get()))}));
  }
  Stmt call = Evaluate::make(Call::make(Int(32), intrin.symbol, args, CallKind::Extern));
  return guard ? IfThenElse::make(guard, call) : call;
}

}  // namespace

void apply_tensorize(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 2, 2, 0);
  const For* l = st.loop(loop_name_arg(step, 0), p.args[0].loc);
  const SchedArg& name = name_arg(step, 1);
  const IntrinsicDef* found = nullptr;
  if (auto it = st.op.intrinsics.find(name.name); it != st.op.intrinsics.end()) found = &it->second;
  const Target* target = find_target(st.target);
  bool builtin_here = target && std::find(target->builtin_intrinsics.begin(), target->builtin_intrinsics.end(),
                                          name.name) != target->builtin_intrinsics.end();
  if (!found && builtin_here) {
    // Its definition depends on the target's configuration (vdla.gemm: the accelerator's block),
    // which the lowering was given.
    for (const IntrinsicDef& d : st.builtin_intrinsics)
      if (d.name == name.name) found = &d;
    TEXC_CHECK(found) << "target '" << st.target << "' has the built-in intrinsic '" << name.name
                      << "' but the lowering was given no definition of it (LowerOptions::builtin_intrinsics)";
  }
  if (!found) {
    if (name.name.find('.') != std::string::npos)
      throw_error(DiagId::IntrinsicNotAvailable, name.loc, name.name, st.target);
    throw_error(DiagId::UnknownIntrinsic, name.loc, name.name);
  }
  const IntrinsicDef& intrin = *found;
  if ((intrin.lower_kind != "extern" && intrin.lower_kind != "llvm" && !builtin_here) || intrin.stages.size() != 1)
    throw_error(DiagId::IntrinsicNotAvailable, name.loc, name.name, st.target);
  if (intrin.lower_kind == "llvm") {
    // An LLVM target intrinsic: a target of its own CPU architecture, or interp (which evaluates
    // the pattern).
    std::string owner = intrin.symbol.rfind("llvm.x86.", 0) == 0 ? "x86" : "arm";
    if (llvm_cpu_arch_of(st.target) != owner && !interprets_intrinsics(st.target))
      throw_error(DiagId::LLVMIntrinsicWrongTarget, name.loc, name.name, intrin.symbol, owner, st.target, owner);
  }
  try {
    std::optional<ZeroPaddedKTile> padded;
    const std::string loop = l->var->name;
    st.replace(l, intrin.lower_kind == "cuda.mma" ? warp_mma_replacement(st, l, intrin, &padded)
                                                  : match_and_replace(l, intrin, st.target));
    if (padded) {
      padded->loop = loop;
      padded->intrinsic = name.name;
      padded->loc = p.loc;
      st.zero_padded_k_tiles.push_back(std::move(*padded));
    }
  } catch (const Mismatch& m) {
    throw_error(DiagId::TensorizeMismatch, p.loc, l->var->name, name.name, m.what);
  }
}

}  // namespace texc
