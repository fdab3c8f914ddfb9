#include "lower/passes/FlattenStorage.h"

#include <unordered_map>

#include "ir/ConstEval.h"
#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IROperators.h"
#include "ir/Simplify.h"

namespace texc {

namespace {

class Flattener : public IRMutator {
 public:
  Buffer flat(const Buffer& b) {
    auto it = flat_.find(b.get());
    if (it != flat_.end()) return it->second;
    Expr size = make_int(1);
    for (const Expr& e : b->shape) size = simplify(size * e);
    Buffer f = BufferNode::make(b->name, b->dtype, {size}, b->scope, b->role);
    flat_[b.get()] = f;
    return f;
  }
  Expr offset(const Buffer& b, const std::vector<Expr>& idx) {
    if (b->ndim() == 1) return idx[0];
    // With constant extents: a flat sum idx[d] * stride[d], which simplifies in time linear in the
    // rank (the nested Horner form below takes cubic time: minutes for a rank-800 tensor).
    std::vector<int64_t> strides(idx.size(), 1);
    bool constant = true;
    for (size_t d = idx.size() - 1; constant && d > 0; --d) {
      int64_t extent = 0;
      constant = is_const_int(b->shape[d], &extent) && !__builtin_mul_overflow(strides[d], extent, &strides[d - 1]);
    }
    Expr off;
    if (constant) {
      for (size_t d = 0; d < idx.size(); ++d) {
        Expr term = strides[d] == 1 ? idx[d] : idx[d] * IntImm::make(idx[d]->type, strides[d]);
        off = off ? off + term : term;
      }
    } else {
      for (size_t d = 0; d < idx.size(); ++d) off = off ? off * b->shape[d] + idx[d] : idx[d];
    }
    return simplify(off);
  }

 protected:
  Expr mutate(const Load* op, const Expr&) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    return Load::make(flat(op->buffer), {offset(op->buffer, idx)});
  }
  Stmt mutate(const Store* op, const Stmt&) override {
    bool changed = false;
    auto idx = mutate_exprs(op->indices, &changed);
    Expr v = mutate_expr(op->value);
    return op->with(flat(op->buffer), {offset(op->buffer, idx)}, v);
  }
  Stmt mutate(const Allocate* op, const Stmt&) override {
    return Allocate::make(flat(op->buffer), mutate_stmt(op->body));
  }

 private:
  std::unordered_map<const BufferNode*, Buffer> flat_;
};

}  // namespace

LoweredFunc flatten_storage(const LoweredFunc& f) {
  Flattener flattener;
  LoweredFunc out = f;  // name, kind, launch, doc and attributes as they are
  out.args.clear();
  out.arg_dims.clear();
  for (const Buffer& b : f.args) {
    std::vector<int64_t> dims;
    for (const Expr& e : b->shape) {
      auto v = eval_int(e);
      TEXC_CHECK(v) << "argument '" << b->name << "' has a non-constant shape";
      dims.push_back(*v);
    }
    out.arg_dims.push_back(dims);
    out.args.push_back(flattener.flat(b));
  }
  out.body = flattener.mutate_stmt(f.body);
  return out;
}

}  // namespace texc
