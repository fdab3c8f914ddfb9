#include "lower/passes/UnrollLoops.h"

#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/passes/FreshCopy.h"

namespace texc {

namespace {

constexpr int64_t kMaxUnrollExtent = 64;
constexpr int64_t kMaxUnrolledNodes = 16384;

int64_t node_count(const Stmt& s) {
  int64_t n = 0;
  for_each_stmt(s, [&](const Stmt&) { ++n; });
  for_each_expr(s, [&](const Expr&) { ++n; });
  return n;
}

class Unroller : public IRMutator {
 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt lowered = IRMutator::mutate(op, self);
    const For* loop = lowered->as<For>();
    int64_t extent;
    if (loop->for_kind != ForKind::Unrolled || !is_const_int(loop->extent, &extent)) return lowered;
    if (extent < 0 || extent > kMaxUnrollExtent || extent * node_count(loop->body) > kMaxUnrolledNodes) return lowered;
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < extent; ++i) {
      Expr value = simplify(loop->min + make_const(loop->var->type, double(i)));
      Stmt copy = substitute(loop->body, VarMap{{loop->var.get(), value}});
      copies.push_back(i == 0 ? copy : fresh_copy(copy));
    }
    return Seq::make(std::move(copies));
  }
};

}  // namespace

Stmt unroll_loops(const Stmt& s) { return Unroller().mutate_stmt(s); }

}  // namespace texc
