#include "tests/schedule/ScheduleGenerator.h"

#include <algorithm>
#include <functional>
#include <set>

#include "ir/Diagnostics.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/AutoFuse.h"
#include "lower/analysis/BufferAccess.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {

// A loop of the current AST with what the generator needs to know about it.
struct LoopSite {
  const For* loop = nullptr;
  std::vector<const For*> path;  // enclosing loops, outermost first
  std::set<std::string> stages;  // stages with a Block under the loop
  bool has_inner_loop = false;
};

class LoopCollector : public IRVisitor {
 public:
  std::vector<LoopSite> loops;
  void visit_expr(const Expr&) override {}

 protected:
  void visit(const For* op) override {
    LoopSite site;
    site.loop = op;
    site.path = stack_;
    for_each_stmt(op->body, [&](const Stmt& s) {
      if (const Block* b = s->as<Block>()) site.stages.insert(b->stage);
      if (s->as<For>()) site.has_inner_loop = true;
    });
    loops.push_back(site);
    stack_.push_back(op);
    IRVisitor::visit(op);
    stack_.pop_back();
  }

 private:
  std::vector<const For*> stack_;
};

// A Block of the AST with its enclosing loops.
struct BlockSite {
  const Block* block = nullptr;
  std::vector<const For*> path;
};

class BlockCollector : public IRVisitor {
 public:
  std::vector<BlockSite> blocks;
  void visit_expr(const Expr&) override {}

 protected:
  void visit(const For* op) override {
    stack_.push_back(op);
    IRVisitor::visit(op);
    stack_.pop_back();
  }
  void visit(const Block* op) override { blocks.push_back({op, stack_}); }

 private:
  std::vector<const For*> stack_;
};

bool reads_buffer(const Block* b, const BufferNode* buffer) {
  bool found = false;
  for (const Stmt& part : {b->init, b->body})
    if (part)
      for_each_expr(part, [&](const Expr& x) {
        if (const Load* l = x->as<Load>(); l && l->buffer.get() == buffer) found = true;
      });
  if (b->predicate)
    for_each_expr(b->predicate, [&](const Expr& x) {
      if (const Load* l = x->as<Load>(); l && l->buffer.get() == buffer) found = true;
    });
  return found;
}

std::string format_primitive(const SchedPrimitive& p) {
  std::string s;
  for (size_t i = 0; i < p.results.size(); ++i) s += (i ? ", " : "") + p.results[i];
  if (!p.results.empty()) s += " = ";
  s += p.primitive + "(";
  for (size_t i = 0; i < p.args.size(); ++i) {
    const SchedArg& a = p.args[i];
    if (i) s += ", ";
    if (!a.keyword.empty()) s += a.keyword + " = ";
    if (a.is_name()) {
      s += a.name;
    } else {
      int64_t v = 0;
      is_const_int(a.value, &v);
      s += std::to_string(v);
    }
  }
  return s + ")";
}

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

class Generator {
 public:
  Generator(const OpDef& op, std::mt19937_64& rng, const GeneratorOptions& options)
      : rng_(rng), options_(options), st_(ScheduleState::create(op, "interp")) {}

