#include "lower/gpu/ZeroPadKTiles.h"

#include <algorithm>
#include <optional>

#include "ir/Bounds.h"
#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/IRPrinter.h"
#include "ir/Intrinsics.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/gpu/MmaIntrinsics.h"
#include "lower/schedule/StageNest.h"

namespace texc {
namespace {

[[noreturn]] void refuse(const ZeroPaddedKTile& r, const std::string& why) {
  throw_error(DiagId::TensorizeMismatch, r.loc, r.loop, r.intrinsic,
              "shape/extent: the computation is guarded by '" + to_string(r.guard) +
                  "' (a k tile that does not divide the reduction), which is dropped only when the shared tiles "
                  "of A and B hold zeros past K: " +
                  why);
}

// The ranges of the loops in `loops` that are not in `common`: what a span is taken over.
SymVarIntervals inner_ranges(const std::vector<const For*>& loops, const std::vector<const For*>& common) {
  SymVarIntervals ranges;
  for (const For* l : loops)
    if (std::find(common.begin(), common.end(), l) == common.end())
      ranges[l->var.get()] = {l->min, simplify(l->min + l->extent - 1)};
  return ranges;
}

// a <= b, proved by a constant difference.
bool proved_le(const Expr& a, const Expr& b) {
  int64_t d = 0;
  return is_const_int(simplify(b - a), &d) && d >= 0;
}

bool same(const Expr& a, const Expr& b) { return is_const_int(simplify(a - b), int64_t(0)); }

// A fill vectorized along k (its innermost loop v, k = first + v) whose vectors never straddle K:
// K and `first` multiples of the vector's width. Then a vector lies wholly before K or wholly past
// it, and `first < K` is one condition for all its lanes (one select of a vector load, a 16-byte
// cp.async under double_buffer). nullopt otherwise.
std::optional<Expr> vector_start_in_k(const std::vector<const For*>& fill_loops, const Expr& k, int64_t extent) {
  if (fill_loops.empty()) return std::nullopt;
  const For* v = fill_loops.back();
  int64_t lanes = 0;
  if (v->for_kind != ForKind::Vectorized || !is_const_int(v->min, int64_t(0)) || !is_const_int(v->extent, &lanes) ||
      lanes < 2 || extent % lanes != 0)
    return std::nullopt;
  Expr first = simplify(substitute(k, VarMap{{v->var.get(), make_const(v->var->type, 0)}}));
  if (!same(k, first + Expr(v->var))) return std::nullopt;
  ModulusRemainder mr = modulus_remainder(first);
  if (mr.modulus == 0 ? mr.remainder % lanes != 0 : mr.modulus % lanes != 0 || mr.remainder % lanes != 0)
    return std::nullopt;
  return first;
}

// The fills of one operand (the shared stage `stage`, its dimension `k_dim` indexed by k), which the
// mma Block `mma` reads through `loads`: each made to write 0 past K, or the nest refused.
void pad_operand(ScheduleState& st, const ZeroPaddedKTile& r, const Block* mma, const std::vector<const Load*>& loads,
                 size_t k_dim) {
  const Buffer& tile = loads.front()->buffer;
  const std::string stage = stage_of_buffer(st, tile.get());
  const std::string read = "'" + tile->name + "'";
  if (tile->scope != MemScope::Shared || stage.empty() || st.blocks_of(stage).empty())
    refuse(r, "the mma reads " + read + " from " + (tile->scope == MemScope::Global ? "global" : "local") +
                  " memory; read it through a shared tile filled inside the k tiles' loop (" + tile->name +
                  "S = cache_read(" + tile->name + ", shared, ...) with compute_at(" + tile->name +
                  "S, ko)), or make the k tiles divide the shape");
  int64_t extent = 0;
  if (k_dim >= tile->shape.size() || !is_const_int(tile->shape[k_dim], &extent))
    refuse(r, "the extent of " + read + " in k is not a constant");
  for (const Block* fill : st.blocks_of(stage)) {
    std::vector<const For*> mma_loops, fill_loops;  // afresh: a replaced fill rebuilds the loops around it
    st.path_to(mma, &mma_loops);
    st.path_to(fill, &fill_loops);
    std::vector<const For*> common;
    for (const For* l : fill_loops)
      if (std::find(mma_loops.begin(), mma_loops.end(), l) != mma_loops.end()) common.push_back(l);
    const Store* store = fill->body->as<Store>();
    std::optional<size_t> k_iter;
    if (store && store->buffer.get() == tile.get() && k_dim < store->indices.size())
      for (size_t i = 0; i < fill->iter_vars.size(); ++i)
        if (store->indices[k_dim]->as<Variable>() == fill->iter_vars[i].var.get()) k_iter = i;
    if (!k_iter) refuse(r, "the fill of " + read + " is not a copy of one element per point");
    // The span of k the fill writes, and the one the mma reads, inside the loops around both.
    SymInterval written = sym_bounds_of(fill->bindings[*k_iter], inner_ranges(fill_loops, common));
    SymVarIntervals mma_ranges = inner_ranges(mma_loops, common);
    Expr lo, hi;
    for (const Load* l : loads) {
      SymInterval span = sym_bounds_of(l->indices[k_dim], mma_ranges);
      if (!span.is_bounded()) refuse(r, "the k the mma reads of " + read + " has no bounds");
      lo = lo ? union_min(lo, span.min) : span.min;
      hi = hi ? union_max(hi, span.max) : span.max;
    }
    int64_t tile_k = 0;
    if (!written.is_bounded() || !proved_le(written.min, lo) || !proved_le(hi, written.max) ||
        !is_const_int(simplify(written.max - written.min + 1), &tile_k))
      refuse(r, "the fill of " + read + " does not write the k tile the mma reads, one tile per iteration of the k tiles' loop; attach it inside that loop (compute_at(" +
                    stage + ", ko))");
    if (tile_k > extent)
      refuse(r, "the k tile of " + read + " (" + std::to_string(tile_k) + ") is longer than its extent in k (" +
                    std::to_string(extent) + "); make the k tile at most " + std::to_string(extent));
    // The fill's guard of k: out of its predicate, into the stored value.
    Expr bound = Expr(fill->iter_vars[*k_iter].var) < tile->shape[k_dim];
    if (std::optional<Expr> first = vector_start_in_k(fill_loops, fill->bindings[*k_iter], extent))
      bound = *first < tile->shape[k_dim];
    std::vector<Expr> kept;
    bool guarded = false;
    for (const Expr& c : conjuncts(fill->predicate)) {
      const Binary* lt = c->as<Binary>();
      if (lt && lt->op == BinaryOp::LT && same(lt->a, fill->bindings[*k_iter]) && same(lt->b, tile->shape[k_dim])) {
        guarded = true;
        continue;
      }
      kept.push_back(c);
    }
    if (!guarded) continue;  // this fill never reaches past K
    Expr predicate;
    for (const Expr& c : kept) predicate = predicate ? logical_and(predicate, c) : c;
    Expr zero = make_const(store->value->type, 0);
    Stmt body = store->with(store->buffer, store->indices, Select::make(bound, store->value, zero));
    st.replace(fill, Block::make(fill->stage, fill->iter_vars, fill->bindings, predicate, fill->init, body));
  }
}

}  // namespace

void zero_pad_k_tiles(ScheduleState& st) {
  for (const ZeroPaddedKTile& r : st.zero_padded_k_tiles) {
    bool found = false;  // the dropped guard is only sound with the padding: never skip a nest
    for (const Block* mma : st.blocks_of(r.stage)) {
      const Evaluate* e = mma->body->as<Evaluate>();
      const Call* call = e ? e->value->as<Call>() : nullptr;
      std::optional<Intrinsic> which = call ? intrinsic_of(call) : std::nullopt;
      if (!which || !is_mma(*which)) continue;
      const MmaShape shape = mma_shape(*which);
      std::vector<const Load*> a, b;  // the call's arguments: C (4), A, B
      for (size_t i = 4; i < call->args.size(); ++i) {
        const Load* l = call->args[i]->as<Load>();
        TEXC_CHECK(l) << "an mma argument of '" << r.stage << "' is not a load";
        (i < size_t(4 + shape.a_elements) ? a : b).push_back(l);
      }
      pad_operand(st, r, mma, a, r.a_k_dim);
      // blocks_of again: pad_operand replaced the A fills (the mma Block is untouched)
      pad_operand(st, r, mma, b, r.b_k_dim);
      found = true;
    }
    TEXC_CHECK(found) << "the tensor-core nest of '" << r.stage << "' whose k tiles need zero padding is gone";
  }
}

}  // namespace texc
