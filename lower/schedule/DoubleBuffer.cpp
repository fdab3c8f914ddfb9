// double_buffer(S): the shared tile S, attached at a serial loop L (the k tiles of a matmul), gets
// two halves: while the block computes with the tile of iteration L = l, it fills the other half
// with the tile of l + 1 (software pipelining over L, TVM's double_buffer). The primitive only
// marks S's fill (a `pragma(double_buffer)` attribute around its nest, the nest as it stands when
// the primitive runs); the GPU pass pipeline_double_buffers (lower/gpu/DoubleBuffer.h) makes the
// halves, the prologue and the prefetch, and on sm_80 and later the code generator turns the
// fill into asynchronous copies (cp.async) that run while the block computes.
//
// S must be a `shared` stage of a `schedule cuda` block, already attached (compute_at) at a serial
// loop; it comes after the compute_at (a later compute_at of S would move the nest out of the
// mark). The pass checks the rest (see its header) and leaves a fill it cannot pipeline as it is.
#include <string>

#include "ir/Diagnostics.h"
#include "ir/IROperators.h"
#include "ir/Target.h"
#include "lower/schedule/Primitives.h"
#include "lower/schedule/StageNest.h"

namespace texc {

void apply_double_buffer(ScheduleState& st, const SchedStep& step) {
  const SchedPrimitive& p = step.prim;
  expect_arity(step, 1, 1, 0);
  const std::string name = stage_arg(st, step, 0);
  const Stage& stage = st.stage(name, p.args[0].loc);
  if (!is_gpu_target(st.target))
    throw_error(DiagId::ScheduleError, p.loc,
                "double_buffer(" + name + ") pipelines a GPU shared tile: it belongs in a 'schedule cuda' block, "
                "not one for target '" + st.target + "'");
  if (stage.buffer->scope != MemScope::Shared)
    throw_error(DiagId::ScheduleError, p.args[0].loc,
                "double_buffer(" + name + "): '" + name + "' is in " + stage.buffer->scope.name() +
                    " memory; double buffering pipelines a shared tile (cache_read(T, shared, ...))");
  StageSite site = require_stage_site(st, name, "double_buffer", p.args[0].loc);
  if (site.attach_loops.empty() || site.attach_loops.back()->for_kind != ForKind::Serial)
    throw_error(DiagId::ScheduleError, p.args[0].loc,
                "double_buffer(" + name + ") needs '" + name + "' attached at a serial loop (compute_at(" + name +
                    ", ko), the loop over the tiles), before double_buffer; " +
                    (site.attach_loops.empty() ? std::string("it is at the root")
                                               : "it is at '" + site.attach_loops.back()->var->name + "', which is " +
                                                     for_kind_name(site.attach_loops.back()->for_kind)));
  st.replace(site.nest_top.get(), AttrStmt::make(AttrKey::Pragma, "double_buffer", make_int(1), site.nest_top));
}

}  // namespace texc