  GeneratedSchedule run() {
    out_.no_fuse = chance(options_.no_fuse_probability);
    for (const auto& [name, stage] : st_.stages) {
      if (out_.no_fuse || chance(0.6)) named_.insert(name);
    }
    if (!out_.no_fuse) {
      st_.user_named = named_;
      inline_injective_stages(st_);
    }
    int structural = 1 + int(rng_() % uint64_t(std::max(1, options_.max_primitives)));
    for (int i = 0; i < structural; ++i) {
      for (int attempt = 0; attempt < 8; ++attempt)
        if (structural_step()) break;
    }
    if (chance(0.6)) annotate("vectorize");
    if (chance(0.35)) annotate("unroll");
    if (chance(0.35)) annotate("parallel");
    if (!out_.no_fuse) name_every_chosen_stage();
    if (chance(0.3)) prefetch();  // last: it names loops that must still exist at the end
    return out_;
  }

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[rng_() % v.size()];
  }
  std::string fresh(const std::string& prefix) { return prefix + std::to_string(++counter_); }

  // ---- what the generator sees

  std::vector<LoopSite> loops() const {
    LoopCollector c;
    c.visit_stmt(st_.func.body);
    return c.loops;
  }
  std::vector<BlockSite> blocks() const {
    BlockCollector c;
    c.visit_stmt(st_.func.body);
    return c.blocks;
  }
  // A loop the schedule may touch: every stage under it is one the schedule names.
  bool eligible(const LoopSite& l) const {
    if (l.stages.empty()) return false;
    for (const std::string& s : l.stages)
      if (!named_.count(s)) return false;
    return true;
  }
  bool is_output(const std::string& stage) const {
    for (const Buffer& b : st_.op.outputs)
      if (b->name == stage) return true;
    return false;
  }
  bool live_stage(const std::string& stage) const { return st_.stages.count(stage) && !st_.inlined.count(stage); }

  // The stage's own nest: the loops around its only Block that hold nothing else, outermost first.
  // False when the stage has no Block, several, or when a loop that drives its bindings also holds
  // another stage (lower/schedule cannot move a stage computed around another one).
  bool own_loops(const std::string& stage, std::vector<const For*>* own, BlockSite* site) const {
    std::vector<BlockSite> mine;
    for (const BlockSite& b : blocks())
      if (b.block->stage == stage) mine.push_back(b);
    if (mine.size() != 1) return false;
    *site = mine[0];
    std::vector<LoopSite> all = loops();
    own->clear();
    bool inside_own = true;
    for (size_t i = site->path.size(); i-- > 0;) {
      const For* l = site->path[i];
      auto it = std::find_if(all.begin(), all.end(), [&](const LoopSite& s) { return s.loop == l; });
      bool only_this = it->stages.size() == 1;
      if (inside_own && only_this) {
        own->insert(own->begin(), l);
        continue;
      }
      inside_own = false;
      bool drives = false;
      for (const Expr& b : site->block->bindings) drives = drives || uses_var(b, l->var.get());
      if (drives) return false;
    }
    return true;
  }
  // True if the stage is computed by its unscheduled nest: perfectly nested serial loops
  // "<stage>.<axis>" in iter-var order, each driving exactly its own iter var.
  bool unscheduled(const std::string& stage, std::vector<const For*>* own, BlockSite* site) const {
    if (!own_loops(stage, own, site)) return false;
    const Block* b = site->block;
    if (own->size() != b->iter_vars.size()) return false;
    for (size_t i = 0; i < own->size(); ++i) {
      const For* l = (*own)[i];
      if (l->var->name != stage + "." + b->iter_vars[i].var->name || l->for_kind != ForKind::Serial) return false;
      if (i + 1 < own->size() && l->body.get() != (*own)[i + 1]) return false;
      for (size_t k = 0; k < b->bindings.size(); ++k)
        if (uses_var(b->bindings[k], l->var.get()) != (k == i)) return false;
    }
    return true;
  }
  // The loops around a stage's own nest (its Block's loops minus its own loops). lower/schedule
  // checks that a reader of the stage lies inside all of them.
  bool attach_loops(const std::string& stage, std::vector<const For*>* attach) const {
    std::vector<const For*> own;
    BlockSite site;
    if (!own_loops(stage, &own, &site)) return false;
    attach->assign(site.path.begin(), site.path.end() - long(own.size()));
    return true;
  }
  // The live stages whose buffers `stage`'s Block reads.
  std::vector<std::string> producers_of(const std::string& stage) const {
    std::vector<std::string> out;
    for (const BlockSite& b : blocks()) {
      if (b.block->stage != stage) continue;
      for (const auto& [name, def] : st_.stages)
        if (name != stage && live_stage(name) && reads_buffer(b.block, def.buffer.get())) out.push_back(name);
    }
    return out;
  }
  // True if every producer of `stage` is computed in loops that enclose `position` (the loops
  // around the place the stage would move to, outermost first; empty for the top level).
  bool producers_visible_from(const std::string& stage, const std::vector<const For*>& position) const {
    for (const std::string& p : producers_of(stage)) {
      std::vector<const For*> attach;
      if (!attach_loops(p, &attach)) return false;
      for (const For* l : attach)
        if (std::find(position.begin(), position.end(), l) == position.end()) return false;
    }
    return true;
  }
  std::vector<BlockSite> readers_of(const std::string& stage) const {
    std::vector<BlockSite> out;
    const BufferNode* buffer = st_.stages.at(stage).buffer.get();
    for (const BlockSite& b : blocks())
      if (b.block->stage != stage && reads_buffer(b.block, buffer)) out.push_back(b);
    return out;
  }

  // ---- applying

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
      out_.rejections.push_back(format_primitive(p) + ": " + e.diag.message);
      return false;
    }
    st_ = std::move(next);
    out_.primitives.push_back(p);
    for (const SchedArg& a : p.args)
      if (a.is_name()) mentioned_.insert(a.name.substr(0, a.name.find('.')));
    for (const std::string& r : p.results)
      if (st_.stages.count(r)) named_.insert(r), mentioned_.insert(r);
    return true;
  }

  // ---- primitives

  int64_t random_factor(int64_t extent) {
    std::vector<int64_t> choices = {1, 2, 3, 4, 5, 7, 8, 16};
    if (extent > 0) {
      choices.push_back(extent);
      choices.push_back(extent + 1);
      choices.push_back(2 * extent);
      if (extent > 1) choices.push_back(extent - 1);
      for (int64_t d = 2; d < extent; ++d)
        if (extent % d == 0) choices.push_back(d);
    }
    return pick(choices);
  }

  bool structural_step() {
    // Weights: split, tile, reorder, fuse, compute_at, inline, cache_read, cache_write.
    static const std::vector<std::pair<int, bool (Generator::*)()>> kinds = {
        {25, &Generator::split},       {8, &Generator::tile},         {12, &Generator::reorder},
        {8, &Generator::fuse},         {18, &Generator::compute_at},  {7, &Generator::inline_stage},
        {6, &Generator::cache_read},   {6, &Generator::cache_write},  {3, &Generator::compute_root},
        {4, &Generator::annotate_any}, {7, &Generator::rfactor},
    };
    int total = 0;
    for (auto& k : kinds) total += k.first;
    int r = int(rng_() % uint64_t(total));
    for (auto& k : kinds) {
      if (r < k.first) return (this->*k.second)();
      r -= k.first;
    }
    return false;
  }

  bool split() {
    std::vector<LoopSite> candidates;
    for (const LoopSite& l : loops())
      if (eligible(l) && l.loop->for_kind == ForKind::Serial) candidates.push_back(l);
    if (candidates.empty()) return false;
    const For* l = pick(candidates).loop;
    int64_t extent = -1;
    bool constant = is_const_int(l->extent, &extent);
    std::string n = std::to_string(++counter_);
    if (constant && chance(0.2)) {
      std::vector<int64_t> parts = {1, 2, 3, 4, extent + 1};
      return apply(primitive("split", {name_arg(l->var->name), int_arg(pick(parts), "nparts")}, {"lo" + n, "li" + n}));
    }
    return apply(primitive("split", {name_arg(l->var->name), int_arg(random_factor(extent))}, {"lo" + n, "li" + n}));
  }

  bool tile() {
    std::vector<LoopSite> candidates;
    std::vector<LoopSite> all = loops();
    for (const LoopSite& l : all) {
      const For* inner = l.loop->body->as<For>();
      if (!eligible(l) || l.loop->for_kind != ForKind::Serial || !inner || inner->for_kind != ForKind::Serial) continue;
      if (uses_var(inner->min, l.loop->var.get()) || uses_var(inner->extent, l.loop->var.get())) continue;
      candidates.push_back(l);
    }
    if (candidates.empty()) return false;
    const For* x = pick(candidates).loop;
    const For* y = x->body->as<For>();
    int64_t ex = -1, ey = -1;
    is_const_int(x->extent, &ex);
    is_const_int(y->extent, &ey);
    std::string n = std::to_string(++counter_);
    return apply(primitive("tile",
                           {name_arg(x->var->name), name_arg(y->var->name), int_arg(random_factor(ex)),
                            int_arg(random_factor(ey))},
                           {"tx" + n + "o", "ty" + n + "o", "tx" + n + "i", "ty" + n + "i"}));
  }

  bool reorder() {
    std::vector<LoopSite> all = loops();
    std::vector<std::vector<const For*>> chains;
    for (const LoopSite& l : all) {
      if (!eligible(l)) continue;
      std::vector<const For*> chain = {l.loop};
      while (const For* inner = chain.back()->body->as<For>()) chain.push_back(inner);
      if (chain.size() < 2) continue;
      bool dependent = false;
      for (const For* a : chain)
        for (const For* b : chain)
          if (uses_var(a->min, b->var.get()) || uses_var(a->extent, b->var.get())) dependent = true;
      if (!dependent) chains.push_back(chain);
    }
    if (chains.empty()) return false;
    std::vector<const For*> chain = pick(chains);
    std::shuffle(chain.begin(), chain.end(), rng_);
    size_t count = 2 + rng_() % (chain.size() - 1);
    chain.resize(count);
    std::vector<SchedArg> args;
    for (const For* l : chain) args.push_back(name_arg(l->var->name));
    return apply(primitive("reorder", args));
  }

  bool fuse() {
    std::vector<LoopSite> candidates;
    for (const LoopSite& l : loops()) {
      const For* inner = l.loop->body->as<For>();
      if (!eligible(l) || !inner || l.loop->for_kind != ForKind::Serial || inner->for_kind != ForKind::Serial) continue;
      if (is_reduction_loop(l.loop) != is_reduction_loop(inner)) continue;
      if (uses_var(inner->min, l.loop->var.get()) || uses_var(inner->extent, l.loop->var.get())) continue;
      candidates.push_back(l);
    }
    if (candidates.empty()) return false;
    const For* outer = pick(candidates).loop;
    const For* inner = outer->body->as<For>();
    if (chance(0.2)) std::swap(outer, inner);  // fuse(inner, outer) is accepted too
    return apply(primitive("fuse", {name_arg(outer->var->name), name_arg(inner->var->name)}, {fresh("lf")}));
  }

  bool compute_at() {
    std::vector<std::pair<std::string, const For*>> candidates;
    std::vector<LoopSite> all = loops();
    for (const std::string& stage : named_) {
      if (!live_stage(stage) || is_output(stage)) continue;
      std::vector<const For*> own;
      BlockSite site;
      if (!unscheduled(stage, &own, &site)) continue;
      std::vector<BlockSite> readers = readers_of(stage);
      if (readers.empty()) continue;
      for (const LoopSite& l : all) {
        if (!eligible(l) || std::find(own.begin(), own.end(), l.loop) != own.end()) continue;
        bool encloses_all = true;
        for (const BlockSite& r : readers)
          if (std::find(r.path.begin(), r.path.end(), l.loop) == r.path.end()) encloses_all = false;
        std::vector<const For*> position = l.path;
        position.push_back(l.loop);
        if (encloses_all && producers_visible_from(stage, position)) candidates.push_back({stage, l.loop});
      }
    }
    if (candidates.empty()) return false;
    auto [stage, loop] = pick(candidates);
    return apply(primitive("compute_at", {name_arg(stage), name_arg(loop->var->name)}));
  }

  bool inline_stage() {
    std::vector<std::string> candidates;
    for (const std::string& stage : named_) {
      if (!live_stage(stage) || is_output(stage) || st_.stages.at(stage).body->as<Reduce>()) continue;
      std::vector<const For*> own;
      BlockSite site;
      if (!own_loops(stage, &own, &site)) continue;
      // Every reader then reads the stage's producers: they must be visible from it.
      bool visible = true;
      for (const BlockSite& r : readers_of(stage))
        visible = visible && producers_visible_from(r.block->stage, r.path) && producers_visible_from(stage, r.path);
      if (visible) candidates.push_back(stage);
    }
    if (candidates.empty()) return false;
    return apply(primitive("inline", {name_arg(pick(candidates))}));
  }

  bool cache_read() {
    // (tensor, consumer) pairs: the consumer's Block reads the tensor; a stage tensor must be
    // computed at the top level (the copy is inserted at the top level before the consumer).
    std::vector<std::pair<std::string, std::string>> candidates;
    std::vector<BlockSite> all_blocks = blocks();
    auto consider = [&](const std::string& tensor, const BufferNode* buffer) {
      for (const BlockSite& b : all_blocks) {
        if (b.block->stage == tensor || !named_.count(b.block->stage) || !reads_buffer(b.block, buffer)) continue;
        std::vector<const For*> own;
        BlockSite consumer;
        if (own_loops(b.block->stage, &own, &consumer)) candidates.push_back({tensor, b.block->stage});
      }
    };
    for (const Buffer& in : st_.op.inputs) consider(in->name, in.get());
    for (const std::string& stage : named_) {
      if (!live_stage(stage)) continue;
      std::vector<const For*> own;
      BlockSite site;
      if (!own_loops(stage, &own, &site) || own.empty() || own.size() != site.path.size()) continue;
      consider(stage, st_.stages.at(stage).buffer.get());
    }
    if (candidates.empty()) return false;
    auto [tensor, consumer] = pick(candidates);
    return apply(primitive("cache_read", {name_arg(tensor), name_arg("local"), name_arg(consumer)}, {fresh("cr")}));
  }

  bool cache_write() {
    std::vector<std::string> candidates;
    for (const std::string& stage : named_) {
      if (!live_stage(stage)) continue;
      std::vector<const For*> own;
      BlockSite site;
      if (!unscheduled(stage, &own, &site) || own.size() != site.path.size() || site.block->predicate) continue;
      if (!producers_visible_from(stage, {})) continue;
      candidates.push_back(stage);
    }
    if (candidates.empty()) return false;
    return apply(primitive("cache_write", {name_arg(pick(candidates)), name_arg("local")}, {fresh("cw")}));
  }

  bool compute_root() {
    std::vector<std::string> candidates;
    for (const std::string& stage : named_) {
      std::vector<const For*> own;
      BlockSite site;
      if (!live_stage(stage) || !own_loops(stage, &own, &site)) continue;
      if (own.size() == site.path.size()) continue;  // already at the top level: nothing to do
      if (producers_visible_from(stage, {})) candidates.push_back(stage);
    }
    if (candidates.empty()) return false;
    return apply(primitive("compute_root", {name_arg(pick(candidates))}));
  }

  // A reduction stage's reduction loops, outermost first, when rfactor can factor it: they drive
  // only reduction axes, lie inside the stage's other loops and form a chain of serial loops
  // down to its Block (empty otherwise).
  std::vector<const For*> factorable_loops(const std::string& stage) const {
    std::vector<const For*> own;
    BlockSite site;
    if (!live_stage(stage) || !st_.stages.at(stage).body->as<Reduce>() || !own_loops(stage, &own, &site)) return {};
    const Block* b = site.block;
    std::vector<const For*> reduction;
    for (const For* l : site.path) {
      bool spatial = false, reduce = false;
      for (size_t i = 0; i < b->iter_vars.size(); ++i)
        if (uses_var(b->bindings[i], l->var.get())) (b->iter_vars[i].is_reduce ? reduce : spatial) = true;
      if (reduce && !spatial) {
        reduction.push_back(l);
      } else if ((reduce || spatial) && !reduction.empty()) {
        return {};
      }
    }
    for (size_t i = 0; i < reduction.size(); ++i) {
      const StmtNode* next = i + 1 < reduction.size() ? static_cast<const StmtNode*>(reduction[i + 1]) : b;
      if (reduction[i]->for_kind != ForKind::Serial || reduction[i]->body.get() != next) return {};
    }
    return reduction;
  }

  // SF = rfactor(S, L), usually right after a split of one of S's reduction loops, with L one of
  // the split's loops; then often SF's loop over L moved innermost (so that the trailing
  // vectorize may pick it).
  bool rfactor() {
    std::vector<std::string> candidates;
    for (const std::string& stage : named_)
      if (!factorable_loops(stage).empty()) candidates.push_back(stage);
    if (candidates.empty()) return false;
    std::string stage = pick(candidates);
    std::vector<const For*> reduction = factorable_loops(stage);
    std::vector<std::string> choices;
    if (chance(0.75)) {
      const For* l = pick(reduction);
      int64_t extent = -1;
      is_const_int(l->extent, &extent);
      std::string n = std::to_string(++counter_);
      if (!apply(primitive("split", {name_arg(l->var->name), int_arg(random_factor(extent))}, {"lo" + n, "li" + n})))
        return false;
      choices = {"lo" + n, "li" + n, "li" + n};
    } else {
      for (const For* l : reduction) choices.push_back(l->var->name);
    }
    std::string factored = fresh("rf");
    if (!apply(primitive("rfactor", {name_arg(stage), name_arg(pick(choices))}, {factored}))) return false;
    if (chance(0.5)) {
      // SF's loops: its spatial axes, the factored axis, then its reduction loops.
      std::vector<const For*> own;
      BlockSite site;
      if (!own_loops(factored, &own, &site) || own.size() != site.block->iter_vars.size()) return true;
      size_t spatial = 0;
      while (spatial < site.block->iter_vars.size() && !site.block->iter_vars[spatial].is_reduce) ++spatial;
      if (spatial == own.size()) return true;
      std::vector<SchedArg> order;
      for (size_t i = spatial; i < own.size(); ++i) order.push_back(name_arg(own[i]->var->name));
      order.push_back(name_arg(own[spatial - 1]->var->name));
      apply(primitive("reorder", order));
    }
    return true;
  }

  // An annotation in the middle of the schedule (later primitives then move the loop around).
  bool annotate_any() {
    static const std::vector<std::string> kinds = {"vectorize", "unroll", "parallel"};
    return annotate(pick(kinds));
  }

  bool annotate(const std::string& kind) {
    std::vector<LoopSite> candidates;
    std::vector<LoopSite> all = loops();
    for (const LoopSite& l : all) {
      if (!eligible(l) || l.loop->for_kind != ForKind::Serial) continue;
      int64_t extent;
      bool constant = is_const_int(l.loop->extent, &extent);
      if (kind == "vectorize") {
        if (!constant || l.has_inner_loop || is_reduction_loop(l.loop)) continue;
      } else if (kind == "unroll") {
        if (!constant || extent > 16) continue;
      } else {  // parallel: a spatial loop with no parallel loop around or inside it
        if (is_reduction_loop(l.loop)) continue;
        bool nested = false;
        for (const For* p : l.path) nested = nested || p->for_kind == ForKind::Parallel;
        for_each_stmt(l.loop->body, [&](const Stmt& s) {
          if (const For* f = s->as<For>(); f && f->for_kind == ForKind::Parallel) nested = true;
        });
        if (nested) continue;
      }
      candidates.push_back(l);
    }
    if (candidates.empty()) return false;
    if (kind == "vectorize") {
      // Prefer widths a vector unit has (vectorize_loops keeps loops of more than 64 lanes serial).
      std::vector<LoopSite> narrow;
      for (const LoopSite& l : candidates) {
        int64_t extent = 0;
        is_const_int(l.loop->extent, &extent);
        if (extent >= 2 && extent <= 32) narrow.push_back(l);
      }
      if (!narrow.empty() && chance(0.85)) candidates = narrow;
    }
    return apply(primitive(kind, {name_arg(pick(candidates).loop->var->name)}));
  }

  // prefetch(input, at, offset[, from = an enclosing loop]) of an op input read under `at`, at a
  // loop outside any vector code (only inputs: naming a stage would change what fuses).
  bool prefetch() {
    std::vector<std::pair<LoopSite, Buffer>> candidates;
    for (const LoopSite& l : loops()) {
      bool vector = l.loop->for_kind == ForKind::Vectorized;
      for (const For* p : l.path) vector = vector || p->for_kind == ForKind::Vectorized;
      if (vector || l.loop->for_kind == ForKind::Tensorized) continue;
      for (const Buffer& b : st_.op.inputs)
        if (!find_accesses(l.loop->body, b.get(), true, false).empty()) candidates.push_back({l, b});
    }
    if (candidates.empty()) return false;
    const auto& chosen = pick(candidates);
    std::vector<SchedArg> args = {name_arg(chosen.second->name), name_arg(chosen.first.loop->var->name),
                                  int_arg(1 + int64_t(rng_() % 3))};
    if (!chosen.first.path.empty() && chance(0.5)) {
      SchedArg from = name_arg(pick(chosen.first.path)->var->name);
      from.keyword = "from";
      args.push_back(from);
    }
    return apply(primitive("prefetch", args));
  }

  // With automatic fusion, lower_op treats the stages the schedule names as scheduled by hand: name
  // each stage the generator chose, so that lower_op sees the same choice.
  void name_every_chosen_stage() {
    for (const std::string& stage : std::set<std::string>(named_)) {
      if (mentioned_.count(stage) || !st_.stages.count(stage) || st_.inlined.count(stage)) continue;
      if (!apply(primitive("compute_root", {name_arg(stage)}))) {
        // Keep the choice consistent even so: a stage the schedule cannot name is not chosen.
        out_.rejections.back() += " (while naming the stages of the schedule)";
      }
    }
  }

  std::mt19937_64& rng_;
  GeneratorOptions options_;
  ScheduleState st_;
  GeneratedSchedule out_;
  std::set<std::string> named_;      // stages the schedule may touch
  std::set<std::string> mentioned_;  // names the applied primitives mention (the prefix before '.')
  int counter_ = 0;
};

}  // namespace

std::string GeneratedSchedule::text(const std::string& indent) const {
  std::string s = indent + "schedule " + target + " {\n";
  for (const SchedPrimitive& p : primitives) s += indent + "  " + format_primitive(p) + "\n";
  return s + indent + "}\n";
}

ScheduleBlock GeneratedSchedule::block() const {
  ScheduleBlock b;
  b.target = target;
  for (const SchedPrimitive& p : primitives) b.items.push_back(p);
  return b;
}

GeneratedSchedule generate_schedule(const OpDef& op, std::mt19937_64& rng, const GeneratorOptions& options) {
  return Generator(op, rng, options).run();
}

std::string insert_schedule(const std::string& op_source, const std::string& schedule_text) {
  size_t close = op_source.rfind('}');
  if (close == std::string::npos) return op_source + "\n" + schedule_text;
  return op_source.substr(0, close) + schedule_text + op_source.substr(close);
}

}  // namespace texc
