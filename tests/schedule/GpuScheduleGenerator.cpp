#include "tests/schedule/GpuScheduleGenerator.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "lower/AutoFuse.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/ScheduleState.h"

namespace texc {

namespace {

SchedArg name_arg(const std::string& name) {
  SchedArg a;
  a.name = name;
  return a;
}

SchedArg int_arg(int64_t v, const std::string& keyword = "") {
  SchedArg a;
  a.keyword = keyword;
  a.value = make_int(v);
  return a;
}

SchedPrimitive primitive(std::string name, std::vector<SchedArg> args, std::vector<std::string> results = {}) {
  SchedPrimitive p;
  p.primitive = std::move(name);
  p.args = std::move(args);
  p.results = std::move(results);
  p.result_locs.resize(p.results.size());
  return p;
}

// The stages of the AST in the order of their Blocks, the loops around each stage's Blocks and the
// stages under each loop.
struct Nests {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::vector<const For*>>> paths;
  std::map<const For*, std::set<std::string>> stages_under;
};

class NestScanner : public IRVisitor {
 public:
  Nests nests;
  void visit_expr(const Expr&) override {}

 protected:
  void visit(const For* op) override {
    stack_.push_back(op);
    IRVisitor::visit(op);
    stack_.pop_back();
  }
  void visit(const Block* op) override {
    if (!nests.paths.count(op->stage)) nests.order.push_back(op->stage);
    nests.paths[op->stage].push_back(stack_);
    for (const For* l : stack_) nests.stages_under[l].insert(op->stage);
  }

 private:
  std::vector<const For*> stack_;
};

class GpuGenerator {
 public:
  GpuGenerator(const OpDef& op, std::mt19937_64& rng) : rng_(rng), st_(ScheduleState::create(op, "cuda")) {
    out_.target = "cuda";
  }

  GeneratedSchedule run() {
    out_.no_fuse = chance(0.15);
    if (!out_.no_fuse) {
      std::set<std::string> named;
      for (const auto& [name, stage] : st_.stages)
        if (is_output(name) || chance(0.3)) named.insert(name);
      st_.user_named = named;
      inline_injective_stages(st_);
    }
    std::vector<std::string> roots = scan().order;
    int outputs = 0;
    for (const std::string& s : roots) outputs += is_output(s);
    if (outputs == 1 && is_output(roots.back()) && chance(0.8)) grid(roots);
    else block(roots);
    return out_;
  }

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[rng_() % v.size()];
  }
  std::string fresh(const std::string& prefix) { return prefix + std::to_string(++counter_); }

  bool is_output(const std::string& stage) const {
    for (const Buffer& b : st_.op.outputs)
      if (b->name == stage) return true;
    return false;
  }

  Nests scan() const {
    NestScanner s;
    s.visit_stmt(st_.func.body);
    return s.nests;
  }

  // The loops around the stage's only Block that hold nothing else, outermost first.
  std::vector<std::string> own_loops(const std::string& stage) const {
    Nests n = scan();
    auto it = n.paths.find(stage);
    if (it == n.paths.end() || it->second.size() != 1) return {};
    std::vector<std::string> own;
    const std::vector<const For*>& path = it->second[0];
    for (size_t i = path.size(); i-- > 0;) {
      if (n.stages_under[path[i]].size() != 1) break;
      own.insert(own.begin(), path[i]->var->name);
    }
    return own;
  }

  int64_t extent(const std::string& loop) const {
    const For* l = st_.find_loop(loop);
    int64_t e = -1;
    if (l) is_const_int(l->extent, &e);
    return e;
  }

  bool reduction(const std::string& loop) const {
    const For* l = st_.find_loop(loop);
    return l && is_reduction_loop(l);
  }

  int64_t random_factor(int64_t extent) {
    std::vector<int64_t> choices = {1, 2, 3, 4, 5, 7, 8, 16};
    if (extent > 0) {
      choices.push_back(extent);
      choices.push_back(extent + 1);
      if (extent > 1) choices.push_back(extent - 1);
      for (int64_t d = 2; d < extent; ++d)
        if (extent % d == 0) choices.push_back(d);
    }
    return pick(choices);
  }

  bool apply(const SchedPrimitive& p) {
    SchedStep step{p, {}};
    for (const SchedArg& a : p.args) {
      int64_t v;
      step.int_args.push_back(!a.is_name() && is_const_int(a.value, &v) ? std::optional<int64_t>(v) : std::nullopt);
    }
    ++out_.attempted;
    ScheduleState next = st_;
    try {
      apply_schedule(next, {step});
    } catch (const UserError& e) {
      out_.rejections.push_back(p.primitive + ": " + e.diag.message);
      return false;
    }
    st_ = std::move(next);
    out_.primitives.push_back(p);
    return true;
  }

