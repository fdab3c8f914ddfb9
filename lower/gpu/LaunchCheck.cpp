#include "lower/gpu/LaunchCheck.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Substitute.h"
#include "lower/gpu/MmaIntrinsics.h"

namespace texc {

namespace {

// Walks a kernel's statements, collecting its bindings and its shared and local buffers.
class LaunchChecker : public IRVisitor {
 public:
  LaunchChecker(const Target& target, const CudaArch& arch, const GpuSourceLocs& locs)
      : target_(target), arch_(arch), locs_(locs) {}

  void visit_expr(const Expr&) override {}  // the checks are about statements

  void finish(LoweredFunc* f) {
    int64_t threads = 1;
    std::string thread_tags;
    SourceLoc thread_loc = locs_.op;
    bool thread_loc_set = false;
    for (const char* tag : {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"}) {
      auto it = extents_.find(tag);
      if (it == extents_.end()) continue;
      f->launch.thread_extents.push_back({tag, make_int(it->second.extent)});
      if (thread_level(tag) != ThreadLevel::Thread) continue;
      threads *= it->second.extent;
      thread_tags += (thread_tags.empty() ? "" : " * ") + std::string(tag) + " " + std::to_string(it->second.extent);
      if (!thread_loc_set) thread_loc = it->second.loc, thread_loc_set = true;
    }
    if (threads > target_.limits.max_threads_per_block)
      throw_error(DiagId::GpuTooManyThreads, thread_loc, threads, thread_tags, target_.limits.max_threads_per_block);
    for (const auto& [tag, binding] : extents_) check_axis_limit(tag, binding);
    if (shared_bytes_ > arch_.max_shared_bytes)
      throw_error(DiagId::GpuSharedTooLarge, shared_loc_, shared_bytes_, shared_list_, arch_.max_shared_bytes, arch_.name,
                  shared_bytes_ - arch_.max_shared_bytes);
    if (local_bytes_ > target_.limits.local_bytes_per_thread)
      throw_error(DiagId::GpuLocalTooLarge, local_loc_, local_bytes_, local_list_, target_.limits.local_bytes_per_thread,
                  local_bytes_ - target_.limits.local_bytes_per_thread);
    check_tensor_cores(*f);
    f->kind = FunctionKind::Device;
  }

 private:
  // A warp's mma.sync: sm_80 or later, and whole warps along threadIdx.x.
  void check_tensor_cores(const LoweredFunc& f) const {
    bool mma = false;
    for_each_expr(f.body, [&](const Expr& e) {
      const Call* c = e->as<Call>();
      std::optional<Intrinsic> which = c ? intrinsic_of(c) : std::nullopt;
      if (which && is_mma(*which)) mma = true;
    });
    if (!mma) return;
    if (arch_.compute_capability < 80) throw_error(DiagId::GpuMmaArch, locs_.op, locs_.op_name, arch_.name);
    if (std::optional<Expr> guard = thread_dependent_guard_of_mma(f.body))
      throw_error(DiagId::GpuMmaGuard, locs_.op, locs_.op_name, to_string(*guard));
    auto it = extents_.find("threadIdx.x");
    if (it != extents_.end() && it->second.extent != 32)
      throw_error(DiagId::GpuMmaWarp, it->second.loc, locs_.op_name, it->second.loop, it->second.extent);
  }

  // The condition of an `if` around an mma that mentions a thread index (some lanes would skip
  // the warp's collective step), if any.
  class GuardedMmaFinder : public IRVisitor {
   public:
    std::optional<Expr> found;

   protected:
    using IRVisitor::visit;
    void visit(const For* f) override {
      const bool thread = f->for_kind == ForKind::ThreadBound && thread_level(f->thread_tag) == ThreadLevel::Thread;
      if (thread) threads_.push_back(f->var.get());
      IRVisitor::visit(f);
      if (thread) threads_.pop_back();
    }
    void visit(const IfThenElse* i) override {
      bool on_thread = false;
      for (const Variable* v : threads_) on_thread = on_thread || uses_var(i->cond, v);
      if (on_thread) guards_.push_back(i->cond);
      IRVisitor::visit(i);
      if (on_thread) guards_.pop_back();
    }
    void visit(const Evaluate* e) override {
      const Call* c = e->value->as<Call>();
      std::optional<Intrinsic> which = c ? intrinsic_of(c) : std::nullopt;
      if (which && is_mma(*which) && !guards_.empty() && !found) found = guards_.back();
    }

   private:
    std::vector<const Variable*> threads_;
    std::vector<Expr> guards_;  // the enclosing conditions that mention a thread index
  };
  static std::optional<Expr> thread_dependent_guard_of_mma(const Stmt& body) {
    GuardedMmaFinder finder;
    finder.visit_stmt(body);
    return finder.found;
  }

  struct Binding {
    int64_t extent;
    std::string loop;
    SourceLoc loc;
  };

  // Where the stage of an unbound loop comes from: the cache_read or cache_write that made it
  // ("AS.i" of `AS = cache_read(A, shared, B)` left at the root), else the op.
  SourceLoc stage_loc(const For* f) const {
    auto it = locs_.cache.find(f->var->name.substr(0, f->var->name.find('.')));
    return it == locs_.cache.end() ? locs_.op : it->second;
  }

  SourceLoc bind_loc(const For* f) const {
    auto it = locs_.bind.find(f->var->name);
    return it == locs_.bind.end() ? locs_.op : it->second;
  }

  static bool contains_bound_loop(const Stmt& s) {
    bool found = false;
    for_each_stmt(s, [&](const Stmt& n) {
      if (const For* f = n->as<For>(); f && f->for_kind == ForKind::ThreadBound) found = true;
    });
    return found;
  }

  // A tag's extent against the grid's or the block's limit along its axis.
  void check_axis_limit(const std::string& tag, const Binding& b) const {
    const size_t axis = size_t(tag.back() - 'x');
    if (thread_level(tag) == ThreadLevel::Block && b.extent > target_.limits.max_grid[axis])
      throw_error(DiagId::GpuGridTooLarge, b.loc, b.loop, tag, b.extent, target_.limits.max_grid[axis], tag.substr(tag.size() - 1),
                  axis == 0 ? "split it and bind its parts to two block indices"
                            : "bind a longer loop to blockIdx.x, or split this one and bind its parts to two block indices");
    if (thread_level(tag) == ThreadLevel::Thread && b.extent > target_.limits.max_block[axis])
      throw_error(DiagId::GpuBlockAxisTooLarge, b.loc, b.loop, tag, b.extent, target_.limits.max_block[axis],
                  tag.substr(tag.size() - 1));
  }

  using IRVisitor::visit;
  void visit(const Allocate* a) override {
    if (a->buffer->scope == MemScope::Shared) note_shared(a->buffer);
    if (a->buffer->scope == MemScope::Local) note_local(a->buffer);
    IRVisitor::visit(a);
  }

  void visit(const For* f) override {
    if (f->for_kind == ForKind::Parallel) {
      auto it = locs_.parallel.find(f->var->name);
      throw_error(DiagId::GpuParallelInKernel, it == locs_.parallel.end() ? locs_.op : it->second, f->var->name,
                  locs_.op_name, f->var->name);
    }
    const bool bound = f->for_kind == ForKind::ThreadBound;
    if (!bound && bound_depth_ == 0 && !contains_bound_loop(f->body))
      throw_error(DiagId::GpuLoopUnbound, stage_loc(f), f->var->name, locs_.op_name);
    if (bound && f->thread_tag != "vthread") check_binding(f);
    if (bound) ++bound_depth_;
    visit_stmt(f->body);
    if (bound) --bound_depth_;
    if (bound && thread_level(f->thread_tag) == ThreadLevel::Thread) thread_loops_.pop_back();
  }

  void check_binding(const For* f) {
    const SourceLoc loc = bind_loc(f);
    int64_t extent = 0;
    if (!is_const_int(f->extent, &extent))
      throw_error(DiagId::GpuNonConstantExtent, loc, f->var->name, f->thread_tag, to_string(f->extent));
    const ThreadLevel level = thread_level(f->thread_tag);
    if (level == ThreadLevel::Block && !thread_loops_.empty())
      throw_error(DiagId::GpuBlockInsideThread, loc, f->var->name, f->thread_tag, thread_loops_.back()->var->name,
                  thread_loops_.back()->thread_tag);
    auto [it, fresh] = extents_.insert({f->thread_tag, Binding{extent, f->var->name, loc}});
    if (!fresh && it->second.extent != extent)
      throw_error(DiagId::GpuThreadExtentConflict, loc, f->thread_tag, it->second.loop, it->second.extent, f->var->name,
                  extent);
    if (level == ThreadLevel::Thread) thread_loops_.push_back(f);
  }

  void note_shared(const Buffer& b) {
    int64_t elems = 1;
    for (const Expr& e : b->shape) {
      int64_t n = 0;
      if (!is_const_int(e, &n)) return;  // sized at run time: not a static allocation
      elems *= n;
    }
    int64_t bytes = elems * b->dtype.bytes();
    shared_bytes_ += bytes;
    shared_list_ += (shared_list_.empty() ? "" : ", ") + b->name + " " + std::to_string(bytes);
    auto it = locs_.cache.find(b->name);
    if (it != locs_.cache.end() && bytes > largest_shared_) {
      shared_loc_ = it->second;
      largest_shared_ = bytes;
    }
  }

  // A `local` buffer: one per thread, all of a kernel's at once (CodeGenNVPTX allocates each in the
  // entry block), so their sizes add up. A buffer of non-constant size is left to the code generator.
  void note_local(const Buffer& b) {
    int64_t elems = 1;
    for (const Expr& e : b->shape) {
      int64_t n = 0;
      if (!is_const_int(e, &n) || __builtin_mul_overflow(elems, n, &elems)) return;
    }
    int64_t bytes = 0;
    if (__builtin_mul_overflow(elems, int64_t(b->dtype.bytes()), &bytes)) bytes = INT64_MAX / 2;
    local_bytes_ = std::min<int64_t>(local_bytes_ + bytes, INT64_MAX / 2);
    local_list_ += (local_list_.empty() ? "" : ", ") + b->name + " " + std::to_string(bytes);
    auto it = locs_.cache.find(b->name);
    if (it != locs_.cache.end() && bytes > largest_local_) {
      local_loc_ = it->second;
      largest_local_ = bytes;
    }
  }

  const Target& target_;
  const CudaArch& arch_;
  const GpuSourceLocs& locs_;
  std::map<std::string, Binding> extents_;
  std::vector<const For*> thread_loops_;
  int bound_depth_ = 0;
  int64_t shared_bytes_ = 0, largest_shared_ = 0;
  std::string shared_list_;
  SourceLoc shared_loc_ = locs_.op;
  int64_t local_bytes_ = 0, largest_local_ = 0;
  std::string local_list_;
  SourceLoc local_loc_ = locs_.op;
};

}  // namespace

LoweredFunc make_device_function(LoweredFunc f, const Target& target, const CudaArch& arch, const GpuSourceLocs& locs) {
  LaunchChecker checker(target, arch, locs);
  checker.visit_stmt(f.body);
  std::vector<std::string> zeroed = std::move(f.launch.zeroed_outputs);  // lower_cross_block_reductions'
  f.launch = {};
  f.launch.zeroed_outputs = std::move(zeroed);
  checker.finish(&f);
  return f;
}

}  // namespace texc
