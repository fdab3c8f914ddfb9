// The lowering driver: the ordered list of passes from an op's compute definitions and schedule
// to a loop AST a backend can compile. Each entry names a pass and says what it does; the driver
// prints the IR after each (--print-after-each / --print-changed), times them (--time-passes) and
// runs the verifier after every pass, naming the pass that broke the IR.
#include "lower/Lower.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "ir/Diagnostics.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Target.h"
#include "ir/Verifier.h"
#include "lower/AttachHiddenReductions.h"
#include "lower/AutoFuse.h"
#include "lower/Remarks.h"
#include "lower/analysis/CacheInfo.h"
#include "lower/gpu/CrossBlockReduction.h"
#include "lower/gpu/CrossThreadReduction.h"
#include "lower/gpu/DefaultSchedule.h"
#include "lower/gpu/HoistAllocations.h"
#include "lower/gpu/InferScopes.h"
#include "lower/gpu/InsertBarriers.h"
#include "lower/gpu/LdMatrix.h"
#include "lower/gpu/LaunchCheck.h"
#include "lower/gpu/RegisterTileGuards.h"
#include "lower/gpu/ZeroPadKTiles.h"
#include "lower/gpu/SingleThreadStores.h"
#include "lower/gpu/DoubleBuffer.h"
#include "lower/gpu/VectorAlignment.h"
#include "lower/gpu/VirtualThreads.h"
#include "lower/passes/FlattenStorage.h"
#include "lower/passes/LowerBlocks.h"
#include "lower/passes/PartitionLoops.h"
#include "lower/passes/PlanStorage.h"
#include "lower/passes/RemoveNoOps.h"
#include "lower/passes/UnrollLoops.h"
#include "lower/passes/HoistReductionGuards.h"
#include "lower/passes/UnswitchRaggedVectors.h"
#include "lower/passes/VectorizeLoops.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {

// One schedule block's steps, and the stages of its call (a copy: the state's op, which holds the
// block, may be replaced by a rolled-back copy of itself, AutoFuse's fuse_into). A block carried
// from an imported injective op may give way to the automatic fusion (AutoFuse.h): it is dropped
// when one of the call's stages takes the fusion.
struct BlockSteps {
  std::vector<std::string> call_stages;
  std::vector<SchedStep> steps;
  bool may_yield = false;
};

struct Lowering {
  const LowerOptions& options;
  ScheduleState state;
  std::vector<BlockSteps> blocks;
  std::vector<SchedStep> steps;  // the steps of the blocks applied, in order
  std::vector<size_t> yielded;   // blocks left out for fuse_into_reductions (indices in blocks)
  bool blocks_lowered = false;
  bool storage_planned = false;
  std::vector<Remark> split_remarks;  // steps left out because they cross a prepare split
  std::vector<Remark> fallback_remarks;  // tensorizes left out: the CPU lacks their instruction
  std::vector<Remark> prefetch_remarks;  // prefetches not placed (a target without them)
  std::optional<PassContext> context;    // what the function passes know of the schedule, once it is applied
};

// A pass over the scheduling state (stages, Blocks, the schedule's steps), run for `targets`.
struct SchedulePass {
  const char* name;
  const char* summary;
  PassTargets targets;
  std::function<void(Lowering&)> run;
};

// Until plan_storage places them, intermediate stage buffers are allocated nowhere: verify the
// function as if they were allocated around the whole body.
LoweredFunc function_to_verify(const Lowering& l) {
  if (l.storage_planned) return l.state.func;
  LoweredFunc f = l.state.func;
  for (const auto& [name, stage] : l.state.stages)
    if (std::find(f.args.begin(), f.args.end(), stage.buffer) == f.args.end())
      f.body = Allocate::make(stage.buffer, f.body);
  return f;
}

std::set<std::string> stages_named_by(const std::vector<SchedStep>& steps, const ScheduleState& st);

