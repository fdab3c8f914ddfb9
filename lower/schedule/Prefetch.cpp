// prefetch(T, at, offset) and prefetch(T, at, offset, from = L): in each iteration of loop `at`,
// bring into the data cache the region of tensor T that the body of `at` reads in the iteration
// of loop `from` (`at` itself by default, or a loop enclosing it) `offset` iterations later
// (Halide's Func::prefetch(f, at, from, offset), TVM's s[T].prefetch(tensor, var, offset)).
//
// The primitive checks its arguments and records the request (ScheduleState::prefetches);
// inject_prefetches places the prefetches once every primitive has run, so later primitives see
// the loops as the schedule left them (a reorder of `at` with its inner loop still finds them
// perfectly nested). It runs before lower_blocks: the region is bound inference's
// (lower/analysis/Region.h) for the reads of T under `at`, with the loops enclosing `at` (and
// `at`) kept symbolic and those inside relaxed; `from`'s variable is then replaced by
// `from + offset`, and each dimension's start clamped into T ([0, extent - region extent]), so a
// prefetch never leaves the buffer (the last iterations prefetch the last region again).
//
// The nest placed first in `at`'s body: T's region is a set of runs of contiguous elements (the
// innermost dimensions the region covers whole, and the first one it does not, make one run);
// one loop per outer dimension of more than one element, and a loop over the run's 64-byte lines
// issuing prefetch(T[element]) for the line's first element (an intrinsic: ir/Intrinsics.def),
// one per line of a 64-byte aligned run. The code generators for x86 and arm emit llvm.prefetch
// (read, locality 3, data cache); the loop interpreter evaluates the address (checked in T) and
// does nothing else. On cuda, cuda-interp and vdla no prefetch is placed: a remark at the
// primitive says so.
#include <algorithm>
#include <string>

#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/Intrinsics.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "ir/Target.h"
#include "lower/analysis/BufferAccess.h"
#include "lower/analysis/Region.h"
#include "lower/schedule/Primitives.h"

namespace texc {

namespace {

constexpr int64_t kCacheLineBytes = 64;

// The reads of `buffer` inside loop `at`, whose enclosing loops are `outer` (at included, last).
std::vector<BufferAccess> reads_under(const Stmt& root, const Buffer& buffer, const std::vector<const For*>& outer) {
  std::vector<BufferAccess> out;
  for (BufferAccess& a : find_accesses(root, buffer.get(), /*loads=*/true, /*stores=*/false))
    if (a.loops.size() >= outer.size() && a.loops[outer.size() - 1] == outer.back()) out.push_back(std::move(a));
  return out;
}

// The loop `name` at the end of the schedule, or a located error naming what replaced it.
const For* loop_at_end(const ScheduleState& st, const std::string& name, SourceLoc loc) {
  if (const For* l = st.find_loop(name)) return l;
  auto replaced = st.replaced_loops.find(name);
  if (replaced != st.replaced_loops.end())
    throw_error(DiagId::ScheduleError, loc,
                "prefetch: loop '" + name + "' no longer exists at the end of the schedule (" + replaced->second +
                    "); write prefetch after the primitives that change its loops, naming the new ones");
  throw_error(DiagId::UnknownLoop, loc, name);
}

// The prefetch nest of region `r` of `buffer` (see the header).
Stmt prefetch_nest(const Buffer& buffer, const Region& r, int serial) {
  const size_t nd = buffer->ndim();
  std::vector<int64_t> shape(nd);
  for (size_t d = 0; d < nd; ++d) TEXC_CHECK(is_const_int(buffer->shape[d], &shape[d])) << "buffer " << buffer->name;
  // The run: dimensions k.. (k the outermost dimension inside which every dimension is whole).
  size_t k = nd - 1;
  while (k > 0 && r.extent[k] == shape[k]) --k;
  std::vector<int64_t> stride(nd, 1);  // row-major strides, in elements
  for (size_t d = nd - 1; d-- > 0;) stride[d] = stride[d + 1] * shape[d + 1];
  const int64_t run = r.extent[k] * stride[k];
  const int64_t per_line = std::max<int64_t>(1, kCacheLineBytes / std::max(1, buffer->dtype.bytes()));
  const int64_t lines = (run + per_line - 1) / per_line;

  const std::string prefix = buffer->name + ".pf" + std::to_string(serial);
  std::vector<Var> outer_vars(k);
  std::vector<Expr> indices(nd);
  for (size_t d = 0; d < k; ++d) {
    if (r.extent[d] == 1) {
      indices[d] = r.min[d];
      continue;
    }
    outer_vars[d] = Variable::make(prefix + ".d" + std::to_string(d));
    indices[d] = simplify(r.min[d] + outer_vars[d]);
  }
  // Element e = line * per_line of the run: T[..., min_k + e / stride_k, (e / stride_j) % shape_j ...].
  Var line = Variable::make(prefix + ".line");
  Expr e = Expr(line) * make_int(per_line);
  VarIntervals range{{line.get(), Interval{0, lines - 1}}};
  indices[k] = simplify(r.min[k] + e / make_int(stride[k]), range);
  for (size_t j = k + 1; j < nd; ++j) indices[j] = simplify((e / make_int(stride[j])) % make_int(shape[j]), range);
  Stmt body = Evaluate::make(make_intrinsic_call(Intrinsic::Prefetch, Int(32), {Load::make(buffer, indices)}));
  body = For::make(line, make_int(0), make_int(lines), ForKind::Serial, body);
  for (size_t d = k; d-- > 0;)
    if (outer_vars[d]) body = For::make(outer_vars[d], make_int(0), make_int(r.extent[d]), ForKind::Serial, body);
  return body;
}

}  // namespace

void apply_prefetch(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 3, 4, 0);
  const SchedArg& tensor_arg = name_arg(step, 0);
  const std::string tensor = loop_name_arg(step, 0);  // a stage or an input, after the call's renaming
  PrefetchRequest req;
  if (st.has_stage(tensor) && !st.inlined.count(tensor)) {
    req.buffer = st.stage(tensor, tensor_arg.loc).buffer;
  } else {
    for (const Buffer& b : st.op.inputs)
      if (b->name == tensor) req.buffer = b;
    if (!req.buffer) {
      if (st.inlined.count(tensor))
        throw_error(DiagId::ScheduleError, tensor_arg.loc,
                    "prefetch(" + tensor + ", ...): '" + tensor + "' is inlined, no buffer holds it to prefetch");
      throw_error(DiagId::UnknownStage, tensor_arg.loc, tensor);
    }
  }
  req.at = loop_name_arg(step, 1);
  req.at_loc = p.args[1].loc;
  const For* at = st.loop(req.at, req.at_loc);
  req.offset = int_arg(step, 2);
  if (req.offset < 1)
    throw_error(DiagId::ScheduleError, p.args[2].loc,
                "prefetch offset must be at least 1 (the iterations ahead whose data is fetched), got " +
                    std::to_string(req.offset));
  req.from = req.at;
  req.from_loc = req.at_loc;
  if (p.args.size() == 4) {
    req.from = loop_name_arg(step, 3);
    req.from_loc = p.args[3].loc;
    st.loop(req.from, req.from_loc);
  }
  req.loc = p.loc;
  std::vector<const For*> outer;
  st.path_to(at, &outer);
  outer.push_back(at);
  if (std::none_of(outer.begin(), outer.end(), [&](const For* l) { return l->var->name == req.from; }))
    throw_error(DiagId::ScheduleError, req.from_loc,
                "prefetch(" + tensor + ", " + req.at + ", ..., from = " + req.from + "): '" + req.from +
                    "' does not enclose '" + req.at + "'; `from` is the loop whose later iteration is fetched for, '" +
                    req.at + "' or a loop outside it");
  if (reads_under(st.func.body, req.buffer, outer).empty())
    throw_error(DiagId::ScheduleError, tensor_arg.loc,
                "prefetch(" + tensor + ", " + req.at + ", ...): nothing inside loop '" + req.at + "' reads '" + tensor +
                    "'");
  st.prefetches.push_back(req);
}

