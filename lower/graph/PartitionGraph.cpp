#include "lower/graph/PartitionGraph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "ir/IRVisitor.h"
#include "ir/Target.h"
#include "lower/graph/GraphOps.h"

namespace texc {

namespace {

std::set<std::string> loaded_buffers(const Expr& e) {
  std::set<std::string> names;
  for_each_expr(e, [&](const Expr& x) {
    if (auto* load = x->as<Load>()) names.insert(load->buffer->name);
  });
  return names;
}

/// sum(a * b) with a and b loading different tensors (a contraction: conv, dense, matmul).
bool is_contraction(const Reduce* r) {
  if (r->reduce_kind != ReduceKind::Sum) return false;
  Expr source = r->source;
  for (;;) {  // through casts, and selects that give a constant elsewhere (padding, ragged tails)
    if (auto* c = source->as<Cast>()) {
      source = c->value;
    } else if (auto* sel = source->as<Select>(); sel && loaded_buffers(sel->false_value).empty()) {
      source = sel->true_value;
    } else if (sel && loaded_buffers(sel->true_value).empty()) {
      source = sel->false_value;
    } else {
      break;
    }
  }
  auto* mul = source->as<Binary>();
  if (!mul || mul->op != BinaryOp::Mul) return false;
  std::set<std::string> a = loaded_buffers(mul->a), b = loaded_buffers(mul->b);
  if (a.empty() || b.empty()) return false;
  for (const std::string& name : a)
    if (b.count(name)) return false;
  return true;
}

int strength(GroupKind k) {
  switch (k) {
    case GroupKind::Injective: return 0;
    case GroupKind::Reduction: return 1;
    case GroupKind::ComplexOut: return 2;
    case GroupKind::Opaque: return 3;
  }
  return 0;
}

/// The stages a schedule primitive names, through the loops and caches earlier primitives bound.
struct NamedStages {
  const OpDef& op;
  std::map<std::string, std::set<std::string>> bound;  // a result name -> the stages its primitive named

  std::set<std::string> of(const SchedPrimitive& p) {
    std::set<std::string> stages;
    for (const SchedArg& a : p.args) {
      if (!a.is_name()) continue;
      std::string head = a.name.substr(0, a.name.find('.'));
      if (op.find_stage(head)) stages.insert(head);
      if (auto it = bound.find(head); it != bound.end()) stages.insert(it->second.begin(), it->second.end());
    }
    for (const std::string& r : p.results) bound[r] = stages;
    return stages;
  }