// Reads the schedule blocks into l.blocks and l.steps, and the stages they name into
// l.state.user_named, leaving out the blocks that may give way to the automatic fusion.
// The name a schedule argument has in the lowered op: an imported op's stages carry the caller's
// name ("bmm_CL.j" -> "C_bmm_CL.j").
std::string lowered_name(const SchedPrimitive& p, const std::string& name) {
  auto dot = name.find('.');
  auto renamed = p.stage_renames.find(name.substr(0, dot));
  if (renamed == p.stage_renames.end()) return name;
  return renamed->second + (dot == std::string::npos ? "" : name.substr(dot));
}

// The steps of one half of an op split by split_prepare (lower/SplitPrepare.h) that concern it: a
// step naming a stage of the other half (op.elided_stages, or a loop or cache a left-out step
// bound) is left out. One that names stages of both halves (compute_at(Wb, Y.c) with Wb prepared)
// is left out of both, with a remark at the primitive in the main half. A cache_read of a tensor that
// is an input of this half (the main half reads a prepared tensor, a graph's kernel one of an
// earlier kernel: VDLA's cache_read(Wt, vdla.wgt, ...)) concerns this half: it is kept.
std::vector<SchedStep> steps_of_this_half(std::vector<SchedStep> steps, const OpDef& op, std::vector<Remark>& remarks) {
  if (op.elided_stages.empty()) return steps;
  std::set<std::string> elided = op.elided_stages;  // grows with the names the left-out steps bind
  std::vector<SchedStep> kept;
  for (SchedStep& s : steps) {
    bool other_half = false, this_half = false;
    std::string other;
    for (size_t arg = 0; arg < s.prim.args.size(); ++arg) {
      const SchedArg& a = s.prim.args[arg];
      if (!a.is_name()) continue;
      std::string name = lowered_name(s.prim, a.name);
      std::string head = name.substr(0, name.find('.'));
      if (arg == 0 && (s.prim.primitive == "cache_read" || s.prim.primitive == "prefetch") &&
          std::any_of(op.inputs.begin(), op.inputs.end(), [&](const Buffer& b) { return b->name == head; }))
        continue;  // an input of this half, read through a cache or prefetched
      bool names_other = elided.count(name) || elided.count(head);
      for (int i = 0; !names_other && i < 4; ++i)  // a hidden reduction stage of an elided stage
        for (const std::string& e : op.elided_stages)
          if (head == hidden_reduction_stage_name(e, i)) names_other = true;
      if (names_other) {
        other_half = true;
        other = head;
      } else if (op.find_stage(head)) {
        this_half = true;
      }
    }
    if (!other_half) {
      kept.push_back(std::move(s));
      continue;
    }
    for (const std::string& r : s.prim.results) elided.insert(lowered_name(s.prim, r));
    // The main half (or a kernel of its graph) names the function that computes `other`: the
    // whole op's prepare function (op.prepare_function), not one named after this kernel. (A
    // kernel's step naming a stage of another kernel and one of its own does not reach here: the
    // partition keeps an op whose own schedule relates two groups one kernel, and a call's
    // carried steps name that call's stages, all in one kernel.)
    if (this_half && !op.prepare_function.empty())
      remarks.push_back({s.prim.loc, s.prim.primitive + " not applied: '" + other +
                                          "' depends only on const inputs and is computed once, by " +
                                          op.prepare_function + ", not in " + op.name});
  }
  return kept;
}

// The stages a block says compute_root of (the op's names): an imported injective op's stage so
// named stays materialised, not inlined by the automatic fusion (AutoFuse.h; nn.oihw_to_oihwio's
// weights in blocks, which inlined into a convolution would be gathered at every step of its
// reduction).
std::set<std::string> stages_computed_at_root(const std::vector<SchedStep>& steps) {
  std::set<std::string> rooted;
  for (const SchedStep& s : steps)
    if (s.prim.primitive == "compute_root" && !s.prim.args.empty() && s.prim.args[0].is_name())
      rooted.insert(lowered_name(s.prim, s.prim.args[0].name));
  return rooted;
}