void inject_prefetches(ScheduleState& st, std::vector<Remark>& remarks) {
  if (!takes_cpu_schedules(st.target)) {  // GPUs and VDLA: no data cache that a prefetch fills
    for (const PrefetchRequest& req : st.prefetches)
      remarks.push_back({req.loc, "prefetch(" + req.buffer->name + ", " + req.at + ", ...) not applied: target '" +
                                      st.target + "' has no prefetch (it applies on x86, arm and interp)"});
    return;
  }
  int serial = 0;
  for (const PrefetchRequest& req : st.prefetches) {
    const For* at = loop_at_end(st, req.at, req.at_loc);
    const For* from = loop_at_end(st, req.from, req.from_loc);
    std::vector<const For*> outer;
    st.path_to(at, &outer);
    outer.push_back(at);
    if (std::find(outer.begin(), outer.end(), from) == outer.end())
      throw_error(DiagId::ScheduleError, req.from_loc,
                  "prefetch: at the end of the schedule '" + req.from + "' does not enclose '" + req.at +
                      "' (a later primitive moved it)");
    for (const For* l : outer)
      if (l->for_kind == ForKind::Vectorized || l->for_kind == ForKind::Tensorized)
        throw_error(DiagId::ScheduleError, req.at_loc,
                    "prefetch at '" + req.at + "': '" + l->var->name + "' is " + for_kind_name(l->for_kind) +
                        "; prefetch at a loop outside the vector code");
    std::vector<BufferAccess> reads = reads_under(st.func.body, req.buffer, outer);
    if (reads.empty()) continue;  // a later primitive took the reads elsewhere: nothing to fetch here
    Region r = infer_region(reads, outer, req.buffer);
    VarMap ahead{{from->var.get(), Expr(from->var) + make_int(req.offset)}};
    bool moves = false;
    for (size_t d = 0; d < r.min.size(); ++d) {
      int64_t extent = 0;
      TEXC_CHECK(is_const_int(req.buffer->shape[d], &extent));
      Expr m = substitute(r.min[d], ahead);
      if (!is_const_int(simplify(m - r.min[d]), int64_t(0))) moves = true;
      r.min[d] = simplify(max(make_int(0), min(m, make_int(extent - r.extent[d]))));
    }
    if (!moves) {
      remarks.push_back({req.loc, "prefetch(" + req.buffer->name + ", " + req.at + ", ...) not applied: the region of '" +
                                      req.buffer->name + "' read under '" + req.at + "' does not depend on '" + req.from +
                                      "', so the later iteration reads what this one does"});
      continue;
    }
    st.replace(at, at->with_body(Seq::make({prefetch_nest(req.buffer, r, serial++), at->body})));
  }
}

}  // namespace texc
