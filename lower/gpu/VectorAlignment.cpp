#include "lower/gpu/VectorAlignment.h"

#include <algorithm>
#include <set>
#include <string>

#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lower/Remarks.h"
#include "lower/passes/VectorizeLoops.h"

namespace texc {

namespace {

constexpr int64_t kGpuBufferAlignment = 16;  // kernel arguments and shared buffers (CodeGenNVPTX)

int64_t dtype_bytes(Type t) { return std::max<int64_t>(1, int64_t(t.bits) / 8); }

void check_loop(const For* loop) {
  int64_t lanes = 0;
  if (!is_const_int(loop->extent, &lanes) || lanes < 2 || !vectorizes(loop)) return;
  std::set<std::string> reported;
  auto check = [&](const Buffer& buffer, const std::vector<Expr>& indices) {
    if (buffer->scope == MemScope::Local || indices.size() != 1 || !uses_var(indices[0], loop->var.get())) return;
    const int64_t bytes = dtype_bytes(buffer->dtype);
    const int64_t wanted = std::min(kGpuBufferAlignment, lanes * bytes);
    const Expr first = simplify(substitute(indices[0], VarMap{{loop->var.get(), loop->min}}));
    const int64_t proven = provable_alignment(modulus_remainder(first), bytes, kGpuBufferAlignment);
    if (proven >= wanted || !reported.insert(buffer->name).second) return;
    report_remark({PendingRemark::Subject::Loop, loop->var->name,
                   "vectorized loop '" + loop->var->name + "': its accesses to '" + buffer->name +
                       "' are proven only " + std::to_string(proven) + "-byte aligned, so they are split into " +
                       std::to_string(proven) + "-byte accesses instead of 128-bit ones (the rows of '" +
                       buffer->name + "' would need to be a multiple of " + std::to_string(kGpuBufferAlignment / bytes) +
                       " elements)"});
  };
  for_each_stmt(loop->body, [&](const Stmt& s) {
    if (const Store* st = s->as<Store>()) check(st->buffer, st->indices);
  });
  for_each_expr(loop->body, [&](const Expr& e) {
    if (const Load* ld = e->as<Load>()) check(ld->buffer, ld->indices);
  });
}

}  // namespace

Stmt remark_unaligned_gpu_vectors(const Stmt& body) {
  for_each_stmt(body, [](const Stmt& s) {
    if (const For* f = s->as<For>(); f && f->for_kind == ForKind::Vectorized) check_loop(f);
  });
  return body;
}

}  // namespace texc