  // Splits `loop` at a random factor; *outer and *inner get the parts (false: rejected).
  bool split(const std::string& loop, std::string* outer, std::string* inner, int64_t nparts = 0) {
    std::string n = std::to_string(++counter_);
    std::string o = loop_prefix_ + "o" + n, i = loop_prefix_ + "i" + n;
    SchedArg factor = nparts ? int_arg(nparts, "nparts") : int_arg(random_factor(extent(loop)));
    if (!apply(primitive("split", {name_arg(loop), factor}, {o, i}))) return false;
    *outer = o;
    *inner = i;
    return true;
  }

  // Fuses a chain of adjacent loops (outermost first) into one; "" when rejected.
  std::string fuse_chain(const std::vector<std::string>& loops) {
    if (loops.empty()) return "";
    std::string f = loops[0];
    for (size_t k = 1; k < loops.size(); ++k) {
      std::string g = fresh(loop_prefix_ + "f");
      if (!apply(primitive("fuse", {name_arg(f), name_arg(loops[k])}, {g}))) return "";
      f = g;
    }
    return f;
  }

  bool bind(const std::string& loop, const std::string& tag) {
    return !loop.empty() && apply(primitive("bind", {name_arg(loop), name_arg(tag)}));
  }

  // Cooperative work over a stage's own spatial loops: fused, split by the block's thread counts,
  // bound (a reduction loop stays serial inside each thread).
  void bind_cooperatively(const std::string& stage) {
    std::vector<std::string> spatial;
    for (const std::string& l : own_loops(stage)) {
      if (reduction(l)) break;
      spatial.push_back(l);
    }
    std::string f = fuse_chain(spatial);
    if (f.empty()) return;
    std::string fo, fx, fo2, fy;
    if (tx_ <= 0 || !split_exact(f, tx_, &fo, &fx)) return;
    if (ty_ > 0) {
      if (!split_exact(fo, ty_, &fo2, &fy)) return;
      bind(fy, "threadIdx.y");
    }
    bind(fx, "threadIdx.x");
  }

  bool split_exact(const std::string& loop, int64_t factor, std::string* outer, std::string* inner) {
    std::string n = std::to_string(++counter_);
    std::string o = loop_prefix_ + "o" + n, i = loop_prefix_ + "i" + n;
    if (!apply(primitive("split", {name_arg(loop), int_arg(factor)}, {o, i}))) return false;
    *outer = o;
    *inner = i;
    return true;
  }

