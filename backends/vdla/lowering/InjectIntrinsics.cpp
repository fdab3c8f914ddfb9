#include "backends/vdla/lowering/InjectIntrinsics.h"

#include <algorithm>
#include <functional>
#include <set>

#include "backends/vdla/VdlaScopes.h"
#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

namespace texc::vdla {

namespace {

bool is_sram(const MemScope& s) { return on_chip_buffer(s).has_value(); }

// The Load an argument copy reads: `X[i]` or `select(c, X[i], 0)`; null if the value is neither.
const Load* copied_load(const Expr& value, Expr* pad_cond) {
  if (const Load* l = value->as<Load>()) return l->buffer->scope == MemScope::Global ? l : nullptr;
  if (const Select* s = value->as<Select>()) {
    const Load* l = s->true_value->as<Load>();
    if (l && l->buffer->scope == MemScope::Global && is_const_int(s->false_value, int64_t(0))) {
      *pad_cond = s->cond;
      return l;
    }
  }
  return nullptr;
}

bool reads_acc(const Expr& e) {
  bool found = false;
  for_each_expr(e, [&](const Expr& x) {
    if (const Load* l = x->as<Load>(); l && l->buffer->scope == scope_of(OnChip::Acc)) found = true;
  });
  return found;
}

LeafInfo classify_store(const Store* st) {
  Expr cond;
  if (st->buffer->scope == scope_of(OnChip::Acc) && is_const_int(st->value, int64_t(0)))
    return {LeafKind::Reset, st->buffer.get()};
  if (is_sram(st->buffer->scope) && copied_load(st->value, &cond)) return {LeafKind::Load, st->buffer.get()};
  if (st->buffer->scope == MemScope::Global && reads_acc(st->value)) return {LeafKind::StoreOut, st->buffer.get()};
  return {LeafKind::Mixed, st->buffer.get()};
}

LeafInfo merge(LeafInfo a, LeafInfo b) {
  if (a.kind == LeafKind::Nothing) return b;
  if (b.kind == LeafKind::Nothing) return a;
  if (a.kind == b.kind && a.target == b.target) return a;
  return {LeafKind::Mixed, nullptr};
}

// The ALU operations of an elementwise chain over one accumulator load, innermost first.
// One ALU instruction of a requantization chain: `op` with an immediate, or with a second
// accumulator tile `tile` (a cache_read into vdla.acc) as its source, lane by lane.
struct AluStep {
  AluOp op;
  int64_t imm;
  const Load* tile = nullptr;
};

// `e` (or an integer cast of it) read from a vdla.acc buffer.
const Load* acc_tile_load(const Expr& e) {
  Expr v = e;
  while (const Cast* c = v->as<Cast>()) {
    if (!c->value->type.is_integer()) return nullptr;
    v = c->value;
  }
  const Load* l = v->as<Load>();
  return l && l->buffer->scope == scope_of(OnChip::Acc) ? l : nullptr;
}

}  // namespace

bool is_gemm_loop(const For* f) { return f->for_kind == ForKind::Tensorized && f->thread_tag == "vdla.gemm"; }

LeafInfo classify_leaf(const Stmt& s) {
    LeafInfo info;
    std::function<void(const Stmt&)> scan = [&](const Stmt& x) {
      if (!x) return;
      if (const For* f = x->as<For>()) {
        if (is_gemm_loop(f)) info = merge(info, {LeafKind::Gemm, nullptr});
        else if (f->for_kind == ForKind::ThreadBound) info = {LeafKind::Mixed, nullptr};
        else scan(f->body);
      } else if (const Store* st = x->as<Store>()) {
        info = merge(info, classify_store(st));
      } else if (const Seq* q = x->as<Seq>()) {
        for (const Stmt& y : q->stmts) scan(y);
      } else if (const IfThenElse* i = x->as<IfThenElse>()) {
        scan(i->then_case);
        scan(i->else_case);
      } else if (const LetStmt* l = x->as<LetStmt>()) {
        scan(l->body);
      } else if (const AttrStmt* a = x->as<AttrStmt>()) {
        scan(a->body);
      } else {
        info = {LeafKind::Mixed, nullptr};  // Allocate, Evaluate: not one kind of work
      }
    };
    scan(s);
  return info;
}

// The loops of a perfect nest from s down (not entering tensorized loops).
int leaf_engine(const LeafInfo& info) {
  switch (info.kind) {
    case LeafKind::Load: return int(Engine::Load);
    case LeafKind::Reset:
    case LeafKind::Gemm: return int(Engine::Compute);
    default: return -1;
  }
}

std::vector<const For*> perfect_loops(const Stmt& s) {
  std::vector<const For*> loops;
  const StmtNode* x = s.get();
  while (const For* f = x ? x->as<For>() : nullptr) {
    if (is_gemm_loop(f)) break;
    loops.push_back(f);
    x = f->body.get();
  }
  return loops;
}

[[noreturn]] void unmappable_store(const Store* st, SourceLoc loc) {
  std::string stage = st->stage.empty() ? st->buffer->name : st->stage;
  if (is_sram(st->buffer->scope))
    throw_error(DiagId::VdlaCannotMap, loc, stage, std::string("it computes into ") + st->buffer->scope.name() +
                          " something that is neither a copy of an argument, a reduction's zero init, nor a "
                          "tensorized vdla.gemm: " + to_string(st->value));
  throw_error(DiagId::VdlaCannotMap, loc, stage, "it writes '" + st->buffer->name + "' in DRAM from " + to_string(st->value) +
                        ", but only a store of a vdla.acc tile (through >>, +, *, min, max with constants and an "
                        "int8 cast) can write DRAM; cache_write the stage to vdla.acc");
}

// A reduction that accumulates into vdla.acc outside a tensorized vdla.gemm nest is a missing
// tensorize: say so before any other complaint about the tile (its zero init, its loops).
void check_reductions_tensorized(const Stmt& body, const VdlaConfig& config, SourceLoc loc) {
  std::set<const StmtNode*> in_gemm;
  for_each_stmt(body, [&](const Stmt& s) {
    if (const For* f = s->as<For>(); f && is_gemm_loop(f))
      for_each_stmt(f->body, [&](const Stmt& x) { in_gemm.insert(x.get()); });
  });
  for_each_stmt(body, [&](const Stmt& s) {
    const Store* st = s->as<Store>();
    if (!st || in_gemm.count(s.get()) || st->buffer->scope != scope_of(OnChip::Acc)) return;
    bool accumulates = false;
    for_each_expr(st->value, [&](const Expr& e) {
      if (const Load* l = e->as<Load>(); l && l->buffer.get() == st->buffer.get()) accumulates = true;
    });
    if (accumulates)
      throw_error(DiagId::VdlaCannotMap, loc, st->stage.empty() ? st->buffer->name : st->stage,
                  "its reduction accumulates into vdla.acc without the GEMM unit; add tensorize(L, vdla.gemm) on its "
                  "loop over the " + std::to_string(config.block_out) + " output lanes of a row (with the " +
                      std::to_string(config.block_in) + " reduction lanes inside it, as reorder(..., no, ki) puts them)");
  });
}

namespace {

// Turns one leaf, for one virtual thread, into pending stream entries.
class IntrinsicInjector {
 public:
  IntrinsicInjector(const LeafContext& ctx, std::vector<StreamEntry>& out)
      : env_(ctx.env), places_(ctx.places), config_(ctx.config), loc_(ctx.loc), func_name_(ctx.func_name),
        thread_(ctx.thread), emitted_(out) {}

