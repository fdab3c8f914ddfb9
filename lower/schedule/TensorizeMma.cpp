#include "lower/schedule/TensorizeMma.h"

#include <array>
#include <optional>
#include <unordered_set>

#include "ir/ConstEval.h"
#include "ir/IROperators.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/gpu/MmaIntrinsics.h"
#include "lower/schedule/TensorizePattern.h"

namespace texc {

namespace {

using tensorize::AccessPair;
using tensorize::flat_offset;
using tensorize::Mismatch;
using tensorize::PatternMatcher;

constexpr int64_t kLanes = 32;

// The nest's loop variables: the lane (threadIdx.x), ih, jl and kk.
struct NestVars {
  const Variable *lane, *ih, *jl, *kk;
};

// The point of the nest that computes element (m, n) of the warp's C with k step k:
// m = 8*ih + lane/4, n = 2*(lane%4) + jl (the inverse of the fragment layout's C).
VarMap nest_point(const NestVars& v, const Expr& m, const Expr& n, const Expr& k) {
  return {{v.lane, m % make_int(8) * make_int(4) + n / make_int(2)},
          {v.ih, m / make_int(8)},
          {v.jl, n % make_int(2)},
          {v.kk, k}};
}

// Which matrix of the pattern an access is, and its (row, column) at a point of the nest.
enum class Matrix { A, B, C };

std::array<int64_t, 2> coordinates(Matrix which, int64_t lane, int64_t ih, int64_t jl, int64_t kk) {
  int64_t m = 8 * ih + lane / 4, n = 2 * (lane % 4) + jl;
  switch (which) {
    case Matrix::A: return {m, kk};
    case Matrix::B: return {kk, n};
    case Matrix::C: return {m, n};
  }
  return {0, 0};
}

const char* matrix_name(Matrix which) { return which == Matrix::A ? "A" : which == Matrix::B ? "B" : "C"; }

// Checks that the flattened offset of an access is, at every point of the nest, the lane-0
// element's plus a constant row stride times the row and column stride times the column the
// fragment layout gives that point; the loops outside the nest take two sets of values.
void check_layout(const Expr& offset, Matrix which, const NestVars& v, int64_t k_steps, const std::string& buffer) {
  std::vector<const Variable*> others;
  std::unordered_set<const Variable*> seen{v.lane, v.ih, v.jl, v.kk};
  for_each_expr(offset, [&](const Expr& e) {
    const Variable* x = e->as<Variable>();
    if (x && seen.insert(x).second) others.push_back(x);
  });
  for (int sample = 0; sample < 2; ++sample) {
    VarValues values;
    for (size_t i = 0; i < others.size(); ++i) values[others[i]] = sample == 0 ? 0 : int64_t(3 + 5 * i);
    auto at = [&](int64_t lane, int64_t ih, int64_t jl, int64_t kk) {
      values[v.lane] = lane;
      values[v.ih] = ih;
      values[v.jl] = jl;
      values[v.kk] = kk;
      std::optional<int64_t> x = eval_int(offset, values);
      if (!x) throw Mismatch{"layout: the index of '" + buffer + "' cannot be evaluated at the lanes' points"};
      return *x;
    };
    const int64_t origin = at(0, 0, 0, 0);
    // the strides of a row and a column: a point one row (lane 4) or one column (jl 1 or kk 1) on
    const int64_t row_stride = which == Matrix::B ? at(0, 0, 0, 1) - origin : at(4, 0, 0, 0) - origin;
    const int64_t col_stride = which == Matrix::A ? at(0, 0, 0, 1) - origin : at(0, 0, 1, 0) - origin;
    for (int64_t lane = 0; lane < kLanes; ++lane)
      for (int64_t ih = 0; ih < 2; ++ih)
        for (int64_t jl = 0; jl < 2; ++jl)
          for (int64_t kk = 0; kk < k_steps; ++kk) {
            std::array<int64_t, 2> rc = coordinates(which, lane, ih, jl, kk);
            int64_t want = rc[0] * row_stride + rc[1] * col_stride, got = at(lane, ih, jl, kk) - origin;
            if (got != want)
              throw Mismatch{"layout: at lane " + std::to_string(lane) + " (ih " + std::to_string(ih) + ", jl " +
                             std::to_string(jl) + ", kk " + std::to_string(kk) + ") the access of '" + buffer +
                             "' is " + std::to_string(got) + " elements from lane 0's, where the fragment layout's " +
                             matrix_name(which) + "[" + std::to_string(rc[0]) + "][" + std::to_string(rc[1]) +
                             "] is " + std::to_string(want) +
                             "; the lane's rows must be 8*ih + lane/4 and its columns 2*(lane%4) + jl of the warp's "
                             "16 x 8 tile (docs/cuda.md, Tensor cores)"};
          }
  }
}

std::vector<Expr> indices_at(const std::vector<Expr>& indices, const VarMap& point) {
  std::vector<Expr> out;
  for (const Expr& e : indices) out.push_back(simplify(substitute(e, point)));
  return out;
}

// True when `guard` (over the loops) is the bound of the Block's reduction axis, `k < min + extent`
// with k the axis' binding: the guard of a k split that does not divide the reduction.
bool is_reduction_bound(const Block& block, const Expr& guard) {
  const Binary* lt = guard->as<Binary>();
  if (!lt || lt->op != BinaryOp::LT) return false;
  for (size_t i = 0; i < block.iter_vars.size(); ++i) {
    const IterVar& iv = block.iter_vars[i];
    if (iv.is_reduce && is_const_int(simplify(lt->a - block.bindings[i]), int64_t(0)) &&
        is_const_int(simplify(lt->b - (iv.min + iv.extent)), int64_t(0)) && is_const_int(simplify(iv.min), int64_t(0)))
      return true;
  }
  return false;
}

}  // namespace

Stmt warp_mma_replacement(const ScheduleState& st, const For* top, const IntrinsicDef& intrin,
                          std::optional<ZeroPaddedKTile>* padded) {
  // Shape: ih, jl, kk perfectly nested down to one Block, under the lane loop.
  const Intrinsic element = *find_intrinsic(intrin.symbol);
  const MmaShape shape = mma_shape(element);
  const std::string nest = "ih 0..2, jl 0..2, kk 0.." + std::to_string(shape.k);
  std::vector<const For*> loops{top};
  while (const For* inner = loops.back()->body->as<For>()) loops.push_back(inner);
  const Block* block = loops.back()->body->as<Block>();
  const int64_t want_extents[3] = {2, 2, shape.k};
  if (!block || loops.size() != 3)
    throw Mismatch{"shape: " + intrin.name + " replaces three perfectly nested loops (" + nest +
                   ") down to one computation; '" + top->var->name + "' has " + std::to_string(loops.size()) +
                   (block ? " loop(s)" : " loop(s) that do not end in one computation")};
  for (size_t i = 0; i < 3; ++i) {
    int64_t extent = 0;
    if (!is_const_int(loops[i]->extent, &extent) || extent != want_extents[i] || !is_const_int(loops[i]->min, int64_t(0)))
      throw Mismatch{"shape/extent: loop '" + loops[i]->var->name + "' must run 0.." + std::to_string(want_extents[i]) +
                     " (the loops under the tensorized one are " + nest + ")"};
  }
  std::vector<const For*> outer;
  st.path_to(top, &outer);
  const For* lane = nullptr;
  for (const For* f : outer)
    if (f->for_kind == ForKind::ThreadBound && f->thread_tag == "threadIdx.x") lane = f;
  int64_t lanes = 0;
  if (!lane || !is_const_int(lane->extent, &lanes) || lanes != kLanes || !is_const_int(lane->min, int64_t(0)))
    throw Mismatch{"shape: the nest must lie under a loop of extent 32 bound to threadIdx.x (the warp's lanes)" +
                   (lane ? ", but '" + lane->var->name + "' bound to it has extent " + to_string(lane->extent)
                         : std::string(", and none encloses it: bind the lane loop first"))};
  const NestVars vars{lane->var.get(), loops[0]->var.get(), loops[1]->var.get(), loops[2]->var.get()};

  // Expression: c + a * b, a reduction.
  if (!block->init) throw Mismatch{"expression: the nest is not a reduction but the intrinsic is"};
  PatternMatcher matcher;
  matcher.match_stored_value(*block, intrin.stages.front());

  // Guards: none that differs between threads, but the edge guards of a register tile (a `local`
  // stage) in its rows and columns: drop_register_tile_guards takes those out after the schedule
  // (lower/gpu/RegisterTileGuards.h), the lanes past the edge computing garbage nobody stores;
  // where it cannot, make_device_function refuses the kernel (lower/gpu/LaunchCheck.h). A guard on
  // the reduction (a k tile that does not divide K) would add terms past the edge: it is dropped
  // when it is the reduction's own bound (`k < K`, k indexing A and B directly over their whole
  // extent) and zero_pad_k_tiles makes the operands' shared tiles hold 0 past K (the padded
  // products add exact zeros; lower/gpu/ZeroPadKTiles.h, which refuses the nest where it cannot).
  std::unordered_set<const Variable*> reduction_loops;
  for (size_t i = 0; i < block->iter_vars.size(); ++i)
    if (block->iter_vars[i].is_reduce)
      for_each_expr(block->bindings[i], [&](const Expr& e) {
        if (const Variable* v = e->as<Variable>()) reduction_loops.insert(v);
      });
  std::unordered_set<const Variable*> loop_vars;
  for (const For* f : outer) loop_vars.insert(f->var.get());
  for (const For* l : loops) loop_vars.insert(l->var.get());
  auto stage = st.stages.find(block->stage);
  const bool register_tile = stage != st.stages.end() && stage->second.buffer->scope == MemScope::Local;
  VarMap iter_values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) iter_values[block->iter_vars[i].var.get()] = block->bindings[i];
  std::vector<Expr> kept_guards;  // the conjuncts the replacement keeps
  Expr reduction_bound;           // the dropped `k < K`
  for (const Expr& c : conjuncts(block->predicate)) {
    Expr guard = substitute(c, iter_values);
    bool thread_dependent = false;
    for (const For* f : outer)
      if (f->for_kind == ForKind::ThreadBound && f->thread_tag.rfind("threadIdx.", 0) == 0 &&
          uses_var(guard, f->var.get()))
        thread_dependent = true;
    for (const For* l : loops) thread_dependent = thread_dependent || uses_var(guard, l->var.get());
    bool on_reduction = false, only_reduction = true;
    for_each_expr(guard, [&](const Expr& e) {
      const Variable* v = e->as<Variable>();
      if (!v || !loop_vars.count(v)) return;
      if (reduction_loops.count(v)) on_reduction = true;
      else only_reduction = false;
    });
    if (thread_dependent && on_reduction && only_reduction && !reduction_bound && is_reduction_bound(*block, guard)) {
      reduction_bound = guard;
      continue;
    }
    kept_guards.push_back(c);
    if (thread_dependent && register_tile && !on_reduction) continue;
    if (thread_dependent)
      throw Mismatch{"shape/extent: the computation is guarded by '" + to_string(guard) +
                     "', which differs between the lanes of the warp (" +
                     (on_reduction ? std::string("a guard on the reduction that is not its bound k < K") : std::string("a tile that does not divide the tensor, outside a local register tile")) +
                     "); every lane must reach the mma: make the " + (on_reduction ? "k tiles" : "warp tiles") +
                     " divide the shape" + (on_reduction ? "" : ", or compute into a cache_write(C, local) tile")};
  }

