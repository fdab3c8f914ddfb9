#include "backends/vdla/Codegen.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "backends/vdla/Simulator.h"
#include "backends/vdla/lowering/FoldUopLoops.h"
#include "backends/vdla/lowering/InjectDmaCopies.h"
#include "backends/vdla/lowering/InsertDependencyTokens.h"
#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

namespace texc::vdla {

namespace {

bool is_sram(MemScope s) { return s == MemScope::VdlaInp || s == MemScope::VdlaWgt || s == MemScope::VdlaAcc; }

const char* sram_name(MemScope s) {
  switch (s) {
    case MemScope::VdlaInp: return "INP";
    case MemScope::VdlaWgt: return "WGT";
    default: return "ACC";
  }
}

bool is_gemm_loop(const For* f) { return f->for_kind == ForKind::Tensorized && f->thread_tag == "vdla.gemm"; }

// What a statement does on the accelerator, judged by the stores under it.
enum class LeafKind { Nothing, Load, Reset, Gemm, StoreOut, Mixed };

struct LeafInfo {
  LeafKind kind = LeafKind::Nothing;
  const BufferNode* target = nullptr;  // the buffer every store of a Load/Reset/StoreOut leaf writes
};

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
    if (const Load* l = x->as<Load>(); l && l->buffer->scope == MemScope::VdlaAcc) found = true;
  });
  return found;
}

LeafInfo classify_store(const Store* st) {
  Expr cond;
  if (st->buffer->scope == MemScope::VdlaAcc && is_const_int(st->value, int64_t(0)))
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
  return l && l->buffer->scope == MemScope::VdlaAcc ? l : nullptr;
}

class Generator {
 public:
  Generator(const LoweredFunc& func, const VdlaConfig& config, SourceLoc loc, bool chunk_store_out)
      : func_(func), config_(config), derived_(derive(config)), loc_(loc), chunk_store_out_(chunk_store_out) {}

  /// The first step of the VDLA pipeline: walks the op into the stream, one entry per piece of
  /// accelerator work, copies and micro-op nests still pending (lowering/Stream.h).
  std::vector<StreamEntry> walk_op() {
    program_.config = config_;
    place_arguments(program_);
    check_reductions_tensorized(func_.body);
    walk(func_.body);
    return std::move(emitted_);
  }

  /// The program so far: configuration, arguments and where the micro-op table goes in DRAM.
  const VdlaProgram& layout() const { return program_; }

 private:
  // ---- DRAM: the arguments, then the micro-op table

  void place_arguments(VdlaProgram& program) {
    uint64_t offset = 0;
    const uint64_t align = uint64_t(std::max({derived_.inp_elem_bytes, derived_.wgt_elem_bytes,
                                              derived_.acc_elem_bytes, derived_.out_elem_bytes}));
    for (size_t i = 0; i < func_.args.size(); ++i) {
      const Buffer& b = func_.args[i];
      TensorArg arg;
      arg.name = b->name;
      arg.type = b->dtype;
      arg.shape = i < func_.arg_dims.size() ? func_.arg_dims[i] : std::vector<int64_t>{};
      arg.dram_offset = offset;
      arg.is_output = b->role == BufferRole::Output;
      args_[b.get()] = offset;
      offset += (arg.bytes() + align - 1) / align * align;
      program.args.push_back(arg);
    }
    program.uop_dram_offset = offset;
  }
 private:
  // ---- on-chip buffers

  struct Sram {
    MemScope scope;
    int64_t base = 0;      // first element
    int64_t elems = 0;     // elements of one copy
    int copies = 1;        // one per virtual thread when allocated under the vthread loop
    int64_t elem_scalars;  // scalars per element
  };