void read_schedule(Lowering& l) {
  const bool may_yield = !l.options.no_fuse && takes_cpu_schedules(l.options.target);
  for (const auto& [b, knobs] : choose_schedule_blocks(l.state.op, l.options.target, l.options.knobs,
                                                      &l.options.cpu_features, l.fallback_remarks)) {
    BlockSteps steps{b->call_stages, steps_of_this_half(instantiate_schedule({b}, knobs), l.state.op, l.split_remarks)};
    steps.may_yield = may_yield && is_injective_call(l.state, b->call_stages);
    if (steps.may_yield) {
      std::set<std::string> rooted = stages_computed_at_root(steps.steps);
      l.state.kept_materialised.insert(rooted.begin(), rooted.end());
    }
    l.steps.insert(l.steps.end(), steps.steps.begin(), steps.steps.end());
    if (!steps.may_yield) {
      std::set<std::string> named = stages_named_by(steps.steps, l.state);
      l.state.user_named.insert(named.begin(), named.end());
    }
    l.blocks.push_back(std::move(steps));
  }
}

// After inline_injective_stages: drops the blocks carried from imported injective ops one of whose
// stages takes the automatic fusion (inlined, or about to be computed in a reduction's loops); the
// others stay, and the stages they name are the schedule's (AutoFuse.h).
void yield_imported_schedules(Lowering& l) {
  l.steps.clear();
  for (size_t i = 0; i < l.blocks.size(); ++i) {
    const BlockSteps& b = l.blocks[i];
    const std::vector<std::string>& stages = b.call_stages;
    if (b.may_yield && std::any_of(stages.begin(), stages.end(),
                                   [&](const std::string& s) { return takes_automatic_fusion(l.state, s); })) {
      if (std::none_of(stages.begin(), stages.end(), [&](const std::string& s) { return l.state.inlined.count(s); }))
        l.yielded.push_back(i);
      continue;
    }
    l.steps.insert(l.steps.end(), b.steps.begin(), b.steps.end());
    if (b.may_yield) {
      std::set<std::string> named = stages_named_by(b.steps, l.state);
      l.state.user_named.insert(named.begin(), named.end());
    }
  }
}

// After fuse_into_reductions: a block left out for it whose stage is still a nest of its own (the
// reduction's loops did not allow the fusion) is applied after all, as if it had never given way.
void restore_unfused_schedules(Lowering& l) {
  for (size_t i : l.yielded) {
    const BlockSteps& b = l.blocks[i];
    const std::vector<std::string>& stages = b.call_stages;
    if (std::none_of(stages.begin(), stages.end(), [&](const std::string& s) { return takes_automatic_fusion(l.state, s); }))
      continue;
    apply_schedule(l.state, b.steps);
    l.steps.insert(l.steps.end(), b.steps.begin(), b.steps.end());
    std::set<std::string> named = stages_named_by(b.steps, l.state);
    l.state.user_named.insert(named.begin(), named.end());
  }
}

