#include "backends/interp/CudaInterpreter.h"

#include <array>
#include <cstring>
#include <set>
#include <string>

#include "backends/interp/InterpError.h"
#include "backends/interp/LoopInterpreter.h"
#include "ir/Diagnostics.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Intrinsics.h"
#include "ir/Target.h"
#include "lower/gpu/VirtualThreads.h"
#include "lower/gpu/Barriers.h"

namespace texc {

namespace {

// The pragmas the detector watches in the executed kernel.
const char* const kSitePragma = "cuda_interp.site";        // value: the site of the statement inside
const char* const kBarrierPragma = "cuda_interp.barrier";  // a barrier: the next phase starts
const std::array<const char*, 3> kBlockTags = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
const std::array<const char*, 3> kThreadTags = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};

bool has_load(const Expr& e) {
  bool found = false;
  if (e)
    for_each_expr(e, [&](const Expr& x) { found = found || x->as<Load>() != nullptr; });
  return found;
}

Stmt pragma(const std::string& name, Expr value, Stmt body) {
  return AttrStmt::make(AttrKey::Pragma, name, std::move(value), std::move(body));
}

// A statement of the kernel as lowered, where a race report points.
struct Site {
  std::string loop;       // the innermost loop around it ("" when none)
  std::string statement;  // the statement, on one line, shortened
};

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  size_t start = text.find_first_not_of(' ');
  text = start == std::string::npos ? "" : text.substr(start);
  if (text.size() > 72) text = text.substr(0, 69) + "...";
  return text;
}

// Wraps every statement that touches memory (a Store, an Evaluate; an if, let or loop whose header
// loads, when no barrier lies inside) in a site pragma, recording its innermost loop.
class SiteMarker : public IRMutator {
 public:
  std::vector<Site> sites;

 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    loops_.push_back(op->var->name);
    Stmt s = IRMutator::mutate(op, self);
    loops_.pop_back();
    if (has_load(op->min) || has_load(op->extent)) return mark(s, "for " + op->var->name);
    return s;
  }
  Stmt mutate(const Store* op, const Stmt& self) override { return mark(IRMutator::mutate(op, self), to_string(self)); }
  Stmt mutate(const Evaluate* op, const Stmt& self) override {
    if (is_thread_barrier(self) || !has_load(op->value)) return self;
    return mark(self, to_string(op->value));
  }
  Stmt mutate(const IfThenElse* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate(op, self);
    return has_load(op->cond) ? mark(s, "if (" + to_string(op->cond) + ")") : s;
  }
  Stmt mutate(const LetStmt* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate(op, self);
    return has_load(op->value) ? mark(s, op->var->name + " = " + to_string(op->value)) : s;
  }

 private:
  Stmt mark(const Stmt& s, const std::string& text) {
    if (contains_thread_barrier(s)) return s;  // the pragma would sit outside the thread loops
    sites.push_back({loops_.empty() ? "" : loops_.back(), one_line(text)});
    return pragma(kSitePragma, make_int(int64_t(sites.size() - 1)), s);
  }

  std::vector<std::string> loops_;
};

// The kernel without its async-copy commits and waits (lower/gpu/DoubleBuffer.h): cuda-interp
// makes each copy of a `pragma(async_copy)` fill when the thread issues it, so a wait has nothing
// left to wait for. The race detector sees the copy's write there, at the issue: any other
// thread's access to the element before the barrier that follows the wait is a race.
Stmt without_async_copy_sync(const Stmt& s) {
  class Strip : public IRMutator {
   protected:
    using IRMutator::mutate;
    Stmt mutate(const Evaluate* op, const Stmt& self) override {
      const Call* c = op->value->as<Call>();
      if (is_intrinsic_call(c, Intrinsic::AsyncCopyCommit) || is_intrinsic_call(c, Intrinsic::AsyncCopyWait))
        return Seq::make({});
      return self;
    }
  };
  return Strip().mutate_stmt(s);
}

int tag_dim(const std::string& tag, const std::array<const char*, 3>& tags) {
  for (int d = 0; d < 3; ++d)
    if (tag == tags[size_t(d)]) return d;
  return -1;
}

// In the phased kernel: the block and thread index pragmas inside every bound loop, a barrier
// pragma for every barrier; the launch extents collected on the way.
class ThreadMarker : public IRMutator {
 public:
  std::array<int64_t, 3> blocks = {1, 1, 1}, threads = {1, 1, 1};
  int block_dims = 0, thread_dims = 0;  // how many of x, y, z the kernel uses