  int64_t elem_scalars(MemScope s) const {
    switch (s) {
      case MemScope::VdlaInp: return config_.batch * config_.block_in;
      case MemScope::VdlaWgt: return config_.block_out * config_.block_in;
      default: return config_.batch * config_.block_out;
    }
  }
  int64_t depth(MemScope s) const {
    switch (s) {
      case MemScope::VdlaInp: return derived_.inp_depth;
      case MemScope::VdlaWgt: return derived_.wgt_depth;
      default: return derived_.acc_depth;
    }
  }
  int64_t elem_bytes(MemScope s) const {
    switch (s) {
      case MemScope::VdlaInp: return derived_.inp_elem_bytes;
      case MemScope::VdlaWgt: return derived_.wgt_elem_bytes;
      default: return derived_.acc_elem_bytes;
    }
  }

  void allocate(const Buffer& b) {
    auto scalars = eval_int(b->shape[0]);
    TEXC_CHECK(scalars) << "buffer " << b->name << " has no constant size";
    Sram s{b->scope, used_[b->scope], 0, vthreads_, elem_scalars(b->scope)};
    s.elems = (*scalars + s.elem_scalars - 1) / s.elem_scalars;
    int64_t need = s.elems * s.copies;
    if (s.base + need > depth(b->scope)) {
      int64_t bytes = need * elem_bytes(b->scope), left = (depth(b->scope) - s.base) * elem_bytes(b->scope);
      throw_error(DiagId::VdlaBufferFull, loc_, sram_name(b->scope), b->name, bytes,
                  s.copies > 1 ? " (" + std::to_string(s.copies) + " copies, one per virtual thread)" : std::string(),
                  bytes - left, depth(b->scope) * elem_bytes(b->scope));
    }
    used_[b->scope] += need;
    sram_[b.get()] = s;
  }

  // The element a scalar index of an on-chip buffer falls in, for the current thread.
  int64_t sram_elem(const BufferNode* b, int64_t scalar, int64_t* lane = nullptr) const {
    const Sram& s = sram_.at(b);
    if (lane) *lane = floor_mod(scalar, s.elem_scalars);
    return s.base + (s.copies > 1 ? thread_ : 0) * s.elems + floor_div(scalar, s.elem_scalars);
  }

  // ---- the walk

  int64_t eval(const Expr& e) {
    auto v = eval_int(e, env_);
    TEXC_CHECK(v) << "cannot evaluate " << to_string(e) << " while generating VDLA code for " << func_.name;
    return *v;
  }

  const LeafInfo& classify(const Stmt& s) {
    auto it = leaf_cache_.find(s.get());
    if (it != leaf_cache_.end()) return it->second;
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
    return leaf_cache_.emplace(s.get(), info).first->second;
  }