  void walk(const std::vector<SchedItem>& items,
            const std::function<void(const SchedPrimitive&, const std::set<std::string>&)>& each) {
    for (const SchedItem& item : items) {
      if (auto* p = std::get_if<SchedPrimitive>(&item)) {
        each(*p, of(*p));
      } else if (auto* f = std::get_if<std::shared_ptr<SchedIf>>(&item)) {
        walk((*f)->then_items, each);
        walk((*f)->else_items, each);
      }
    }
  }
};

/// Whether every load `stage` makes of a tensor in `tensors` reads it at the stage's own point:
/// the indices are the stage's axes in order (an elementwise epilogue, a residual add), not a
/// reshape (a flatten) or a window.
bool reads_pointwise(const Stage& stage, const std::set<std::string>& tensors) {
  bool pointwise = true;
  for_each_expr(stage.body, [&](const Expr& e) {
    const Load* load = e->as<Load>();
    if (!load || !tensors.count(load->buffer->name)) return;
    if (load->indices.size() != stage.axes.size()) {
      pointwise = false;
      return;
    }
    for (size_t i = 0; i < stage.axes.size(); ++i)
      if (load->indices[i].get() != stage.axes[i].var.get()) pointwise = false;
  });
  return pointwise;
}

}  // namespace

const char* group_kind_name(GroupKind kind) {
  switch (kind) {
    case GroupKind::Injective: return "injective";
    case GroupKind::Reduction: return "reduction";
    case GroupKind::ComplexOut: return "complex-out-fusible";
    case GroupKind::Opaque: return "opaque";
  }
  return "?";
}

GroupKind stage_kind(const Stage& stage) {
  GroupKind kind = GroupKind::Injective;
  auto raise = [&](GroupKind k) {
    if (strength(k) > strength(kind)) kind = k;
  };
  for_each_expr(stage.body, [&](const Expr& e) {
    if (auto* r = e->as<Reduce>()) raise(is_contraction(r) ? GroupKind::ComplexOut : GroupKind::Reduction);
    if (auto* c = e->as<Call>(); c && c->call_kind == CallKind::Extern) raise(GroupKind::Opaque);
  });
  return kind;
}

GraphPartition partition_graph(const OpDef& op, const std::string& target, GraphFusion fusion, const AloneNode& alone) {
  // Nodes: the stages of one call, or one own stage.
  struct Node {
    std::vector<size_t> stages;
    GroupKind kind = GroupKind::Injective;
    std::set<size_t> producers;  // nodes whose stages it reads
    bool alone = false;          // `alone` holds: a group by itself
  };
  std::vector<Node> nodes;
  std::vector<size_t> node_of(op.stages.size());
  std::map<std::string, size_t> stage_index;
  std::map<std::string, size_t> node_of_call;
  for (size_t i = 0; i < op.stages.size(); ++i) {
    const Stage& s = op.stages[i];
    stage_index[s.name] = i;
    size_t n;
    if (!s.call_site.empty() && node_of_call.count(s.call_site)) {
      n = node_of_call[s.call_site];
    } else {
      n = nodes.size();
      nodes.emplace_back();
      if (!s.call_site.empty()) node_of_call[s.call_site] = n;
    }
    node_of[i] = n;
    nodes[n].stages.push_back(i);
    GroupKind k = stage_kind(s);
    if (strength(k) > strength(nodes[n].kind)) nodes[n].kind = k;
  }
  for (size_t i = 0; i < op.stages.size(); ++i)
    for (const std::string& r : loaded_buffers(op.stages[i].body))
      if (auto it = stage_index.find(r); it != stage_index.end() && node_of[it->second] != node_of[i])
        nodes[node_of[i]].producers.insert(node_of[it->second]);

  if (alone)
    for (Node& node : nodes) {
      std::vector<const Stage*> stages;
      for (size_t i : node.stages) stages.push_back(&op.stages[i]);
      node.alone = alone(op, stages);
    }

  // Groups over nodes (union by relabelling; a handful of nodes per op).
  std::vector<size_t> group_of(nodes.size());
  std::vector<bool> anchored;  // a group with a reduction, complex-out-fusible or opaque node
  std::vector<GroupKind> group_kind;
  std::set<size_t> alone_groups;  // the groups of nodes kept alone
  // Would merging group `from` into `into` (with `n` assigned to `into`) leave a cycle? There is one
  // when a path between them leaves both: some producer group of the merged set depends on it.
  auto reaches = [&](size_t from_group, const std::set<size_t>& targets, size_t upto_nodes) {
    // from_group depends (transitively) on a group in targets, through groups other than targets
    std::set<size_t> seen;
    std::vector<size_t> work{from_group};
    while (!work.empty()) {
      size_t g = work.back();
      work.pop_back();
      for (size_t n = 0; n < upto_nodes; ++n) {
        if (group_of[n] != g) continue;
        for (size_t p : nodes[n].producers) {
          size_t pg = group_of[p];
          if (pg == g) continue;
          if (targets.count(pg)) return true;
          if (seen.insert(pg).second) work.push_back(pg);
        }
      }
    }
    return false;
  };
  // A stage as a remark names it: the call it came from, as the op wrote it, else its own name.
  auto stage_label = [&](const Stage& s) {
    return s.call_site.empty() ? "'" + s.name + "'" : "'" + s.call_site + "' (" + s.origin_call + ")";
  };
  // The kernel a group is, for a remark: its anchor node's (or else its first node's) stage.
  auto group_label = [&](size_t g, size_t upto_nodes) {
    std::optional<size_t> first, anchor;
    for (size_t m = 0; m < upto_nodes; ++m) {
      if (group_of[m] != g) continue;
      if (!first) first = m;
      if (!anchor && nodes[m].kind != GroupKind::Injective) anchor = m;
    }
    return "the kernel of " + stage_label(op.stages[nodes[anchor ? *anchor : *first].stages.front()]);
  };
  // A stage that was not fused, why (its remark's message less where it runs: added at the end).
  struct Unfused {
    size_t node;
    std::string message;
  };
  std::vector<Unfused> unfused;
  auto stage_of = [&](size_t n) { return "elementwise stage '" + op.stages[nodes[n].stages.front()].name + "'"; };
  const bool gpu = is_gpu_target(target);
  size_t next_group = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    if (fusion == GraphFusion::None) {  // every node a kernel of its own: nothing to remark
      group_of[n] = next_group++;
      group_kind.push_back(node.kind);
      anchored.push_back(node.kind != GroupKind::Injective);
      if (node.alone) alone_groups.insert(group_of[n]);
      continue;
    }
    if (node.alone) {  // a kernel of this call's stages only: nothing joins it, it absorbs nothing
      group_of[n] = next_group++;
      group_kind.push_back(node.kind);
      anchored.push_back(true);
      alone_groups.insert(group_of[n]);
      continue;
    }
    std::set<size_t> producer_groups;
    for (size_t p : node.producers) producer_groups.insert(group_of[p]);
    // The op's own reduction after a reduction group (a softmax or norm written out by hand) is
    // part of that layer: it joins like an injective stage.
    bool own_reduction_after_reduction = false;
    if (node.kind == GroupKind::Reduction && op.stages[node.stages.front()].call_site.empty() && !producer_groups.empty())
      own_reduction_after_reduction = group_kind[*producer_groups.rbegin()] == GroupKind::Reduction;
    if (node.kind == GroupKind::Injective || own_reduction_after_reduction) {
      // the latest producer group it may join: no other producer group depends on it
      std::optional<size_t> join;
      std::string why_not_latest;  // why the latest producer group was passed over
      for (auto it = producer_groups.rbegin(); it != producer_groups.rend(); ++it) {
        size_t g = *it;
        if (group_kind[g] == GroupKind::Opaque) {
          if (why_not_latest.empty()) why_not_latest = "that kernel calls an extern function (opaque)";
          continue;
        }
        // On a GPU the stage runs in the anchor's threads, each on the points it produced: it
        // must read the group's tensors at its own point (a flatten or a window would need the
        // points of other threads or blocks).
        // It also must read reductions only: the GPU lowering fuses an epilogue into a reduction's
        // bound loops, not into an elementwise stage's (conv2d_int8's requantization).
        if (gpu && node.kind == GroupKind::Injective) {
          std::set<std::string> tensors;
          bool reads_elementwise = false;
          for (size_t m = 0; m < n; ++m)
            if (group_of[m] == g)
              for (size_t i : nodes[m].stages) tensors.insert(op.stages[i].name);
          bool pointwise = true;
          for (size_t i : node.stages) {
            pointwise = pointwise && reads_pointwise(op.stages[i], tensors);
            for (const std::string& r : loaded_buffers(op.stages[i].body))
              if (tensors.count(r) && stage_kind(op.stages[stage_index.at(r)]) == GroupKind::Injective)
                reads_elementwise = true;
          }
          if (!pointwise || reads_elementwise) {
            if (why_not_latest.empty())
              why_not_latest = !pointwise ? "on a GPU target it would run in that kernel's threads, but it reads that "
                                            "kernel's tensors at other points than its own"
                                          : "on a GPU target it would run in that kernel's threads, but it reads an "
                                            "elementwise stage of that kernel, which the GPU lowering does not fuse "
                                            "into";
            continue;
          }
        }
        if (alone_groups.count(g)) {
          if (why_not_latest.empty())
            why_not_latest = "that kernel runs on the accelerator, which runs the stages of its call only";
          continue;
        }
        std::optional<size_t> cycle;
        for (size_t other : producer_groups)
          if (other != g && reaches(other, {g}, n)) cycle = other;
        if (!cycle) {
          join = g;
          break;
        }
        if (why_not_latest.empty())
          why_not_latest = "joining it would close a cycle through " + group_label(*cycle, n);
      }
      if (!why_not_latest.empty() && node.kind == GroupKind::Injective)
        unfused.push_back({n, stage_of(n) + " is not fused into " + group_label(*producer_groups.rbegin(), n) +
                                  ", its latest producer: " + why_not_latest});
      if (join && (node.kind == GroupKind::Injective || group_kind[*join] == GroupKind::Reduction)) {
        group_of[n] = *join;
        continue;
      }
      if (node.kind != GroupKind::Injective) {  // the reduction could not join: a group of its own
        group_of[n] = next_group++;
        group_kind.push_back(node.kind);
        anchored.push_back(true);
        continue;
      }
      group_of[n] = next_group++;
      group_kind.push_back(GroupKind::Injective);
      anchored.push_back(false);
      continue;
    }
    size_t g = next_group++;
    group_of[n] = g;
    group_kind.push_back(node.kind);
    anchored.push_back(true);
    if (node.kind == GroupKind::Opaque) continue;
    // absorb producer groups that are purely injective and read only by this node (not on a GPU:
    // the anchor's carried schedule is written for its inputs as tensors in memory)
    for (size_t pg : producer_groups) {
      if (anchored[pg] || gpu) continue;
      std::optional<size_t> other_reader;
      for (size_t m = 0; m < n && !other_reader; ++m)
        if (group_of[m] != pg)
          for (size_t p : nodes[m].producers)
            if (group_of[p] == pg) other_reader = m;
      std::optional<size_t> cycle;
      for (size_t other : producer_groups)
        if (other != pg && reaches(other, {pg}, n)) cycle = other;
      if (other_reader || cycle) {
        size_t first = 0;
        while (group_of[first] != pg) ++first;
        std::string why = other_reader ? "stage '" + op.stages[nodes[*other_reader].stages.front()].name +
                                             "' of another kernel reads it too"
                                       : "that would close a cycle through " + group_label(*cycle, n);
        unfused.push_back({first, stage_of(first) + " is not fused into the kernel of " +
                                      stage_label(op.stages[node.stages.front()]) + ", which reads it: " + why});
        continue;
      }
      for (size_t m = 0; m < n; ++m)
        if (group_of[m] == pg) group_of[m] = g;
    }
  }