 protected:
  Stmt mutate(const For* op, const Stmt& self) override {
    Stmt s = IRMutator::mutate(op, self);
    if (op->for_kind != ForKind::ThreadBound) return s;
    int b = tag_dim(op->thread_tag, kBlockTags), t = tag_dim(op->thread_tag, kThreadTags);
    if (b < 0 && t < 0) return s;
    int64_t extent = 0;
    if (!is_const_int(op->extent, &extent))
      throw InterpError("loop '" + op->var->name + "' bound to " + op->thread_tag + " has an extent that is not a constant");
    auto& extents = b >= 0 ? blocks : threads;
    int d = b >= 0 ? b : t;
    extents[size_t(d)] = std::max(extents[size_t(d)], extent);
    (b >= 0 ? block_dims : thread_dims) = std::max(b >= 0 ? block_dims : thread_dims, d + 1);
    const For* loop = s->as<For>();
    return loop->with_body(pragma("cuda_interp." + op->thread_tag, Expr(loop->var), loop->body));
  }
  Stmt mutate(const Evaluate* op, const Stmt& self) override {
    if (!is_thread_barrier(self)) return IRMutator::mutate(op, self);
    return pragma(kBarrierPragma, make_int(0), Evaluate::make(make_int(0)));
  }
};

// The report of a data race (already complete: nothing to add to it).
class DataRace : public InterpError {
 public:
  using InterpError::InterpError;
};

// One access: who made it (linear block and thread numbers) and where; block -1: nobody.
struct Who {
  int32_t block = -1;
  int32_t thread = 0;
  int32_t site = -1;
};

// An element's accesses in the current phase of its block (phases are numbered over the run, so a
// stale number means nobody touched it yet in this phase).
struct PhaseAccesses {
  uint32_t phase = 0;
  Who writer, reader, other_reader;  // other_reader: a reader of another thread than reader's
  Who atomic;                        // the last atomic update (atomic_add)
};

// A global element's accesses during the whole run; other_reader of another block than reader's.
struct RunAccesses {
  Who writer, reader, other_reader;
  Who atomic;  // the last atomic update (atomic_add)
};

struct WatchedBuffer {
  Buffer buffer;
  bool global = false;
  std::vector<PhaseAccesses> phase;
  std::vector<RunAccesses> run;  // global buffers only
};

class RaceDetector : public LoopObserver {
 public:
  RaceDetector(std::vector<Site> sites, std::set<const BufferNode*> written, const ThreadMarker& launch)
      : sites_(std::move(sites)), written_(std::move(written)), blocks_(launch.blocks), threads_(launch.threads),
        block_dims_(launch.block_dims), thread_dims_(launch.thread_dims) {}

  int watch_buffer(const Buffer& b) override {
    if (!written_.count(b.get()) || (b->scope != MemScope::Global && b->scope != MemScope::Shared)) return -1;
    for (size_t i = 0; i < watched_.size(); ++i)
      if (watched_[i].buffer.get() == b.get()) return int(i);
    watched_.push_back({b, b->scope == MemScope::Global, {}, {}});
    return int(watched_.size() - 1);
  }

  int watch_pragma(const AttrStmt& a) override {
    if (a.name == kSitePragma) return kSite;
    if (a.name == kBarrierPragma) return kBarrier;
    const std::string prefix = "cuda_interp.";
    if (a.name.rfind(prefix, 0) != 0) return -1;
    std::string tag = a.name.substr(prefix.size());
    if (int d = tag_dim(tag, kBlockTags); d >= 0) return kBlock + d;
    if (int d = tag_dim(tag, kThreadTags); d >= 0) return kThread + d;
    return -1;
  }

  void pragma(int id, int64_t value) override {
    started_ = true;
    if (id == kSite) {
      site_ = int32_t(value);
    } else if (id == kBarrier) {
      ++phase_;
    } else if (id >= kThread) {
      thread_index_[size_t(id - kThread)] = value;
      thread_ = int32_t(linear(thread_index_, threads_));
    } else {
      block_index_[size_t(id - kBlock)] = value;
      block_ = int32_t(linear(block_index_, blocks_));
      thread_index_ = {0, 0, 0};
      thread_ = 0;
      ++phase_;
    }
  }

  // The element's accesses in this phase, the buffer's records grown to hold it.
  PhaseAccesses& phase_accesses(WatchedBuffer& w, int64_t flat) {
    if (size_t(flat) >= w.phase.size()) {
      size_t size = std::max(size_t(flat) + 1, 2 * w.phase.size());
      w.phase.resize(size);
      if (w.global) w.run.resize(size);
    }
    PhaseAccesses& p = w.phase[size_t(flat)];
    if (p.phase != phase_) p = PhaseAccesses{phase_, {}, {}, {}, {}};
    return p;
  }