// The schedule passes, in order.
const std::vector<SchedulePass>& schedule_passes() {
  static const std::vector<SchedulePass> list = {
      {"auto_inline", "inline the elementwise stages the schedule does not name, drop the carried schedules of imported injective ops that fuse (not with --no-fuse)",
       kAllPasses,
       [](Lowering& l) {
         if (!l.options.no_fuse) inline_injective_stages(l.state);
         yield_imported_schedules(l);
       }},
      {"apply_schedule", "apply the schedule block's primitives in order (lower/schedule/)", kAllPasses,
       [](Lowering& l) { apply_schedule(l.state, l.steps); }},
      {"attach_hidden_reductions", "compute unnamed hidden reduction stages at their scheduled consumer's loop (not with --no-fuse)",
       kAllPasses,
       [](Lowering& l) {
         if (!l.options.no_fuse) attach_hidden_reductions(l.state);
       }},
      {"fuse_into_reductions", "compute unnamed elementwise consumers in their reduction's loops (not with --no-fuse); an imported injective op that did not fuse gets its schedule back",
       kAllPasses,
       [](Lowering& l) {
         if (!l.options.no_fuse) fuse_into_reductions(l.state);
         restore_unfused_schedules(l);
       }},
      {"inject_prefetches", "place the prefetch() calls the schedule asked for, first in each `at` loop (lower/schedule/Prefetch.cpp); a remark on targets without them",
       kAllPasses, [](Lowering& l) { inject_prefetches(l.state, l.prefetch_remarks); }},
      {"gpu_default_schedule", "GPU targets: an op whose schedule binds no loop gets fused loops bound to blockIdx.x/threadIdx.x (lower/gpu/DefaultSchedule.h)",
       kGpuPasses, [](Lowering& l) { gpu_default_schedule(l.state); }},
      {"infer_gpu_scopes", "GPU targets: a global stage computed inside thread loops becomes local, inside a block loop shared (lower/gpu/InferScopes.h)",
       kGpuPasses, [](Lowering& l) { infer_gpu_scopes(l.state); }},
      {"zero_pad_k_tiles", "GPU targets: the shared tiles of a tensor-core GEMM whose k tile does not divide K are filled with 0 past K, so the mma runs over whole tiles (lower/gpu/ZeroPadKTiles.h)",
       kGpuPasses, [](Lowering& l) { zero_pad_k_tiles(l.state); }},
      {"drop_register_tile_guards", "GPU targets: a thread computes its whole register tile; the edge guards stay on the stores that leave it (lower/gpu/RegisterTileGuards.h)",
       kGpuPasses, [](Lowering& l) { drop_register_tile_guards(l.state); }},
  };
  return list;
}

LoweredFunc on_body(LoweredFunc f, Stmt (*pass)(const Stmt&)) {
  f.body = pass(f.body);
  return f;
}

// The function's buffers that plan_storage leaves alone: those that are not intermediates (a pass
// test's `temp` buffers are).
std::vector<Buffer> planned_arguments(const LoweredFunc& f) {
  std::vector<Buffer> args;
  for (const Buffer& b : f.args)
    if (b->role != BufferRole::Intermediate) args.push_back(b);
  return args;
}

// A function pass that rewrites the body and needs no context.
FunctionPass body_pass(const char* name, const char* summary, PassTargets targets, Stmt (*pass)(const Stmt&)) {
  return {name, summary, targets, [pass](LoweredFunc f, const PassContext&) { return on_body(std::move(f), pass); }};
}