  // Layout: every access at the element the fragment layout gives each lane.
  // The product is commutative: `W[f, c] * X[c, p]` and `X[c, p] * W[f, c]` are both A . B with
  // A = W; the factors are tried in the order written, then swapped.
  std::vector<Expr> a_indices, b_indices, c_indices;
  std::vector<Expr> a_written, b_written;  // A's and B's indices as the Block writes them (its iter vars)
  Buffer a, b, c;
  auto assign = [&](bool swapped) {
    const Buffer pattern_a = intrin.inputs[swapped ? 1 : 0], pattern_b = intrin.inputs[swapped ? 0 : 1];
    for (const AccessPair& ap : matcher.accesses) {
      std::vector<Expr> actual = indices_at(ap.actual_indices, iter_values);
      Matrix which = ap.pattern == pattern_a ? Matrix::A : ap.pattern == pattern_b ? Matrix::B : Matrix::C;
      check_layout(simplify(flat_offset(actual, ap.actual)), which, vars, shape.k, ap.actual->name);
      (which == Matrix::A ? a_indices : which == Matrix::B ? b_indices : c_indices) = actual;
      (which == Matrix::A ? a : which == Matrix::B ? b : c) = ap.actual;
      if (which != Matrix::C) (which == Matrix::A ? a_written : b_written) = ap.actual_indices;
    }
  };
  try {
    assign(false);
  } catch (const Mismatch& as_written) {
    try {
      assign(true);
    } catch (const Mismatch&) {
      throw as_written;
    }
  }