  void inject(const Stmt& s, const LeafInfo& info) {
    switch (info.kind) {
      case LeafKind::Load: emit_load(s, info.target); break;
      case LeafKind::Reset: emit_reset(s, info.target); break;
      case LeafKind::Gemm: emit_gemm(s); break;
      case LeafKind::StoreOut: emit_store_out(s); break;
      default: TEXC_CHECK(false) << "not a leaf";
    }
  }

 private:
  int64_t eval(const Expr& e) {
    auto v = eval_int(e, env_);
    TEXC_CHECK(v) << "cannot evaluate " << to_string(e) << " while generating VDLA code for " << func_name_;
    return *v;
  }

  // Scalars per element of an on-chip buffer: a row of INP or ACC, a tile of WGT.
  int64_t elem_scalars(const MemScope& s) const {
    switch (on_chip_buffer(s).value_or(OnChip::Acc)) {
      case OnChip::Inp: return config_.batch * config_.block_in;
      case OnChip::Wgt: return config_.block_out * config_.block_in;
      default: return config_.batch * config_.block_out;
    }
  }

  [[noreturn]] void cannot_map(const std::string& what, const std::string& why) {
    throw_error(DiagId::VdlaCannotMap, loc_, what, why);
  }

  // Runs `s` with concrete loop values, calling `store` for each store executed and `gemm` for each
  // tensorized vdla.gemm nest reached (whose loops it does not enter).
  void enumerate(const Stmt& s, const std::function<void(const Store*)>& store,
                 const std::function<void(const For*)>& gemm) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const Stmt& x : s->as<Seq>()->stmts) enumerate(x, store, gemm);
        return;
      case StmtKind::LetStmt: {
        const LetStmt* l = s->as<LetStmt>();
        env_[l->var.get()] = eval(l->value);
        return enumerate(l->body, store, gemm);
      }
      case StmtKind::IfThenElse: {
        const IfThenElse* i = s->as<IfThenElse>();
        return enumerate(eval(i->cond) ? i->then_case : i->else_case, store, gemm);
      }
      case StmtKind::AttrStmt:
        return enumerate(s->as<AttrStmt>()->body, store, gemm);
      case StmtKind::For: {
        const For* f = s->as<For>();
        if (is_gemm_loop(f)) return gemm(f);
        int64_t lo = eval(f->min), n = eval(f->extent);
        for (int64_t v = lo; v < lo + n; ++v) {
          env_[f->var.get()] = v;
          enumerate(f->body, store, gemm);
        }
        return;
      }
      case StmtKind::Store:
        return store(s->as<Store>());
      default:
        TEXC_CHECK(false) << "unexpected statement in a VDLA leaf of " << func_name_;
    }
  }

  void push(const Insn& insn, const std::string& comment) { emitted_.push_back({insn, thread_, comment, {}, {}}); }

  // A GEMM or ALU instruction whose micro-ops fold_uop_loops decides from `instances`, the
  // micro-ops of the nest `s` in nest order.
  void push_nest(const Insn& insn, const std::string& comment, const Stmt& s, std::vector<Uop> instances) {
    std::vector<int64_t> extents;
    for (const For* f : perfect_loops(s)) {
      auto v = eval_int(f->extent, env_);
      extents.push_back(v ? *v : 0);
    }
    emitted_.push_back({insn, thread_, comment, {}, PendingUopNest{std::move(instances), std::move(extents)}});
  }

  // A LOAD or STORE of `buffer` whose DMAs inject_dma_copies fits to `elems`.
  void push_copy(Opcode op, MemBuffer buffer, const std::string& comment, std::map<int64_t, CopyElem> elems,
                 bool allow_pad, const std::string& stage, const std::string& not_a_2d) {
    MemFields m;
    m.buffer = buffer;
    emitted_.push_back({op == Opcode::Load ? Insn::load(m) : Insn::store(m), thread_, comment,
                        PendingCopy{std::move(elems), allow_pad, stage, not_a_2d}, {}});
  }

  void emit_load(const Stmt& s, const BufferNode* target) {
    const int64_t E = elem_scalars(target->scope);
    std::map<int64_t, CopyElem> elems;
    const BufferNode* source = nullptr;
    std::string stage;
    enumerate(
        s,
        [&](const Store* st) {
          stage = st->stage.empty() ? st->buffer->name : st->stage;
          int64_t lane;
          int64_t e = places_.sram_elem(target, eval(st->indices[0]), &lane);
          Expr cond;
          const Load* l = copied_load(st->value, &cond);
          CopyElem& ce = elems[e];
          bool pad = cond && !eval(cond);
          if (ce.lanes == 0) ce.pad = pad;
          if (ce.pad != pad) cannot_map(stage, "its zero padding splits a " + std::to_string(E) + "-element row of " +
                                                   target->scope.name() + "; pad whole rows");
          ++ce.lanes;
          if (pad) return;
          source = l->buffer.get();
          if (l->buffer->dtype != target->dtype)
            cannot_map(stage, "it copies " + l->buffer->dtype.str() + " into " + target->dtype.str());
          int64_t g = places_.dram_scalar(l->buffer.get(), eval(l->indices[0]));
          if (floor_mod(g, E) != lane)
            cannot_map(stage, "its rows of " + std::to_string(E) + " elements do not come from whole rows of '" +
                                  l->buffer->name + "' in DRAM (the innermost " + std::to_string(E) +
                                  " elements must be contiguous and aligned)");
          int64_t de = floor_div(g, E);
          if (ce.lanes > 1 && ce.dram != de)
            cannot_map(stage, "a row of its on-chip copy gathers from several rows of '" + l->buffer->name + "'");
          ce.dram = de;
        },
        [&](const For*) { TEXC_CHECK(false) << "gemm in a copy"; });
    if (elems.empty()) return;  // every point guarded off (a tail tile of this thread)
    for (auto& [e, ce] : elems)
      if (ce.lanes != E)
        cannot_map(stage, "it fills " + std::to_string(ce.lanes) + " of the " + std::to_string(E) +
                              " elements of a row of " + target->scope.name() + "; copy whole rows");
    // An accumulator tile loads int32 rows (ACC) or int8 rows sign-extended (ACC8).
    if (target->scope == scope_of(OnChip::Acc) && target->dtype != Int(32) && target->dtype != Int(8))
      cannot_map(stage, "it copies " + target->dtype.str() + " into vdla.acc, which loads i32 rows or i8 rows (sign-extended)");
    MemBuffer buffer = target->scope == scope_of(OnChip::Inp)   ? MemBuffer::Inp
                       : target->scope == scope_of(OnChip::Wgt) ? MemBuffer::Wgt
                       : target->dtype == Int(8)            ? MemBuffer::Acc8
                                                            : MemBuffer::Acc;
    push_copy(Opcode::Load, buffer, "load " + stage, std::move(elems), true, stage,
              "its copy of '" + std::string(source ? source->name : "?") +
                  "' is not a 2-D pattern (rows of contiguous elements at a constant pitch, zero padding only around them)");
  }

  void emit_reset(const Stmt& s, const BufferNode* target) {
    std::map<int64_t, int64_t> lanes;
    std::vector<Uop> inst;
    std::string stage;
    enumerate(
        s,
        [&](const Store* st) {
          stage = st->stage.empty() ? st->buffer->name : st->stage;
          int64_t e = places_.sram_elem(target, eval(st->indices[0]));
          if (lanes[e]++ == 0) inst.push_back(Uop{uint64_t(e), 0, 0});
        },
        [&](const For*) {});
    if (inst.empty()) return;
    for (auto& [e, n] : lanes)
      if (n != elem_scalars(scope_of(OnChip::Acc)))
        cannot_map(stage, "its zero init covers " + std::to_string(n) + " of the " +
                              std::to_string(elem_scalars(scope_of(OnChip::Acc))) + " lanes of an accumulator row");
    GemmFields g;
    g.loop.reset = true;
    push_nest(Insn::gemm_op(g), "reset " + stage, s, std::move(inst));
  }

  // The accumulator, input and weight element of one tensorized vdla.gemm nest at the current loop
  // values (its own loops at 0).
  std::optional<Uop> gemm_instance(const For* top, std::string* stage) {
    const Store* st = nullptr;
    std::vector<const For*> inner;
    const StmtNode* x = top;
    while (const For* f = x->as<For>()) {
      inner.push_back(f);
      x = f->body.get();
    }
    std::vector<Expr> guards;  // a non-dividing split's guards: they depend on loops outside the nest
    while (const IfThenElse* i = x->as<IfThenElse>()) {
      TEXC_CHECK(!i->else_case) << "an else inside a tensorized vdla.gemm nest";
      guards.push_back(i->cond);
      x = i->then_case.get();
    }
    st = x->as<Store>();
    TEXC_CHECK(st) << "a tensorized vdla.gemm nest without a store in " << func_name_;
    *stage = st->stage.empty() ? st->buffer->name : st->stage;
    const Load *inp = nullptr, *wgt = nullptr;
    for_each_expr(st->value, [&](const Expr& e) {
      if (const Load* l = e->as<Load>()) {
        if (l->buffer->scope == scope_of(OnChip::Inp)) inp = l;
        if (l->buffer->scope == scope_of(OnChip::Wgt)) wgt = l;
      }
    });
    if (st->buffer->scope != scope_of(OnChip::Acc))
      cannot_map(*stage, "tensorize(vdla.gemm) accumulates into '" + st->buffer->name +
                             "', which is not in vdla.acc; cache_write the stage to vdla.acc");
    if (!inp || !wgt)
      cannot_map(*stage, "tensorize(vdla.gemm) must read its input from vdla.inp and its weights from vdla.wgt; "
                         "cache_read them there");
    for (const For* f : inner) env_[f->var.get()] = 0;
    for (const Expr& g : guards)
      if (!eval(g)) return std::nullopt;  // a tail point of a non-dividing split: nothing to compute
    int64_t lane_acc, lane_inp, lane_wgt;
    Uop u;
    u.acc = uint64_t(places_.sram_elem(st->buffer.get(), eval(st->indices[0]), &lane_acc));
    u.inp = uint64_t(places_.sram_elem(inp->buffer.get(), eval(inp->indices[0]), &lane_inp));
    u.wgt = uint64_t(places_.sram_elem(wgt->buffer.get(), eval(wgt->indices[0]), &lane_wgt));
    if (lane_acc || lane_inp || lane_wgt)
      cannot_map(*stage, "a tensorized vdla.gemm nest must start at a whole row of each buffer");
    return u;
  }

  void emit_gemm(const Stmt& s) {
    std::vector<Uop> inst;
    std::string stage;
    enumerate(
        s, [&](const Store* st) { unmappable_store(st, loc_); },
        [&](const For* f) {
          if (auto u = gemm_instance(f, &stage)) inst.push_back(*u);
        });
    if (inst.empty()) return;
    push_nest(Insn::gemm_op(GemmFields{}), "gemm " + stage, s, std::move(inst));
  }

  std::vector<AluStep> alu_chain(const Store* st, const Load** acc, const std::string& stage) {
    Expr v = st->value;
    if (const Cast* c = v->as<Cast>()) v = c->value;
    if (st->buffer->dtype != Int(8))
      cannot_map(stage, "it stores " + st->buffer->dtype.str() + ", but VDLA stores the low 8 bits of the "
                        "accumulator: end the stage with a clip and an i8 cast");
    std::vector<AluStep> steps;
    while (true) {
      if (const Load* l = v->as<Load>()) {
        if (l->buffer->scope != scope_of(OnChip::Acc)) break;
        *acc = l;
        std::reverse(steps.begin(), steps.end());
        return steps;
      }
      if (const Cast* c = v->as<Cast>(); c && c->value->type.is_integer()) {  // i32 <-> i64 around the chain
        v = c->value;
        continue;
      }
      const Binary* b = v->as<Binary>();
      if (!b) break;
      int64_t imm;
      Expr rest;
      bool commutative = b->op == BinaryOp::Add || b->op == BinaryOp::Mul || b->op == BinaryOp::Min ||
                         b->op == BinaryOp::Max;
      if (is_const_int(b->b, &imm)) {
        rest = b->a;
      } else if (commutative && is_const_int(b->a, &imm)) {
        rest = b->b;
      } else if (const Load* tile = acc_tile_load(b->b); tile || (commutative && acc_tile_load(b->a))) {
        // An operation with a second accumulator tile: the other side continues the chain.
        rest = tile ? b->a : b->b;
        if (!tile) tile = acc_tile_load(b->a);
        // (No shift by a tile: the language's shift by an amount outside 0..31 is not the ALU's.)
        if (!commutative)
          cannot_map(stage, std::string("the ALU cannot apply '") + binary_op_symbol(b->op) + "' with a second tile '" +
                                tile->buffer->name + "' (it has +, *, min and max between two vdla.acc tiles)");
        steps.push_back({b->op == BinaryOp::Add   ? AluOp::Add
                         : b->op == BinaryOp::Mul ? AluOp::Mul
                         : b->op == BinaryOp::Min ? AluOp::Min
                                                  : AluOp::Max,
                         0, tile});
        v = rest;
        continue;
      } else {
        break;
      }
      switch (b->op) {
        case BinaryOp::Add: steps.push_back({AluOp::Add, imm}); break;
        case BinaryOp::Sub: steps.push_back({AluOp::Add, -imm}); break;
        case BinaryOp::Mul: steps.push_back({AluOp::Mul, imm}); break;
        case BinaryOp::Min: steps.push_back({AluOp::Min, imm}); break;
        case BinaryOp::Max: steps.push_back({AluOp::Max, imm}); break;
        case BinaryOp::Shr: steps.push_back({AluOp::Shr, imm}); break;
        case BinaryOp::Shl: steps.push_back({AluOp::Shr, -imm}); break;
        default:
          cannot_map(stage, std::string("the ALU has no '") + binary_op_symbol(b->op) + "' (it has >>, <<, +, -, * "
                            "and min/max with a constant)");
      }
      v = rest;
    }
    cannot_map(stage, "its value " + to_string(v) + " is not an ALU operation with a constant or a second vdla.acc tile "
                      "on a vdla.acc tile");
  }

  void emit_store_out(const Stmt& s) {
    const Store* node = nullptr;
    const Load* acc = nullptr;
    std::vector<AluStep> steps;
    std::string stage;
    std::map<int64_t, CopyElem> elems;  // accumulator element -> output element
    std::vector<Uop> touched;
    std::vector<std::vector<Uop>> tile_rows;           // per step: (destination row, source row) of each row
    std::vector<std::map<int64_t, int64_t>> tile_src;  // per step: destination row -> source row
    const int64_t E = elem_scalars(scope_of(OnChip::Acc));
    enumerate(
        s,
        [&](const Store* st) {
          if (node && st != node)
            cannot_map(stage, "one loop nest stores several different computations of the accumulator");
          if (!node) {
            node = st;
            stage = st->stage.empty() ? st->buffer->name : st->stage;
            steps = alu_chain(st, &acc, stage);
            tile_rows.resize(steps.size());
            tile_src.resize(steps.size());
          }
          int64_t lane_acc;
          int64_t a = places_.sram_elem(acc->buffer.get(), eval(acc->indices[0]), &lane_acc);
          int64_t g = places_.dram_scalar(st->buffer.get(), eval(st->indices[0]));
          if (floor_mod(g, E) != lane_acc)
            cannot_map(stage, "it stores accumulator lanes to other lanes of its output rows; the innermost " +
                                  std::to_string(E) + " elements of the output must be one accumulator row");
          CopyElem& ce = elems[a];
          bool first_lane = ce.lanes++ == 0;
          if (first_lane) {
            ce.dram = floor_div(g, E);
            touched.push_back(Uop{uint64_t(a), uint64_t(a), 0});
          } else if (ce.dram != floor_div(g, E)) {
            cannot_map(stage, "one accumulator row is stored to two output rows");
          }
          for (size_t k = 0; k < steps.size(); ++k) {
            if (!steps[k].tile) continue;
            int64_t lane_src;
            int64_t src = places_.sram_elem(steps[k].tile->buffer.get(), eval(steps[k].tile->indices[0]), &lane_src);
            if (lane_src != lane_acc)
              cannot_map(stage, "it combines lane " + std::to_string(lane_acc) + " of '" + acc->buffer->name +
                                    "' with lane " + std::to_string(lane_src) + " of '" + steps[k].tile->buffer->name +
                                    "'; the ALU works lane by lane on whole rows");
            if (first_lane) tile_rows[k].push_back(Uop{uint64_t(a), uint64_t(src), 0}), tile_src[k][a] = src;
            else if (tile_src[k][a] != src)
              cannot_map(stage, "the rows of '" + steps[k].tile->buffer->name + "' it reads do not follow the rows of '" +
                                    acc->buffer->name + "' lane by lane");
          }
        },
        [&](const For*) { TEXC_CHECK(false) << "gemm in a store"; });
    if (!node) return;
    for (auto& [e, ce] : elems)
      if (ce.lanes != E)
        cannot_map(stage, "it stores " + std::to_string(ce.lanes) + " of the " + std::to_string(E) +
                              " lanes of an accumulator row; store whole rows");
    for (size_t k = 0; k < steps.size(); ++k) {
      const AluStep& step = steps[k];
      AluFields a;
      a.op = step.op;
      a.use_imm = !step.tile;
      a.imm = step.imm;
      push_nest(Insn::alu_op(a),
                std::string("alu ") + alu_op_name(step.op) + " " +
                    (step.tile ? step.tile->buffer->name : std::to_string(step.imm)) + " " + stage,
                s, step.tile ? tile_rows[k] : touched);
    }
    push_copy(Opcode::Store, MemBuffer::Out, "store " + stage, std::move(elems), false, stage,
              "its accumulator tile is not stored as a 2-D pattern (whole rows at a constant pitch)");
  }

  VarValues& env_;
  const OnChipPlaces& places_;
  const VdlaConfig& config_;
  SourceLoc loc_;
  const std::string& func_name_;
  int thread_;
  std::vector<StreamEntry>& emitted_;
};

}  // namespace

void inject_intrinsics(const Stmt& leaf, const LeafInfo& info, const LeafContext& ctx, std::vector<StreamEntry>& out) {
  IntrinsicInjector(ctx, out).inject(leaf, info);
}

}  // namespace texc::vdla