// The function passes once the schedule is applied, in order, each with the targets that run it:
// the common ones, then the CPU targets' (reduction guards hoisted, loop partitioning for
// guard-free steady states, vector code, unrolling, clean-up), VDLA's (only the clean-up: its
// code generator walks the loops into an instruction stream) and the GPU targets' (bound loops
// stay loops, which the code generator and cuda-interp turn into thread indices, so no
// partitioning or unrolling; vectorized loops become vector code last). A pass two families run
// at different points has an entry at each.
const std::vector<FunctionPass>& function_pass_list() {
  static const std::vector<FunctionPass> list = [] {
    FunctionPass lower_blocks_pass = body_pass("lower_blocks", "replace Blocks by stores: substitute bindings, guard predicates, hoist reduction inits",
                                               kAllPasses, lower_blocks);
    lower_blocks_pass.lowers_blocks = true;
    FunctionPass plan_storage_pass{"plan_storage", "allocate each intermediate where it is used, sized by the region it needs", kAllPasses,
                                   [](LoweredFunc f, const PassContext& ctx) {
                                     f.body = plan_storage(f.body, planned_arguments(f), ctx.storage_aligns);
                                     return f;
                                   }};
    plan_storage_pass.plans_storage = true;
    return std::vector<FunctionPass>{
        lower_blocks_pass,
        plan_storage_pass,
        {"flatten_storage", "make every buffer one-dimensional (row-major offsets)", kAllPasses,
         [](LoweredFunc f, const PassContext&) { return flatten_storage(f); }},
        body_pass("simplify", "fold constants and provable conditions, drop trivial loops", kAllPasses, simplify),

        body_pass("hoist_reduction_guards", "a loop that only adds select(c, e, 0) terms tests c's shared part once per iteration, in an if that partition_loops can split on (padding rows skipped)",
                  kCpuPasses, hoist_reduction_guards),
        body_pass("partition_loops", "split loops into a guard-free steady part and guarded tails", kCpuPasses, partition_loops),
        body_pass("unswitch_ragged_vectors", "give vectorized loops with a tail guard a full-vector and a tail version", kCpuPasses,
                  unswitch_ragged_vectors),
        body_pass("vectorize_loops", "turn vectorized loops into Ramp/Broadcast vector code (or serial loops)", kCpuPasses, vectorize_loops),
        body_pass("unroll_loops", "replace unrolled loops of small constant extent by copies of their body", kCpuPasses, unroll_loops),

        body_pass("remove_no_ops", "drop dead allocations, self-stores, empty loops, ifs and seqs", kAllPasses, remove_no_ops),
        body_pass("simplify_final", "fold what unrolling and partitioning exposed", kCpuPasses, simplify),

        body_pass("hoist_invariant_guards", "an if that does not depend on its serial or unrolled loop moves outside it (lower/gpu/RegisterTileGuards.h)",
                  kGpuPasses, hoist_invariant_guards),
        body_pass("simplify_final", "fold what the passes before exposed", kGpuPasses, simplify),
        {"lower_cross_thread_reductions", "reduction loops bound to threadIdx.*: per-thread partials, warp shuffles, warps through shared memory (lower/gpu/CrossThreadReduction.h)",
         kGpuPasses,
         [](LoweredFunc f, const PassContext& ctx) {  // its errors point at the bind
           f.body = lower_cross_thread_reductions(f.body, ctx.bind_locs, ctx.thread_bound_reductions);
           return f;
         }},
        body_pass("single_thread_stores", "a store outside the thread loops into a global or shared buffer made by thread 0 only (lower/gpu/SingleThreadStores.h)",
                  kGpuPasses, single_thread_stores),
        {"lower_cross_block_reductions", "a reduction loop bound to blockIdx.* (split-K): per-block partials added into the output with atomic adds, the output zeroed by the host (lower/gpu/CrossBlockReduction.h)",
         kGpuPasses,
         [](LoweredFunc f, const PassContext& ctx) {  // its errors point at the bind
           return lower_cross_block_reductions(std::move(f), ctx.bind_locs, ctx.block_bound_reductions);
         }},
        body_pass("hoist_gpu_allocations", "shared buffers once per block (outside the thread loops), global ones once per kernel (lower/gpu/HoistAllocations.h)",
                  kGpuPasses, hoist_gpu_allocations),
        body_pass("pipeline_double_buffers", "double_buffer(S): two halves per shared tile, the next tile fetched (cp.async) while the block computes (lower/gpu/DoubleBuffer.h)",
                  kGpuPasses, pipeline_double_buffers),
        body_pass("insert_barriers", "thread_barrier() where a block's threads share memory: RAW, WAR, loop-carried (lower/gpu/InsertBarriers.h)",
                  kGpuPasses, insert_barriers),
        {"expand_virtual_threads", "vthread loops: serial loops per virtual thread interleaved at barriers, local buffers copied per vthread (lower/gpu/VirtualThreads.h)",
         kGpuPasses,
         [](LoweredFunc f, const PassContext&) {
           f.body = simplify(expand_virtual_threads(f.body));  // the copies' v*1 + 0
           return f;
         }},
        body_pass("use_ldmatrix", "a tensor-core step's fragments in shared memory loaded by ldmatrix, one per operand and warp (lower/gpu/LdMatrix.h)",
                  kGpuPasses, use_ldmatrix),
        // Last, so that the passes above see scalar accesses: a vectorized loop (a cooperative
        // fill's innermost loop) becomes vector loads and stores, 128-bit where the code generator
        // proves the alignment (docs/cuda.md, "Vectorised fills").
        body_pass("unswitch_ragged_vectors", "give vectorized loops with a tail guard a full-vector and a tail version", kGpuPasses,
                  unswitch_ragged_vectors),
        body_pass("remark_unaligned_gpu_vectors", "a remark where a vectorized access is not provably 128-bit aligned (lower/gpu/VectorAlignment.h)",
                  kGpuPasses, remark_unaligned_gpu_vectors),
        body_pass("vectorize_loops", "turn vectorized loops into Ramp/Broadcast vector code (or serial loops)", kGpuPasses, vectorize_loops),
    };
  }();
  return list;
}