  // Groups in a topological order: by their first node... which need not be topological after
  // absorption, so order them by a walk of the group graph.
  std::vector<size_t> used;
  for (size_t n = 0; n < nodes.size(); ++n)
    if (std::find(used.begin(), used.end(), group_of[n]) == used.end()) used.push_back(group_of[n]);
  std::vector<size_t> order;
  std::set<size_t> placed;
  while (order.size() < used.size()) {
    bool progress = false;
    for (size_t g : used) {
      if (placed.count(g)) continue;
      bool ready = true;
      for (size_t n = 0; n < nodes.size() && ready; ++n)
        if (group_of[n] == g)
          for (size_t p : nodes[n].producers)
            if (group_of[p] != g && !placed.count(group_of[p])) ready = false;
      if (!ready) continue;
      order.push_back(g);
      placed.insert(g);
      progress = true;
    }
    if (!progress) break;  // cannot happen: the merges keep the graph acyclic
  }
  GraphPartition partition;
  if (order.size() < used.size()) {  // defensive: one group, as today
    partition.single_reason = "the fused groups would form a cycle";
    order.clear();
  }
  std::map<size_t, size_t> index_of;
  for (size_t g : order) {
    index_of[g] = partition.groups.size();
    FusedGroup group;
    group.kind = group_kind[g];
    group.alone = alone_groups.count(g) > 0;
    for (size_t i = 0; i < op.stages.size(); ++i) {
      if (group_of[node_of[i]] != g) continue;
      group.stages.push_back(op.stages[i].name);
      if (group.anchor.empty() && group.kind != GroupKind::Injective && stage_kind(op.stages[i]) == group.kind) {
        group.anchor = op.stages[i].name;
        group.anchor_call = op.stages[i].origin_call;
      }
    }
    partition.groups.push_back(std::move(group));
  }