  // One root nest over a grid of blocks; the other root stages computed inside its threads.
  void grid(const std::vector<std::string>& roots) {
    const std::string main = roots.back();
    std::string consumer = main, cache_write;
    if (chance(0.25)) {
      std::string cw = fresh("CW");
      if (apply(primitive("cache_write", {name_arg(main), name_arg("local")}, {cw}))) consumer = cache_write = cw;
    }
    loop_prefix_ = "";
    std::vector<std::string> blocks, vthreads, mid, threads, serial, inner;
    std::vector<std::string> own = own_loops(main);
    bool split_reduction = false;
    for (const std::string& l : own) {
      if (reduction(l)) {
        std::string ko, ki;
        if (!split_reduction && chance(0.5) && split(l, &ko, &ki)) {
          split_reduction = true;
          mid.push_back(ko);
          inner.push_back(ki);
        } else {
          inner.push_back(l);
        }
        continue;
      }
      int r = int(rng_() % 10);
      std::string o, i;
      if (r < 5 && split(l, &o, &i)) {
        blocks.push_back(o);
        threads.push_back(i);
      } else if (r < 7) {
        blocks.push_back(l);
      } else if (r < 9) {
        threads.push_back(l);
      } else {
        serial.push_back(l);
      }
    }
    if (!threads.empty() && chance(0.25)) {
      std::string vo, vi;
      if (split(threads.back(), &vo, &vi, 2 + int64_t(rng_() % 3))) {
        threads.back() = vi;
        vthreads.push_back(vo);
      }
    }
    std::vector<std::string> order;
    for (const auto* level : {&blocks, &vthreads, &mid, &threads, &serial, &inner})
      order.insert(order.end(), level->begin(), level->end());
    if (order.size() >= 2 && !apply(primitive("reorder", [&] {
          std::vector<SchedArg> args;
          for (const std::string& l : order) args.push_back(name_arg(l));
          return args;
        }())))
      return;
    // Blocks: one fused loop on blockIdx.x, or the outermost on blockIdx.y and the rest fused.
    if (blocks.size() >= 2 && chance(0.5)) {
      bind(blocks[0], "blockIdx.y");
      blocks.erase(blocks.begin());
    }
    std::string block_loop = fuse_chain(blocks);
    bind(block_loop, "blockIdx.x");
    for (const std::string& v : vthreads) bind(v, "vthread");
    if (threads.size() > 2) {
      std::string x = fuse_chain(std::vector<std::string>(threads.begin() + 1, threads.end()));
      threads.resize(1);
      if (x.empty()) return;
      threads.push_back(x);
    }
    if (threads.size() == 2) {
      bind(threads[0], "threadIdx.y");
      ty_ = extent(threads[0]);
    }
    if (!threads.empty()) {
      bind(threads.back(), "threadIdx.x");
      tx_ = extent(threads.back());
    }
    // The innermost loop of each level, for the caches and the other stages.
    std::string thread_loop = !threads.empty() ? threads.back() : !vthreads.empty() ? vthreads.back() : block_loop;
    std::vector<std::string> per_thread;  // loops inside every thread loop
    if (!thread_loop.empty()) per_thread.push_back(thread_loop);
    per_thread.insert(per_thread.end(), serial.begin(), serial.end());
    std::vector<std::string> spatial_per_thread = per_thread;
    if (cache_write.empty()) per_thread.insert(per_thread.end(), inner.begin(), inner.end());
    // Caches of the inputs the consumer reads: shared ones filled by the whole block, local ones
    // per thread.
    std::vector<std::string> shared_at = mid;
    if (!block_loop.empty()) shared_at.push_back(block_loop);
    // Every copy is made before anything is computed inside the nest (cache_read inserts its
    // nest at the top level, before the consumer's, which must hold no other stage), then each is
    // computed where it is used, last.
    const std::vector<Buffer> inputs = st_.op.inputs;  // apply() replaces st_
    std::vector<std::pair<std::string, bool>> caches;  // (copy, shared)
    for (const Buffer& input : inputs) {
      bool read = false;
      for_each_expr(st_.stages.at(consumer).body, [&](const Expr& x) {
        if (const Load* l = x->as<Load>(); l && l->buffer.get() == input.get()) read = true;
      });
      if (!read) continue;
      double r = std::uniform_real_distribution<double>(0, 1)(rng_);
      bool shared = r < 0.45 && !shared_at.empty();
      if (!shared && (r >= 0.7 || per_thread.empty())) continue;
      std::string cache = fresh(input->name + (shared ? "S" : "L"));
      if (apply(primitive("cache_read", {name_arg(input->name), name_arg(shared ? "shared" : "local"), name_arg(consumer)},
                          {cache})))
        caches.push_back({cache, shared});
    }
    if (!cache_write.empty() && !spatial_per_thread.empty()) {
      std::string at = pick(spatial_per_thread);
      apply(primitive("compute_at", {name_arg(cache_write), name_arg(at)}));
      per_thread = {at};
      std::vector<std::string> cw_loops = own_loops(cache_write);
      per_thread.insert(per_thread.end(), cw_loops.begin(), cw_loops.end());
    }
    // The other root stages, consumers first: each computed per thread (local), or per block at
    // the block loop (shared) by all its threads.
    if (!spatial_per_thread.empty() && roots.size() > 1) {
      bool per_block = !block_loop.empty() && chance(0.4);
      std::string at = per_block ? block_loop : spatial_per_thread[0];
      for (size_t k = roots.size() - 1; k-- > 0;) {
        if (!apply(primitive("compute_at", {name_arg(roots[k]), name_arg(at)})) || !per_block) continue;
        loop_prefix_ = roots[k] + "_";
        bind_cooperatively(roots[k]);
        loop_prefix_ = "";
      }
    }
    for (const auto& [cache, shared] : caches) {
      if (!apply(primitive("compute_at", {name_arg(cache), name_arg(pick(shared ? shared_at : per_thread))}))) continue;
      if (!shared) continue;
      loop_prefix_ = cache + "_";
      bind_cooperatively(cache);
      loop_prefix_ = "";
    }
  }

  // Every root nest in one block: its spatial loops fused, split by one thread count, bound.
  void block(const std::vector<std::string>& roots) {
    // One thread count for every nest, no larger than any nest (split would shorten its loop).
    int64_t smallest = 1 << 20;
    for (const std::string& stage : roots) {
      int64_t points = 1;
      for (const std::string& l : own_loops(stage)) {
        if (reduction(l)) break;
        points *= std::max<int64_t>(extent(l), 1);
      }
      smallest = std::min(smallest, points);
    }
    std::vector<int64_t> counts = {1};
    for (int64_t c : {2, 3, 4, 8, 13, 16, 32, 64, 128})
      if (c <= smallest) counts.push_back(c);
    int64_t t = pick(counts);
    for (const std::string& stage : roots) {
      std::vector<std::string> spatial;
      for (const std::string& l : own_loops(stage)) {
        if (reduction(l)) break;
        spatial.push_back(l);
      }
      if (spatial.empty()) continue;
      if (chance(0.3)) {
        size_t k = rng_() % spatial.size();
        std::string o, i;
        if (split(spatial[k], &o, &i)) {
          spatial[k] = i;
          spatial.insert(spatial.begin() + long(k), o);
        }
      }
      std::string f = fuse_chain(spatial);
      std::string o, i;
      if (!f.empty() && split_exact(f, t, &o, &i)) bind(i, "threadIdx.x");
    }
  }

  std::mt19937_64& rng_;
  ScheduleState st_;
  GeneratedSchedule out_;
  int counter_ = 0;
  int64_t tx_ = 0, ty_ = 0;  // the block's thread counts (grid shape), 0: none
  std::string loop_prefix_;
};

}  // namespace

GeneratedSchedule generate_gpu_schedule(const OpDef& op, std::mt19937_64& rng) { return GpuGenerator(op, rng).run(); }

}  // namespace texc