// Where the user wrote the binds, caches and parallel loops a GPU kernel check may complain about.
GpuSourceLocs gpu_source_locs(const Lowering& l) {
  GpuSourceLocs locs;
  locs.op = l.state.op.loc;
  locs.op_name = l.state.op.name;
  for (const SchedStep& s : l.steps) {
    const SchedPrimitive& p = s.prim;
    std::string loop = p.args.empty() ? "" : p.args[0].name;  // under the caller's stage name
    auto dot = loop.find('.');
    if (dot != std::string::npos) {
      auto renamed = p.stage_renames.find(loop.substr(0, dot));
      if (renamed != p.stage_renames.end()) loop = renamed->second + loop.substr(dot);
    }
    if (p.primitive == "bind" && p.args.size() == 2) locs.bind[loop] = p.args[1].loc;
    if ((p.primitive == "cache_read" || p.primitive == "cache_write") && !p.results.empty())
      locs.cache[p.results[0]] = p.loc;
    if (p.primitive == "parallel" && !p.args.empty()) locs.parallel[loop] = p.loc;
  }
  return locs;
}

// The stages a schedule names (no automatic fusion for them): the heads of its name arguments
// (a stage, or a loop of it, "C.i"), under the caller's name when the schedule came with an
// imported op; a reduction loop of a hidden stage named through its consumer ("O.j" for O_red.j)
// names the hidden stage.
std::set<std::string> stages_named_by(const std::vector<SchedStep>& steps, const ScheduleState& st) {
  std::set<std::string> named;
  for (const SchedStep& s : steps)
    for (const SchedArg& a : s.prim.args) {
      if (!a.is_name()) continue;
      auto dot = a.name.find('.');
      std::string head = a.name.substr(0, dot);
      auto renamed = s.prim.stage_renames.find(head);
      if (renamed != s.prim.stage_renames.end()) head = renamed->second;
      named.insert(head);
      if (dot == std::string::npos || st.find_loop(head + a.name.substr(dot))) continue;
      for (int i = 0; st.stages.count(hidden_reduction_stage_name(head, i)); ++i)
        if (st.find_loop(hidden_reduction_stage_name(head, i) + a.name.substr(dot)))
          named.insert(hidden_reduction_stage_name(head, i));
    }
  return named;
}

// The passes after the function passes: the GPU kernel's launch check, which needs the schedule
// (where the binds were written) and the --arch.
const std::vector<SchedulePass>& final_passes() {
  static const std::vector<SchedulePass> list = {
      {"make_device_function", "check the kernel's bindings, threads and shared memory; a Device function with its launch extents (lower/gpu/LaunchCheck.h)",
       kGpuPasses,
       [](Lowering& l) {
         const CudaArch* arch = find_cuda_arch(l.options.arch.empty() ? kDefaultCudaArch : l.options.arch);
         TEXC_CHECK(arch) << "unknown --arch '" << l.options.arch << "'";
         l.state.func = make_device_function(std::move(l.state.func), *find_target(l.options.target), *arch, gpu_source_locs(l));
       }},
  };
  return list;
}