  void access(int id, int64_t flat, bool write) override {
    WatchedBuffer& w = watched_[size_t(id)];
    PhaseAccesses& p = phase_accesses(w, flat);
    const Who me{block_, thread_, site_};
    auto other_thread = [&](const Who& x) { return x.block >= 0 && x.thread != me.thread; };
    if (other_thread(p.writer)) race(w, flat, p.writer, true, me, write, false);
    if (other_thread(p.atomic)) race(w, flat, p.atomic, kAtomic, me, write, false);
    if (write) {
      if (other_thread(p.reader)) race(w, flat, p.reader, false, me, true, false);
      if (other_thread(p.other_reader)) race(w, flat, p.other_reader, false, me, true, false);
      p.writer = me;
    } else if (p.reader.block < 0) {
      p.reader = me;
    } else if (p.reader.thread != me.thread && p.other_reader.block < 0) {
      p.other_reader = me;
    }
    if (!w.global) return;
    RunAccesses& r = w.run[size_t(flat)];
    auto other_block = [&](const Who& x) { return x.block >= 0 && x.block != me.block; };
    if (other_block(r.writer)) race(w, flat, r.writer, true, me, write, true);
    if (other_block(r.atomic)) race(w, flat, r.atomic, kAtomic, me, write, true);
    if (write) {
      if (other_block(r.reader)) race(w, flat, r.reader, false, me, true, true);
      if (other_block(r.other_reader)) race(w, flat, r.other_reader, false, me, true, true);
      r.writer = me;
    } else if (r.reader.block < 0) {
      r.reader = me;
    } else if (r.reader.block != me.block && r.other_reader.block < 0) {
      r.other_reader = me;
    }
  }

  /// An atomic update (atomic_add) of an element: it races with other threads' and blocks' plain
  /// reads and writes of it, not with their atomic updates (CUDA's atomics are indivisible).
  void atomic_access(int id, int64_t flat) override {
    WatchedBuffer& w = watched_[size_t(id)];
    PhaseAccesses& p = phase_accesses(w, flat);
    const Who me{block_, thread_, site_};
    auto other_thread = [&](const Who& x) { return x.block >= 0 && x.thread != me.thread; };
    if (other_thread(p.writer)) race(w, flat, p.writer, true, me, kAtomic, false);
    if (other_thread(p.reader)) race(w, flat, p.reader, false, me, kAtomic, false);
    if (other_thread(p.other_reader)) race(w, flat, p.other_reader, false, me, kAtomic, false);
    p.atomic = me;
    if (!w.global) return;
    RunAccesses& r = w.run[size_t(flat)];
    auto other_block = [&](const Who& x) { return x.block >= 0 && x.block != me.block; };
    if (other_block(r.writer)) race(w, flat, r.writer, true, me, kAtomic, true);
    if (other_block(r.reader)) race(w, flat, r.reader, false, me, kAtomic, true);
    if (other_block(r.other_reader)) race(w, flat, r.other_reader, false, me, kAtomic, true);
    r.atomic = me;
  }

  /// Forgets every access: a new run of the kernel.
  void start_run() {
    for (WatchedBuffer& w : watched_) {
      w.phase.clear();
      w.run.clear();
    }
    phase_ = 1;
    block_ = 0;
    thread_ = 0;
    site_ = -1;
    block_index_ = thread_index_ = {0, 0, 0};
    started_ = false;
  }

  /// True once the kernel's code runs (its arguments were accepted).
  bool started() const { return started_; }

  /// "thread (block 0, thread 3) in loop 'B.tx' (B[...] = ...)": where the run is now.
  std::string where() const { return thread_name(Who{block_, thread_, site_}) + place(site_); }

 private:
  enum : int { kSite = 0, kBarrier = 1, kBlock = 2, kThread = 5 };
  // An access in a race report: 0 a read, 1 a write, kAtomic an atomic update.
  static constexpr int kAtomic = 2;

  static int64_t linear(const std::array<int64_t, 3>& index, const std::array<int64_t, 3>& extents) {
    return index[0] + extents[0] * (index[1] + extents[1] * index[2]);
  }

  static std::string coordinates(int64_t linear, const std::array<int64_t, 3>& extents, int dims) {
    if (dims <= 1) return std::to_string(linear);
    std::string out = "(";
    for (int d = 0; d < dims; ++d) {
      out += (d ? ", " : "") + std::to_string(linear % extents[size_t(d)]);
      linear /= extents[size_t(d)];
    }
    return out + ")";
  }

  std::string thread_name(const Who& w) const {
    return "thread (block " + coordinates(w.block, blocks_, block_dims_) + ", thread " +
           coordinates(w.thread, threads_, thread_dims_) + ")";
  }

  std::string place(int32_t site) const {
    if (site < 0 || size_t(site) >= sites_.size()) return "";
    const Site& s = sites_[size_t(site)];
    return (s.loop.empty() ? " outside every loop" : " in loop '" + s.loop + "'") + " (" + s.statement + ")";
  }

