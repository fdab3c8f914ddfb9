#include "backends/vdla/lowering/ExpandVirtualThreads.h"

#include "backends/vdla/lowering/InjectIntrinsics.h"
#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/Substitute.h"

namespace texc::vdla {

namespace {

bool is_leaf(const Stmt& s) {
  LeafKind k = classify_leaf(s).kind;
  return k != LeafKind::Mixed && k != LeafKind::Nothing;
}

// The statements under one vthread loop, the loop sunk to their leaves.
class SinkVirtualThread {
 public:
  SinkVirtualThread(const For* loop, SourceLoc loc) : loop_(loop), loc_(loc) {
    at_zero_[loop->var.get()] = make_int(0, loop->var->type);
  }

  Stmt sink(const Stmt& s) {
    if (!s) return s;
    if (is_leaf(s)) return per_thread(s);
    switch (s->kind) {
      case StmtKind::Seq: {
        const std::vector<Stmt>& stmts = s->as<Seq>()->stmts;
        std::vector<Stmt> out;
        for (size_t i = 0; i < stmts.size();) {
          size_t j = i + 1;
          int engine = is_leaf(stmts[i]) ? leaf_engine(classify_leaf(stmts[i])) : -1;
          if (engine >= 0)
            while (j < stmts.size() && is_leaf(stmts[j]) && leaf_engine(classify_leaf(stmts[j])) == engine) ++j;
          if (j - i > 1) out.push_back(per_thread(Seq::make({stmts.begin() + long(i), stmts.begin() + long(j)})));
          else out.push_back(sink(stmts[i]));
          i = j;
        }
        return Seq::make(std::move(out));
      }
      case StmtKind::For: {
        const For* f = s->as<For>();
        if (f->for_kind == ForKind::ThreadBound) {
          if (!is_const_int(loop_->extent, int64_t(1)))
            throw_error(DiagId::VdlaCannotMap, loc_, f->var->name, "virtual threads inside virtual threads are not supported");
          // Inside a virtual thread of one thread, the inner loop is the one that counts.
          Stmt inner = substitute(s, at_zero_);
          return SinkVirtualThread(inner->as<For>(), loc_).sink(inner->as<For>()->body);
        }
        return f->with_range(substitute(f->min, at_zero_), substitute(f->extent, at_zero_), sink(f->body));
      }
      case StmtKind::IfThenElse: {
        const IfThenElse* i = s->as<IfThenElse>();
        return IfThenElse::make(substitute(i->cond, at_zero_), sink(i->then_case), sink(i->else_case));
      }
      case StmtKind::LetStmt: {
        const LetStmt* l = s->as<LetStmt>();
        return LetStmt::make(l->var, substitute(l->value, at_zero_), sink(l->body));
      }
      case StmtKind::AttrStmt: {
        const AttrStmt* a = s->as<AttrStmt>();
        return AttrStmt::make(a->key, a->name, substitute(a->value, at_zero_), sink(a->body));
      }
      case StmtKind::Allocate: {
        const Allocate* a = s->as<Allocate>();
        return AttrStmt::make(AttrKey::VirtualThread, loop_->var->name, loop_->extent,
                              Allocate::make(a->buffer, sink(a->body)));
      }
      default:  // a store or call that is no leaf: the walk reports it
        return substitute(s, at_zero_);
    }
  }

  // `bound(vthread) v' in 0..n { s[v := v'] }`
  Stmt per_thread(const Stmt& s) {
    Var v = Variable::make(loop_->var->name, loop_->var->type);
    return For::make(v, loop_->min, loop_->extent, ForKind::ThreadBound,
                     substitute(s, VarMap{{loop_->var.get(), v}}), loop_->thread_tag);
  }

 private:
  const For* loop_;
  SourceLoc loc_;
  VarMap at_zero_;
};

class ExpandAll : public IRMutator {
 public:
  explicit ExpandAll(SourceLoc loc) : loc_(loc) {}

 protected:
  using IRMutator::mutate;
  Stmt mutate(const For* op, const Stmt& self) override {
    if (op->for_kind != ForKind::ThreadBound) return IRMutator::mutate(op, self);
    return SinkVirtualThread(op, loc_).sink(op->body);
  }

 private:
  SourceLoc loc_;
};

}  // namespace

LoweredFunc expand_virtual_threads(const LoweredFunc& func, SourceLoc loc) {
  LoweredFunc out = func;
  out.body = ExpandAll(loc).mutate_stmt(func.body);
  return out;
}

}  // namespace texc::vdla