  void walk(const Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq: {
        // Consecutive leaves of one engine form one block per virtual thread (VTA lifts them into one
        // coprocessor scope): thread 0's loads, then thread 1's, so a thread's next loads never wait
        // behind another thread's.
        const std::vector<Stmt>& stmts = s->as<Seq>()->stmts;
        for (size_t i = 0; i < stmts.size();) {
          size_t j = i + 1;
          int engine = leaf_engine(stmts[i]);
          if (engine >= 0)
            while (j < stmts.size() && leaf_engine(stmts[j]) == engine) ++j;
          if (j - i > 1) emit_leaves({stmts.begin() + long(i), stmts.begin() + long(j)});
          else walk(stmts[i]);
          i = j;
        }
        return;
      }
      case StmtKind::LetStmt: {
        const LetStmt* l = s->as<LetStmt>();
        env_[l->var.get()] = eval(l->value);
        walk(l->body);
        return;
      }
      case StmtKind::IfThenElse: {
        const IfThenElse* i = s->as<IfThenElse>();
        if (classify(s).kind != LeafKind::Mixed && classify(s).kind != LeafKind::Nothing) return emit_leaf(s);
        walk(eval(i->cond) ? i->then_case : i->else_case);
        return;
      }
      case StmtKind::AttrStmt:
        walk(s->as<AttrStmt>()->body);
        return;
      case StmtKind::Allocate: {
        const Allocate* a = s->as<Allocate>();
        if (!is_sram(a->buffer->scope))
          cannot_map(a->buffer->name, "it is an intermediate tensor in DRAM, and VDLA computes only in its on-chip "
                                      "buffers; inline it, or cache_write it to vdla.acc and compute it there (an op "
                                      "for VDLA is one accelerator kernel: layout transforms such as "
                                      "nchw_to_nchwc_int8 before or after it run as ops of their own, on the host)");
        auto saved = used_;
        allocate(a->buffer);
        walk(a->body);
        used_ = saved;
        return;
      }
      case StmtKind::For: {
        const For* f = s->as<For>();
        LeafKind kind = classify(s).kind;
        if (kind == LeafKind::StoreOut && store_out_in_chunks(s)) {
          // One ALU chain and store per iteration of the outermost loop (see store_out_in_chunks).
          int64_t lo = eval(f->min), n = eval(f->extent);
          for (int64_t v = lo; v < lo + n; ++v) {
            env_[f->var.get()] = v;
            emit_leaf(f->body);
          }
          return;
        }
        if (kind != LeafKind::Mixed && kind != LeafKind::Nothing) return emit_leaf(s);
        if (f->for_kind == ForKind::ThreadBound) {
          if (vthreads_ > 1) cannot_map(f->var->name, "virtual threads inside virtual threads are not supported");
          vthreads_ = int(eval(f->extent));
          vthread_var_ = f->var.get();
          env_[vthread_var_] = 0;
          walk(f->body);
          vthreads_ = 1;
          vthread_var_ = nullptr;
          return;
        }
        int64_t lo = eval(f->min), n = eval(f->extent);
        for (int64_t v = lo; v < lo + n; ++v) {
          env_[f->var.get()] = v;
          walk(f->body);
        }
        return;
      }
      case StmtKind::Store: {
        const Store* st = s->as<Store>();
        if (classify(s).kind == LeafKind::Mixed) unmappable_store(st);
        return emit_leaf(s);
      }
      case StmtKind::Evaluate:
        cannot_map(func_.name, "it calls '" + to_string(s->as<Evaluate>()->value) + "', which VDLA cannot run");
      case StmtKind::Block:
        TEXC_CHECK(false) << "Block in the lowered op " << func_.name;
    }
  }

  [[noreturn]] void unmappable_store(const Store* st) {
    std::string stage = st->stage.empty() ? st->buffer->name : st->stage;
    if (is_sram(st->buffer->scope))
      cannot_map(stage, std::string("it computes into ") + mem_scope_name(st->buffer->scope) +
                            " something that is neither a copy of an argument, a reduction's zero init, nor a "
                            "tensorized vdla.gemm: " + to_string(st->value));
    cannot_map(stage, "it writes '" + st->buffer->name + "' in DRAM from " + to_string(st->value) +
                          ", but only a store of a vdla.acc tile (through >>, +, *, min, max with constants and an "
                          "int8 cast) can write DRAM; cache_write the stage to vdla.acc");
  }

  // A reduction that accumulates into vdla.acc outside a tensorized vdla.gemm nest is a missing
  // tensorize: say so before any other complaint about the tile (its zero init, its loops).
  void check_reductions_tensorized(const Stmt& body) {
    std::set<const StmtNode*> in_gemm;
    for_each_stmt(body, [&](const Stmt& s) {
      if (const For* f = s->as<For>(); f && is_gemm_loop(f))
        for_each_stmt(f->body, [&](const Stmt& x) { in_gemm.insert(x.get()); });
    });
    for_each_stmt(body, [&](const Stmt& s) {
      const Store* st = s->as<Store>();
      if (!st || in_gemm.count(s.get()) || st->buffer->scope != MemScope::VdlaAcc) return;
      bool accumulates = false;
      for_each_expr(st->value, [&](const Expr& e) {
        if (const Load* l = e->as<Load>(); l && l->buffer.get() == st->buffer.get()) accumulates = true;
      });
      if (accumulates)
        cannot_map(st->stage.empty() ? st->buffer->name : st->stage,
                   "its reduction accumulates into vdla.acc without the GEMM unit; add tensorize(L, vdla.gemm) on its "
                   "loop over the 16 output lanes of a row (with the 16 reduction lanes inside it, as "
                   "reorder(..., no, ki) puts them)");
    });
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
        TEXC_CHECK(false) << "unexpected statement in a VDLA leaf of " << func_.name;
    }
  }

  // The loops of a perfect nest from s down (not entering tensorized loops).
  static std::vector<const For*> perfect_loops(const Stmt& s) {
    std::vector<const For*> loops;
    const StmtNode* x = s.get();
    while (const For* f = x ? x->as<For>() : nullptr) {
      if (is_gemm_loop(f)) break;
      loops.push_back(f);
      x = f->body.get();
    }
    return loops;
  }

  // The engine of a leaf that is one engine's work (LOAD for copies, COMPUTE for resets and GEMMs),
  // else -1.
  int leaf_engine(const Stmt& s) {
    switch (classify(s).kind) {
      case LeafKind::Load: return int(Engine::Load);
      case LeafKind::Reset:
      case LeafKind::Gemm: return int(Engine::Compute);
      default: return -1;
    }
  }

  void emit_leaf(const Stmt& s) { emit_leaves({s}); }

  // The leaves in order for virtual thread 0, then for thread 1, ...
  void emit_leaves(const std::vector<Stmt>& leaves) {
    VarValues saved = env_;
    for (int t = 0; t < vthreads_; ++t) {
      thread_ = t;
      for (const Stmt& s : leaves) {
        env_ = saved;
        if (vthread_var_) env_[vthread_var_] = t;
        LeafInfo info = classify(s);
        switch (info.kind) {
          case LeafKind::Load: emit_load(s, info.target); break;
          case LeafKind::Reset: emit_reset(s, info.target); break;
          case LeafKind::Gemm: emit_gemm(s); break;
          case LeafKind::StoreOut: emit_store_out(s); break;
          default: TEXC_CHECK(false) << "not a leaf";
        }
      }
    }
    thread_ = 0;
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

  // ---- 2-D copies

  // The DRAM element and lane of argument `b`'s scalar `i` in units of `elem_scalars` scalars.
  int64_t dram_scalar(const BufferNode* b, int64_t i) {
    auto it = args_.find(b);
    if (it == args_.end())
      cannot_map(b->name, "it is read or written by the accelerator but is not an argument of the op in DRAM");
    return int64_t(it->second) / b->dtype.bytes() + i;
  }

  void emit_load(const Stmt& s, const BufferNode* target) {
    const int64_t E = sram_.at(target).elem_scalars;
    std::map<int64_t, CopyElem> elems;
    const BufferNode* source = nullptr;
    std::string stage;
    enumerate(
        s,
        [&](const Store* st) {
          stage = st->stage.empty() ? st->buffer->name : st->stage;
          int64_t lane;
          int64_t e = sram_elem(target, eval(st->indices[0]), &lane);
          Expr cond;
          const Load* l = copied_load(st->value, &cond);
          CopyElem& ce = elems[e];
          bool pad = cond && !eval(cond);
          if (ce.lanes == 0) ce.pad = pad;
          if (ce.pad != pad) cannot_map(stage, "its zero padding splits a " + std::to_string(E) + "-element row of " +
                                                   mem_scope_name(target->scope) + "; pad whole rows");
          ++ce.lanes;
          if (pad) return;
          source = l->buffer.get();
          if (l->buffer->dtype != target->dtype)
            cannot_map(stage, "it copies " + l->buffer->dtype.str() + " into " + target->dtype.str());
          int64_t g = dram_scalar(l->buffer.get(), eval(l->indices[0]));
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
                              " elements of a row of " + std::string(mem_scope_name(target->scope)) + "; copy whole rows");
    // An accumulator tile loads int32 rows (ACC) or int8 rows sign-extended (ACC8).
    if (target->scope == MemScope::VdlaAcc && target->dtype != Int(32) && target->dtype != Int(8))
      cannot_map(stage, "it copies " + target->dtype.str() + " into vdla.acc, which loads i32 rows or i8 rows (sign-extended)");
    MemBuffer buffer = target->scope == MemScope::VdlaInp   ? MemBuffer::Inp
                       : target->scope == MemScope::VdlaWgt ? MemBuffer::Wgt
                       : target->dtype == Int(8)            ? MemBuffer::Acc8
                                                            : MemBuffer::Acc;
    push_copy(Opcode::Load, buffer, "load " + stage, std::move(elems), true, stage,
              "its copy of '" + std::string(source ? source->name : "?") +
                  "' is not a 2-D pattern (rows of contiguous elements at a constant pitch, zero padding only around them)");
  }

  // ---- GEMM and its reset

  void emit_reset(const Stmt& s, const BufferNode* target) {
    std::map<int64_t, int64_t> lanes;
    std::vector<Uop> inst;
    std::string stage;
    enumerate(
        s,
        [&](const Store* st) {
          stage = st->stage.empty() ? st->buffer->name : st->stage;
          int64_t e = sram_elem(target, eval(st->indices[0]));
          if (lanes[e]++ == 0) inst.push_back(Uop{uint64_t(e), 0, 0});
        },
        [&](const For*) {});
    if (inst.empty()) return;
    for (auto& [e, n] : lanes)
      if (n != elem_scalars(MemScope::VdlaAcc))
        cannot_map(stage, "its zero init covers " + std::to_string(n) + " of the " +
                              std::to_string(elem_scalars(MemScope::VdlaAcc)) + " lanes of an accumulator row");
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
    TEXC_CHECK(st) << "a tensorized vdla.gemm nest without a store in " << func_.name;
    *stage = st->stage.empty() ? st->buffer->name : st->stage;
    const Load *inp = nullptr, *wgt = nullptr;
    for_each_expr(st->value, [&](const Expr& e) {
      if (const Load* l = e->as<Load>()) {
        if (l->buffer->scope == MemScope::VdlaInp) inp = l;
        if (l->buffer->scope == MemScope::VdlaWgt) wgt = l;
      }
    });
    if (st->buffer->scope != MemScope::VdlaAcc)
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
    u.acc = uint64_t(sram_elem(st->buffer.get(), eval(st->indices[0]), &lane_acc));
    u.inp = uint64_t(sram_elem(inp->buffer.get(), eval(inp->indices[0]), &lane_inp));
    u.wgt = uint64_t(sram_elem(wgt->buffer.get(), eval(wgt->indices[0]), &lane_wgt));
    if (lane_acc || lane_inp || lane_wgt)
      cannot_map(*stage, "a tensorized vdla.gemm nest must start at a whole row of each buffer");
    return u;
  }

  void emit_gemm(const Stmt& s) {
    std::vector<Uop> inst;
    std::string stage;
    enumerate(
        s, [&](const Store* st) { unmappable_store(st); },
        [&](const For* f) {
          if (auto u = gemm_instance(f, &stage)) inst.push_back(*u);
        });
    if (inst.empty()) return;
    push_nest(Insn::gemm_op(GemmFields{}), "gemm " + stage, s, std::move(inst));
  }

  // ---- elementwise on the accumulator, then the store

  std::vector<AluStep> alu_chain(const Store* st, const Load** acc, const std::string& stage) {
    Expr v = st->value;
    if (const Cast* c = v->as<Cast>()) v = c->value;
    if (st->buffer->dtype != Int(8))
      cannot_map(stage, "it stores " + st->buffer->dtype.str() + ", but VDLA stores the low 8 bits of the "
                        "accumulator: end the stage with a clip and an i8 cast");
    std::vector<AluStep> steps;
    while (true) {
      if (const Load* l = v->as<Load>()) {
        if (l->buffer->scope != MemScope::VdlaAcc) break;
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

  // Whether the store-out nest `s` (a loop) is emitted one iteration of its outermost loop at a
  // time, so that the requantization of one chunk of an accumulator tile overlaps the store of the
  // chunk before, and the store that a reset of the tile waits for is a short one (Tokens.h
  // orders only what conflicts). Only when enabled, for an outermost loop of 2..kMaxStoreChunks
  // iterations over a nest of at least two loops, that moves whole accumulator rows and whole
  // output rows (never lanes of one row) from one iteration to the next.
  static constexpr int64_t kMaxStoreChunks = 16;
  bool store_out_in_chunks(const Stmt& s) {
    if (!chunk_store_out_) return false;
    std::vector<const For*> loops = perfect_loops(s);
    if (loops.size() < 2) return false;
    const For* outer = loops[0];
    VarValues env = env_;
    auto n = eval_int(outer->extent, env);
    if (!n || *n < 2 || *n > kMaxStoreChunks) return false;
    const Store* store = nullptr;
    int stores = 0;
    for_each_stmt(s, [&](const Stmt& x) {
      if (const Store* st = x->as<Store>()) store = st, ++stores;
    });
    if (stores != 1) return false;
    const Load* acc = nullptr;
    for_each_expr(store->value, [&](const Expr& e) {
      if (const Load* l = e->as<Load>(); l && l->buffer->scope == MemScope::VdlaAcc) acc = l;
    });
    if (!acc) return false;
    // The scalar indices of the accumulator and the output at the first two iterations of the
    // outer loop, every inner loop at its first value.
    auto indices_at = [&](int64_t k) -> std::optional<std::pair<int64_t, int64_t>> {
      VarValues at = env;
      for (const For* l : loops) {
        auto lo = eval_int(l->min, at);
        if (!lo) return std::nullopt;
        at[l->var.get()] = *lo + (l == outer ? k : 0);
      }
      auto a = eval_int(acc->indices[0], at), g = eval_int(store->indices[0], at);
      if (!a || !g) return std::nullopt;
      return std::make_pair(*a, *g);
    };
    auto first = indices_at(0), second = indices_at(1);
    if (!first || !second) return false;
    const int64_t E = elem_scalars(MemScope::VdlaAcc);
    return floor_mod(second->first - first->first, E) == 0 && floor_mod(second->second - first->second, E) == 0;
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
    const int64_t E = elem_scalars(MemScope::VdlaAcc);
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
          int64_t a = sram_elem(acc->buffer.get(), eval(acc->indices[0]), &lane_acc);
          int64_t g = dram_scalar(st->buffer.get(), eval(st->indices[0]));
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
            int64_t src = sram_elem(steps[k].tile->buffer.get(), eval(steps[k].tile->indices[0]), &lane_src);
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

  const LoweredFunc& func_;
  VdlaProgram program_;
  VdlaConfig config_;
  VdlaDerived derived_;
  SourceLoc loc_;
  bool chunk_store_out_;
  VarValues env_;
  std::unordered_map<const BufferNode*, uint64_t> args_;  // argument -> DRAM byte offset
  std::unordered_map<const BufferNode*, Sram> sram_;
  std::map<MemScope, int64_t> used_;
  std::unordered_map<const StmtNode*, LeafInfo> leaf_cache_;
  int vthreads_ = 1;
  const Variable* vthread_var_ = nullptr;
  int thread_ = 0;
  std::vector<StreamEntry> emitted_;
};

// The program of a placed stream: each instruction and micro-op checked against its fields' widths
// (a UserError at `loc` naming the instruction), then the whole stream run through the simulator's
// token model (it must balance and never deadlock; else an internal error).
VdlaProgram emit_program(VdlaProgram program, const std::vector<ThreadedInsn>& stream, const std::vector<Uop>& uops,
                         const VdlaDerived& derived, SourceLoc loc, const std::string& name) {
  for (const ThreadedInsn& ti : stream) {
    if (auto problem = check_insn_fields(ti.insn, derived))
      throw_error(DiagId::VdlaFieldOverflow, loc, problem->insn, problem->field, problem->value, problem->width,
                  problem->range + (ti.comment.empty() ? "" : "; for " + ti.comment));
    program.insns.push_back(ti.insn);
    program.comments.push_back(ti.comment + (ti.thread > 0 ? " [vthread " + std::to_string(ti.thread) + "]" : ""));
  }
  program.uops = uops;
  program.dram_bytes = program.uop_dram_offset + uops.size() * uint64_t(derived.uop_elem_bytes);
  for (const Uop& u : uops)
    if (auto problem = check_uop_fields(u, derived))
      throw_error(DiagId::VdlaFieldOverflow, loc, problem->insn, problem->field, problem->value, problem->width,
                  problem->range);
  std::vector<uint8_t> dram = make_dram_image(program);
  SimOptions options;
  options.execute_datapath = false;
  SimResult check = simulate(program, dram, options);
  TEXC_CHECK(check.ok()) << "the VDLA stream of " << name << " is not valid: " << check.error.message;
  return program;
}

}  // namespace

VdlaProgram generate_program(const LoweredFunc& func, const VdlaConfig& config, SourceLoc loc) {
  // VDLA has no floating point anywhere (int8 inputs and weights, int32 accumulators): say that
  // first, rather than what a float stage's stores or loops would have needed.
  for (const Buffer& b : func.args)
    if (b->dtype.is_float())
      throw_error(DiagId::VdlaCannotMap, loc, func.name,
                  "its tensor '" + b->name + "' is " + b->dtype.str() +
                      ", and VDLA computes in integers only (int8 inputs and weights, int32 accumulators, "
                      "int8 outputs; docs/vdla.md): write the op in i8/i32, or run it on another target");
  // The VDLA pipeline. Epilogues in chunks need a few more micro-op kernels; an op whose kernels
  // then overflow the UOP buffer is lowered again with whole-tile epilogues (and reported if even
  // those do not fit).
  const VdlaDerived derived = derive(config);
  for (bool chunk_store_out : {true, false}) {
    // 1. loop AST -> stream: on-chip buffers placed, virtual threads expanded (each block of one
    //    engine's work once per thread), GEMM/ALU intrinsics and copies recognised (Generator).
    Generator walker(func, config, loc, chunk_store_out);
    std::vector<StreamEntry> stream = walker.walk_op();
    // 2. copies -> 2-D LOAD/STORE DMAs (lowering/InjectDmaCopies.h).
    inject_dma_copies(stream, derived, loc);
    // 3. micro-op nests -> GEMM/ALU loops over a shared micro-op table (lowering/FoldUopLoops.h).
    std::vector<Uop> uops = fold_uop_loops(stream, walker.layout().uop_dram_offset, derived);
    if (int64_t(uops.size()) > derived.uop_depth) {
      if (chunk_store_out) continue;
      throw_error(DiagId::VdlaCannotMap, loc, func.name,
                  "its micro-op kernels need " + std::to_string(uops.size()) + " micro-ops, more than the UOP buffer's " +
                      std::to_string(derived.uop_depth) + "; use smaller tiles");
    }
    // 4. dependency tokens (lowering/InsertDependencyTokens.h).
    std::vector<ThreadedInsn> placed = insert_dependency_tokens(std::move(stream), uops);
    // Emission: fields checked, the program checked by the simulator's token model.
    return emit_program(walker.layout(), placed, uops, derived, loc, func.name);
  }
  TEXC_UNREACHABLE();
}

}  // namespace texc::vdla