  static std::string element(const Buffer& b, int64_t flat) {
    std::vector<int64_t> shape;
    for (const Expr& e : b->shape) {
      int64_t v = 0;
      if (!is_const_int(e, &v) || v <= 0) return "[" + std::to_string(flat) + "]";
      shape.push_back(v);
    }
    std::vector<int64_t> index(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      index[d] = flat % shape[d];
      flat /= shape[d];
    }
    return shape_string(index);
  }

  [[noreturn]] void race(const WatchedBuffer& w, int64_t flat, const Who& first, int first_writes, const Who& second,
                         int second_writes, bool across_blocks) const {
    auto verb = [](int access) {
      return access == kAtomic ? " adds to it atomically" : access ? " writes it" : " reads it";
    };
    throw DataRace("data race on " + w.buffer->scope.name() + " buffer '" + w.buffer->name +
                      "' element " + element(w.buffer, flat) + ": " + thread_name(first) + verb(first_writes) +
                      place(first.site) + ", " + thread_name(second) + verb(second_writes) + place(second.site) +
                      (across_blocks ? "; blocks run in no fixed order (write each element from one block)"
                                     : ", with no barrier between them"));
  }

  std::vector<Site> sites_;
  std::set<const BufferNode*> written_;
  std::array<int64_t, 3> blocks_, threads_;
  int block_dims_, thread_dims_;
  std::vector<WatchedBuffer> watched_;
  uint32_t phase_ = 1;
  int32_t block_ = 0, thread_ = 0, site_ = -1;
  std::array<int64_t, 3> block_index_ = {0, 0, 0}, thread_index_ = {0, 0, 0};
  bool started_ = false;
};

}  // namespace

struct CudaInterpreter::Impl {
  LoweredFunc executed;
  std::vector<size_t> zeroed;  // the arguments the host zeroes before a launch (split-K's outputs)
  std::unique_ptr<RaceDetector> detector;
  std::unique_ptr<LoopInterpreter> interpreter;
};

CudaInterpreter::CudaInterpreter(const LoweredFunc& kernel) : impl_(std::make_unique<Impl>()) {
  if (!kernel.body) throw InterpError("function '" + kernel.name + "' has no body");
  std::set<const BufferNode*> written;
  for_each_stmt(kernel.body, [&](const Stmt& s) {
    if (const Store* st = s->as<Store>()) written.insert(st->buffer.get());
  });
  for_each_expr(kernel.body, [&](const Expr& e) {  // atomic_add(B[idx], x) writes B
    const Call* c = e->as<Call>();
    if (is_intrinsic_call(c, Intrinsic::AtomicAdd))
      if (const Load* l = c->args[0]->as<Load>()) written.insert(l->buffer.get());
  });
  SiteMarker sites;
  Stmt marked = sites.mutate_stmt(without_async_copy_sync(kernel.body));
  Stmt phased;
  try {
    phased = phase_threads(marked);
  } catch (const UserError& e) {  // a barrier part of a block does not reach
    throw InterpError(e.diag.message);
  }
  ThreadMarker launch;
  LoweredFunc f = kernel;
  f.body = launch.mutate_stmt(phased);
  f.kind = FunctionKind::Host;
  impl_->detector = std::make_unique<RaceDetector>(std::move(sites.sites), std::move(written), launch);
  LoopInterpreterOptions options;
  options.observer = impl_->detector.get();
  impl_->interpreter = std::make_unique<LoopInterpreter>(f, options);
  impl_->executed = std::move(f);
  for (const std::string& name : kernel.launch.zeroed_outputs)
    for (size_t i = 0; i < kernel.args.size(); ++i)
      if (kernel.args[i]->name == name) impl_->zeroed.push_back(i);
}

CudaInterpreter::~CudaInterpreter() = default;

void CudaInterpreter::run(const std::vector<Tensor*>& args) const {
  // What the host does before the launch (LaunchAttributes::zeroed_outputs): the blocks of a
  // split-K kernel add their partial results into these outputs atomically.
  for (size_t i : impl_->zeroed)
    if (i < args.size() && args[i]) std::memset(args[i]->data(), 0, args[i]->num_bytes());
  impl_->detector->start_run();
  try {
    impl_->interpreter->run(args);
  } catch (const DataRace&) {
    throw;
  } catch (const InterpError& e) {  // an out-of-bounds access...: by which thread, where
    if (!impl_->detector->started()) throw;
    throw InterpError(std::string(e.what()) + " (" + impl_->detector->where() + ")");
  }
}

const LoweredFunc& CudaInterpreter::executed() const { return impl_->executed; }

}  // namespace texc