// What the function passes know of the schedule (Lower.h).
PassContext pass_context(const Lowering& l) {
  PassContext ctx;
  ctx.bind_locs = gpu_source_locs(l).bind;
  ctx.thread_bound_reductions = &l.state.thread_bound_reductions;
  ctx.block_bound_reductions = &l.state.block_bound_reductions;
  ctx.storage_aligns = l.state.storage_aligns;
  return ctx;
}

}  // namespace

PassTargets pass_targets_of(const std::string& target) {
  const Target* t = find_target(target);
  if (!t) return kCpuPasses;
  switch (t->passes) {
    case PassFamily::Cpu: return kCpuPasses;
    case PassFamily::Gpu: return kGpuPasses;
    case PassFamily::Vdla: return kVdlaPasses;
  }
  return kCpuPasses;
}

std::vector<FunctionPass> function_passes(const std::string& target) {
  std::vector<FunctionPass> list;
  for (const FunctionPass& p : function_pass_list())
    if (p.targets & pass_targets_of(target)) list.push_back(p);
  return list;
}

const FunctionPass* find_function_pass(const std::string& name) {
  for (const FunctionPass& p : function_pass_list())
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> lowering_pass_names(const std::string& target) {
  const PassTargets family = pass_targets_of(target);
  std::vector<std::string> names = {"default_loops"};
  for (const SchedulePass& p : schedule_passes())
    if (p.targets & family) names.push_back(p.name);
  for (const FunctionPass& p : function_passes(target)) names.push_back(p.name);
  for (const SchedulePass& p : final_passes())
    if (p.targets & family) names.push_back(p.name);
  return names;
}

namespace {


// Remarks that need the whole lowered op: a cache larger than the CPU's L2 cache.
class WholeOpRemarks : public IRVisitor {
 protected:
  void visit(const Allocate* a) override {
    int64_t elems = 1;
    bool constant = true;
    for (const Expr& e : a->buffer->shape) {
      int64_t n;
      if (!is_const_int(e, &n)) constant = false;
      else elems *= n;
    }
    const int64_t bytes = elems * int64_t(a->buffer->dtype.bytes());
    const int64_t l2 = host_l2_cache_bytes();
    if (constant && bytes > l2)
      report_remark({PendingRemark::Subject::Buffer, a->buffer->name,
                     "cache '" + a->buffer->name + "' holds " + std::to_string(bytes / 1024) +
                         " KiB, more than this CPU's L2 cache of " + std::to_string(l2 / 1024) +
                         " KiB: it will not stay in cache; compute it at an inner loop or use smaller tiles"});
    IRVisitor::visit(a);
  }
};

void report_whole_op_remarks(const Stmt& body) { WholeOpRemarks().visit_stmt(body); }

// Places the pending remarks at the primitives that named their loops (else at the op) or made
// their caches (a buffer the user did not cache is not reported), one per loop or cache.
std::vector<Remark> locate_remarks(const std::vector<PendingRemark>& pending, const Lowering& l) {
  std::map<std::string, SourceLoc> loops, buffers;
  for (const SchedStep& s : l.steps) {
    const SchedPrimitive& p = s.prim;
    if ((p.primitive == "vectorize" || p.primitive == "parallel" || p.primitive == "unroll") && !p.args.empty() &&
        p.args[0].is_name())
      loops[lowered_name(p, p.args[0].name)] = p.loc;
    if ((p.primitive == "cache_read" || p.primitive == "cache_write") && !p.results.empty())
      buffers[lowered_name(p, p.results[0])] = p.loc;
  }
  std::vector<Remark> out;
  // (subject, name, message): the copies of one loop say a thing once; two passes' remarks on one
  // loop (a ragged tail kept vectorized, its accesses not 128-bit aligned) both stay.
  std::set<std::tuple<int, std::string, std::string>> seen;
  for (const PendingRemark& r : pending) {
    const auto& table = r.subject == PendingRemark::Subject::Loop ? loops : buffers;
    auto it = table.find(r.name);
    if (it == table.end() && r.subject == PendingRemark::Subject::Buffer) continue;  // not a cache the user made
    if (!seen.insert({int(r.subject), r.name, r.message}).second) continue;
    out.push_back({it != table.end() ? it->second : l.state.op.loc, r.message});
  }
  return out;
}

}  // namespace

LoweredFunc lower_op(const OpDef& op, const LowerOptions& options) {
  std::ostream& log = options.log ? *options.log : std::cerr;
  // The schedules with the target's properties (target.vector_bits, ...) as constants.
  OpDef resolved = op;
  resolved.schedules = with_target_properties(
      op.schedules, options.target_properties ? *options.target_properties : baseline_target_properties(options.target));
  Lowering l{options, ScheduleState::create(resolved, options.target), {}, {}, {}, false, false, {}, {}, {}, std::nullopt};
  l.state.builtin_intrinsics = options.builtin_intrinsics;
  read_schedule(l);

  // Every pass the target runs, as one step over the Lowering: the schedule passes, the function
  // passes (with what they know of the schedule, taken once the schedule passes have run), then
  // the final ones.
  const PassTargets family = pass_targets_of(options.target);
  std::vector<SchedulePass> steps;
  for (const SchedulePass& p : schedule_passes())
    if (p.targets & family) steps.push_back(p);
  for (const FunctionPass& p : function_passes(options.target)) {
    steps.push_back({p.name, p.summary, p.targets, [p](Lowering& l) {
                       if (!l.context) l.context = pass_context(l);
                       l.state.func = p.run(std::move(l.state.func), *l.context);
                       // What the verifier may require from here on.
                       l.blocks_lowered = l.blocks_lowered || p.lowers_blocks;
                       l.storage_planned = l.storage_planned || p.plans_storage;
                     }});
  }
  for (const SchedulePass& p : final_passes())
    if (p.targets & family) steps.push_back(p);

  const bool printing = options.print_after_each || options.print_changed;
  std::string previous = printing ? to_string(l.state.func) : std::string();
  if (printing) log << "// ---- after default_loops: one loop nest per stage\n" << previous << "\n";
  if (options.after_pass) options.after_pass("default_loops", l.state.func);

  std::vector<PendingRemark> pending;
  std::optional<RemarkScope> remark_scope;
  if (options.remarks) remark_scope.emplace(&pending);

  std::vector<std::pair<const char*, double>> times;
  for (const SchedulePass& pass : steps) {
    auto start = std::chrono::steady_clock::now();
    try {
      pass.run(l);
    } catch (UserError& e) {  // a function pass has no source locations: its errors point at the op
      if (!e.diag.loc.valid()) e.diag.loc = l.state.op.loc;
      throw;
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    times.push_back({pass.name, ms});
    if (options.verify) {
      VerifyOptions vo;
      vo.require_no_blocks = l.blocks_lowered;
      if (auto problem = verify(function_to_verify(l), vo)) {
        TEXC_CHECK(false) << "the IR is invalid after pass '" << pass.name << "': " << *problem << "\n"
                          << to_string(l.state.func);
      }
    }
    if (printing) {
      std::string now = to_string(l.state.func);
      if (options.print_after_each || now != previous)
        log << "// ---- after " << pass.name << ": " << pass.summary << "\n" << now << "\n";
      previous = std::move(now);
    }
    if (options.after_pass) options.after_pass(pass.name, l.state.func);
  }
  if (options.remarks) {
    if (family == kCpuPasses) report_whole_op_remarks(l.state.func.body);
    *options.remarks = locate_remarks(pending, l);
    options.remarks->insert(options.remarks->end(), l.split_remarks.begin(), l.split_remarks.end());
    options.remarks->insert(options.remarks->end(), l.prefetch_remarks.begin(), l.prefetch_remarks.end());
    options.remarks->insert(options.remarks->begin(), l.fallback_remarks.begin(), l.fallback_remarks.end());
  }
  if (options.time_passes) {
    log << "// ---- pass times (ms)\n";
    for (auto& [name, ms] : times) log << fmt::format("{:>10.3f}  {}\n", ms, name);
  }
  return l.state.func;
}

}  // namespace texc
