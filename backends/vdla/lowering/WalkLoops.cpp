#include "backends/vdla/lowering/WalkLoops.h"

#include <algorithm>
#include <map>
#include <utility>
#include <optional>
#include <unordered_map>

#include "backends/vdla/lowering/InjectIntrinsics.h"
#include "backends/vdla/VdlaScopes.h"
#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

namespace texc::vdla {

namespace {

bool is_sram(const MemScope& s) { return on_chip_buffer(s).has_value(); }

const char* sram_name(const MemScope& s) {
  switch (on_chip_buffer(s).value_or(OnChip::Acc)) {
    case OnChip::Inp: return "INP";
    case OnChip::Wgt: return "WGT";
    default: return "ACC";
  }
}

class Walker : public OnChipPlaces {
 public:
  Walker(const LoweredFunc& func, const VdlaConfig& config, SourceLoc loc, bool chunk_store_out)
      : func_(func), config_(config), derived_(derive(config)), loc_(loc), chunk_store_out_(chunk_store_out) {}

  WalkedOp run() {
    program_.config = config_;
    place_arguments(program_);
    check_reductions_tensorized(func_.body, config_, loc_);
    walk(func_.body);
    return {std::move(program_), std::move(emitted_)};
  }

  int64_t sram_elem(const BufferNode* b, int64_t scalar, int64_t* lane = nullptr) const override {
    const Sram& s = sram_.at(b);
    if (lane) *lane = floor_mod(scalar, s.elem_scalars);
    return s.base + (s.copies > 1 ? thread_ : 0) * s.elems + floor_div(scalar, s.elem_scalars);
  }

  int64_t dram_scalar(const BufferNode* b, int64_t i) const override {
    auto it = args_.find(b);
    if (it == args_.end())
      cannot_map(b->name, "it is read or written by the accelerator but is not an argument of the op in DRAM");
    return int64_t(it->second) / b->dtype.bytes() + i;
  }

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

  int64_t elem_scalars(const MemScope& s) const {
    switch (on_chip_buffer(s).value_or(OnChip::Acc)) {
      case OnChip::Inp: return config_.batch * config_.block_in;
      case OnChip::Wgt: return config_.block_out * config_.block_in;
      default: return config_.batch * config_.block_out;
    }
  }
  int64_t depth(const MemScope& s) const {
    switch (on_chip_buffer(s).value_or(OnChip::Acc)) {
      case OnChip::Inp: return derived_.inp_depth;
      case OnChip::Wgt: return derived_.wgt_depth;
      default: return derived_.acc_depth;
    }
  }
  int64_t elem_bytes(const MemScope& s) const {
    switch (on_chip_buffer(s).value_or(OnChip::Acc)) {
      case OnChip::Inp: return derived_.inp_elem_bytes;
      case OnChip::Wgt: return derived_.wgt_elem_bytes;
      default: return derived_.acc_elem_bytes;
    }
  }

  void allocate(const Buffer& b, int copies) {
    auto scalars = eval_int(b->shape[0]);
    TEXC_CHECK(scalars) << "buffer " << b->name << " has no constant size";
    Sram s{b->scope, used_[b->scope], 0, copies, elem_scalars(b->scope)};
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


  // ---- the walk

  int64_t eval(const Expr& e) {
    auto v = eval_int(e, env_);
    TEXC_CHECK(v) << "cannot evaluate " << to_string(e) << " while generating VDLA code for " << func_.name;
    return *v;
  }

  const LeafInfo& classify(const Stmt& s) {
    auto it = leaf_cache_.find(s.get());
    if (it != leaf_cache_.end()) return it->second;
    LeafInfo info = classify_leaf(s);
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
      case StmtKind::AttrStmt: {
        const AttrStmt* a = s->as<AttrStmt>();
        // expand_virtual_threads marks a buffer of a virtual thread: one copy per thread.
        if (a->key == AttrKey::VirtualThread && a->body->as<Allocate>()) copies_ = int(eval(a->value));
        walk(a->body);
        return;
      }
      case StmtKind::Allocate: {
        const Allocate* a = s->as<Allocate>();
        if (!is_sram(a->buffer->scope))
          cannot_map(a->buffer->name, "it is an intermediate tensor in DRAM, and VDLA computes only in its on-chip "
                                      "buffers; inline it, or cache_write it to vdla.acc and compute it there (an op "
                                      "for VDLA is one accelerator kernel: layout transforms such as "
                                      "nchw_to_nchwc_int8 before or after it run as ops of their own, on the host)");
        auto saved = used_;
        allocate(a->buffer, std::exchange(copies_, 1));
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
          // expand_virtual_threads has sunk the loop to one leaf or one run of leaves of one engine.
          const Seq* run = f->body->as<Seq>();
          bool leaves = run ? std::all_of(run->stmts.begin(), run->stmts.end(),
                                          [&](const Stmt& x) { return leaf_engine(x) >= 0; })
                            : classify(f->body).kind != LeafKind::Mixed && classify(f->body).kind != LeafKind::Nothing;
          TEXC_CHECK(vthreads_ == 1 && leaves) << "walk_loops meets a vthread loop that expand_virtual_threads has not "
                                                  "sunk to its leaves, in "
                                               << func_.name;
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
        if (classify(s).kind == LeafKind::Mixed) unmappable_store(st, loc_);
        return emit_leaf(s);
      }
      case StmtKind::Evaluate:
        cannot_map(func_.name, "it calls '" + to_string(s->as<Evaluate>()->value) + "', which VDLA cannot run");
      case StmtKind::Block:
        TEXC_CHECK(false) << "Block in the lowered op " << func_.name;
    }
  }

  [[noreturn]] void cannot_map(const std::string& what, const std::string& why) const {
    throw_error(DiagId::VdlaCannotMap, loc_, what, why);
  }

  int leaf_engine(const Stmt& s) { return vdla::leaf_engine(classify(s)); }

  void emit_leaf(const Stmt& s) { emit_leaves({s}); }

  // The leaves in order for virtual thread 0, then for thread 1, ...
  void emit_leaves(const std::vector<Stmt>& leaves) {
    VarValues saved = env_;
    for (int t = 0; t < vthreads_; ++t) {
      thread_ = t;
      for (const Stmt& s : leaves) {
        env_ = saved;
        if (vthread_var_) env_[vthread_var_] = t;
        inject_intrinsics(s, classify(s), LeafContext{env_, *this, config_, loc_, func_.name, t}, emitted_);
      }
    }
    thread_ = 0;
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
      if (const Load* l = e->as<Load>(); l && l->buffer->scope == scope_of(OnChip::Acc)) acc = l;
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
    const int64_t E = elem_scalars(scope_of(OnChip::Acc));
    return floor_mod(second->first - first->first, E) == 0 && floor_mod(second->second - first->second, E) == 0;
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
  int vthreads_ = 1;  // in a vthread loop (around one leaf or one run of leaves)
  int copies_ = 1;    // of the next buffer allocated
  const Variable* vthread_var_ = nullptr;
  int thread_ = 0;
  std::vector<StreamEntry> emitted_;
};

}  // namespace

WalkedOp walk_loops(const LoweredFunc& func, const VdlaConfig& config, SourceLoc loc, bool chunk_store_out) {
  return Walker(func, config, loc, chunk_store_out).run();
}

}  // namespace texc::vdla
