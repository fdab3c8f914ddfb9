#include "lower/graph/ScratchParameters.h"

#include <algorithm>

#include "ir/IRMutator.h"
#include "ir/KernelScratch.h"
#include "ir/Substitute.h"
#include "lower/OpParts.h"

namespace texc {

namespace {

/// Removes the heap Allocates outside parallel loops, collecting their buffers in order.
class TakeScratch : public IRMutator {
 public:
  std::vector<Buffer> taken;

 protected:
  using IRMutator::mutate;

  Stmt mutate(const For* op, const Stmt& self) override {
    if (op->for_kind != ForKind::Parallel) return IRMutator::mutate(op, self);
    return self;  // its Allocates are per task
  }

  Stmt mutate(const Allocate* op, const Stmt& self) override {
    if (!cpu_allocates_on_heap(op->buffer) || !constant_bytes(op->buffer)) return IRMutator::mutate(op, self);
    // One argument per buffer, should a copied subtree allocate it twice (one after the other).
    if (std::find(taken.begin(), taken.end(), op->buffer) == taken.end()) taken.push_back(op->buffer);
    return mutate_stmt(op->body);
  }
};

}  // namespace

LoweredFunc scratch_as_parameters(const LoweredFunc& kernel) {
  if (!kernel.body) return kernel;
  TakeScratch take;
  Stmt body = take.mutate_stmt(kernel.body);
  if (take.taken.empty()) return kernel;
  LoweredFunc out = kernel;
  BufferMap as_arg;
  for (const Buffer& b : take.taken) {
    Buffer arg = b->role == BufferRole::Intermediate ? b : with_role(b, BufferRole::Intermediate);
    if (arg != b) as_arg[b.get()] = arg;
    out.args.push_back(arg);
    out.arg_dims.push_back({*constant_bytes(b) / b->dtype.bytes()});
  }
  out.body = as_arg.empty() ? body : substitute_buffers(body, as_arg);
  return out;
}

}  // namespace texc