  // A dropped reduction bound: A and B indexed by the reduction's iter var itself in one
  // dimension whose extent is the reduction's, so that zeros past that extent are zeros past K.
  if (reduction_bound) {
    const IterVar* k = nullptr;
    for (const IterVar& iv : block->iter_vars)
      if (iv.is_reduce) k = &iv;
    auto k_dim = [&](const std::vector<Expr>& written, const Buffer& operand) {
      std::optional<size_t> found;
      for (size_t d = 0; d < written.size(); ++d)
        if (uses_var(written[d], k->var.get())) {
          const Variable* direct = written[d]->as<Variable>();
          if (found || direct != k->var.get() || d >= operand->shape.size() ||
              !is_const_int(simplify(operand->shape[d] - k->extent), int64_t(0)))
            throw Mismatch{"shape/extent: the computation is guarded by '" + to_string(reduction_bound) +
                           "' (a k tile that does not divide the reduction), and '" + operand->name +
                           "' is not indexed by k itself over its whole extent " + to_string(k->extent) +
                           ", so zeros past its edge would not be zeros past K: make the k tiles divide the shape"};
          found = d;
        }
      if (!found) throw Mismatch{"shape/extent: '" + operand->name + "' does not depend on the reduction's k"};
      return *found;
    };
    ZeroPaddedKTile request;
    request.stage = block->stage;
    request.a_k_dim = k_dim(a_written, a);
    request.b_k_dim = k_dim(b_written, b);
    request.guard = reduction_bound;
    *padded = request;
  }