  // The remarks, each saying which kernel the stage runs in.
  if (order.size() == used.size()) {
    std::sort(unfused.begin(), unfused.end(), [](const Unfused& a, const Unfused& b) { return a.node < b.node; });
    for (const Unfused& u : unfused) {
      size_t k = index_of.at(group_of[u.node]);
      const FusedGroup& g = partition.groups[k];
      std::string where = g.anchor.empty() ? "it is a kernel without an anchor"
                                           : "it runs in the kernel of " + stage_label(*op.find_stage(g.anchor));
      const Stage& s = op.stages[nodes[u.node].stages.front()];
      partition.remarks.push_back({s.loc, u.message + "; " + where + " (" + graph_kernel_name(op.name, k) + ")"});
    }
  }

  // A graph is an op that calls imported layers: an op whose reductions are all its own stages is
  // one kernel as written (as before graphs), whatever its groups.
  bool calls_a_layer = false;
  for (const Node& node : nodes)
    if (node.kind != GroupKind::Injective && !op.stages[node.stages.front()].call_site.empty()) calls_a_layer = true;
  if (partition.groups.size() > 1 && !calls_a_layer)
    partition.single_reason = "no call of an imported op that reduces: the op's own stages are one kernel";

  // The op's own schedule must not relate stages of two groups.
  if (partition.groups.size() > 1 && partition.single_reason.empty()) {
    std::map<std::string, size_t> group_of_stage;
    for (size_t g = 0; g < partition.groups.size(); ++g)
      for (const std::string& s : partition.groups[g].stages) group_of_stage[s] = g;
    for (const ScheduleBlock* block : select_schedule_blocks(op.schedules, target)) {
      if (!block->origin.empty()) continue;
      NamedStages named{op, {}};
      named.walk(block->items, [&](const SchedPrimitive& prim, const std::set<std::string>& stages) {
        std::set<size_t> groups;
        for (const std::string& s : stages) groups.insert(group_of_stage.at(s));
        if (groups.size() > 1 && partition.single_reason.empty()) {
          partition.single_reason = "the op's schedule relates stages of two groups ('" + *stages.begin() + "', '" +
                                    *stages.rbegin() + "')";
          partition.remarks = {{prim.loc, "op '" + op.name + "' stays one kernel: this " + prim.primitive +
                                              " relates stages '" + *stages.begin() + "' and '" + *stages.rbegin() +
                                              "' of two fused groups, which would be kernels of their own"}};
        }
      });
    }
  }
  if (!partition.single_reason.empty() || partition.groups.empty()) {
    if (partition.single_reason.rfind("the op's schedule", 0) != 0) partition.remarks.clear();
    FusedGroup all;
    all.kind = GroupKind::Injective;
    for (const Stage& s : op.stages) {
      all.stages.push_back(s.name);
      GroupKind k = stage_kind(s);
      if (strength(k) > strength(all.kind)) {
        all.kind = k;
        all.anchor = s.name;
        all.anchor_call = s.origin_call;
      }
    }
    std::string reason = partition.single_reason;
    partition.groups = {all};
    partition.single_reason = reason;
  }
  return partition;
}

}  // namespace texc