  // The lane's fragments and its four accumulator updates.
  const Expr lane_index = Expr(lane->var);
  std::vector<Expr> args;
  for (int r = 0; r < 4; ++r) {  // the lane's accumulator elements, updated in place
    FragmentElement e = mma_c_element(lane_index, r);
    args.push_back(Load::make(c, indices_at(c_indices, nest_point(vars, e.row, e.col, make_int(0)))));
  }
  for (int r = 0; r < shape.a_elements; ++r) {
    FragmentElement e = mma_a_element(shape, lane_index, r);
    args.push_back(Load::make(a, indices_at(a_indices, nest_point(vars, e.row, make_int(0), e.col))));
  }
  for (int r = 0; r < shape.b_elements; ++r) {
    FragmentElement e = mma_b_element(shape, lane_index, r);  // row: k, col: n
    args.push_back(Load::make(b, indices_at(b_indices, nest_point(vars, make_int(0), e.col, e.row))));
  }
  Stmt update = Evaluate::make(make_intrinsic_call(element, Int(32), args));

  // The reduction's init over the lane's own elements (ih, jl), as before the nest was replaced.
  Stmt init = substitute(block->init, iter_values);
  for (size_t i = 2; i-- > 0;) {
    if (!uses_var(init, loops[i]->var.get())) continue;
    Var fresh = Variable::make(loops[i]->var->name, loops[i]->var->type);
    init = For::make(fresh, loops[i]->min, loops[i]->extent, ForKind::Serial,
                     substitute(init, VarMap{{loops[i]->var.get(), fresh}}));
  }
  VarMap at_start;
  for (const For* l : loops) at_start[l->var.get()] = make_int(0);
  std::vector<Expr> bindings;
  for (const Expr& binding : block->bindings) bindings.push_back(simplify(substitute(binding, at_start)));
  // A register tile's edge guards (kept above) at the nest's first point: the loops they named
  // are gone, and drop_register_tile_guards removes them or make_device_function refuses them.
  Expr predicate;
  for (const Expr& g : kept_guards) predicate = predicate ? logical_and(predicate, g) : g;
  if (predicate) predicate = simplify(substitute(predicate, at_start));
  return Block::make(block->stage, block->iter_vars, bindings, predicate, init, update);
}

}  // namespace texc
